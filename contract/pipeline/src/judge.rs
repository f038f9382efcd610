//! Judging an implementation's observation of a pipeline scenario against
//! the reference's (pi 0.85.0's). Unlike the boundary suite, everything
//! here is exact: pi's texts, key orders and event orders are the
//! contract, so each predicate compares one projection of the two
//! observations byte for byte (the trace's entry labels, their order, each
//! entry's content, the toolResult bytes, the provider-call count, the run
//! end) and names the SPEC.md `## pipeline` requirements the difference
//! breaks. What a call *is* (unknown, refused, blocked, executed...) is
//! read from the reference's observation, so that a difference is named by
//! the stage pi stopped at. A difference no predicate can name gives one
//! unnamed violation quoting the first differing trace entry. This file
//! holds the projections and the structure and order predicates;
//! `entries` compares the entries both observations have, `transcript`
//! what the transcript and the model get.
//!
//! A case is judged on the part of the observation its requirements are
//! about, so that one change is named once, by the requirement it breaks,
//! in the cases that exercise it. A message of a role pi's loop never
//! makes itself (`system`: a message neither the prompt, the model, a
//! call nor a queue put there) is about the transcript alone: the other
//! projections leave it out (the order and the count of the case's own
//! entries, the model's context, the hooks' context, `turn_end`'s,
//! `agent_end`'s and the resolved messages), and *leading_messages* judges
//! it once, by PIPE-ORDER-01, in the cases about what goes in the
//! transcript (queued steering or follow-up messages, or hooks recording
//! their context's messages).

use super::requirements as req;
use super::spec::*;
use serde_json::Value as Json;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use toolgate_suite::same_text as same; // as written: `==` ignores keys' order
use toolgate_suite::Violation;

mod entries;
mod transcript;

/// Every requirement a predicate names: all of the suite's, the file
/// queue's (`PIPE-QUEUE-*`) by `file_queue::judge`, the others here.
pub fn checked() -> impl Iterator<Item = &'static str> {
    req::ALL.iter().map(|(id, _)| *id)
}

/// The violations of `actual` against `expected`, the reference's
/// observation of `scenario`; none when the two are the same bytes.
pub fn judge(
    scenario: &PipelineScenario,
    expected: &PipelineObservation,
    actual: &PipelineObservation,
) -> Vec<Violation> {
    // (one observation judged against itself is the same bytes without
    // writing them twice: the properties' self-check, on every fuzz input)
    if std::ptr::eq(expected, actual) || same_text(expected, actual) {
        return Vec::new();
    }
    let mut j = Judging::new(scenario, expected, actual);
    j.shared_names();
    j.run_end();
    j.structure();
    j.order();
    j.contents();
    j.tool_results();
    j.provider_calls();
    j.messages();
    j.leading_messages();
    if expected.uncaught != actual.uncaught {
        j.unexplained(format!(
            "uncaught: expected {}, got {}",
            expected.uncaught, actual.uncaught
        ));
    }
    j.finish()
}

/// Compact JSON text: key order counts (`serde_json`'s `==` ignores it).
fn bytes<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Whether two observations are the same compact JSON text (`==` ignores
/// keys' order).
pub(super) fn same_text(x: &PipelineObservation, y: &PipelineObservation) -> bool {
    toolgate_suite::same_as_written(x, y)
}

/// A value quoted in a message, cut to a readable length.
fn quote(v: &Json) -> String {
    let t = bytes(v);
    match t.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", t.get(..at).unwrap_or_default()),
        None => t,
    }
}

fn keys(v: &Json) -> Vec<&str> {
    v.as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// What a trace entry is, without its content: the event type or
/// invocation with its call, a provider call by index, a latch.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Label {
    /// (borrowed for the fixed names: labels are made for every entry of
    /// every observation a mutant or the judge looks through)
    pub(super) name: Cow<'static, str>,
    pub(super) call: Option<String>,
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.call {
            Some(c) => write!(f, "{}({c})", self.name),
            None => write!(f, "{}", self.name),
        }
    }
}

/// The labels of the events every run has, borrowed where a name is one.
const EVENT_LABELS: [&str; 12] = [
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start:user",
    "message_end:user",
    "message_start:assistant",
    "message_update:assistant",
    "message_end:assistant",
    "message_start",
    "message_update",
    "message_end",
];

/// `ty`, or `ty:role`, borrowed when it is one of [`EVENT_LABELS`] (found
/// without writing the name: labels are made for every entry, again and
/// again, in a fuzz input's judging).
fn known(ty: &str, role: Option<&str>) -> Cow<'static, str> {
    let is = |l: &str| match role {
        None => l == ty,
        Some(role) => l
            .strip_prefix(ty)
            .and_then(|rest| rest.strip_prefix(':'))
            .is_some_and(|rest| rest == role),
    };
    match EVENT_LABELS.iter().find(|l| is(l)) {
        Some(l) => Cow::Borrowed(l),
        None => Cow::Owned(role.map_or_else(|| ty.to_string(), |role| format!("{ty}:{role}"))),
    }
}

pub(super) fn label(entry: &TraceEntry) -> Label {
    let (name, call) = label_parts(entry);
    Label {
        name,
        call: call.map(str::to_string),
    }
}

/// An entry's [`Label`], its call borrowed: what the mutants test entry
/// after entry, without a copy of each call id.
pub(super) fn label_parts(entry: &TraceEntry) -> (Cow<'static, str>, Option<&str>) {
    let fixed = |name: &'static str| Cow::Borrowed(name);
    match entry {
        TraceEntry::Event { event } => {
            let ty = field(event, "type").and_then(Json::as_str).unwrap_or("?");
            let call = field(event, "toolCallId").and_then(Json::as_str);
            let message = field(event, "message");
            let role = message
                .and_then(|m| field(m, "role"))
                .and_then(Json::as_str);
            match (ty, role) {
                ("tool_execution_start", _) => (fixed("start"), call),
                ("tool_execution_update", _) => (fixed("update"), call),
                ("tool_execution_end", _) => (fixed("end"), call),
                ("message_start" | "message_end", Some("toolResult")) => {
                    let id = message.and_then(|m| field(m, "toolCallId"));
                    let name = if ty == "message_start" {
                        "result_start"
                    } else {
                        "result_end"
                    };
                    (fixed(name), id.and_then(Json::as_str))
                }
                ("message_start" | "message_update" | "message_end", Some(role)) => {
                    (known(ty, Some(role)), None)
                }
                _ => (known(ty, None), None),
            }
        }
        TraceEntry::Invoke(inv) => {
            let (name, id) = match inv {
                Invocation::PrepareArguments { tool_call_id, .. } => {
                    ("prepareArguments", tool_call_id)
                }
                Invocation::BeforeToolCall { tool_call_id, .. } => ("beforeToolCall", tool_call_id),
                Invocation::AfterToolCall { tool_call_id, .. } => ("afterToolCall", tool_call_id),
                Invocation::Execute { tool_call_id, .. } => ("execute", tool_call_id),
                Invocation::GetSteeringMessages { index } => {
                    return (Cow::Owned(format!("getSteeringMessages:{index}")), None)
                }
                Invocation::GetFollowUpMessages { index } => {
                    return (Cow::Owned(format!("getFollowUpMessages:{index}")), None)
                }
                Invocation::ShouldStopAfterTurn { index } => {
                    return (Cow::Owned(format!("shouldStopAfterTurn:{index}")), None)
                }
            };
            (fixed(name), Some(id))
        }
        TraceEntry::Provider { index, .. } => (Cow::Owned(format!("provider:{index}")), None),
        TraceEntry::Abort => (fixed("abort"), None),
        TraceEntry::Release { latch } => (Cow::Owned(format!("release:{latch}")), None),
    }
}

/// `v[key]` of an event or message, found by reading its few keys in
/// order: hashing the key for the map's index cost more, for entries
/// labelled again and again in a fuzz input's judging.
fn field<'v>(v: &'v Json, key: &str) -> Option<&'v Json> {
    v.as_object()?
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// One observation with its entries labelled; `len` entries are judged
/// (when the runs end differently, what follows the other run's last entry
/// is a consequence of that end).
struct View<'a> {
    obs: &'a PipelineObservation,
    labels: Vec<Label>,
    len: usize,
}

impl<'a> View<'a> {
    fn new(obs: &'a PipelineObservation) -> Self {
        let labels: Vec<Label> = obs.trace.iter().map(label).collect();
        let len = labels.len();
        View { obs, labels, len }
    }

    /// The judged entries with their index in the trace: not the
    /// messages of a role the loop never makes (`leading_messages`'s).
    fn entries(&self) -> impl Iterator<Item = (usize, &Label, &'a TraceEntry)> + '_ {
        self.labels
            .iter()
            .zip(self.obs.trace.iter())
            .take(self.len)
            .enumerate()
            .filter(|(_, (l, _))| !foreign_message(l))
            .map(|(i, (l, e))| (i, l, e))
    }

    fn positions(&self, name: &str, call: &str) -> Vec<usize> {
        self.entries()
            .filter(|(_, l, _)| l.name == name && l.call.as_deref() == Some(call))
            .map(|(i, _, _)| i)
            .collect()
    }

    fn has(&self, name: &str, call: &str) -> bool {
        !self.positions(name, call).is_empty()
    }

    fn event(&self, name: &str, call: &str) -> Option<&'a Json> {
        let at = *self.positions(name, call).last()?;
        match self.obs.trace.get(at)? {
            TraceEntry::Event { event } => Some(event),
            _ => None,
        }
    }

    fn invoke(&self, name: &str, call: &str) -> Option<&'a Invocation> {
        let at = *self.positions(name, call).first()?;
        match self.obs.trace.get(at)? {
            TraceEntry::Invoke(inv) => Some(inv),
            _ => None,
        }
    }

    /// The call's outcome as (content, isError, details): from its result
    /// message, else from its end event.
    fn outcome(&self, call: &str) -> Option<(Json, Json, Json)> {
        if let Some(m) = self
            .event("result_end", call)
            .and_then(|e| e.get("message"))
        {
            let get = |k: &str| m.get(k).cloned().unwrap_or(Json::Null);
            return Some((get("content"), get("isError"), get("details")));
        }
        let end = self.event("end", call)?;
        let result = end.get("result");
        let get = |k: &str| result.and_then(|r| r.get(k)).cloned().unwrap_or(Json::Null);
        Some((
            get("content"),
            end.get("isError").cloned().unwrap_or(Json::Null),
            get("details"),
        ))
    }

    /// The outcome of every result message of the call (several calls
    /// may share an id), else of every end event, in order.
    fn outcomes(&self, call: &str) -> Vec<(Json, Json, Json)> {
        let event = |at: usize| match self.obs.trace.get(at) {
            Some(TraceEntry::Event { event }) => Some(event),
            _ => None,
        };
        let messages: Vec<(Json, Json, Json)> = (self.positions("result_end", call).into_iter())
            .filter_map(|at| event(at)?.get("message"))
            .map(|m| {
                let get = |k: &str| m.get(k).cloned().unwrap_or(Json::Null);
                (get("content"), get("isError"), get("details"))
            })
            .collect();
        if !messages.is_empty() {
            return messages;
        }
        (self.positions("end", call).into_iter())
            .filter_map(event)
            .map(|end| {
                let result = end.get("result");
                let get = |k: &str| result.and_then(|r| r.get(k)).cloned().unwrap_or(Json::Null);
                (
                    get("content"),
                    end.get("isError").cloned().unwrap_or(Json::Null),
                    get("details"),
                )
            })
            .collect()
    }

    fn text(&self, call: &str) -> Option<String> {
        let (content, _, _) = self.outcome(call)?;
        Some(content.get(0)?.get("text")?.as_str()?.to_string())
    }

    /// Whether the run's signal was aborted before the call's end event.
    fn aborted_before_end(&self, call: &str) -> bool {
        let end = self
            .positions("end", call)
            .first()
            .copied()
            .unwrap_or(self.len);
        self.entries().any(|(i, l, _)| l.name == "abort" && i < end)
    }

    /// Whether the run ended because the turn-stop hook said so: its call
    /// is the entry right before `agent_end`.
    fn stopped_by_the_turn_hook(&self) -> bool {
        let labels: Vec<&Label> = self.entries().map(|(_, l, _)| l).collect();
        labels
            .windows(2)
            .any(|w| matches!(w, [x, y] if stop_hook(x) && y.name == "agent_end"))
    }

    /// Whether messages were queued into the run: a user message after
    /// the first model call (steering or follow-up).
    fn queued_messages(&self) -> bool {
        let first = self
            .entries()
            .position(|(_, l, _)| l.name.starts_with("provider:"));
        self.entries()
            .any(|(i, l, _)| l.name == "message_end:user" && first.is_some_and(|f| i > f))
    }

    fn signal_of(&self, name: &str, call: &str) -> Option<SignalSeen> {
        match self.invoke(name, call)? {
            Invocation::BeforeToolCall { signal, .. }
            | Invocation::AfterToolCall { signal, .. }
            | Invocation::Execute { signal, .. } => Some(*signal),
            _ => None,
        }
    }
}

/// Where pi stopped a call, read from the reference's observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Its turn ended with `error`/`aborted`: no tool phase.
    NotRun,
    /// No start event: an abort cut the batch before it (0.85).
    Cut,
    Length,
    Unknown,
    Aborted,
    Invalid,
    PrepareFailed,
    /// beforeToolCall blocked it or threw.
    Stopped,
    Executed,
    Other,
}

impl Kind {
    /// An outcome decided before execute: in parallel mode its end comes
    /// during preflight (PIPE-ORDER-06).
    fn immediate(self) -> bool {
        matches!(
            self,
            Kind::Unknown | Kind::Invalid | Kind::PrepareFailed | Kind::Stopped | Kind::Aborted
        )
    }
}

/// A label's entries of one call: its name, how many the reference has,
/// how many the implementation's observation has.
type Count = (String, usize, usize);

struct Call<'a> {
    id: &'a str,
    name: &'a str,
    tool: Option<&'a ToolSpec>,
    args_error: bool,
    kind: Kind,
    /// The model turn (from 0) whose assistant message holds the call.
    turn: usize,
}

fn calls<'a>(scenario: &'a PipelineScenario, e: &View<'_>) -> Vec<Call<'a>> {
    let mut out = Vec::new();
    // only the turns the model answered: a later turn's calls never existed
    let answered = usize::try_from(e.obs.provider_calls).unwrap_or(usize::MAX);
    for (n, turn) in scenario.model.iter().enumerate().take(answered) {
        let stop = turn.stop_reason.unwrap_or(StopReason::ToolUse);
        for block in &turn.content {
            let Block::ToolCall(tc) = block else { continue };
            let tool = scenario.tools.iter().find(|t| t.name == tc.name);
            let id = tc.id.as_str();
            let text = e.text(id).unwrap_or_default();
            let kind = if matches!(stop, StopReason::Error | StopReason::Aborted) {
                Kind::NotRun
            } else if !e.has("start", id) {
                Kind::Cut
            } else if stop == StopReason::Length {
                Kind::Length
            } else if tool.is_none() && text != "Operation aborted" {
                // (an execute of the id is another call's that shares it)
                Kind::Unknown
            } else if e.has("execute", id) {
                Kind::Executed
            } else if text == "Operation aborted" {
                Kind::Aborted
            } else if tool.is_none() {
                Kind::Unknown
            } else if text.starts_with("Validation failed for tool ") {
                Kind::Invalid
            } else if e.has("beforeToolCall", id) {
                Kind::Stopped
            } else if e.has("prepareArguments", id) {
                Kind::PrepareFailed
            } else {
                Kind::Other
            };
            out.push(Call {
                id,
                name: tc.name.as_str(),
                tool,
                args_error: tc.arguments_error.is_some(),
                kind,
                turn: n,
            });
        }
    }
    out
}

/// The script a hook runs for a call.
fn script<'a>(body: Option<&'a Body>, call: &str) -> Option<&'a Script> {
    match body? {
        Body::Script(s) => Some(s),
        Body::PerCall(p) => p.calls.get(call).or(p.default.as_ref()),
    }
}

fn throws(body: Option<&Body>, call: &str) -> bool {
    matches!(
        script(body, call).and_then(|s| s.then.as_ref()),
        Some(Outcome::Throw(_))
    )
}

/// What `String(e)` gives for a thrown value, where the scenario says it
/// (`None`: an object, whose text the judge does not model).
fn thrown_text(t: &Thrown) -> Option<String> {
    match t {
        Thrown::Error { error, .. } => Some(error.clone()),
        Thrown::Value { value } => match value {
            Json::String(s) => Some(s.clone()),
            Json::Number(n) => Some(n.to_string()),
            Json::Bool(b) => Some(b.to_string()),
            Json::Null => Some("null".into()),
            v if same(v, &serde_json::json!({"$": "undefined"})) => Some("undefined".into()),
            _ => None,
        },
    }
}

/// Whether a run that ended `end` was rejected by an event listener: a
/// `reject` trigger of the scenario threw what the run rejected with.
/// Whether a case is about what goes in the transcript: it queues steering
/// or follow-up messages, or records the hooks' context. Only there is a
/// message of a role the loop never makes judged (`leading_messages`).
pub(super) fn about_the_transcript(s: &PipelineScenario) -> bool {
    s.config.steering.is_some() || s.config.follow_up.is_some() || s.hook_context
}

pub(super) fn rejected_by_a_listener(s: &PipelineScenario, end: &RunEnd) -> bool {
    let RunEnd::Rejected { message, .. } = end else {
        return false;
    };
    s.triggers.iter().flat_map(|t| &t.actions).any(|a| match a {
        Action::Reject(t) => thrown_text(t).is_none_or(|m| m == *message),
        _ => false,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Parallel,
    Sequential,
}

struct Judging<'a> {
    s: &'a PipelineScenario,
    calls: Vec<Call<'a>>,
    e: View<'a>,
    a: View<'a>,
    named: Vec<Violation>,
    unexplained: Vec<String>,
    /// Calls whose presence (start, end, result) differs for a named reason:
    /// their results missing or extra elsewhere are that reason's.
    explained: BTreeSet<String>,
    outcome_done: BTreeSet<String>,
    ends_differ: bool,
}

impl<'a> Judging<'a> {
    fn new(
        s: &'a PipelineScenario,
        e: &'a PipelineObservation,
        a: &'a PipelineObservation,
    ) -> Self {
        let e = View::new(e);
        let a = View::new(a);
        Judging {
            s,
            calls: calls(s, &e),
            e,
            a,
            named: Vec::new(),
            unexplained: Vec::new(),
            explained: BTreeSet::new(),
            outcome_done: BTreeSet::new(),
            ends_differ: false,
        }
    }

    fn name(&mut self, ids: &[&str], message: String) {
        for id in ids {
            self.named.push(Violation::named(id, message.clone()));
        }
    }

    fn unexplained(&mut self, what: String) {
        self.unexplained.push(what);
    }

    fn call(&self, id: &str) -> Option<&Call<'a>> {
        self.calls.iter().find(|c| c.id == id)
    }

    fn kind(&self, id: &str) -> Kind {
        self.call(id).map_or(Kind::Other, |c| c.kind)
    }

    fn plain_schema(&self, id: &str) -> bool {
        self.call(id)
            .and_then(|c| c.tool)
            .is_some_and(|t| t.parameters_kind == ParametersKind::Json)
    }

    /// One violation per requirement (its first message), then at most one
    /// unnamed one for what no predicate named.
    fn finish(self) -> Vec<Violation> {
        let mut out: Vec<Violation> = Vec::new();
        for v in self.named {
            if !out.iter().any(|o| o.requirement == v.requirement) {
                out.push(v);
            }
        }
        // nothing named: unless messages of a role the loop never makes
        // are the only difference (leading_messages alone judges them),
        // the difference is unexplained (asked only here: writing both
        // observations without those messages is a third of a judgement)
        let foreign_only = || bytes(&own_messages(self.e.obs)) == bytes(&own_messages(self.a.obs));
        if !self.unexplained.is_empty() || (out.is_empty() && !foreign_only()) {
            let (et, at) = (&self.e.obs.trace, &self.a.obs.trace);
            let first =
                (0..et.len().max(at.len())).find(|&i| et.get(i).map(bytes) != at.get(i).map(bytes));
            let show = |t: &Vec<TraceEntry>, i: usize| {
                t.get(i).map_or("nothing".to_string(), |e| {
                    quote(&serde_json::to_value(e).unwrap_or_default())
                })
            };
            let at_entry = first.map_or("the traces are the same".to_string(), |i| {
                format!(
                    "first differing trace entry {i}: expected {}, got {}",
                    show(et, i),
                    show(at, i)
                )
            });
            let what = self
                .unexplained
                .first()
                .cloned()
                .unwrap_or_else(|| "a difference".into());
            out.push(Violation::unnamed(format!("{what}; {at_entry}")));
        }
        out
    }

    /// A call naming a tool several tools share, whose run and result
    /// are what another of those tools gives (the reference run with that
    /// one first): the wrong definition was picked (PIPE-LOOKUP-02: the
    /// first of `context.tools`).
    fn shared_names(&mut self) {
        let seen = |v: &View<'_>, id: &str| {
            let ran = ["prepareArguments", "execute"].map(|n| v.positions(n, id).len());
            (ran, v.outcome(id).map(|o| bytes(&o)))
        };
        let mut found = Vec::new();
        for c in &self.calls {
            let sharers: Vec<usize> = (self.s.tools.iter().enumerate())
                .filter(|(_, t)| t.name == c.name)
                .map(|(i, _)| i)
                .collect();
            let (e, a) = (seen(&self.e, c.id), seen(&self.a, c.id));
            if sharers.len() < 2 || e == a {
                continue;
            }
            let first = sharers.first().copied().unwrap_or_default();
            for &other in sharers.iter().skip(1) {
                let mut alternative = self.s.clone();
                let moved = alternative.tools.remove(other);
                alternative.tools.insert(first, moved);
                let Ok(json) = super::reference::observe(&alternative) else {
                    continue;
                };
                let Ok(obs) = serde_json::from_value::<PipelineObservation>(json) else {
                    continue;
                };
                if seen(&View::new(&obs), c.id) == a {
                    found.push(format!(
                        "call {} names {:?}, which {} tools share: it ran as tool #{other} of that name does, not as the first",
                        c.id,
                        c.name,
                        sharers.len()
                    ));
                    break;
                }
            }
        }
        for message in found {
            self.name(&[req::LOOKUP_02], message);
        }
    }

    /// The run end: how `runAgentLoop` settled.
    fn run_end(&mut self) {
        let (e, a) = (&self.e.obs.end, &self.a.obs.end);
        if e == a {
            return;
        }
        self.ends_differ = true;
        let undefined = [&self.e, &self.a].iter().any(|v| {
            v.entries().any(|(_, l, entry)| match entry {
                TraceEntry::Event { event } if l.name == "end" => event
                    .get("result")
                    .is_some_and(|r| same(r, &serde_json::json!({"$": "undefined"}))),
                _ => false,
            })
        });
        // pi 0.85 lets an awaited listener's rejection end the run
        // (PIPE-ORDER-09, against the seed's "does not escape"): a run that
        // goes on, or ends otherwise, breaks that, not the event order
        let id = if undefined {
            req::RESULT_04
        } else if rejected_by_a_listener(self.s, e) {
            req::ORDER_09
        } else {
            req::ORDER_01
        };
        let msg = format!("the run {}, expected it {}", describe(a), describe(e));
        self.name(&[id], msg);
        // what follows the shorter run's last entry is that end's consequence
        let (short, long) = if self.e.len <= self.a.len {
            (&self.e, &mut self.a)
        } else {
            (&self.a, &mut self.e)
        };
        if let Some(last) = short.labels.last() {
            let nth = short.labels.iter().filter(|l| *l == last).count();
            if let Some((at, _)) = long
                .labels
                .iter()
                .enumerate()
                .filter(|(_, l)| *l == last)
                .nth(nth - 1)
            {
                long.len = at + 1;
            }
        }
    }

    /// Entries present in one observation and not the other, by label.
    fn structure(&mut self) {
        // An id the model reused in another turn is counted per turn (the
        // model turn whose tool phase the entry is in): its calls may have
        // stopped at different stages (one cut by `length`, the next run),
        // and an entry too many is about the call of its own turn.
        let reused: BTreeSet<&str> = (self.calls.iter())
            .filter(|c| self.calls.iter().any(|d| d.id == c.id && d.turn != c.turn))
            .map(|c| c.id)
            .collect();
        let count = |v: &View<'_>| {
            let mut m: BTreeMap<(Label, Option<usize>), usize> = BTreeMap::new();
            let mut turn = 0;
            for (_, l, e) in v.entries() {
                if let TraceEntry::Provider { index, .. } = e {
                    turn = usize::try_from(*index).unwrap_or(usize::MAX);
                }
                let by_turn = l.call.as_deref().is_some_and(|c| reused.contains(c));
                *m.entry((l.clone(), by_turn.then_some(turn))).or_default() += 1;
            }
            m
        };
        let (ec, ac) = (count(&self.e), count(&self.a));
        let all: BTreeSet<&(Label, Option<usize>)> = ec.keys().chain(ac.keys()).collect();
        let providers_differ = self.e.obs.provider_calls != self.a.obs.provider_calls;
        let mut per_call: BTreeMap<(String, Option<usize>), Vec<Count>> = BTreeMap::new();
        let mut loose = Vec::new();
        for key in all {
            let (n, m) = (
                ec.get(key).copied().unwrap_or(0),
                ac.get(key).copied().unwrap_or(0),
            );
            if n == m {
                continue;
            }
            let (l, turn) = key;
            match &l.call {
                Some(c) => {
                    per_call
                        .entry((c.clone(), *turn))
                        .or_default()
                        .push((l.name.to_string(), n, m))
                }
                None if l.name == "abort" || l.name.starts_with("release:") => {
                    loose.push(format!("{l}: {n} expected, got {m}"))
                }
                // the turn-stop hook asked more or less often (1.6 never
                // asks it): PIPE-STOP-03, whatever the model calls did
                None if stop_hook(l) => self.name(
                    &[req::STOP_03],
                    format!("{n} {l} call(s) expected, got {m}"),
                ),
                // another model turn: the provider-call predicate's
                None if providers_differ && !self.ends_differ => {}
                None => self.name(
                    &[req::ORDER_01],
                    format!("{n} {l} event(s) expected, got {m}"),
                ),
            }
        }
        for ((call, turn), diffs) in per_call {
            self.call_structure(&call, turn, &diffs);
        }
        // latches and aborts follow what happened: only unexplained alone
        if self.named.is_empty() {
            if let Some(first) = loose.into_iter().next() {
                self.unexplained(first);
            }
        }
    }

    /// The differences in number of one call's entries (of its call in
    /// `turn` when its id was reused in another turn).
    fn call_structure(&mut self, id: &str, turn: Option<usize>, diffs: &[Count]) {
        let kind = (self.calls.iter())
            .find(|c| c.id == id && turn.is_none_or(|t| c.turn == t))
            .map_or_else(|| self.kind(id), |c| c.kind);
        let plain = self.plain_schema(id);
        let args_error = self.call(id).is_some_and(|c| c.args_error);
        let before_throws = throws(self.s.hooks.before_tool_call.as_ref(), id);
        let lost_execute =
            self.e.positions("execute", id).len() > self.a.positions("execute", id).len();
        let gained_execute =
            self.e.positions("execute", id).len() < self.a.positions("execute", id).len();
        let a_text = self.a.text(id).unwrap_or_default();
        for (tok, n, m) in diffs {
            let msg = format!("call {id}: {n} {tok} expected, got {m}");
            let ids: Vec<&str> = match (kind, tok.as_str()) {
                (Kind::Cut, _) => vec![req::ABORT_03],
                (Kind::NotRun, _) => vec![req::STOP_02],
                // pi rejects before the message when a listener rejects on
                // the call's events: no result (PIPE-ORDER-09)
                (_, "result_start" | "result_end")
                    if *n == 0 && rejected_by_a_listener(self.s, &self.e.obs.end) =>
                {
                    vec![req::ORDER_09]
                }
                (_, "result_start" | "result_end") => vec![req::RESULT_01],
                (_, "start") => vec![req::ORDER_03],
                (_, "end") => vec![req::ORDER_01],
                (Kind::Length, _) => vec![req::STOP_01],
                (Kind::Unknown, _) => vec![req::LOOKUP_01],
                (_, "prepareArguments") => vec![req::PREP_01],
                (Kind::Invalid, _) if gained_execute && plain => {
                    vec![req::VAL_02, req::VAL_06, req::VAL_08]
                }
                (Kind::Invalid, _) if gained_execute => vec![req::VAL_02, req::VAL_06],
                (Kind::Invalid, _) => vec![req::VAL_02],
                (Kind::PrepareFailed, _) => vec![req::PREP_04],
                (Kind::Stopped, _) => {
                    let mut ids = vec![req::HOOK_02];
                    if before_throws {
                        ids.push(req::HOOK_03);
                    }
                    if tok == "afterToolCall" {
                        ids.push(req::HOOK_06);
                    }
                    ids
                }
                (Kind::Aborted, "beforeToolCall")
                    if *m == 0
                        && self.e.signal_of("beforeToolCall", id) == Some(SignalSeen::Aborted) =>
                {
                    vec![req::HOOK_05, req::ABORT_02]
                }
                (Kind::Aborted, "beforeToolCall") => vec![req::HOOK_01],
                (Kind::Aborted, _) => vec![req::ABORT_04],
                (Kind::Executed, _) if lost_execute && args_error => vec![req::VAL_10],
                (Kind::Executed, _)
                    if lost_execute && a_text.starts_with("Validation failed for tool ") =>
                {
                    if plain {
                        vec![req::VAL_06, req::VAL_08]
                    } else {
                        vec![req::VAL_06]
                    }
                }
                (Kind::Executed, _) if lost_execute && a_text == "Operation aborted" => {
                    vec![req::ABORT_05]
                }
                (Kind::Executed, "beforeToolCall") => vec![req::HOOK_01],
                (Kind::Executed, "afterToolCall") => vec![req::HOOK_06],
                (Kind::Executed, "update") => vec![req::ORDER_08],
                (Kind::Executed, _) => vec![req::ORDER_01],
                (Kind::Other, _) => Vec::new(),
            };
            if ids.is_empty() {
                self.unexplained(msg);
            } else {
                if matches!(
                    tok.as_str(),
                    "start" | "end" | "result_start" | "result_end"
                ) {
                    self.explained.insert(id.to_string());
                }
                self.name(&ids, msg);
            }
        }
    }

    /// How the calls ran, from the order of their entries: sequential when
    /// each started after the previous one's last entry.
    fn mode(&self, v: &View<'_>) -> Option<Mode> {
        let started: Vec<&str> = self
            .calls
            .iter()
            .map(|c| c.id)
            .filter(|c| v.has("start", c))
            .collect();
        if started.len() < 2 {
            return None;
        }
        for pair in started.windows(2) {
            let (Some(prev), Some(next)) = (pair.first(), pair.get(1)) else {
                continue;
            };
            let last = v
                .entries()
                .filter(|(_, l, _)| l.call.as_deref() == Some(*prev))
                .map(|(i, _, _)| i)
                .max();
            let start = v.positions("start", next).first().copied();
            if start < last {
                return Some(Mode::Parallel);
            }
        }
        Some(Mode::Sequential)
    }

    /// The order of the entries both observations have.
    fn order(&mut self) {
        let common = |x: &View<'_>, y: &View<'_>| -> Vec<Label> {
            let mut budget: BTreeMap<&Label, usize> = BTreeMap::new();
            for (_, l, _) in y.entries() {
                *budget.entry(l).or_default() += 1;
            }
            let mut out = Vec::new();
            for (_, l, _) in x.entries() {
                if let Some(b) = budget.get_mut(l).filter(|b| **b > 0) {
                    *b -= 1;
                    out.push(l.clone());
                }
            }
            out
        };
        let (es, as_) = (common(&self.e, &self.a), common(&self.a, &self.e));
        if es == as_ {
            return;
        }
        // the turn-stop hook is asked after turn_end (PIPE-STOP-03; 1.6's
        // finishTurn comes before it): each call's turn, counted in the
        // turn_end events before it
        let asked = |seq: &[Label]| -> Vec<(Label, usize)> {
            let mut turns = 0;
            let mut out = Vec::new();
            for l in seq {
                if l.name == "turn_end" {
                    turns += 1;
                } else if stop_hook(l) {
                    out.push((l.clone(), turns));
                }
            }
            out
        };
        if asked(&es) != asked(&as_) {
            self.name(
                &[req::STOP_03],
                format!(
                    "shouldStopAfterTurn asked after {:?} turn_end(s), expected {:?}",
                    asked(&as_).iter().map(|x| x.1).collect::<Vec<_>>(),
                    asked(&es).iter().map(|x| x.1).collect::<Vec<_>>()
                ),
            );
        }
        let (em, am) = (self.mode(&self.e), self.mode(&self.a));
        if let (Some(x), Some(y)) = (em, am) {
            if x != y {
                self.name(
                    &[req::ORDER_07],
                    format!("the batch ran {y:?}, expected {x:?}"),
                );
            }
        }
        let first = |f: &dyn Fn(&Label) -> bool| -> Option<(Label, Label)> {
            let x: Vec<&Label> = es.iter().filter(|l| f(l)).collect();
            let y: Vec<&Label> = as_.iter().filter(|l| f(l)).collect();
            x.iter()
                .zip(&y)
                .find(|(p, q)| p != q)
                .map(|(p, q)| ((*p).clone(), (*q).clone()))
        };
        for c in self
            .calls
            .iter()
            .map(|c| c.id.to_string())
            .collect::<Vec<_>>()
        {
            if let Some((x, y)) = first(&|l| l.call.as_deref() == Some(c.as_str())) {
                let id = if x.name == "update" || y.name == "update" {
                    req::ORDER_08
                } else {
                    req::ORDER_01
                };
                self.name(&[id], format!("call {c}: {y} came where {x} was expected"));
            }
        }
        if let Some((x, y)) = first(&|l| l.name == "result_end") {
            self.name(
                &[req::RESULT_01],
                format!("result messages out of source order: {y} where {x} was expected"),
            );
        }
        if let Some((x, y)) = first(&|l| l.call.is_some()) {
            let immediate = [&x, &y]
                .iter()
                .any(|l| l.call.as_deref().is_some_and(|c| self.kind(c).immediate()));
            let id = match em {
                Some(Mode::Sequential) => req::ORDER_04,
                _ if immediate => req::ORDER_06,
                _ => req::ORDER_05,
            };
            self.name(&[id], format!("{y} came where {x} was expected"));
        } else if let Some((x, y)) = first(&|l| !stop_hook(l)) {
            self.name(&[req::ORDER_01], format!("{y} came where {x} was expected"));
        }
    }
}

/// The roles of the messages pi's loop makes or passes on itself: the
/// prompt and queued messages (`user`), the model's (`assistant`), the
/// calls' (`toolResult`, `toolResult(<id>)` in a list of roles).
fn own_role(role: &str) -> bool {
    matches!(role, "user" | "assistant" | "toolResult") || role.starts_with("toolResult(")
}

/// `obs` as JSON without the messages of a role the loop never makes:
/// their events, and their entries in every list of messages or roles.
fn own_messages(obs: &PipelineObservation) -> Json {
    let mut v = serde_json::to_value(obs).unwrap_or_default();
    let own = |m: &Json| match m {
        Json::String(role) => own_role(role),
        m => m.get("role").and_then(Json::as_str).is_none_or(own_role),
    };
    let keep_own = |list: Option<&mut Json>| {
        if let Some(Json::Array(items)) = list {
            items.retain(own);
        }
    };
    if let Some(Json::Array(trace)) = v.get_mut("trace") {
        trace.retain(|entry| {
            let message = entry.get("event").and_then(|e| e.get("message"));
            message.is_none_or(own)
        });
        for entry in trace.iter_mut() {
            keep_own(entry.get_mut("messages"));
            if let Some(event) = entry.get_mut("event") {
                keep_own(event.get_mut("messages"));
                keep_own(event.get_mut("toolResults"));
            }
        }
    }
    keep_own(v.get_mut("messages"));
    v
}

/// The event of a message of another role (a `system` message).
fn foreign_message(l: &Label) -> bool {
    l.call.is_none()
        && ["message_start:", "message_update:", "message_end:"]
            .iter()
            .any(|p| l.name.strip_prefix(p).is_some_and(|role| !own_role(role)))
}

/// A call of `config.shouldStopAfterTurn`.
fn stop_hook(l: &Label) -> bool {
    l.name.starts_with("shouldStopAfterTurn:")
}

fn describe(end: &RunEnd) -> String {
    match end {
        RunEnd::Resolved => "resolved".into(),
        RunEnd::Rejected { name, message } => format!("rejected with {name}: {message}"),
        RunEnd::Pending => "never ended".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{bytes, same};
    use serde_json::json;

    /// `same` answers as comparing the two texts would, on the cases where
    /// value equality and text equality part: key order, a number's form.
    #[test]
    fn same_is_equality_of_the_texts() {
        let values = [
            json!({"a": 1, "b": [2, {"c": null}]}),
            json!({"b": [2, {"c": null}], "a": 1}),
            json!({"a": 1, "b": [2, {"c": null}, 3]}),
            json!({"a": 1.0, "b": [2, {"c": null}]}),
            json!(0.0),
            json!(-0.0),
            json!(0),
            json!(1e300),
            json!("x"),
            json!(["x"]),
            json!({}),
            json!([]),
        ];
        for x in &values {
            for y in &values {
                assert_eq!(same(x, y), bytes(x) == bytes(y), "{x} against {y}");
            }
        }
        assert!(!same(&values[0], &values[1]), "key order counts");
    }
}
