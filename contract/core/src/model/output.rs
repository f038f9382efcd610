//! The model heap as an [`OutputSource`]: how the serializer sees a tool's
//! output graph. Prototype checks, `length` and slots go through the same
//! host operations as everything else, so proxies trap here exactly as they
//! would in JavaScript (a plain array's slot is read directly: the same
//! answer, without making a key string).

use super::heap::{Node, NodeId, PropKey, Property, Proto, Value};
use super::runtime::{Runtime, Thrown};
use crate::js_string::{JsString, StrRef};
use crate::serializer::{Classified, Entry, Failure, Opened, OutputSource, Refused, Slot};
use std::ops::ControlFlow;

impl OutputSource for Runtime<'_> {
    type Value = Value;
    type Key = JsString;
    type Handle = NodeId;
    type Thrown = Thrown;

    fn classify<'v>(&'v self, value: &'v Value) -> Classified<'v, NodeId> {
        match value {
            Value::Undefined => Classified::Undefined,
            Value::Null => Classified::Null,
            Value::Bool(b) => Classified::Bool(*b),
            Value::Number(n) => Classified::Number(*n),
            Value::String(s) => Classified::Str(s.as_ref()),
            Value::BigInt(b) => Classified::BigInt(b),
            Value::Symbol(_) => Classified::Symbol,
            Value::Ref(id) => {
                if self.is_function(value) {
                    Classified::Function
                } else {
                    Classified::Container(*id)
                }
            }
        }
    }

    fn key_str<'k>(&'k self, key: &'k JsString) -> StrRef<'k> {
        key.as_ref()
    }

    fn open(&self, id: NodeId) -> Result<Opened, Failure<Thrown>> {
        let is_array = self.is_array(id).map_err(Failure::Thrown)?;
        let proto = self.get_prototype_of(id).map_err(Failure::Thrown)?;
        if is_array {
            if !self
                .supported_array_prototype(&proto)
                .map_err(Failure::Thrown)?
            {
                return Err(Failure::Unsupported(Refused::Array));
            }
        } else if !self
            .supported_object_prototype(&proto)
            .map_err(Failure::Thrown)?
        {
            return Err(Failure::Unsupported(Refused::Object));
        }
        if !is_array {
            return Ok(Opened::Object);
        }
        let length = self
            .get_own_property(id, &PropKey::from("length"))
            .map_err(Failure::Thrown)?;
        let length = match length {
            Some(Property::Data {
                value: Value::Number(n),
                ..
            }) if n >= 0.0 && n <= f64::from(u32::MAX) => n as u32,
            _ => 0,
        };
        Ok(Opened::Array { length })
    }

    fn slot(&self, id: NodeId, index: u32) -> Result<Slot<Value>, Thrown> {
        let prop = match self.heap.node(id) {
            // what `get_own_property` answers for an array, without making
            // and parsing the key string
            Some(Node::Array(a)) => a.slots.get(&index).cloned(),
            // a proxy runs its trap for the key
            _ => {
                let key = PropKey::String(JsString::from(index.to_string()));
                self.get_own_property(id, &key)?
            }
        };
        Ok(match prop {
            None => Slot::Hole,
            Some(Property::Accessor { .. }) => Slot::Accessor,
            Some(Property::Data { value, .. }) => Slot::Data(value),
        })
    }

    fn entries(
        &self,
        id: NodeId,
        visit: &mut dyn FnMut(Entry<JsString, Value>) -> ControlFlow<()>,
    ) -> Result<(), Thrown> {
        self.for_in_own(id, &mut |k, prop| match prop {
            Property::Data { value, .. } => visit(Entry::Data(k.clone(), value.clone())),
            Property::Accessor { .. } => visit(Entry::Accessor),
        })
    }
}

/// The course's prototype checks. A prototype of this realm or another is
/// recognised by its shape: for objects, its own prototype is null and its
/// own `constructor` is a function named `Object` whose `prototype` is it;
/// for arrays, its parent passes the object check and its `constructor` is
/// named `Array`. The model's realms are atoms that answer at once; any
/// other prototype node is inspected as far as the course inspects it
/// (`Object.getPrototypeOf`, then the `constructor` descriptor), so a proxy
/// used as a prototype runs those traps, and is refused, because no model
/// function is a realm's `Object` or `Array` constructor.
impl Runtime<'_> {
    fn supported_object_prototype(&self, proto: &Proto) -> Result<bool, Thrown> {
        Ok(match proto {
            Proto::ObjectPrototype | Proto::Null | Proto::OtherRealmObject => true,
            Proto::Node(p) => {
                if self.get_prototype_of(*p)? == Proto::Null {
                    self.get_own_property(*p, &PropKey::from("constructor"))?;
                }
                false
            }
            _ => false,
        })
    }

    fn supported_array_prototype(&self, proto: &Proto) -> Result<bool, Thrown> {
        Ok(match proto {
            Proto::ArrayPrototype | Proto::Null | Proto::OtherRealmArray => true,
            Proto::Node(p) => {
                let parent = self.get_prototype_of(*p)?;
                if self.supported_object_prototype(&parent)? {
                    self.get_own_property(*p, &PropKey::from("constructor"))?;
                }
                false
            }
            _ => false,
        })
    }
}
