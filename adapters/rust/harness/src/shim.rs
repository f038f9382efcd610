//! What a Rust runtime's shim implements and what it is handed: the same
//! contract as the Node and Python shims (`adapters/node/runtimes/SHIM.md`,
//! `adapters/python/runtimes/SHIM.md`) in Rust's terms. The harness turns a
//! case into [`Tool`]s and [`Call`]s, times the abort and encodes what
//! happened; the shim hands the tools and the turn to the runtime's **own**
//! execution path and reports what the model would receive next
//! ([`TurnOutcome`]). A shim never validates, catches, serializes or bounds
//! anything itself: what the runtime does not do, the suite must see not
//! done.

use crate::bodies::{EventKind, OnEvent, ToolEvent};
use crate::values::{Arguments, ToolValue};
use serde_json::Value;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// Who is under test.
#[derive(Debug, Clone)]
pub struct Runtime {
    /// The shim's folder name (`adapters/rust/runtimes/<id>`).
    pub id: &'static str,
    /// The crate under test, as crates.io names it.
    pub package: &'static str,
    /// The exact version the shim is built against: the runtime's own
    /// (a constant it exports, or read from the shim's `Cargo.lock` by a
    /// build script), not a literal, so that a build against another
    /// version than the pinned one reports that version.
    pub version: &'static str,
    /// The execution path the shim drives, in a few words.
    pub path: &'static str,
    pub homepage: Option<&'static str>,
}

/// How an abort of the turn reaches the runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cancellation {
    /// The harness drops the turn's future (what `tokio::time::timeout`,
    /// `select!` or a server's disconnect does: Rust's own cancellation);
    /// the turn is then "aborted". [`Turn::signal`] is cancelled as well.
    #[default]
    Drop,
    /// The harness only cancels [`Turn::signal`]; the shim wires it to the
    /// runtime's own cancellation entry, and `run_turn` returns (or fails)
    /// as the runtime does.
    Signal,
}

/// What a runtime's shim implements (`adapters/rust/SHIM.md`).
pub trait Shim {
    /// Who is under test.
    fn runtime(&self) -> Runtime;

    /// Why the runtime cannot express a case needing `need` at all (one of
    /// [`NEEDS`]), or `None` when it can: such a case is answered "not
    /// applicable" with the reason.
    fn not_applicable(&self, need: &str) -> Option<&'static str> {
        let _ = need;
        None
    }

    /// How an abort reaches the runtime.
    fn cancellation(&self) -> Cancellation {
        Cancellation::Drop
    }

    /// Runs one model turn on the runtime: registers `turn.tools`, has the
    /// (scripted) model make `turn.calls` in one response, and returns what
    /// the model receives next. It may never finish: the harness calls the
    /// turn pending after its settle window. Where the runtime fails the
    /// whole turn, return its error (`?` converts any
    /// `std::error::Error`); a panic out of the turn is recorded the same
    /// way, as the turn rejected.
    fn run_turn(&self, turn: Turn) -> impl Future<Output = Result<TurnOutcome, TurnError>>;
}

/// The capability names a boundary case may need (runner/PROTOCOL.md): a
/// shim's [`Shim::not_applicable`] is asked about each a case needs.
pub const NEEDS: [&str; 6] = [
    "abort",
    "duplicateNames",
    "unknownTool",
    "check",
    "progress",
    "parallel",
];

/// One model turn, to hand to the runtime.
pub struct Turn {
    /// In registration order; names may repeat.
    pub tools: Vec<Tool>,
    /// The model's tool calls of this turn, in one response.
    pub calls: Vec<Call>,
    /// The turn's abort: the harness cancels it (before the turn, while a
    /// named call is pending, after a sibling settled). With
    /// [`Cancellation::Signal`], bridge it to the runtime's own entry.
    pub signal: CancellationToken,
}

/// One tool call of the model's turn.
#[derive(Debug)]
pub struct Call {
    pub id: String,
    pub name: String,
    /// The parsed JSON the model produced (it may be huge: 10^6 keys,
    /// 10^5 levels, a 10 MB string). [`Arguments::text`] is the JSON text a
    /// provider sends, for runtimes that parse arguments themselves.
    pub arguments: Arguments,
}

/// An extra check beside the schema: a message when it refuses.
pub type Check = Arc<dyn Fn(&Value) -> Option<String> + Send + Sync>;

/// A tool body's future: `Send` and `'static`, so a runtime may spawn it.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<ToolValue, ToolError>> + Send>>;

/// A tool body (built by the harness from the case's behaviour).
pub type Body = Arc<dyn Fn(Value, ToolContext) -> ToolFuture + Send + Sync>;

/// One tool of the case, to register on the runtime. Cheap to clone.
#[derive(Clone)]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// The arguments' JSON Schema (draft 2020-12 subset).
    pub input_schema: Value,
    /// Wire it into the runtime's own validation hook where it has one;
    /// where it has none, answer `"check"` in [`Shim::not_applicable`].
    pub check: Option<Check>,
    /// The tool's position in the case's tools.
    pub index: usize,
    /// The case's description of the body (JSON), for a tool run in
    /// another process: build it there with [`crate::body_for`].
    pub behaviour: Value,
    pub(crate) body: Body,
    /// Where this case's tool events go (what [`Tool::relay`] reports to).
    pub(crate) on_event: OnEvent,
}

impl Tool {
    /// Runs the body on `args` (the body ignores them; a 10^5-deep value is
    /// taken apart without recursion). It may return at once, fail with a
    /// [`ToolError`], panic (a case's thrown string or value: Rust's
    /// failure outside the typed error channel), or never finish.
    pub fn call(&self, args: Value, context: ToolContext) -> ToolFuture {
        (self.body)(args, context)
    }

    /// Reports an event of this tool's body run in another process (an
    /// MCP server over stdio builds it there with [`crate::body_for`] from
    /// [`Tool::behaviour`] and sends its events back): its start, a
    /// progress, its settle. The event is timed when it reaches this
    /// process, so the abort's latches wait for it as for a body run here.
    pub fn relay(&self, kind: EventKind, call_id: Option<String>) {
        (self.on_event)(ToolEvent {
            kind,
            index: self.index,
            call_id,
            at: Instant::now(),
        });
    }

    /// The extra check's verdict on `args`: a message when it refuses.
    pub fn refuses(&self, args: &Value) -> Option<String> {
        self.check.as_ref().and_then(|check| check(args))
    }
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("index", &self.index)
            .field("behaviour", &self.behaviour)
            .finish_non_exhaustive()
    }
}

/// What the runtime gives a tool body, as far as it gives anything.
#[derive(Clone, Default)]
pub struct ToolContext {
    /// The call id the runtime gives the tool, if it does.
    pub call_id: Option<String>,
    /// The runtime's progress channel, if any.
    pub progress: Option<Arc<dyn Fn(Value) + Send + Sync>>,
    /// The runtime's own cancellation for this call, if it passes one. Pass
    /// what the runtime passes, never [`Turn::signal`].
    pub signal: Option<CancellationToken>,
}

/// A tool's ordinary failure (a case's `{"error": message}`): what the
/// runtime's error type should carry to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    pub message: String,
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

/// One tool result as the model receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultSeen {
    /// The call id it is linked to, as the model sees it (`None`: none).
    pub call_id: Option<String>,
    /// The error flag the model sees (`None`: the runtime has none).
    pub is_error: Option<bool>,
    /// The result exactly as the next request to the model carries it (the
    /// tool-result part or message content), as JSON.
    pub delivered: Value,
}

/// Registration refused by the runtime: the error's kind and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistrationError {
    pub name: String,
    pub message: String,
}

/// What one turn gave the model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnOutcome {
    /// One entry per tool result the model receives, in the order it
    /// receives them (fewer or more than calls: that is what is judged).
    pub results: Vec<ResultSeen>,
    /// Registration refused: the turn is then not run (`results` empty).
    pub registration_error: Option<RegistrationError>,
    /// Anything the runtime reported on the side: kept, not judged.
    pub notes: Vec<String>,
}

/// The whole turn failed: the runtime's error, named by its type, with
/// whether its `source()` chain reaches the harness's [`Aborted`] (the
/// abort's own value, `carriesAbort`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnError {
    pub name: String,
    pub message: String,
    pub carries_abort: bool,
}

impl TurnError {
    /// A failure named `name` (a panic's: `"panic"`).
    pub fn new(name: impl Into<String>, message: impl Into<String>) -> TurnError {
        TurnError {
            name: name.into(),
            message: message.into(),
            carries_abort: false,
        }
    }
}

impl<E: std::error::Error + 'static> From<E> for TurnError {
    fn from(error: E) -> TurnError {
        let mut carries_abort = false;
        let mut current: Option<&(dyn std::error::Error + 'static)> = Some(&error);
        // a chain is finite unless a `source` loops: bounded all the same
        for _ in 0..1024 {
            let Some(e) = current else { break };
            if e.is::<Aborted>() {
                carries_abort = true;
                break;
            }
            current = e.source();
        }
        TurnError {
            name: short_type_name::<E>(),
            message: error.to_string(),
            carries_abort,
        }
    }
}

/// The abort's own value: the error a shim hands the runtime when it
/// bridges [`Turn::signal`] to an entry that takes an error (a turn that
/// fails with it, or with an error caused by it, "carries the abort").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Aborted;

impl fmt::Display for Aborted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the turn was aborted")
    }
}

impl std::error::Error for Aborted {}

/// `E`'s type name without its module path (`rmcp::ServiceError` is
/// `ServiceError`): what a JavaScript error's `name` is.
fn short_type_name<E>() -> String {
    let full = std::any::type_name::<E>();
    let head = full.split('<').next().unwrap_or(full);
    head.rsplit("::").next().unwrap_or(head).to_string()
}
