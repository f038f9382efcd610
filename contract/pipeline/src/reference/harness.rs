//! What the Node harness (`adapters/node/pipeline/observe.mjs`) puts
//! around pi's loop, for the reference to put around its own: the run's
//! abort signal, latches, the awaited `emit` that records every event and
//! fires the scenario's triggers, the scripted model, and the tools' and
//! hooks' functions that record what they received before running their
//! scripts. The trace it records is the observation's.

use super::jobs::{Promise, Realm};
use super::script::{self, Called, Received};
use super::value::{encode, masked, materialize, stringify, Completion, Obj, Thrown, Val};
use crate::spec::{
    Action, Block, Body, EventMatch, NamedMoment, Outcome, PipelineScenario, Script, StopReason,
    ToolSpec, TriggerOn,
};
use serde_json::{json, Value as Json};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use toolgate_suite::Error;

/// An `AbortSignal`: abort listeners run synchronously, in the order they
/// were added, when it is aborted.
#[derive(Clone)]
pub(crate) struct Signal(Rc<SignalData>);

type Listener = Box<dyn FnOnce()>;

struct SignalData {
    aborted: Cell<bool>,
    listeners: RefCell<Vec<(u64, Listener)>>,
    next_id: Cell<u64>,
}

impl Signal {
    fn new() -> Signal {
        Signal(Rc::new(SignalData {
            aborted: Cell::new(false),
            listeners: RefCell::new(Vec::new()),
            next_id: Cell::new(0),
        }))
    }

    pub(crate) fn aborted(&self) -> bool {
        self.0.aborted.get()
    }

    /// `addEventListener('abort', f, {once: true})`.
    pub(crate) fn listen(&self, f: impl FnOnce() + 'static) -> u64 {
        let id = self.0.next_id.get();
        self.0.next_id.set(id + 1);
        self.0.listeners.borrow_mut().push((id, Box::new(f)));
        id
    }

    pub(crate) fn unlisten(&self, id: u64) {
        self.0.listeners.borrow_mut().retain(|(i, _)| *i != id);
    }

    fn abort(&self) {
        if self.0.aborted.replace(true) {
            return;
        }
        let listeners = std::mem::take(&mut *self.0.listeners.borrow_mut());
        for (_, f) in listeners {
            f();
        }
    }
}

/// What the signal a function received was at the moment of the call.
pub(crate) fn signal_state(signal: Option<&Signal>) -> &'static str {
    match signal {
        None => "none",
        Some(s) if s.aborted() => "aborted",
        Some(_) => "live",
    }
}

struct Latch {
    name: String,
    promise: Promise<()>,
    released: bool,
}

/// One run: the scenario, the realm it runs in, and what is recorded.
pub(crate) struct World {
    pub realm: Realm,
    pub scenario: PipelineScenario,
    controller: Signal,
    /// The signal pi gets (`None` with `"signal": false`).
    pub run_signal: Option<Signal>,
    recording: Cell<bool>,
    trace: RefCell<Vec<Json>>,
    tool_results: RefCell<Vec<Json>>,
    provider_calls: Cell<u32>,
    turns_answered: Cell<usize>,
    latches: RefCell<Vec<Latch>>,
    trigger_counts: RefCell<Vec<u32>>,
    /// Every transcript call's id and arguments object, in order (calls
    /// may share an id; each keeps its own object).
    transcript_args: RefCell<Vec<(String, Val)>>,
    /// The first thing the reference does not model, met during the run.
    refusal: RefCell<Option<Error>>,
    /// Calls of getSteeringMessages, getFollowUpMessages, shouldStopAfterTurn.
    polls: [Cell<usize>; 3],
}

impl World {
    pub(crate) fn new(scenario: PipelineScenario) -> Rc<World> {
        let controller = Signal::new();
        let run_signal = scenario.signal.then(|| controller.clone());
        Rc::new(World {
            realm: Realm::new(),
            trigger_counts: RefCell::new(vec![0; scenario.triggers.len()]),
            scenario,
            controller,
            run_signal,
            recording: Cell::new(true),
            trace: RefCell::new(Vec::new()),
            tool_results: RefCell::new(Vec::new()),
            provider_calls: Cell::new(0),
            turns_answered: Cell::new(0),
            latches: RefCell::new(Vec::new()),
            transcript_args: RefCell::new(Vec::new()),
            refusal: RefCell::new(None),
            polls: Default::default(),
        })
    }

    pub(crate) fn record(&self, entry: Json) {
        if self.recording.get() {
            self.trace.borrow_mut().push(entry);
        }
    }

    pub(crate) fn stop_recording(&self) {
        self.recording.set(false);
    }

    /// Notes something the reference does not model; the run's
    /// observation becomes this error.
    pub(crate) fn refuse(&self, error: Error) {
        self.refusal.borrow_mut().get_or_insert(error);
    }

    pub(crate) fn take_refusal(&self) -> Option<Error> {
        self.refusal.borrow_mut().take()
    }

    pub(crate) fn take_records(&self) -> (Vec<Json>, Vec<Json>, u32) {
        (
            std::mem::take(&mut *self.trace.borrow_mut()),
            std::mem::take(&mut *self.tool_results.borrow_mut()),
            self.provider_calls.get(),
        )
    }

    /// The harness's `abort()`: recorded, then the controller aborted
    /// (its listeners run now).
    pub(crate) fn abort(&self) {
        if self.controller.aborted() {
            return;
        }
        self.record(json!({"kind": "abort"}));
        self.controller.abort();
    }

    /// Latch `name`'s promise (made on first use).
    pub(crate) fn latch(&self, name: &str) -> Promise<()> {
        let mut latches = self.latches.borrow_mut();
        if let Some(l) = latches.iter().find(|l| l.name == name) {
            return l.promise.clone();
        }
        let promise = Promise::pending();
        latches.push(Latch {
            name: name.to_owned(),
            promise: promise.clone(),
            released: false,
        });
        promise
    }

    pub(crate) fn release(&self, name: &str) {
        let promise = self.latch(name);
        {
            let mut latches = self.latches.borrow_mut();
            let Some(l) = latches.iter_mut().find(|l| l.name == name) else {
                return;
            };
            if l.released {
                return;
            }
            l.released = true;
        }
        self.record(json!({"kind": "release", "latch": name}));
        promise.settle(&self.realm, Ok(()));
    }

    /// When a run is abandoned: every latch let go, in creation order.
    pub(crate) fn release_all(&self) {
        let names: Vec<String> = self
            .latches
            .borrow()
            .iter()
            .map(|l| l.name.clone())
            .collect();
        for name in names {
            self.release(&name);
        }
    }

    pub(crate) fn abort_controller(&self) {
        self.controller.abort();
    }

    /// A trigger's actions; a `reject` gives what the emit that fired it
    /// rejects with (the first one).
    fn act(&self, actions: &[Action]) -> Option<Thrown> {
        let mut failure = None;
        for action in actions {
            match action {
                Action::Release(name) => self.release(name),
                Action::Abort(_) => self.abort(),
                Action::Reject(thrown) => {
                    if failure.is_none() {
                        failure = Some(script::thrown(thrown));
                    }
                }
            }
        }
        failure
    }

    /// The `beforeRun` triggers.
    pub(crate) fn before_run(&self) {
        for t in &self.scenario.triggers {
            if matches!(t.on, TriggerOn::Named(NamedMoment::BeforeRun)) {
                if t.actions.iter().any(|a| matches!(a, Action::Reject(_))) {
                    self.refuse(Error::scenario("a \"reject\" action needs an event"));
                }
                self.act(&t.actions);
            }
        }
    }

    /// The harness's `emit`: the event recorded (summarized, as it is
    /// now), a toolResult message's bytes kept, then the triggers; `Some`
    /// when a trigger makes it return a rejected promise.
    pub(crate) fn emit(&self, event: &Val) -> Option<Thrown> {
        self.record(json!({"kind": "event", "event": event_summary(event)}));
        let message = event.get_opt("message");
        if self.recording.get()
            && event.get_opt("type").strict_eq(&Val::str("message_end"))
            && message.get_opt("role").strict_eq(&Val::str("toolResult"))
        {
            match stringify(&masked(&message)) {
                Ok(text) => self.tool_results.borrow_mut().push(json!({
                    "toolCallId": encode(&message.get_opt("toolCallId")),
                    "json": text,
                })),
                Err(e) => self.refuse(e),
            }
        }
        let fired: Vec<usize> = self
            .scenario
            .triggers
            .iter()
            .enumerate()
            .filter_map(|(i, t)| match &t.on {
                TriggerOn::Event(on) if self.matches(on, event, i) => Some(i),
                _ => None,
            })
            .collect();
        let mut failure = None;
        for i in fired {
            if let Some(t) = self.scenario.triggers.get(i) {
                let f = self.act(&t.actions);
                if failure.is_none() {
                    failure = f;
                }
            }
        }
        failure
    }

    /// `config.getSteeringMessages` / `getFollowUpMessages` /
    /// `shouldStopAfterTurn`, if the scenario sets it: called (recorded),
    /// its answer.
    pub(crate) fn poll(&self, of: Poll) -> Option<Val> {
        let config = &self.scenario.config;
        let (name, counter) = match of {
            Poll::Steering => ("getSteeringMessages", &self.polls[0]),
            Poll::FollowUp => ("getFollowUpMessages", &self.polls[1]),
            Poll::StopAfterTurn => ("shouldStopAfterTurn", &self.polls[2]),
        };
        let texts = match of {
            Poll::Steering => config
                .steering
                .as_ref()
                .map(|p| p.get(counter.get()).cloned()),
            Poll::FollowUp => config
                .follow_up
                .as_ref()
                .map(|p| p.get(counter.get()).cloned()),
            Poll::StopAfterTurn => {
                let stops = config.stop_after_turn.as_ref()?;
                let n = counter.get();
                counter.set(n + 1);
                self.record(json!({"kind": "invoke", "of": name, "index": n}));
                return Some(Val::Bool(stops.get(n).copied().unwrap_or(false)));
            }
        }?;
        let n = counter.get();
        counter.set(n + 1);
        self.record(json!({"kind": "invoke", "of": name, "index": n}));
        let messages = texts
            .unwrap_or_default()
            .into_iter()
            .map(|text| {
                let block = Val::object(vec![("type", Val::str("text")), ("text", Val::str(text))]);
                Val::object(vec![
                    ("role", Val::str("user")),
                    ("content", Val::array(vec![block])),
                    ("timestamp", Val::Num(0.0)),
                ])
            })
            .collect();
        Some(Val::array(messages))
    }

    fn matches(&self, on: &EventMatch, event: &Val, index: usize) -> bool {
        if !event
            .get_opt("type")
            .strict_eq(&Val::str(on.event.as_str()))
        {
            return false;
        }
        if let Some(id) = &on.tool_call_id {
            if !event
                .get_opt("toolCallId")
                .strict_eq(&Val::str(id.as_str()))
            {
                return false;
            }
        }
        if let Some(role) = &on.role {
            if !event
                .get_opt("message")
                .get_opt("role")
                .strict_eq(&Val::str(role.as_str()))
            {
                return false;
            }
        }
        let mut counts = self.trigger_counts.borrow_mut();
        let Some(count) = counts.get_mut(index) else {
            return false;
        };
        *count += 1;
        *count == on.nth.unwrap_or(1)
    }

    /// The scripted `streamFn`, called: the provider call recorded, and
    /// the assistant message it will answer (or the harness's throw).
    pub(crate) fn provider_answer(&self, context_messages: &[Val]) -> Completion<Val> {
        let index = self.turns_answered.get();
        self.turns_answered.set(index + 1);
        let aborted = self.run_signal.as_ref().is_some_and(Signal::aborted);
        let roles: Vec<String> = context_messages.iter().map(role_label).collect();
        if self.recording.get() {
            self.provider_calls.set(self.provider_calls.get() + 1);
        }
        self.record(
            json!({"kind": "provider", "index": index, "aborted": aborted, "messages": roles}),
        );
        let turn = self.scenario.model.get(index);
        if aborted && !turn.is_some_and(|t| t.ignore_abort) {
            return Ok(assistant_message(
                Vec::new(),
                "aborted",
                Some("Request was aborted"),
            ));
        }
        let Some(turn) = turn else {
            let text = Val::object(vec![("type", Val::str("text")), ("text", Val::str("done"))]);
            return Ok(assistant_message(vec![text], "stop", None));
        };
        let mut content = Vec::new();
        for block in &turn.content {
            content.push(match block {
                Block::Text(text) => {
                    Val::object(vec![("type", Val::str("text")), ("text", Val::str(text))])
                }
                Block::ToolCall(call) => {
                    let arguments =
                        materialize(&call.arguments, None).map_err(|m| Thrown::Error {
                            name: "Error".to_owned(),
                            message: m,
                        })?;
                    let mut pairs = vec![
                        ("type", Val::str("toolCall")),
                        ("id", Val::str(call.id.as_str())),
                        ("name", Val::str(call.name.as_str())),
                        ("arguments", arguments),
                    ];
                    if let Some(e) = &call.arguments_error {
                        pairs.push(("argumentsError", super::value::from_json(e)));
                    }
                    Val::object(pairs)
                }
            });
        }
        for block in &content {
            if block.get_opt("type").strict_eq(&Val::str("toolCall")) {
                self.remember_arguments(
                    &block.get_opt("id").to_js_string(),
                    block.get_opt("arguments"),
                );
            }
        }
        let reason = match turn.stop_reason.unwrap_or(StopReason::ToolUse) {
            StopReason::ToolUse => "toolUse",
            StopReason::Stop => "stop",
            StopReason::Length => "length",
            StopReason::Error => "error",
            StopReason::Aborted => "aborted",
        };
        Ok(assistant_message(
            content,
            reason,
            turn.error_message.as_deref(),
        ))
    }

    fn remember_arguments(&self, id: &str, args: Val) {
        self.transcript_args
            .borrow_mut()
            .push((id.to_owned(), args));
    }

    /// The call whose transcript arguments object `args` is (the last
    /// such entry, as the harness's loop over the list finds it).
    fn transcript_call(&self, args: &Val) -> Option<String> {
        self.transcript_args
            .borrow()
            .iter()
            .rfind(|(_, a)| a.strict_eq(args))
            .map(|(id, _)| id.clone())
    }
}

fn role_label(m: &Val) -> String {
    let role = m.get_opt("role");
    if role.strict_eq(&Val::str("toolResult")) {
        format!("toolResult({})", m.get_opt("toolCallId").to_js_string())
    } else {
        role.to_js_string()
    }
}

/// An assistant message of the scripted model (pi-scripted-model.mjs).
fn assistant_message(content: Vec<Val>, stop_reason: &str, error: Option<&str>) -> Val {
    let zero = || Val::Num(0.0);
    let usage = Val::object(vec![
        ("input", zero()),
        ("output", zero()),
        ("cacheRead", zero()),
        ("cacheWrite", zero()),
        ("totalTokens", zero()),
        (
            "cost",
            Val::object(vec![
                ("input", zero()),
                ("output", zero()),
                ("cacheRead", zero()),
                ("cacheWrite", zero()),
                ("total", zero()),
            ]),
        ),
    ]);
    let mut pairs = vec![
        ("role", Val::str("assistant")),
        ("content", Val::array(content)),
        ("api", Val::str("toolgate-scripted")),
        ("provider", Val::str("toolgate")),
        ("model", Val::str("toolgate-scripted")),
        ("usage", usage),
        ("stopReason", Val::str(stop_reason)),
    ];
    if let Some(e) = error {
        pairs.push(("errorMessage", Val::str(e)));
    }
    pairs.push(("timestamp", Val::Num(0.0)));
    Val::object(pairs)
}

/// A message as the observation shows it (FORMAT.md, "Message summaries").
pub(crate) fn message_summary(m: &Val) -> Json {
    let Val::Obj(_) = m else {
        return encode(m);
    };
    let role = m.get_opt("role");
    match &role {
        Val::Str(r) if r == "toolResult" => encode(&masked(m)),
        Val::Str(r) if r == "assistant" => {
            let mut out = serde_json::Map::new();
            out.insert("role".into(), Json::String("assistant".into()));
            out.insert("stopReason".into(), encode(&m.get_opt("stopReason")));
            out.insert("content".into(), encode(&m.get_opt("content")));
            let error = m.get_opt("errorMessage");
            if !error.is_undefined() {
                out.insert("errorMessage".into(), encode(&error));
            }
            Json::Object(out)
        }
        Val::Str(r) if r == "system" => {
            let mut out = serde_json::Map::new();
            out.insert("role".into(), Json::String("system".into()));
            if let Val::Obj(tools) = m.get_opt("toolsAdded") {
                if tools.is_array() {
                    let names = tools
                        .entries()
                        .into_iter()
                        .map(|(_, t)| {
                            Json::String(t.get_opt("name").or_else(t.clone()).to_js_string())
                        })
                        .collect();
                    out.insert("toolsAdded".into(), Json::Array(names));
                }
            }
            Json::Object(out)
        }
        _ => json!({"role": role.to_js_string()}),
    }
}

fn event_summary(event: &Val) -> Json {
    let Some(obj) = event.as_obj() else {
        return encode(event);
    };
    let mut out = serde_json::Map::new();
    for (k, v) in obj.entries() {
        let summary = match (k.as_str(), &v) {
            ("message", _) => message_summary(&v),
            ("messages" | "toolResults", Val::Obj(list)) if list.is_array() => Json::Array(
                list.entries()
                    .iter()
                    .map(|(_, m)| message_summary(m))
                    .collect(),
            ),
            ("durationMs", Val::Num(_)) => Json::String("<durationMs>".into()),
            ("assistantMessageEvent", _) => {
                json!({"type": v.get_opt("type").to_js_string()})
            }
            _ => encode(&v),
        };
        out.insert(k, summary);
    }
    Json::Object(out)
}

/// A script, or the one for call `id` of a per-call body.
fn script_for(body: Option<&Body>, id: Option<&str>) -> Script {
    match body {
        None => Script::default(),
        Some(Body::Script(s)) => s.clone(),
        Some(Body::PerCall(per)) => id
            .and_then(|id| per.calls.get(id))
            .or(per.default.as_ref())
            .cloned()
            .unwrap_or_default(),
    }
}

/// The loop's polling functions a scenario may set.
#[derive(Clone, Copy)]
pub(crate) enum Poll {
    Steering,
    FollowUp,
    StopAfterTurn,
}

/// Which hook.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hook {
    Before,
    After,
}

impl World {
    pub(crate) fn has_hook(&self, hook: Hook) -> bool {
        match hook {
            Hook::Before => self.scenario.hooks.before_tool_call.is_some(),
            Hook::After => self.scenario.hooks.after_tool_call.is_some(),
        }
    }

    /// A hook called with pi's context object and signal: recorded, then
    /// its script (default: return `undefined`).
    pub(crate) fn call_hook(
        self: &Rc<Self>,
        hook: Hook,
        ctx: &Obj,
        signal: Option<&Signal>,
    ) -> Called {
        let (of, body) = match hook {
            Hook::Before => (
                "beforeToolCall",
                self.scenario.hooks.before_tool_call.as_ref(),
            ),
            Hook::After => (
                "afterToolCall",
                self.scenario.hooks.after_tool_call.as_ref(),
            ),
        };
        let id = ctx.get("toolCall").get_opt("id");
        let args = ctx.get("args");
        let mut entry = serde_json::Map::new();
        entry.insert("kind".into(), json!("invoke"));
        entry.insert("of".into(), json!(of));
        entry.insert("toolCallId".into(), encode(&id));
        entry.insert("signal".into(), json!(signal_state(signal)));
        entry.insert("keys".into(), json!(ctx.keys()));
        entry.insert("toolCall".into(), encode(&ctx.get("toolCall")));
        entry.insert("args".into(), encode(&args));
        if hook == Hook::After {
            entry.insert("result".into(), encode(&ctx.get("result")));
            entry.insert("isError".into(), encode(&ctx.get("isError")));
        }
        if self.scenario.hook_context {
            let messages = ctx.get("context").get_opt("messages");
            let roles = match messages.as_obj() {
                Some(list) if list.is_array() => {
                    json!(list
                        .entries()
                        .iter()
                        .map(|(_, m)| role_label(m))
                        .collect::<Vec<_>>())
                }
                _ => encode(&messages),
            };
            entry.insert("messages".into(), roles);
        }
        self.record(Json::Object(entry));
        let id = match &id {
            Val::Str(s) => Some(s.as_str()),
            _ => None,
        };
        let script = script_for(body, id);
        let received = Received {
            args: Some(args),
            signal: signal.cloned(),
            on_update: None,
        };
        script::call(
            self,
            &script,
            received,
            &Outcome::Return(json!({"$": "undefined"})),
        )
    }

    /// The tool's `execute(toolCallId, params, signal, onUpdate)`.
    pub(crate) fn call_execute(
        self: &Rc<Self>,
        tool: &ToolSpec,
        id: &Val,
        params: Val,
        signal: Option<&Signal>,
        on_update: Rc<dyn Fn(Val)>,
    ) -> Called {
        self.record(json!({
            "kind": "invoke",
            "of": "execute",
            "toolCallId": encode(id),
            "signal": signal_state(signal),
            "argc": 4,
            "params": encode(&params),
        }));
        let id = match id {
            Val::Str(s) => Some(s.as_str()),
            _ => None,
        };
        let script = script_for(tool.execute.as_ref(), id);
        let fallback = Outcome::Return(json!({
            "content": [{"type": "text", "text": format!("{} ok", tool.name)}],
            "details": {},
        }));
        let received = Received {
            args: Some(params),
            signal: signal.cloned(),
            on_update: Some(on_update),
        };
        script::call(self, &script, received, &fallback)
    }

    /// The tool's `prepareArguments(args)`, run synchronously.
    pub(crate) fn call_prepare(self: &Rc<Self>, tool: &ToolSpec, args: &Val) -> Completion<Val> {
        let id = self.transcript_call(args);
        self.record(json!({
            "kind": "invoke",
            "of": "prepareArguments",
            "toolCallId": id,
            "argc": 1,
            "args": encode(args),
            "argsIsTranscript": id.is_some(),
        }));
        let mut script = script_for(tool.prepare_arguments.as_ref(), id.as_deref());
        script.sync = true;
        let received = Received {
            args: Some(args.clone()),
            signal: None,
            on_update: None,
        };
        match script::call(
            self,
            &script,
            received,
            &Outcome::Return(json!({"$": "args"})),
        ) {
            Called::Sync(c) => c,
            Called::Async(_) => Err(Thrown::type_error(
                "toolgate: prepareArguments is synchronous",
            )),
        }
    }
}
