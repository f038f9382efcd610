//! The boundary suite's scenario and observation, as case files and
//! adapters hold them. A scenario is what any runtime can express: tools
//! declared with a JSON Schema for their arguments (and optionally one extra
//! check), executors described by behaviour, one model turn of calls, and
//! an abort timing. An observation is what the model receives back and what
//! the adapter saw around it (which tools started, what escaped, what it
//! cost). `adapters/node/runtimes/SHIM.md` is the same vocabulary for
//! JavaScript; `behaviour.rs` decodes the parts kept as raw JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// One case's inputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BoundaryScenario {
    /// Registered together, in this order; names may repeat.
    pub tools: Vec<ToolSpec>,
    /// The model's turn: every call in one assistant message.
    pub turn: Vec<TurnCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort: Option<AbortTiming>,
}

/// A tool as the model reads it, with how its body behaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// A JSON Schema (draft 2020-12) of the arguments object.
    pub input_schema: Json,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckSpec>,
    /// See `behaviour::Behaviour` (kept raw here so that decoding errors
    /// name their JSON Pointer).
    pub behaviour: Json,
}

/// An extra argument check beside the schema: refuses the arguments when
/// the property `key` equals `equals` (a Zod `refine`, a TypeBox
/// refinement, a `validate` option in the runtime).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CheckSpec {
    pub key: String,
    pub equals: Json,
    pub message: String,
}

/// One tool call of the model's turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TurnCall {
    pub id: String,
    pub name: String,
    /// A value (`behaviour::Value`): the parsed JSON the model produced,
    /// or one of the large families (`deep`, `wide`, `longString`).
    pub arguments: Json,
}

/// When the turn's signal aborts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub enum AbortTiming {
    /// Before the turn starts.
    Before {},
    /// Once the named call's tool has started and every call that settles
    /// on its own has settled (its behaviour must be `pending`).
    WhilePending(String),
    /// As soon as the named call's tool settles (the turn's other calls
    /// must be `pending`; put the named one first, so a runtime running
    /// tools one at a time reaches it).
    AfterSettled(String),
}

/// What happened in one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BoundaryObservation {
    pub registration: Registration,
    pub turn: TurnEnd,
    /// One entry per tool result the model receives, in that order.
    pub results: Vec<ResultSeen>,
    /// Every start of a tool body, in order.
    pub ran: Vec<RanSeen>,
    /// Unhandled rejections and uncaught exceptions during the case.
    pub uncaught: u32,
    /// What the case cost; absent from the reference's stored expectation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
    /// What the runtime reported on the side (warnings logged...): kept for
    /// people, never judged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// How registering the tools went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub enum Registration {
    Ok,
    /// The runtime refused the tools (a duplicate name); the turn did not
    /// run.
    Refused {
        name: String,
        message: String,
    },
}

/// How the turn ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub enum TurnEnd {
    /// The runtime produced what it sends back to the model.
    Completed,
    /// The turn (the run, `generateText`...) rejected as a whole.
    Rejected {
        name: String,
        message: String,
        /// Whether the turn's signal had aborted when it rejected (`None`:
        /// the adapter does not say).
        #[serde(
            default,
            rename = "afterAbort",
            skip_serializing_if = "Option::is_none"
        )]
        after_abort: Option<bool>,
        /// Whether what it rejected with is the abort's own: the signal's
        /// reason, an error caused by it, an `AbortError`, a
        /// `CancelledError` (`None`: the adapter does not say).
        #[serde(
            default,
            rename = "carriesAbort",
            skip_serializing_if = "Option::is_none"
        )]
        carries_abort: Option<bool>,
    },
    /// Ended by the abort, without results for the calls it stopped.
    Aborted,
    /// Still unsettled after the adapter's settle window.
    Pending,
    /// Not run: the registration was refused.
    NotRun,
}

impl TurnEnd {
    /// A rejection whose relation to the abort the adapter does not say.
    pub fn rejected(name: impl Into<String>, message: impl Into<String>) -> Self {
        TurnEnd::Rejected {
            name: name.into(),
            message: message.into(),
            after_abort: None,
            carries_abort: None,
        }
    }
}

/// One tool result, as the model receives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResultSeen {
    /// The call id it is linked to (`null`: none the model can see).
    pub call_id: Option<String>,
    /// The error flag the model sees (`null`: the runtime has none).
    pub is_error: Option<bool>,
    /// The result exactly as it goes to the model (an adapter may cut
    /// what is too long to send back, saying so in the value).
    pub delivered: Json,
    /// UTF-8 bytes of the whole result as the model receives it, when the
    /// adapter measured it (`delivered` may have been cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<f64>,
}

/// A tool body started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RanSeen {
    /// Index into the scenario's tools.
    pub tool: usize,
    /// The call id the runtime gave the body, if it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Started after the turn's signal aborted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub after_abort: bool,
    /// How this start of the body had settled when the turn ended (`None`:
    /// the adapter does not say). What a rejected or hanging turn is
    /// charged to is read from it (`attribution`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled: Option<Settled>,
}

/// How a tool body's start had settled when the turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Settled {
    /// It returned or resolved.
    Fulfilled,
    /// It threw or rejected.
    Rejected,
    /// It had not settled yet.
    Pending,
}

/// What a case cost, measured by the adapter around the turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Measured {
    /// From the turn's start to its end (or to the end of the settle
    /// window).
    pub wall_ms: f64,
    /// Growth of the adapter process's peak resident memory during the
    /// case.
    pub peak_memory_growth_bytes: f64,
    /// UTF-8 bytes of everything delivered (each result's JSON text).
    pub delivered_bytes: f64,
    /// From the abort to the turn's end, when the case aborts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_to_end_ms: Option<f64>,
    /// Of `wall_ms`, how long the thread that ran the turn was ready to
    /// run but waited for a CPU (Linux's scheduler statistics), where the
    /// adapter can tell: the share of the time that is the machine's load,
    /// not the runtime's work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_wait_ms: Option<f64>,
    /// Of `abort_to_end_ms`, the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_to_end_cpu_wait_ms: Option<f64>,
}

impl Measured {
    /// The turn's time that counts against a bound: its wall time less
    /// its waits for a CPU.
    pub fn turn_ms(&self) -> f64 {
        counted(self.wall_ms, self.cpu_wait_ms)
    }

    /// From the abort to the turn's end, less its waits for a CPU.
    pub fn abort_to_end_counted_ms(&self) -> Option<f64> {
        self.abort_to_end_ms
            .map(|ms| counted(ms, self.abort_to_end_cpu_wait_ms))
    }
}

/// `ms` less `wait` (a wait longer than the span, which an adapter cannot
/// measure, takes all of it).
pub(crate) fn counted(ms: f64, wait: Option<f64>) -> f64 {
    (ms - wait.unwrap_or(0.0).clamp(0.0, ms)).max(0.0)
}
