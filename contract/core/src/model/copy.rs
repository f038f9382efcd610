//! The deep copy of call arguments (step 3), as the course's
//! `snapshotJsonObject` makes it: plain data only, values read with
//! `[[Get]]` (getters and `get` traps run once each), cycles refused.
//! Iterative, so a 10^5-deep argument cannot overflow the stack (the
//! course's copy is recursive; how deep it may go is left to the host, see
//! SPEC.md's CORE-CALL-06).

use super::heap::{NodeId, PropKey, Proto, Value};
use super::runtime::{Copied, CopiedNode, Runtime};
use crate::js_string::JsString;
use crate::Error;
use foldhash::HashSet;

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
        keys: std::vec::IntoIter<JsString>,
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
    let mut on_path: HashSet<NodeId> = HashSet::default();
    let mut copied = 0usize;
    let mut out = Out(Vec::new());
    let mut next = Some(root.clone());
    // made once: a copy opens as many arrays as the arguments hold
    let length = PropKey::from("length");
    loop {
        if let Some(value) = next.take() {
            copied += 1;
            if copied > MAX_COPIED_VALUES {
                return Err(CopyFailure::Model(Error::model(format!(
                    "arguments larger than {MAX_COPIED_VALUES} values"
                ))));
            }
            match open(rt, &value, &length, &mut on_path)? {
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
                    // `Object.hasOwn` (a hole is refused), then `value[index]`
                    let value = rt
                        .read_index(*id, index)
                        .map_err(|_| CopyFailure::Invalid)?
                        .ok_or(CopyFailure::Invalid)?;
                    next = Some(value);
                    None
                } else {
                    on_path.remove(id);
                    Some(CopiedNode::Array(std::mem::take(items)))
                }
            }
            Frame::Object {
                id,
                keys,
                pending_key,
                items,
            } => match keys.next() {
                Some(key) => {
                    // `value[key]`: a key `Object.keys` listed is read with
                    // `[[Get]]` even if it is gone or became an accessor
                    let value = rt
                        .get(&Value::Ref(*id), &PropKey::String(key.clone()))
                        .map_err(|_| CopyFailure::Invalid)?;
                    next = Some(value);
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
    length_key: &PropKey,
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
    if rt.is_array(id).map_err(|_| CopyFailure::Invalid)? {
        // arrays: any prototype; the cycle check, then `value.length`
        if !on_path.insert(id) {
            return Err(CopyFailure::Invalid);
        }
        let length = match rt
            .get(value, length_key)
            .map_err(|_| CopyFailure::Invalid)?
        {
            Value::Number(n) if n >= 0.0 && n <= f64::from(u32::MAX) => n as u32,
            _ => return Err(CopyFailure::Invalid),
        };
        return Ok(Step::Open(Frame::Array {
            id,
            length,
            items: Vec::new(),
        }));
    }
    // objects: the prototype, then the cycle check, then `Object.keys`
    let proto = rt.get_prototype_of(id).map_err(|_| CopyFailure::Invalid)?;
    if !matches!(proto, Proto::ObjectPrototype | Proto::Null) {
        return Err(CopyFailure::Invalid);
    }
    if !on_path.insert(id) {
        return Err(CopyFailure::Invalid);
    }
    let keys = rt.object_keys(id).map_err(|_| CopyFailure::Invalid)?;
    Ok(Step::Open(Frame::Object {
        id,
        keys: keys.into_iter(),
        pending_key: None,
        items: Vec::new(),
    }))
}
