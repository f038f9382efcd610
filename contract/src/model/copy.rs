//! The deep copy of call arguments (step 3): plain data only, getters run
//! once each, cycles refused. Iterative, so a 10^5-deep argument cannot
//! overflow the stack.

use super::heap::{NodeId, PropKey, Property, Proto, Value};
use super::runtime::{Copied, CopiedNode, Runtime};
use crate::js_string::JsString;
use crate::Error;
use std::collections::HashSet;
use std::ops::ControlFlow;

/// Values the model copies before it calls the arguments too large to model.
pub const MAX_COPIED_VALUES: usize = 1_000_000;

/// Why arguments could not be copied.
#[derive(Debug)]
pub enum CopyFailure {
    /// Not plain data, a cycle, or a getter or trap threw: `INVALID_TOOL_CALL`.
    Invalid,
    Model(Error),
}

enum Frame {
    Array {
        id: NodeId,
        length: u32,
        items: Vec<u32>,
    },
    Object {
        id: NodeId,
        props: std::vec::IntoIter<(JsString, Property)>,
        pending_key: Option<JsString>,
        items: Vec<(JsString, u32)>,
    },
}

enum Step {
    Done(CopiedNode),
    Open(Frame),
}

/// The copied nodes so far, children before parents.
struct Out(Vec<CopiedNode>);

impl Out {
    fn push(&mut self, node: CopiedNode) -> u32 {
        self.0.push(node);
        u32::try_from(self.0.len() - 1).unwrap_or(u32::MAX)
    }
}

/// Copies `root` (already known to be a non-array object).
pub fn copy_arguments(rt: &Runtime<'_>, root: &Value) -> Result<Copied, CopyFailure> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut on_path: HashSet<NodeId> = HashSet::new();
    let mut copied = 0usize;
    let mut out = Out(Vec::new());
    let mut next = Some(root.clone());
    loop {
        if let Some(value) = next.take() {
            copied += 1;
            if copied > MAX_COPIED_VALUES {
                return Err(CopyFailure::Model(Error::model(format!(
                    "arguments larger than {MAX_COPIED_VALUES} values"
                ))));
            }
            match open(rt, &value, &mut on_path)? {
                Step::Open(frame) => stack.push(frame),
                Step::Done(c) => {
                    let index = out.push(c);
                    if deliver(&mut stack, index) {
                        return Ok(Copied::from_nodes(out.0));
                    }
                }
            }
        }
        let Some(top) = stack.last_mut() else {
            return Err(CopyFailure::Invalid);
        };
        // find the next value of the top frame, or close it
        let closed = match top {
            Frame::Array { id, length, items } => {
                let index = u32::try_from(items.len()).unwrap_or(u32::MAX);
                if index < *length {
                    let key = PropKey::String(JsString::from(index.to_string()));
                    let prop = rt
                        .get_own_property(*id, &key)
                        .map_err(|_| CopyFailure::Invalid)?
                        .ok_or(CopyFailure::Invalid)?; // a hole
                    next = Some(rt.property_value(prop).map_err(|_| CopyFailure::Invalid)?);
                    None
                } else {
                    on_path.remove(id);
                    Some(CopiedNode::Array(std::mem::take(items)))
                }
            }
            Frame::Object {
                id,
                props,
                pending_key,
                items,
            } => match props.next() {
                Some((key, prop)) => {
                    next = Some(rt.property_value(prop).map_err(|_| CopyFailure::Invalid)?);
                    *pending_key = Some(key);
                    None
                }
                None => {
                    on_path.remove(id);
                    Some(CopiedNode::Object(std::mem::take(items)))
                }
            },
        };
        if let Some(c) = closed {
            stack.pop();
            let index = out.push(c);
            if deliver(&mut stack, index) {
                return Ok(Copied::from_nodes(out.0));
            }
        }
    }
}

/// Gives a finished node to the frame waiting for it; `true` when none
/// waits, so it was the root.
fn deliver(stack: &mut [Frame], index: u32) -> bool {
    match stack.last_mut() {
        None => true,
        Some(Frame::Array { items, .. }) => {
            items.push(index);
            false
        }
        Some(Frame::Object {
            pending_key, items, ..
        }) => {
            let key = pending_key.take().unwrap_or_default();
            items.push((key, index));
            false
        }
    }
}

fn open(
    rt: &Runtime<'_>,
    value: &Value,
    on_path: &mut HashSet<NodeId>,
) -> Result<Step, CopyFailure> {
    let id = match value {
        Value::Null => return Ok(Step::Done(CopiedNode::Null)),
        Value::Bool(b) => return Ok(Step::Done(CopiedNode::Bool(*b))),
        Value::Number(n) if n.is_finite() => return Ok(Step::Done(CopiedNode::Number(*n))),
        Value::String(s) => return Ok(Step::Done(CopiedNode::String(s.clone()))),
        Value::Ref(id) if rt.is_object(value) => *id,
        _ => return Err(CopyFailure::Invalid),
    };
    if !on_path.insert(id) {
        return Err(CopyFailure::Invalid); // a cycle
    }
    if rt.is_array(id).map_err(|_| CopyFailure::Invalid)? {
        let length = match rt
            .get_own_property(id, &PropKey::from("length"))
            .map_err(|_| CopyFailure::Invalid)?
        {
            Some(Property::Data {
                value: Value::Number(n),
                ..
            }) if n >= 0.0 && n <= f64::from(u32::MAX) => n as u32,
            _ => return Err(CopyFailure::Invalid),
        };
        return Ok(Step::Open(Frame::Array {
            id,
            length,
            items: Vec::new(),
        }));
    }
    let proto = rt.get_prototype_of(id).map_err(|_| CopyFailure::Invalid)?;
    if !matches!(proto, Proto::ObjectPrototype | Proto::Null) {
        return Err(CopyFailure::Invalid);
    }
    let mut props = Vec::new();
    rt.own_enumerable(id, &mut |k, p| {
        props.push((k.clone(), p.clone()));
        ControlFlow::Continue(())
    })
    .map_err(|_| CopyFailure::Invalid)?;
    Ok(Step::Open(Frame::Object {
        id,
        props: props.into_iter(),
        pending_key: None,
        items: Vec::new(),
    }))
}
