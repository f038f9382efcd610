//! The pipeline suite's scenario and observation, as case files and
//! adapters hold them (`adapters/node/pipeline/FORMAT.md` explains every
//! field; `corpus/schema/pipeline-*.schema.json` are their JSON Schemas).
//! A scenario is one run of Pi's agent loop: the tools with their
//! schemas and scripted bodies, the hooks, the scripted model's turns and
//! the triggers that release latches and abort; every ordering is a latch
//! or an event, never a time. An observation is everything that happened,
//! in one order: the events, each invocation with what it received, the
//! model calls, the result messages as the bytes a provider would send.
//!
//! Values the scripts produce (`V` in FORMAT.md: JSON with `{"$": ...}`
//! forms) and the encoded values of observations stay raw JSON here; the
//! reference decodes them where it uses them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One run of the loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PipelineScenario {
    /// In a case file the case's name says it instead.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Hook invocations also record the roles of `ctx.context.messages`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub hook_context: bool,
    /// `false`: the run gets no signal at all.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub signal: bool,
    #[serde(default, skip_serializing_if = "Config::is_default")]
    pub config: Config,
    /// `context.tools`, in order (names may repeat).
    pub tools: Vec<ToolSpec>,
    #[serde(default, skip_serializing_if = "Hooks::is_empty")]
    pub hooks: Hooks,
    /// The provider's answers, in order; after them, a text `"done"`.
    pub model: Vec<ModelTurn>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<Trigger>,
}

/// The loop's configuration beyond the hooks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Config {
    /// Absent: not set (pi's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_execution: Option<ExecutionMode>,
    /// Present: `getSteeringMessages` is set; its n-th call answers the
    /// n-th list of user-message texts (then none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steering: Option<Vec<Vec<String>>>,
    /// Present: `getFollowUpMessages` is set, answering as `steering`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up: Option<Vec<Vec<String>>>,
    /// Present: `shouldStopAfterTurn` is set; its n-th call answers the
    /// n-th boolean (then `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_after_turn: Option<Vec<bool>>,
}

impl Config {
    fn is_default(&self) -> bool {
        *self == Config::default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ExecutionMode {
    Parallel,
    Sequential,
}

/// How the schema reaches pi: as plain JSON Schema, or rebuilt with
/// TypeBox's builders (its nodes then carry `~kind`, which pi 0.85's
/// conversion needs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ParametersKind {
    #[default]
    Json,
    Typebox,
}

impl ParametersKind {
    fn is_json(&self) -> bool {
        *self == ParametersKind::Json
    }
}

/// A tool of `context.tools`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A JSON Schema.
    pub parameters: Json,
    #[serde(default, skip_serializing_if = "ParametersKind::is_json")]
    pub parameters_kind: ParametersKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_mode: Option<ExecutionMode>,
    /// Present: the tool defines `prepareArguments` (run synchronously).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepare_arguments: Option<Body>,
    /// Absent: returns `<name> ok` as its one text block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execute: Option<Body>,
}

/// The configured hooks (present: configured).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Hooks {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_tool_call: Option<Body>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_tool_call: Option<Body>,
}

impl Hooks {
    fn is_empty(&self) -> bool {
        *self == Hooks::default()
    }
}

/// The body of a function: one script, or one per call id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Body {
    PerCall(PerCall),
    Script(Script),
}

/// A script per call id, and one for the other calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerCall {
    pub calls: BTreeMap<String, Script>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Script>,
}

/// Steps in order, then an outcome.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// The function is not `async`: a throw is synchronous.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sync: bool,
    #[serde(default, rename = "do", skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// Absent: the function's default outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<Outcome>,
}

/// One step of a script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Step {
    Update {
        update: Json,
    },
    LateUpdate {
        #[serde(rename = "lateUpdate")]
        late_update: LateUpdate,
    },
    /// Wait for a latch; with `onAbort`, honour the signal.
    Wait {
        wait: String,
        #[serde(default, rename = "onAbort", skip_serializing_if = "Option::is_none")]
        on_abort: Option<Outcome>,
    },
    Release {
        release: String,
    },
    Abort {
        abort: bool,
    },
    IfAborted {
        #[serde(rename = "ifAborted")]
        if_aborted: Outcome,
    },
    MutateArgs {
        #[serde(rename = "mutateArgs")]
        mutate_args: Map<String, Json>,
    },
}

/// An update sent when a latch is released, even after execute settled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LateUpdate {
    pub latch: String,
    pub value: Json,
}

/// How a function finishes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    Return(Json),
    Throw(Thrown),
}

/// What a function throws: an `Error` (of a built-in class by `name`), or
/// any value as it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Thrown {
    Error {
        error: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    Value {
        value: Json,
    },
}

/// One answer of the scripted model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ModelTurn {
    /// Absent: `toolUse`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Answer as scripted even when the request's signal is aborted.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ignore_abort: bool,
    pub content: Vec<Block>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    ToolUse,
    Stop,
    Length,
    Error,
    Aborted,
}

/// A content block of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Block {
    Text(String),
    ToolCall(ToolCallSpec),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolCallSpec {
    pub id: String,
    pub name: String,
    pub arguments: Json,
    /// What pi-ai 1.6 sets when it could not parse a call's JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_error: Option<Json>,
}

/// Actions taken before the run or when an event is emitted (once).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Trigger {
    pub on: TriggerOn,
    #[serde(rename = "do")]
    pub actions: Vec<Action>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TriggerOn {
    Named(NamedMoment),
    Event(EventMatch),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NamedMoment {
    BeforeRun,
}

/// The `nth` (default first) emitted event of `event`'s type, for a call
/// or a message role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EventMatch {
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nth: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    Release(String),
    Abort(bool),
    /// The `emit` that fired the trigger returns a promise rejected with
    /// this (an async listener failing); event triggers only.
    Reject(Thrown),
}

/// What happened in one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PipelineObservation {
    pub trace: Vec<TraceEntry>,
    /// Every toolResult message emitted, as the bytes a provider would send.
    pub tool_results: Vec<ToolResultText>,
    pub provider_calls: u32,
    pub end: RunEnd,
    /// The messages the run resolved with, summarized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Json>>,
    pub uncaught: u32,
}

/// One entry of the trace, in the one order everything happened in.
// an invocation is most of a trace, so boxing it would save nothing
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum TraceEntry {
    /// An emitted event, its keys in their order, values encoded.
    Event {
        event: Json,
    },
    Invoke(Invocation),
    /// A model call: whether its signal was aborted, the roles it got.
    Provider {
        index: u32,
        aborted: bool,
        messages: Vec<String>,
    },
    Abort,
    Release {
        latch: String,
    },
}

/// A call of a tool's or a hook's function, with what it received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "of", rename_all = "camelCase")]
pub enum Invocation {
    #[serde(rename_all = "camelCase")]
    PrepareArguments {
        tool_call_id: String,
        argc: u32,
        args: Json,
        /// The object received is the transcript's arguments itself.
        args_is_transcript: bool,
    },
    #[serde(rename_all = "camelCase")]
    BeforeToolCall {
        tool_call_id: String,
        signal: SignalSeen,
        keys: Vec<String>,
        tool_call: Json,
        args: Json,
        /// With `hookContext`: the roles of the context's messages.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        messages: Option<Json>,
    },
    #[serde(rename_all = "camelCase")]
    AfterToolCall {
        tool_call_id: String,
        signal: SignalSeen,
        keys: Vec<String>,
        tool_call: Json,
        args: Json,
        result: Json,
        is_error: Json,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        messages: Option<Json>,
    },
    #[serde(rename_all = "camelCase")]
    Execute {
        tool_call_id: String,
        signal: SignalSeen,
        argc: u32,
        params: Json,
    },
    /// A call of `config.getSteeringMessages` (counted from 0).
    GetSteeringMessages {
        index: u32,
    },
    GetFollowUpMessages {
        index: u32,
    },
    ShouldStopAfterTurn {
        index: u32,
    },
}

/// The signal a function received, at the moment of the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SignalSeen {
    None,
    Live,
    Aborted,
}

/// A toolResult message as `JSON.stringify` writes it (masked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ToolResultText {
    pub tool_call_id: String,
    pub json: String,
}

/// How `runAgentLoop` ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum RunEnd {
    Resolved,
    Rejected { name: String, message: String },
    Pending,
}
