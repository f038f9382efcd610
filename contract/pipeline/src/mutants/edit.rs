//! What the mutants read and edit in an observation: entries by label,
//! the assistant's calls, a call's result text, and every copy of a call's
//! toolResult message (events, summaries, resolved messages, bytes).

use super::super::judge::label_parts;
use super::super::spec::*;
use serde_json::{json, Map, Value as Json};

pub(super) type Obs = PipelineObservation;

/// Indices of the entries labelled `name` for `call`.
pub(super) fn at(o: &Obs, name: &str, call: &str) -> Vec<usize> {
    o.trace
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            let (n, c) = label_parts(e);
            n == name && c == Some(call)
        })
        .map(|(i, _)| i)
        .collect()
}

pub(super) fn first(o: &Obs, name: &str, call: &str) -> Option<usize> {
    at(o, name, call).first().copied()
}

pub(super) fn has(o: &Obs, name: &str, call: &str) -> bool {
    first(o, name, call).is_some()
}

/// The tool calls of the assistant messages: id, tool name, stop reason.
pub(super) fn calls(o: &Obs) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    for e in &o.trace {
        let TraceEntry::Event { event } = e else {
            continue;
        };
        if event.get("type") != Some(&json!("message_end")) {
            continue;
        }
        let Some(m) = event
            .get("message")
            .filter(|m| m.get("role") == Some(&json!("assistant")))
        else {
            continue;
        };
        let stop = m
            .get("stopReason")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_string();
        for b in m
            .get("content")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            let s = |k: &str| b.get(k).and_then(Json::as_str).unwrap_or("").to_string();
            if s("type") == "toolCall" && !out.iter().any(|c| c.0 == s("id")) {
                out.push((s("id"), s("name"), stop.clone()));
            }
        }
    }
    out
}

/// The first call `f` accepts (id, name).
pub(super) fn call_where(
    o: &Obs,
    f: impl Fn(&str, &str, &str) -> bool,
) -> Option<(String, String)> {
    calls(o)
        .into_iter()
        .find(|(id, name, stop)| f(id, name, stop))
        .map(|(id, name, _)| (id, name))
}

pub(super) fn message<'a>(o: &'a Obs, call: &str) -> Option<&'a Json> {
    let i = *at(o, "result_end", call).last()?;
    match o.trace.get(i)? {
        TraceEntry::Event { event } => event.get("message"),
        _ => None,
    }
}

pub(super) fn text(o: &Obs, call: &str) -> Option<String> {
    let t = message(o, call)?.get("content")?.get(0)?.get("text")?;
    Some(t.as_str()?.to_string())
}

/// The call's result text as pi decided it: from its result message, else
/// (a run that rejected before the message phase) from its end event.
pub(super) fn outcome_text(o: &Obs, call: &str) -> Option<String> {
    let content = match message(o, call) {
        Some(m) => m.get("content"),
        None => event(o, *at(o, "end", call).last()?)?
            .get("result")?
            .get("content"),
    };
    Some(content?.get(0)?.get("text")?.as_str()?.to_string())
}

pub(super) fn event(o: &Obs, i: usize) -> Option<&Json> {
    match o.trace.get(i)? {
        TraceEntry::Event { event } => Some(event),
        _ => None,
    }
}

pub(super) fn event_mut(o: &mut Obs, i: usize) -> Option<&mut Map<String, Json>> {
    match o.trace.get_mut(i)? {
        TraceEntry::Event { event } => event.as_object_mut(),
        _ => None,
    }
}

pub(super) fn invocation(o: &Obs, name: &str, call: &str) -> Option<Invocation> {
    match o.trace.get(first(o, name, call)?)? {
        TraceEntry::Invoke(inv) => Some(inv.clone()),
        _ => None,
    }
}

pub(super) fn start_args(o: &Obs, call: &str) -> Option<Json> {
    event(o, first(o, "start", call)?)?.get("args").cloned()
}

pub(super) fn params(o: &Obs, call: &str) -> Option<Json> {
    match invocation(o, "execute", call)? {
        Invocation::Execute { params, .. } => Some(params),
        _ => None,
    }
}

pub(super) fn aborted_before(o: &Obs, i: usize) -> bool {
    o.trace
        .iter()
        .take(i)
        .any(|e| matches!(e, TraceEntry::Abort))
}

/// Applies `f` to every copy of the call's toolResult message: the
/// events, the summaries, the resolved messages, the bytes.
pub(super) fn edit_results(o: &mut Obs, call: &str, f: &dyn Fn(&mut Map<String, Json>)) {
    let visit = |m: &mut Json| {
        let mine = m.get("role") == Some(&json!("toolResult"))
            && m.get("toolCallId") == Some(&json!(call));
        if let Some(m) = m.as_object_mut().filter(|_| mine) {
            f(m);
        }
    };
    for e in &mut o.trace {
        let TraceEntry::Event { event } = e else {
            continue;
        };
        if let Some(m) = event.get_mut("message") {
            visit(m);
        }
        for k in ["toolResults", "messages"] {
            if let Some(l) = event.get_mut(k).and_then(Json::as_array_mut) {
                l.iter_mut().for_each(visit);
            }
        }
    }
    if let Some(l) = &mut o.messages {
        l.iter_mut().for_each(visit);
    }
    for t in o.tool_results.iter_mut().filter(|t| t.tool_call_id == call) {
        if let Ok(mut v) = serde_json::from_str::<Json>(&t.json) {
            visit(&mut v);
            t.json = v.to_string();
        }
    }
}

/// Applies `f` to the call's end event.
pub(super) fn edit_end(o: &mut Obs, call: &str, f: &dyn Fn(&mut Map<String, Json>)) {
    for i in at(o, "end", call) {
        if let Some(e) = event_mut(o, i) {
            f(e);
        }
    }
}

pub(super) fn put_text(content: Option<&mut Json>, t: &str) {
    if let Some(b) = content
        .and_then(|c| c.get_mut(0))
        .and_then(Json::as_object_mut)
    {
        b.insert("text".into(), json!(t));
    }
}

/// The call's result text, everywhere it shows.
pub(super) fn set_text(o: &mut Obs, call: &str, t: &str) {
    edit_results(o, call, &|m| put_text(m.get_mut("content"), t));
    edit_end(o, call, &|e| {
        put_text(e.get_mut("result").and_then(|r| r.get_mut("content")), t)
    });
}

pub(super) fn set_is_error(o: &mut Obs, call: &str, b: bool) {
    edit_results(o, call, &|m| {
        m.insert("isError".into(), json!(b));
    });
    edit_end(o, call, &|e| {
        e.insert("isError".into(), json!(b));
    });
}

/// The first validation failure text rewritten by `f`.
pub(super) fn validation(o: &Obs, f: fn(&str) -> Option<String>) -> Option<Obs> {
    let (id, _) = call_where(o, |id, _, _| {
        text(o, id).is_some_and(|t| t.starts_with("Validation failed for tool "))
    })?;
    let new = f(&text(o, &id)?)?;
    let mut m = o.clone();
    set_text(&mut m, &id, &new);
    Some(m)
}

/// Each `  - path: message` line of a validation text rewritten by `f`.
pub(super) fn lines(t: &str, f: impl Fn(&str, &str) -> Option<String>) -> Option<String> {
    let mut changed = false;
    let out: Vec<String> = t
        .split('\n')
        .map(|l| {
            let new = l
                .strip_prefix("  - ")
                .and_then(|r| r.split_once(": "))
                .and_then(|(p, m)| f(p, m));
            changed |= new.is_some();
            new.unwrap_or_else(|| l.to_string())
        })
        .collect();
    changed.then(|| out.join("\n"))
}

pub(super) fn insert(o: &Obs, i: usize, entry: TraceEntry) -> Obs {
    let mut m = o.clone();
    m.trace.insert(i.min(m.trace.len()), entry);
    m
}

pub(super) fn execute(call: &str, params: Json) -> TraceEntry {
    TraceEntry::Invoke(Invocation::Execute {
        tool_call_id: call.into(),
        signal: SignalSeen::Live,
        argc: 4,
        params,
    })
}

/// A call stopped by beforeToolCall: the hook ran, execute did not, the
/// call has an outcome, and neither an abort nor validation decided it
/// (read from the end event where no result message shows it: an abort
/// seen after the hook gives `Operation aborted` there too; a run a
/// listener rejected may stop after a call's hook, leaving it none).
pub(super) fn blocked(o: &Obs) -> Option<(String, String)> {
    call_where(o, |id, _, _| {
        let Some(t) = outcome_text(o, id) else {
            return false;
        };
        has(o, "beforeToolCall", id)
            && !has(o, "execute", id)
            && t != "Operation aborted"
            && !t.starts_with("Validation failed for tool ")
    })
}

/// Whether the calls ran as a parallel batch: one started before the
/// previous one's last entry.
pub(super) fn parallel(o: &Obs) -> bool {
    let started: Vec<String> = calls(o)
        .into_iter()
        .map(|c| c.0)
        .filter(|c| has(o, "start", c))
        .collect();
    started.windows(2).any(|w| match (w.first(), w.get(1)) {
        (Some(p), Some(n)) => {
            let last = o
                .trace
                .iter()
                .rposition(|e| label_parts(e).1 == Some(p.as_str()));
            first(o, "start", n) < last
        }
        _ => false,
    })
}

/// The run ended (resolved) right after entry `i`: the trace cut there
/// and closed with `agent_end`, whose messages (and the resolved ones)
/// are every message emitted so far; the model calls and result bytes
/// those entries hold.
pub(super) fn end_run_after(o: &Obs, i: usize) -> Option<Obs> {
    let mut m = o.clone();
    m.trace.truncate(i.checked_add(1)?);
    let emitted: Vec<Json> = m
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEntry::Event { event } if event.get("type") == Some(&json!("message_end")) => {
                event.get("message").cloned()
            }
            _ => None,
        })
        .collect();
    let results = emitted
        .iter()
        .filter(|e| e.get("role") == Some(&json!("toolResult")))
        .count();
    m.trace.push(TraceEntry::Event {
        event: json!({"type": "agent_end", "messages": emitted}),
    });
    m.provider_calls = m
        .trace
        .iter()
        .filter(|e| matches!(e, TraceEntry::Provider { .. }))
        .count()
        .try_into()
        .ok()?;
    m.tool_results.truncate(results);
    m.end = RunEnd::Resolved;
    m.messages = Some(emitted);
    Some(m)
}

/// Whether the run ended because `shouldStopAfterTurn` said so: its call
/// is the entry right before `agent_end`.
pub(super) fn stopped_by_the_turn_hook(o: &Obs) -> bool {
    o.trace.windows(2).any(|w| {
        matches!(w, [TraceEntry::Invoke(Invocation::ShouldStopAfterTurn { .. }), e] if label_parts(e).0 == "agent_end")
    })
}

/// The script a hook runs for a call.
pub(super) fn script<'a>(body: Option<&'a Body>, call: &str) -> Option<&'a Script> {
    match body? {
        Body::Script(s) => Some(s),
        Body::PerCall(p) => p.calls.get(call).or(p.default.as_ref()),
    }
}

/// What a hook's script returns for a call, when it returns an object.
pub(super) fn returned<'a>(body: Option<&'a Body>, call: &str) -> Option<&'a Map<String, Json>> {
    match script(body, call)?.then.as_ref()? {
        Outcome::Return(Json::Object(o)) => Some(o),
        _ => None,
    }
}

/// The call's execute invocations with `params`.
pub(super) fn with_params(o: &Obs, call: &str, params: Json) -> Obs {
    let mut m = o.clone();
    for e in &mut m.trace {
        if let TraceEntry::Invoke(Invocation::Execute {
            tool_call_id,
            params: p,
            ..
        }) = e
        {
            if tool_call_id == call {
                *p = params.clone();
            }
        }
    }
    m
}

/// How many assistant messages (`message_end`) hold a tool call `call`.
pub(super) fn calls_in_assistant_messages(o: &Obs, call: &str) -> usize {
    o.trace
        .iter()
        .filter(|e| label_parts(e).0 == "message_end:assistant")
        .filter_map(|e| match e {
            TraceEntry::Event { event } => event.get("message"),
            _ => None,
        })
        .filter(|m| {
            m.get("content")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .any(|b| b.get("id") == Some(&json!(call)))
        })
        .count()
}

/// `o` with one `system` message leading the run's messages, as pi 1.6
/// leads them with its `toolsAdded` message: its start and end events
/// before the user message's, first in every model call's context, in
/// `agent_end`'s messages and in the resolved messages. `None` without a
/// user message.
pub(super) fn with_a_leading_system_message(o: &Obs) -> Option<Obs> {
    let system = json!({"role": "system", "content": [{"type": "text", "text": "tools added"}]});
    let user = o.trace.iter().position(|e| {
        matches!(e, TraceEntry::Event { event }
            if event["type"] == "message_start"
                && event.get("message").and_then(|m| m.get("role")) == Some(&json!("user")))
    })?;
    let mut m = o.clone();
    for (k, kind) in ["message_start", "message_end"].into_iter().enumerate() {
        let event = json!({"type": kind, "message": system.clone()});
        m.trace.insert(user + k, TraceEntry::Event { event });
    }
    for entry in &mut m.trace {
        match entry {
            TraceEntry::Provider { messages, .. } => messages.insert(0, "system".into()),
            TraceEntry::Event { event } if event["type"] == "agent_end" => {
                if let Some(Json::Array(ms)) = event.get_mut("messages") {
                    ms.insert(0, system.clone());
                }
            }
            _ => {}
        }
    }
    if let Some(ms) = &mut m.messages {
        ms.insert(0, system);
    }
    Some(m)
}
