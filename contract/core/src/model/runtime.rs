//! The operations of the model host, the ones JavaScript's object model
//! performs on its own (`typeof`, `Array.isArray`, `Object.getPrototypeOf`,
//! own property descriptors, `[[Get]]`, calls), with proxy traps and getters
//! run as scripted and every effect recorded in the trace.
//!
//! Every operation answers in time bounded by what it is asked, never by the
//! size of the graph, and none panics on any heap [`HeapBuilder::finish`]
//! accepted.
//!
//! [`HeapBuilder::finish`]: super::heap::HeapBuilder::finish

use super::heap::*;
use crate::js_string::JsString;
use crate::signal::{AbortReason, AbortSignal};
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};

/// A value thrown in the model.
#[derive(Debug, Clone, PartialEq)]
pub enum Thrown {
    /// A value a script threw.
    Value(Value),
    /// A `TypeError` the host itself threw, with its message (revoked proxies).
    TypeError(String),
}

/// An argument a function was called with, as the trace records it.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Value(Value),
    /// The frozen copy of a call's arguments (what `validate` receives).
    Copy(Copied),
    /// The frozen `{ signal, toolCallId }` context of `execute`.
    Context {
        tool_call_id: JsString,
    },
    /// A callback the host passed (`then`'s resolve and reject).
    Callback,
}

/// A deep copy of call arguments: plain data only, held flat (children
/// before parents) so that a copy of any depth is cloned, compared and
/// dropped without recursion.
#[derive(Debug, Clone, PartialEq)]
pub struct Copied {
    // a Vec, not a slice: `Arc<[T]>` from the copy's Vec would copy it all
    nodes: Arc<Vec<CopiedNode>>,
}

/// One value of a [`Copied`]; containers refer to earlier nodes by index.
#[derive(Debug, Clone, PartialEq)]
pub enum CopiedNode {
    Null,
    Bool(bool),
    Number(f64),
    String(JsString),
    Array(Vec<u32>),
    Object(Vec<(JsString, u32)>),
}

impl Copied {
    /// A copy whose root is the last node.
    pub fn from_nodes(nodes: Vec<CopiedNode>) -> Copied {
        Copied {
            nodes: Arc::new(nodes),
        }
    }

    pub fn nodes(&self) -> &[CopiedNode] {
        &self.nodes
    }

    /// Index of the root node.
    pub fn root(&self) -> u32 {
        u32::try_from(self.nodes.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    pub fn node(&self, index: u32) -> Option<&CopiedNode> {
        self.nodes.get(index as usize)
    }

    /// The copy as JSON when it is at most `max_depth` deep and has no lone
    /// surrogates; `None` otherwise.
    pub fn to_json(&self, max_depth: usize) -> Option<serde_json::Value> {
        self.node_json(self.root(), max_depth)
    }

    fn node_json(&self, index: u32, depth_left: usize) -> Option<serde_json::Value> {
        use serde_json::Value as J;
        Some(match self.node(index)? {
            CopiedNode::Null => J::Null,
            CopiedNode::Bool(b) => J::Bool(*b),
            CopiedNode::Number(n) => serde_json::Number::from_f64(*n).map_or(J::Null, J::Number),
            CopiedNode::String(s) => J::String(s.to_rust_string()?),
            CopiedNode::Array(items) => {
                let depth_left = depth_left.checked_sub(1)?;
                J::Array(
                    items
                        .iter()
                        .map(|i| self.node_json(*i, depth_left))
                        .collect::<Option<_>>()?,
                )
            }
            CopiedNode::Object(fields) => {
                let depth_left = depth_left.checked_sub(1)?;
                let mut map = serde_json::Map::new();
                for (k, i) in fields {
                    map.insert(k.to_rust_string()?, self.node_json(*i, depth_left)?);
                }
                J::Object(map)
            }
        })
    }
}

/// One effect, in the order it happened.
#[derive(Debug, Clone, PartialEq)]
pub enum TraceEvent {
    /// A function (validator, executor, getter, `then`) was called.
    Called { function: NodeId, args: Vec<Arg> },
    /// A proxy trap ran.
    TrapRan { proxy: NodeId, trap: Trap },
    /// The signal was aborted from inside the model, first time only.
    Aborted { reason: AbortReason },
    /// An abort listener added by [`Effect::ListenForAbort`] fired.
    AbortListenerFired { function: NodeId },
    /// A pending promise settled after the abort; the contract observed and
    /// ignored it.
    LateSettlement { promise: NodeId, rejected: bool },
    /// A native promise returned by a validator got no-op handlers.
    PromiseObserved { promise: NodeId },
}

/// The trace of one scenario, shared with abort listeners.
pub type Trace = Arc<Mutex<Vec<TraceEvent>>>;

/// What a call did besides returning.
#[derive(Debug, Clone, PartialEq)]
pub enum Invoked {
    Returned(Value),
    /// The function called its argument `index` with `value`.
    CalledBack {
        index: usize,
        value: Value,
    },
}

impl Invoked {
    /// The return value as JavaScript sees it.
    pub fn value(self) -> Value {
        match self {
            Invoked::Returned(v) => v,
            Invoked::CalledBack { .. } => Value::Undefined,
        }
    }
}

/// `typeof`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeOf {
    Undefined,
    Object,
    Boolean,
    Number,
    String,
    BigInt,
    Symbol,
    Function,
}

/// The model host at work: a heap, the signal of the current call, the trace.
#[derive(Debug, Clone)]
pub struct Runtime<'h> {
    pub heap: &'h Heap,
    pub signal: AbortSignal,
    pub trace: Trace,
}

impl<'h> Runtime<'h> {
    pub fn new(heap: &'h Heap, signal: AbortSignal, trace: Trace) -> Runtime<'h> {
        Runtime {
            heap,
            signal,
            trace,
        }
    }

    pub fn record(&self, event: TraceEvent) {
        record(&self.trace, event);
    }

    /// Aborts the signal from inside the model.
    pub fn abort(&self, reason: Option<serde_json::Value>) {
        self.abort_with(AbortReason::from_option(reason));
    }

    /// Aborts with `reason` unless already aborted. The abort is recorded
    /// before the listeners it wakes, as `controller.abort()` runs them.
    pub fn abort_with(&self, reason: AbortReason) {
        if !self.signal.is_aborted() {
            self.record(TraceEvent::Aborted {
                reason: reason.clone(),
            });
            self.signal.abort(reason);
        }
    }

    /// Adds an abort listener the way `addEventListener("abort")` does: one
    /// added to an already aborted signal never fires.
    pub fn listen_for_abort(&self, event: TraceEvent) {
        if self.signal.is_aborted() {
            return;
        }
        let trace = self.trace.clone();
        self.signal.on_abort(move |_| record(&trace, event));
    }

    pub fn type_of(&self, value: &Value) -> TypeOf {
        match value {
            Value::Undefined => TypeOf::Undefined,
            Value::Null => TypeOf::Object,
            Value::Bool(_) => TypeOf::Boolean,
            Value::Number(_) => TypeOf::Number,
            Value::String(_) => TypeOf::String,
            Value::BigInt(_) => TypeOf::BigInt,
            Value::Symbol(_) => TypeOf::Symbol,
            Value::Ref(id) => match self.unwrap_proxies(*id).and_then(|t| self.heap.node(t)) {
                Some(Node::Function(_)) => TypeOf::Function,
                _ => TypeOf::Object,
            },
        }
    }

    /// Whether `value` is an object in the contract's sense: `typeof` is
    /// `"object"` and it is not null.
    pub fn is_object(&self, value: &Value) -> bool {
        matches!(value, Value::Ref(_)) && self.type_of(value) == TypeOf::Object
    }

    /// `typeof value === "object" && value !== null || typeof value ===
    /// "function"`: what the course's `isObjectLike` accepts as a definition,
    /// a call, a decision or a thrown value with a message.
    pub fn is_object_like(&self, value: &Value) -> bool {
        matches!(value, Value::Ref(_))
    }

    pub fn is_function(&self, value: &Value) -> bool {
        self.type_of(value) == TypeOf::Function
    }

    fn unwrap_proxies(&self, mut id: NodeId) -> Option<NodeId> {
        for _ in 0..=MAX_CHAIN {
            match self.heap.node(id)? {
                Node::Proxy(p) => id = p.target,
                _ => return Some(id),
            }
        }
        None
    }

    /// Runs the trap of `proxy` for an operation, or throws if revoked.
    fn trap(&self, proxy_id: NodeId, proxy: &ProxyNode, trap: Trap) -> Result<(), Thrown> {
        if proxy.revoked {
            return Err(revoked(trap.js_name()));
        }
        self.record(TraceEvent::TrapRan {
            proxy: proxy_id,
            trap,
        });
        match proxy.trap(trap) {
            TrapBehavior::PassThrough => Ok(()),
            TrapBehavior::Throw(v) => Err(Thrown::Value(v.clone())),
            TrapBehavior::Abort(reason) => {
                self.abort(reason.clone());
                Ok(())
            }
        }
    }

    /// `Array.isArray`.
    pub fn is_array(&self, mut id: NodeId) -> Result<bool, Thrown> {
        for _ in 0..=MAX_CHAIN {
            match self.heap.node(id) {
                Some(Node::Proxy(p)) if p.revoked => return Err(revoked("IsArray")),
                Some(Node::Proxy(p)) => id = p.target,
                Some(Node::Array(_)) => return Ok(true),
                _ => return Ok(false),
            }
        }
        Ok(false)
    }

    /// `Object.getPrototypeOf`.
    pub fn get_prototype_of(&self, mut id: NodeId) -> Result<Proto, Thrown> {
        for _ in 0..=MAX_CHAIN {
            match self.heap.node(id) {
                Some(Node::Proxy(p)) => {
                    self.trap(id, p, Trap::GetPrototypeOf)?;
                    id = p.target;
                }
                Some(Node::Object(o)) => return Ok(o.proto.clone()),
                Some(Node::Array(a)) => return Ok(a.proto.clone()),
                Some(Node::Function(_)) => return Ok(Proto::Builtin(Builtin::Function)),
                Some(Node::Promise(_)) => return Ok(Proto::Builtin(Builtin::Promise)),
                None => return Ok(Proto::Null),
            }
        }
        Ok(Proto::Null)
    }

    /// `Object.getOwnPropertyDescriptor`.
    pub fn get_own_property(
        &self,
        mut id: NodeId,
        key: &PropKey,
    ) -> Result<Option<Property>, Thrown> {
        for _ in 0..=MAX_CHAIN {
            match self.heap.node(id) {
                Some(Node::Proxy(p)) => {
                    self.trap(id, p, Trap::GetOwnPropertyDescriptor)?;
                    id = p.target;
                }
                Some(Node::Object(o)) => return Ok(o.own(key).cloned()),
                Some(Node::Array(a)) => return Ok(array_own(a, key)),
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// `Object.hasOwn(receiver, key) ? Reflect.get(receiver, key) : missing`:
    /// how the course reads a field of a call, a definition, a decision or a
    /// batch. A proxy runs `getOwnPropertyDescriptor`, then `get`; an own
    /// getter runs once. `None` when there is no such own property.
    pub fn read_own(&self, receiver: NodeId, key: &PropKey) -> Result<Option<Value>, Thrown> {
        if self.get_own_property(receiver, key)?.is_none() {
            return Ok(None);
        }
        self.get(&Value::Ref(receiver), key).map(Some)
    }

    /// [`Runtime::read_own`] of array index `index`. An array that is no
    /// proxy is read at its slot without spelling the key out (a copy of
    /// a 10^6-item array reads every index); through a proxy the traps see
    /// the key as a string, as JavaScript gives it.
    pub fn read_index(&self, receiver: NodeId, index: u32) -> Result<Option<Value>, Thrown> {
        match self.heap.node(receiver) {
            Some(Node::Array(a)) => match a.slots.get(&index) {
                Some(prop) => self.property_value(prop.clone()).map(Some),
                None => Ok(None),
            },
            _ => self.read_own(
                receiver,
                &PropKey::String(JsString::from(index.to_string())),
            ),
        }
    }

    /// The value of a property: the data, or what its getter returns.
    pub fn property_value(&self, prop: Property) -> Result<Value, Thrown> {
        match prop {
            Property::Data { value, .. } => Ok(value),
            Property::Accessor { getter: None, .. } => Ok(Value::Undefined),
            Property::Accessor {
                getter: Some(g), ..
            } => self.call(g, Vec::new()).map(Invoked::value),
        }
    }

    /// `value[key]` (`[[Get]]`): own properties, then the prototype chain,
    /// proxies' `get` traps included. Built-in prototypes contribute nothing
    /// the contract reads.
    pub fn get(&self, value: &Value, key: &PropKey) -> Result<Value, Thrown> {
        let Value::Ref(mut id) = value else {
            return Ok(Value::Undefined);
        };
        for _ in 0..=2 * MAX_CHAIN {
            let next = match self.heap.node(id) {
                Some(Node::Proxy(p)) => {
                    self.trap(id, p, Trap::Get)?;
                    p.target
                }
                Some(Node::Object(o)) => match o.own(key) {
                    Some(prop) => return self.property_value(prop.clone()),
                    None => match &o.proto {
                        Proto::Node(next) => *next,
                        _ => return Ok(Value::Undefined),
                    },
                },
                Some(Node::Array(a)) => match array_own(a, key) {
                    Some(prop) => return self.property_value(prop),
                    None => match &a.proto {
                        Proto::Node(next) => *next,
                        _ => return Ok(Value::Undefined),
                    },
                },
                _ => return Ok(Value::Undefined),
            };
            id = next;
        }
        Ok(Value::Undefined)
    }

    /// The serializer's walk of an object's keys, as the course writes it and
    /// V8 runs it: `for (const key in value) { if (!Object.hasOwn(value, key))
    /// continue; <visit>; Object.getOwnPropertyDescriptor(value, key) }`.
    /// Own enumerable string keys in own-key order, until `visit` breaks.
    /// Through a proxy, `for...in` runs `ownKeys` and `getPrototypeOf` first,
    /// then per string key one `getOwnPropertyDescriptor` to learn whether it
    /// is enumerable (hidden keys included), and for an enumerable one a
    /// second (`Object.hasOwn`) before `visit` and a third after it.
    pub fn for_in_own(
        &self,
        id: NodeId,
        visit: &mut dyn FnMut(&JsString, &Property) -> ControlFlow<()>,
    ) -> Result<(), Thrown> {
        let Some(target) = self.unwrap_proxies(id) else {
            return Ok(());
        };
        let Some(Node::Object(o)) = self.heap.node(target) else {
            return Ok(());
        };
        if target == id {
            for (k, prop) in o.enumerable_strings() {
                if visit(k, prop).is_break() {
                    break;
                }
            }
            return Ok(());
        }
        // `ownKeys` reaches down the whole chain, then for...in asks the
        // outer proxy for its prototype
        self.own_keys_traps(id)?;
        self.get_prototype_of(id)?;
        for key in o.keys() {
            let PropKey::String(k) = key else { continue };
            self.get_own_property(id, key)?; // for...in's filter
            let Some(prop) = o.own(key).filter(|prop| prop.enumerable()) else {
                continue;
            };
            self.get_own_property(id, key)?; // Object.hasOwn
            if visit(k, prop).is_break() {
                break;
            }
            self.get_own_property(id, key)?; // the descriptor read
        }
        Ok(())
    }

    /// Runs the `ownKeys` trap of every proxy on the chain from `id`.
    fn own_keys_traps(&self, mut id: NodeId) -> Result<(), Thrown> {
        for _ in 0..=MAX_CHAIN {
            match self.heap.node(id) {
                Some(Node::Proxy(p)) => {
                    self.trap(id, p, Trap::OwnKeys)?;
                    id = p.target;
                }
                _ => return Ok(()),
            }
        }
        Ok(())
    }

    /// `Object.keys(value)`: the own enumerable string keys in own-key
    /// order, as the target holds them. A proxy runs `ownKeys` down its
    /// chain once, then `getOwnPropertyDescriptor` for every string key
    /// (hidden ones included), all before the caller reads any value.
    pub fn object_keys(&self, id: NodeId) -> Result<Vec<JsString>, Thrown> {
        let Some(target) = self.unwrap_proxies(id) else {
            return Ok(Vec::new());
        };
        let Some(Node::Object(o)) = self.heap.node(target) else {
            return Ok(Vec::new());
        };
        if target == id {
            return Ok(o.enumerable_strings().map(|(k, _)| k.clone()).collect());
        }
        self.own_keys_traps(id)?;
        let mut keys = Vec::new();
        for key in o.keys() {
            let PropKey::String(k) = key else { continue };
            // through a proxy, enumerability is only known by asking
            self.get_own_property(id, key)?;
            if o.own(key).is_some_and(Property::enumerable) {
                keys.push(k.clone());
            }
        }
        Ok(keys)
    }

    /// Calls a function node once with `args`; scripts run their effects
    /// then complete. Calling something that is not a function throws a
    /// `TypeError`, as JavaScript does.
    pub fn call(&self, function: NodeId, args: Vec<Arg>) -> Result<Invoked, Thrown> {
        let Some(Node::Function(f)) = self.heap.node(function) else {
            return Err(Thrown::TypeError("value is not a function".into()));
        };
        self.record(TraceEvent::Called { function, args });
        for effect in &f.script.effects {
            match effect {
                Effect::Abort(reason) => self.abort(reason.clone()),
                Effect::ListenForAbort => {
                    self.listen_for_abort(TraceEvent::AbortListenerFired { function })
                }
            }
        }
        match &f.script.completion {
            Completion::ReturnUndefined => Ok(Invoked::Returned(Value::Undefined)),
            Completion::Return(v) => Ok(Invoked::Returned(v.clone())),
            Completion::Throw(v) => Err(Thrown::Value(v.clone())),
            Completion::CallArg { index, value } => Ok(Invoked::CalledBack {
                index: *index,
                value: value.clone(),
            }),
        }
    }

    /// Whether `thrown` is a genuine `NonRecoverableToolError`: an object
    /// carrying the brand only the class's constructor sets. Fields and
    /// prototypes do not count, and no trap or getter runs.
    pub fn is_non_recoverable(&self, thrown: &Thrown) -> bool {
        match thrown {
            Thrown::Value(Value::Ref(id)) => matches!(
                self.heap.node(*id),
                Some(Node::Object(ObjectNode {
                    non_recoverable_brand: true,
                    ..
                }))
            ),
            _ => false,
        }
    }

    /// The failure message of a thrown value: a non-empty string, or the
    /// value of `Object.getOwnPropertyDescriptor(thrown, "message")` when it
    /// is a data property holding a non-empty string. No getter or prototype
    /// is consulted; a thrown proxy runs its `getOwnPropertyDescriptor` trap
    /// (and answers for its target), and a trap that throws gives no message.
    pub fn failure_message(&self, thrown: &Thrown) -> Option<JsString> {
        match thrown {
            Thrown::TypeError(m) => Some(JsString::new(m)),
            Thrown::Value(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Thrown::Value(Value::Ref(id)) => {
                match self.get_own_property(*id, &PropKey::from("message")) {
                    Ok(Some(Property::Data {
                        value: Value::String(s),
                        ..
                    })) if !s.is_empty() => Some(s),
                    _ => None,
                }
            }
            Thrown::Value(_) => None,
        }
    }
}

pub(crate) fn record(trace: &Trace, event: TraceEvent) {
    trace
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push(event);
}

fn revoked(operation: &str) -> Thrown {
    Thrown::TypeError(format!(
        "Cannot perform '{operation}' on a proxy that has been revoked"
    ))
}

fn array_own(a: &ArrayNode, key: &PropKey) -> Option<Property> {
    let PropKey::String(s) = key else {
        return None;
    };
    if *s == "length" {
        return Some(Property::Data {
            value: Value::Number(f64::from(a.length)),
            enumerable: false,
        });
    }
    let index = array_index(s)?;
    a.slots.get(&index).cloned()
}
