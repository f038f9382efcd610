//! The observation format: what an implementation did with a scenario (the
//! outcome of every registration and call, and the effect trace), as serde
//! types, and the encoding of model values into it. Adapters in other
//! languages produce the same JSON; `corpus/README.md` documents it.

use super::build::Built;
use crate::error::ContractCode;
use crate::model::{Arg, Copied, CopiedNode, Node, TraceEvent, Trap, TrapBehavior, Value};
use crate::signal::AbortReason;
use crate::ToolResult;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value as Json};

/// Everything observed of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Observation {
    /// The registry's construction from the scenario's `initial` batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<RegistrationObserved>,
    pub registrations: Vec<RegistrationObserved>,
    pub calls: Vec<CallObserved>,
    /// The registry's names after the scenario, in order.
    pub names: Vec<Json>,
}

/// One `registerMany`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RegistrationObserved {
    pub outcome: Registered,
    #[serde(default)]
    pub trace: Vec<Event>,
}

/// How a registration ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Registered {
    Ok,
    ContractError(ContractCode),
    /// Threw something that is not a contract error (see [`Outcome::Rejected`]).
    Rejected(Json),
}

/// One call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CallObserved {
    pub outcome: Outcome,
    #[serde(default)]
    pub trace: Vec<Event>,
    /// Promise rejections nobody handled while the call ran.
    #[serde(default)]
    pub unhandled_rejections: u32,
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    Result(ResultMessage),
    /// Rejected with the abort reason (`{}` for an `AbortError`).
    Cancelled(ReasonObserved),
    ContractError(ContractCode),
    /// Rejected with the thrown error, the node of that name.
    NonRecoverable(String),
    /// Never settled (a pending executor and no abort).
    Pending,
    /// Rejected with something the contract never throws (a `TypeError`, a
    /// contract error with an unknown code...), described by the adapter.
    /// The reference never gives it; it lets an adapter report what a
    /// broken implementation did instead of failing to observe it.
    Rejected(Json),
}

/// An abort reason as observed: the same form as a scenario's (`{}` for an
/// `AbortError`, `{"reason": <json>}`, `null` kept apart from missing).
pub type ReasonObserved = super::spec::ReasonSpec;

impl From<&AbortReason> for ReasonObserved {
    fn from(r: &AbortReason) -> ReasonObserved {
        match r {
            AbortReason::AbortError => ReasonObserved { reason: None },
            AbortReason::Value(v) => ReasonObserved {
                reason: Some(v.clone()),
            },
        }
    }
}

/// The six fields of a result message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResultMessage {
    pub id: Json,
    pub role: String,
    pub tool_call_id: Json,
    pub tool_name: Json,
    pub content: String,
    pub is_error: bool,
}

/// One effect.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Event {
    Call(CallEvent),
    Trap(TrapEvent),
    Abort(AbortEvent),
    AbortListener(ListenerEvent),
    LateSettlement(LateEvent),
}

/// A function (validator, executor, getter, `then`) was called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallEvent {
    pub call: String,
    pub args: Vec<Json>,
}

/// A proxy trap that throws or aborts ran (pass-through traps are not
/// observable and not recorded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrapEvent {
    pub trap: Trap,
    pub proxy: String,
}

/// The signal aborted (first time only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbortEvent {
    pub abort: ReasonObserved,
}

/// An abort listener added by a function's `listenForAbort` fired.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListenerEvent {
    pub abort_listener: String,
}

/// A pending promise settled after the abort (observed and ignored).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LateEvent {
    pub late_settlement: String,
    pub rejected: bool,
}

/// Copies nested deeper than this are written `{"$": "deep"}` in traces.
pub const MAX_ENCODED_DEPTH: usize = 64;

fn encode_number(n: f64) -> Json {
    if n.is_nan() {
        json!({"$": "number", "value": "NaN"})
    } else if n.is_infinite() {
        json!({"$": "number", "value": if n > 0.0 { "Infinity" } else { "-Infinity" }})
    } else if n == 0.0 && n.is_sign_negative() {
        json!({"$": "number", "value": "-0"})
    } else if n.fract() == 0.0 && n.abs() < 9_223_372_036_854_775_808.0 {
        // integral doubles as JSON integers, as JavaScript writes them, so
        // observations compare equal whichever language produced them
        Json::from(n as i64)
    } else if n.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&n) {
        Json::from(n as u64)
    } else {
        serde_json::Number::from_f64(n).map_or(Json::Null, Json::Number)
    }
}

/// A model value as JSON: scalars as in scenarios, nodes as `{"ref": name}`.
pub fn encode_value(built: &Built, v: &Value) -> Json {
    match v {
        Value::Undefined => json!({"$": "undefined"}),
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => encode_number(*n),
        Value::String(s) => s.to_json(),
        Value::BigInt(b) => match b.decimal() {
            Some(d) => json!({"$": "bigint", "decimal": d}),
            None => json!({"$": "bigint", "beyond": "2^4096"}),
        },
        Value::Symbol(id) => json!({"$": "symbol", "id": id}),
        Value::Ref(id) => json!({"ref": built.name(*id)}),
    }
}

/// A deep copy of arguments as JSON: objects and arrays as JSON (an object
/// with a `$` or `ref` key as `{"$": "object", "entries": [[k, v]...]}`), special
/// numbers and lone surrogates tagged, deeper than [`MAX_ENCODED_DEPTH`] as
/// `{"$": "deep"}`.
pub fn encode_copy(copy: &Copied) -> Json {
    encode_copied_node(copy, copy.root(), 0)
}

fn encode_copied_node(copy: &Copied, index: u32, depth: usize) -> Json {
    let Some(node) = copy.node(index) else {
        return Json::Null;
    };
    let nested = matches!(node, CopiedNode::Array(_) | CopiedNode::Object(_));
    if nested && depth >= MAX_ENCODED_DEPTH {
        return json!({"$": "deep"});
    }
    match node {
        CopiedNode::Null => Json::Null,
        CopiedNode::Bool(b) => Json::Bool(*b),
        CopiedNode::Number(n) => encode_number(*n),
        CopiedNode::String(s) => s.to_json(),
        CopiedNode::Array(items) => Json::Array(
            items
                .iter()
                .map(|i| encode_copied_node(copy, *i, depth + 1))
                .collect(),
        ),
        CopiedNode::Object(fields) => {
            // `$` and `ref` keys would read as tags: such objects use the entries form
            let tagged_key = fields.iter().any(|(k, _)| *k == "$" || *k == "ref");
            let lossy_key = fields.iter().any(|(k, _)| k.to_rust_string().is_none());
            if tagged_key || lossy_key {
                let entries = fields
                    .iter()
                    .map(|(k, i)| json!([k.to_json(), encode_copied_node(copy, *i, depth + 1)]))
                    .collect::<Vec<_>>();
                return json!({"$": "object", "entries": entries});
            }
            let mut map = Map::new();
            for (k, i) in fields {
                map.insert(k.to_string_lossy(), encode_copied_node(copy, *i, depth + 1));
            }
            Json::Object(map)
        }
    }
}

fn encode_arg(built: &Built, arg: &Arg) -> Json {
    match arg {
        Arg::Value(v) => encode_value(built, v),
        Arg::Copy(c) => encode_copy(c),
        Arg::Context { tool_call_id } => {
            json!({"$": "context", "toolCallId": tool_call_id.to_json()})
        }
        Arg::Callback => json!({"$": "callback"}),
    }
}

/// The observable events of a model trace.
pub fn encode_trace(built: &Built, trace: &[TraceEvent]) -> Vec<Event> {
    trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Called { function, args } => Some(Event::Call(CallEvent {
                call: built.name(*function).to_string(),
                args: args.iter().map(|a| encode_arg(built, a)).collect(),
            })),
            TraceEvent::TrapRan { proxy, trap } => {
                let observable = match built.heap.node(*proxy) {
                    Some(Node::Proxy(p)) => !matches!(p.trap(*trap), TrapBehavior::PassThrough),
                    _ => false,
                };
                observable.then(|| {
                    Event::Trap(TrapEvent {
                        trap: *trap,
                        proxy: built.name(*proxy).to_string(),
                    })
                })
            }
            TraceEvent::Aborted { reason } => Some(Event::Abort(AbortEvent {
                abort: reason.into(),
            })),
            TraceEvent::AbortListenerFired { function } => {
                Some(Event::AbortListener(ListenerEvent {
                    abort_listener: built.name(*function).to_string(),
                }))
            }
            TraceEvent::LateSettlement { promise, rejected } => {
                Some(Event::LateSettlement(LateEvent {
                    late_settlement: built.name(*promise).to_string(),
                    rejected: *rejected,
                }))
            }
            TraceEvent::PromiseObserved { .. } => None,
        })
        .collect()
}

/// A result message as observed.
pub fn encode_result(r: &ToolResult) -> ResultMessage {
    ResultMessage {
        id: r.id.to_json(),
        role: r.role().to_string(),
        tool_call_id: r.tool_call_id.to_json(),
        tool_name: r.tool_name.to_json(),
        content: r.content.clone(),
        is_error: r.is_error,
    }
}
