//! Deliberate breakages of a pipeline observation, as data: each mutant
//! takes the reference's observation of a scenario and breaks it the way a
//! re-implementation of Pi's pipeline plausibly would (a result message
//! lost or sent twice, a refused call run anyway, a hook run after a
//! block, the seed's wording instead of pi's, the terminate vote
//! ignored...), and names the requirements the judge must name for it.
//! A mutant reads the observation: it fits where the observation shows
//! what it breaks (`None` elsewhere), so it applies to any recorded or
//! generated scenario. A few also read the scenario, where only the
//! scenario says what a function was given back (a hook's `null` patch
//! field, the `args` a hook returned, a listener that rejects): a broken
//! implementation runs the scenario too. `edit` holds what they read and
//! edit.

use super::judge::{about_the_transcript, label, label_parts, rejected_by_a_listener, same_text};
use super::requirements as req;
use super::spec::*;
use serde_json::{json, Map, Value as Json};
use toolgate_suite::mutant::Expect;

/// One deliberate breakage.
pub struct Mutant {
    pub id: &'static str,
    pub description: &'static str,
    /// What the judge must name wherever the mutant fits: every one of
    /// its requirements.
    pub expect: Expect,
    /// The broken observation of the scenario, or `None` when it does not
    /// fit.
    pub apply: fn(&PipelineScenario, &PipelineObservation) -> Option<PipelineObservation>,
}

mod edit;

use edit::*;

impl Mutant {
    /// The broken observation where the mutant fits `o` and changes it:
    /// not where the model asks for two calls with one id, in one tool
    /// turn or in two, whether or not both start (a mutant finds and edits
    /// a call by its id, and the judge reads the events by id, so which
    /// call it broke would be ambiguous: found by the `pipeline_fast`
    /// target on 2026-12-05, a refused call reusing the id of a call cut by
    /// `length` a turn before, whose inserted `execute` landed in the cut
    /// call; and by the `pipeline` target the same day, a batch `c1, c2,
    /// c2` whose hook aborted the run at the first `c2`, which ran
    /// sequentially read as PIPE-ORDER-06's order of events), nor where a
    /// `prepareArguments` entry names another call than the one it ran for
    /// (the judge reads where pi stopped a call from the entries naming
    /// it), nor where it happens to change nothing.
    pub fn fit(
        &self,
        s: &PipelineScenario,
        o: &PipelineObservation,
    ) -> Option<PipelineObservation> {
        if none_fits(s, o) {
            return None;
        }
        let broken = (self.apply)(s, o)?;
        // equal values may still differ in key order, which the judge reads
        (!same_text(&broken, o)).then_some(broken)
    }
}

/// Whether no mutant fits the observation `o` of `s`, whatever it edits
/// (see [`Mutant::fit`]): a caller trying many mutants asks once.
pub fn none_fits(s: &PipelineScenario, o: &PipelineObservation) -> bool {
    repeats_a_call_id(s, o) || misnames_a_prepare(o)
}

/// Whether the model asks for two calls with one id, or the run starts two
/// (in one tool turn, or in two).
fn repeats_a_call_id(s: &PipelineScenario, o: &PipelineObservation) -> bool {
    let asked = s
        .model
        .iter()
        .flat_map(|turn| &turn.content)
        .filter_map(|block| match block {
            Block::ToolCall(call) => Some(call.id.as_str()),
            Block::Text(_) => None,
        });
    let started = o.trace.iter().filter_map(|entry| match entry {
        TraceEntry::Event { event } if event["type"] == "tool_execution_start" => {
            Some(event["toolCallId"].as_str().unwrap_or_default())
        }
        _ => None,
    });
    repeats(asked) || repeats(started)
}

/// Whether an id comes twice.
fn repeats<'a>(ids: impl Iterator<Item = &'a str>) -> bool {
    let mut seen = std::collections::HashSet::new();
    ids.into_iter().any(|id| !seen.insert(id))
}

/// Whether a `prepareArguments` entry names another call than the one
/// whose start precedes it (pi prepares each call right after its start
/// event). The harness names the call by the transcript arguments object
/// prepare received, and the arguments of calls that got the same
/// primitive (both `null`, one string) are strictly equal: it then names
/// the last of them, so a call that never started seems prepared, and the
/// one prepared seems not to be.
fn misnames_a_prepare(o: &PipelineObservation) -> bool {
    let mut started: Option<&str> = None;
    for entry in &o.trace {
        match entry {
            TraceEntry::Event { event } if event["type"] == "tool_execution_start" => {
                started = event["toolCallId"].as_str();
            }
            TraceEntry::Invoke(Invocation::PrepareArguments { tool_call_id, .. })
                if started != Some(tool_call_id.as_str()) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// Every mutant, in the order they are tried.
pub const ALL: &[Mutant] = &[
    Mutant {
        id: "a-result-message-lost",
        description: "the last call's toolResult message is never emitted",
        expect: Expect::EveryOf(&[req::RESULT_01]),
        apply: |_, o| {
            let (id, _) = calls(o).into_iter().rev().find(|c| has(o, "result_end", &c.0)).map(|c| (c.0, c.1))?;
            let mut m = o.clone();
            m.trace.retain(|e| {
                let (name, call) = label_parts(e);
                !(call == Some(id.as_str()) && name.starts_with("result_"))
            });
            m.tool_results.retain(|t| t.tool_call_id != id);
            Some(m)
        },
    },
    Mutant {
        id: "a-result-message-twice",
        description: "the first call's toolResult message is emitted twice",
        expect: Expect::EveryOf(&[req::RESULT_01]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| has(o, "result_end", id))?;
            let mut m = o.clone();
            let (s, e) = (first(o, "result_start", &id)?, first(o, "result_end", &id)?);
            let copies = [o.trace.get(s)?.clone(), o.trace.get(e)?.clone()];
            for (k, c) in copies.into_iter().enumerate() {
                m.trace.insert(e + 1 + k, c);
            }
            let t = o.tool_results.iter().position(|t| t.tool_call_id == id)?;
            m.tool_results.insert(t + 1, o.tool_results.get(t)?.clone());
            Some(m)
        },
    },
    Mutant {
        id: "ends-swapped",
        description: "in a parallel batch, two executed calls' end events trade places",
        expect: Expect::EveryOf(&[req::ORDER_05]),
        apply: |_, o| {
            if !parallel(o) {
                return None;
            }
            let ran: Vec<usize> = calls(o).iter().filter_map(|c| first(o, "execute", &c.0).and(first(o, "end", &c.0))).collect();
            let (i, j) = (*ran.first()?, *ran.get(1)?);
            let mut m = o.clone();
            m.trace.swap(i, j);
            Some(m)
        },
    },
    Mutant {
        id: "unknown-tool-in-the-helper-wording",
        description: "an unknown tool's text quotes its name, as pi-ai's validateToolCall does",
        expect: Expect::EveryOf(&[req::LOOKUP_01, req::LOOKUP_03]),
        apply: |_, o| {
            let (id, name) = call_where(o, |id, name, _| text(o, id) == Some(format!("Tool {name} not found")))?;
            let mut m = o.clone();
            set_text(&mut m, &id, &format!("Tool \"{name}\" not found"));
            Some(m)
        },
    },
    Mutant {
        id: "an-unknown-tool-runs-the-hook",
        description: "beforeToolCall is called for a call naming no tool",
        expect: Expect::EveryOf(&[req::LOOKUP_01]),
        apply: |_, o| {
            let (id, name) = call_where(o, |id, name, _| {
                text(o, id) == Some(format!("Tool {name} not found")) && !has(o, "beforeToolCall", id)
            })?;
            let hook = TraceEntry::Invoke(Invocation::BeforeToolCall {
                tool_call_id: id.clone(),
                signal: SignalSeen::Live,
                keys: ["assistantMessage", "toolCall", "args", "context"].map(String::from).to_vec(),
                tool_call: json!({"type": "toolCall", "id": id, "name": name, "arguments": start_args(o, &id)?}),
                args: start_args(o, &id)?,
                messages: None,
            });
            Some(insert(o, first(o, "start", &id)? + 1, hook))
        },
    },
    Mutant {
        id: "a-throw-reads-as-success",
        description: "a tool that threw gets a result with isError false",
        expect: Expect::EveryOf(&[req::RESULT_02]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| {
                has(o, "execute", id)
                    && !has(o, "afterToolCall", id)
                    && message(o, id).and_then(|m| m.get("isError")) == Some(&json!(true))
            })?;
            let mut m = o.clone();
            set_is_error(&mut m, &id, false);
            Some(m)
        },
    },
    Mutant {
        id: "validation-in-the-seed-wording",
        description: "a missing property reads `Expected required property`, the seed's example, not TypeBox's message",
        expect: Expect::EveryOf(&[req::VAL_04]),
        apply: |_, o| {
            validation(o, |t| {
                lines(t, |p, m| m.starts_with("must have required properties").then(|| format!("  - {p}: Expected required property")))
            })
        },
    },
    Mutant {
        id: "validation-paths-as-pointers",
        description: "validation paths are written as JSON Pointers (`/edits/0`) instead of dotted",
        expect: Expect::EveryOf(&[req::VAL_03]),
        apply: |_, o| validation(o, |t| lines(t, |p, m| Some(format!("  - /{}: {m}", p.replace('.', "/"))))),
    },
    Mutant {
        id: "received-arguments-changed",
        description: "`Received arguments` prints something else than the arguments validated",
        expect: Expect::EveryOf(&[req::VAL_05]),
        apply: |_, o| {
            validation(o, |t| {
                let (head, received) = t.split_once("\n\nReceived arguments:\n")?;
                (received != "{}").then(|| format!("{head}\n\nReceived arguments:\n{{}}"))
            })
        },
    },
    Mutant {
        id: "a-non-object-root-in-other-words",
        description: "arguments that are not an object fail with another message than `root: must be object`",
        expect: Expect::EveryOf(&[req::VAL_09]),
        apply: |_, o| validation(o, |t| lines(t, |p, m| (p == "root" && m == "must be object").then(|| "  - root: expected object".into()))),
    },
    Mutant {
        id: "refused-arguments-run",
        description: "execute runs for a call whose arguments failed validation",
        expect: Expect::EveryOf(&[req::VAL_02]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| {
                !has(o, "execute", id) && text(o, id).is_some_and(|t| t.starts_with("Validation failed for tool "))
            })?;
            Some(insert(o, first(o, "start", &id)? + 1, execute(&id, start_args(o, &id)?)))
        },
    },
    Mutant {
        id: "prepare-called-twice",
        description: "prepareArguments is called twice for one call",
        expect: Expect::EveryOf(&[req::PREP_01]),
        apply: |_, o| {
            let i = o.trace.iter().position(|e| matches!(e, TraceEntry::Invoke(Invocation::PrepareArguments { .. })))?;
            Some(insert(o, i + 1, o.trace.get(i)?.clone()))
        },
    },
    Mutant {
        id: "a-prepare-failure-in-other-words",
        description: "a prepareArguments throw gives another text than its message",
        expect: Expect::EveryOf(&[req::PREP_04]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| {
                let Some(t) = outcome_text(o, id) else {
                    return false;
                };
                has(o, "prepareArguments", id)
                    && !has(o, "beforeToolCall", id)
                    && !has(o, "execute", id)
                    && t != "Operation aborted"
                    && !t.starts_with("Validation failed for tool ")
            })?;
            let mut m = o.clone();
            set_text(&mut m, &id, "prepareArguments failed");
            Some(m)
        },
    },
    Mutant {
        id: "start-event-with-validated-arguments",
        description: "the start event carries the arguments execute received, not the raw ones",
        expect: Expect::EveryOf(&[req::PREP_02]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| params(o, id).zip(start_args(o, id)).is_some_and(|(p, s)| p != s))?;
            let mut m = o.clone();
            let p = params(o, &id)?;
            event_mut(&mut m, first(o, "start", &id)?)?.insert("args".into(), p);
            Some(m)
        },
    },
    Mutant {
        id: "arguments-not-converted",
        description: "the hook and execute receive the raw arguments, without pi's conversions",
        expect: Expect::EveryOf(&[req::VAL_06]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| {
                let before = match invocation(o, "beforeToolCall", id) {
                    Some(Invocation::BeforeToolCall { args, .. }) => Some(args),
                    _ => None,
                };
                let p = params(o, id);
                !has(o, "prepareArguments", id)
                    && p.is_some()
                    && p != start_args(o, id)
                    && before.is_none_or(|b| Some(b) == p)
            })?;
            let raw = start_args(o, &id)?;
            let mut m = o.clone();
            for e in &mut m.trace {
                match e {
                    TraceEntry::Invoke(Invocation::Execute { tool_call_id, params, .. }) if *tool_call_id == id => *params = raw.clone(),
                    TraceEntry::Invoke(Invocation::BeforeToolCall { tool_call_id, args, .. }) if *tool_call_id == id => *args = raw.clone(),
                    _ => {}
                }
            }
            Some(m)
        },
    },
    Mutant {
        id: "the-transcript-gets-the-converted-arguments",
        description: "validation converts the transcript's arguments instead of a clone",
        expect: Expect::EveryOf(&[req::VAL_01]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| {
                !has(o, "prepareArguments", id) && params(o, id).is_some_and(|p| Some(p) != start_args(o, id))
            })?;
            let p = params(o, &id)?;
            let mut m = o.clone();
            let fix = |msg: &mut Json| {
                if msg.get("role") != Some(&json!("assistant")) {
                    return;
                }
                for b in msg.get_mut("content").and_then(Json::as_array_mut).into_iter().flatten() {
                    if b.get("id") == Some(&json!(id)) {
                        if let Some(b) = b.as_object_mut() {
                            b.insert("arguments".into(), p.clone());
                        }
                    }
                }
            };
            for e in &mut m.trace {
                let TraceEntry::Event { event } = e else { continue };
                if let Some(msg) = event.get_mut("message") {
                    fix(msg);
                }
                if let Some(l) = event.get_mut("messages").and_then(Json::as_array_mut) {
                    l.iter_mut().for_each(fix);
                }
            }
            if let Some(l) = &mut m.messages {
                l.iter_mut().for_each(fix);
            }
            Some(m)
        },
    },
    Mutant {
        id: "before-hook-skipped",
        description: "beforeToolCall is not called for a call that executes",
        expect: Expect::EveryOf(&[req::HOOK_01]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| has(o, "execute", id) && has(o, "beforeToolCall", id))?;
            let mut m = o.clone();
            m.trace.remove(first(o, "beforeToolCall", &id)?);
            Some(m)
        },
    },
    Mutant {
        id: "a-hook-sees-a-live-signal-when-aborted",
        description: "beforeToolCall receives a live signal although the run's is aborted",
        expect: Expect::EveryOf(&[req::HOOK_01]),
        apply: |_, o| {
            let mut m = o.clone();
            let hook = m.trace.iter_mut().find_map(|e| match e {
                TraceEntry::Invoke(Invocation::BeforeToolCall { signal, .. }) if *signal == SignalSeen::Aborted => Some(signal),
                _ => None,
            })?;
            *hook = SignalSeen::Live;
            Some(m)
        },
    },
    Mutant {
        id: "after-hook-skipped",
        description: "afterToolCall is not called for a call that executed",
        expect: Expect::EveryOf(&[req::HOOK_06]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| has(o, "execute", id) && has(o, "afterToolCall", id))?;
            let mut m = o.clone();
            m.trace.remove(first(o, "afterToolCall", &id)?);
            Some(m)
        },
    },
    Mutant {
        id: "after-hook-after-a-block",
        description: "afterToolCall is called for a call beforeToolCall stopped",
        expect: Expect::EveryOf(&[req::HOOK_02, req::HOOK_06]),
        apply: |_, o| {
            let (id, _) = blocked(o)?;
            let Some(Invocation::BeforeToolCall { signal, tool_call, args, .. }) = invocation(o, "beforeToolCall", &id) else {
                return None;
            };
            let result = event(o, first(o, "end", &id)?)?.get("result")?.clone();
            let after = TraceEntry::Invoke(Invocation::AfterToolCall {
                tool_call_id: id.clone(),
                signal,
                keys: ["assistantMessage", "toolCall", "args", "result", "isError", "context"].map(String::from).to_vec(),
                tool_call,
                args,
                result,
                is_error: Json::Bool(true),
                messages: None,
            });
            Some(insert(o, first(o, "beforeToolCall", &id)? + 1, after))
        },
    },
    Mutant {
        id: "execute-after-a-block",
        description: "execute runs for a call beforeToolCall stopped",
        expect: Expect::EveryOf(&[req::HOOK_02]),
        apply: |_, o| {
            let (id, _) = blocked(o)?;
            let Some(Invocation::BeforeToolCall { args, .. }) = invocation(o, "beforeToolCall", &id) else {
                return None;
            };
            Some(insert(o, first(o, "beforeToolCall", &id)? + 1, execute(&id, args)))
        },
    },
    Mutant {
        id: "after-patch-ignored",
        description: "afterToolCall's patch is not applied: the message keeps the tool's own content",
        expect: Expect::EveryOf(&[req::HOOK_07]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| match invocation(o, "afterToolCall", id) {
                Some(Invocation::AfterToolCall { result, .. }) => {
                    result.get("content").is_some_and(|c| Some(c) != message(o, id).and_then(|m| m.get("content")))
                }
                _ => false,
            })?;
            let Some(Invocation::AfterToolCall { result, .. }) = invocation(o, "afterToolCall", &id) else {
                return None;
            };
            let content = result.get("content")?.clone();
            let mut m = o.clone();
            edit_results(&mut m, &id, &|msg| {
                msg.insert("content".into(), content.clone());
            });
            edit_end(&mut m, &id, &|e| {
                if let Some(r) = e.get_mut("result").and_then(Json::as_object_mut) {
                    r.insert("content".into(), content.clone());
                }
            });
            Some(m)
        },
    },
    Mutant {
        id: "end-event-with-an-extra-key",
        description: "tool_execution_end carries a key pi 0.85 does not emit (`durationMs`)",
        expect: Expect::EveryOf(&[req::ORDER_02]),
        apply: |_, o| {
            let i = o.trace.iter().position(|e| label_parts(e).0 == "end")?;
            let mut m = o.clone();
            event_mut(&mut m, i)?.insert("durationMs".into(), json!(1));
            Some(m)
        },
    },
    Mutant {
        id: "start-event-missing",
        description: "a call ends without a tool_execution_start",
        expect: Expect::EveryOf(&[req::ORDER_03]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| has(o, "start", id) && has(o, "end", id))?;
            let mut m = o.clone();
            m.trace.remove(first(o, "start", &id)?);
            Some(m)
        },
    },
    Mutant {
        id: "sequential-calls-overlap",
        description: "in a sequential batch, the second call starts right after the first",
        expect: Expect::EveryOf(&[req::ORDER_04, req::ORDER_07]),
        apply: |_, o| {
            let started: Vec<String> = calls(o).into_iter().map(|c| c.0).filter(|c| has(o, "start", c)).collect();
            if parallel(o) || started.len() < 2 {
                return None;
            }
            let (i, j) = (first(o, "start", started.first()?)?, first(o, "start", started.get(1)?)?);
            let mut m = o.clone();
            let s = m.trace.remove(j);
            m.trace.insert(i + 1, s);
            Some(m)
        },
    },
    Mutant {
        id: "a-parallel-batch-run-sequentially",
        description: "a batch pi runs in parallel runs one call after the other",
        expect: Expect::EveryOf(&[req::ORDER_07]),
        apply: |_, o| {
            if !parallel(o) {
                return None;
            }
            let ids: Vec<String> = calls(o).into_iter().map(|c| c.0).collect();
            let of = |e: &TraceEntry| label_parts(e).1.and_then(|c| ids.iter().position(|i| i == c));
            let lo = o.trace.iter().position(|e| of(e).is_some())?;
            let hi = o.trace.iter().rposition(|e| of(e).is_some())?;
            let mut groups: Vec<Vec<TraceEntry>> = vec![Vec::new(); ids.len()];
            let mut current = 0;
            for e in o.trace.get(lo..=hi)? {
                current = of(e).unwrap_or(current);
                groups.get_mut(current)?.push(e.clone());
            }
            let mut m = o.clone();
            m.trace.splice(lo..=hi, groups.into_iter().flatten());
            Some(m)
        },
    },
    Mutant {
        id: "an-immediate-end-deferred",
        description: "in a parallel batch, an immediate outcome's end waits for the message phase",
        expect: Expect::EveryOf(&[req::ORDER_06]),
        apply: |_, o| {
            if !parallel(o) {
                return None;
            }
            let (id, _) = call_where(o, |id, _, _| {
                let end = first(o, "end", id);
                !has(o, "execute", id)
                    && has(o, "result_start", id)
                    && calls(o).iter().any(|c| first(o, "execute", &c.0) > end)
            })?;
            let (e, r) = (first(o, "end", &id)?, first(o, "result_start", &id)?);
            let mut m = o.clone();
            let end = m.trace.remove(e);
            m.trace.insert(r - 1, end);
            Some(m)
        },
    },
    Mutant {
        id: "an-update-after-the-end",
        description: "an update is emitted after the call's end event",
        expect: Expect::EveryOf(&[req::ORDER_08]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| has(o, "update", id) && has(o, "end", id))?;
            let u = *at(o, "update", &id).last()?;
            Some(insert(o, first(o, "end", &id)? + 1, o.trace.get(u)?.clone()))
        },
    },
    Mutant {
        id: "the-run-rejects",
        description: "runAgentLoop rejects where pi resolves",
        expect: Expect::EveryOf(&[req::ORDER_01]),
        apply: |_, o| {
            (o.end == RunEnd::Resolved).then_some(())?;
            let mut m = o.clone();
            m.end = RunEnd::Rejected {
                name: "Error".into(),
                message: "the loop died".into(),
            };
            m.messages = None;
            Some(m)
        },
    },
    Mutant {
        id: "aborted-in-other-words",
        description: "an aborted call's text is not `Operation aborted`",
        expect: Expect::EveryOf(&[req::ABORT_01]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| !has(o, "execute", id) && text(o, id).as_deref() == Some("Operation aborted"))?;
            let mut m = o.clone();
            set_text(&mut m, &id, "Aborted");
            Some(m)
        },
    },
    Mutant {
        id: "an-aborted-call-executes",
        description: "execute runs for a call that got `Operation aborted`",
        expect: Expect::EveryOf(&[req::ABORT_04]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| !has(o, "execute", id) && text(o, id).as_deref() == Some("Operation aborted"))?;
            let after = first(o, "beforeToolCall", &id).or(first(o, "start", &id))?;
            Some(insert(o, after + 1, execute(&id, start_args(o, &id)?)))
        },
    },
    Mutant {
        id: "a-finished-tool-reads-as-aborted",
        description: "a tool that ran while the run was aborted gets `Operation aborted` instead of its own outcome",
        expect: Expect::EveryOf(&[req::ABORT_05]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| {
                has(o, "execute", id)
                    && first(o, "end", id).is_some_and(|e| aborted_before(o, e))
                    && text(o, id).is_some_and(|t| t != "Operation aborted")
            })?;
            let mut m = o.clone();
            set_text(&mut m, &id, "Operation aborted");
            set_is_error(&mut m, &id, true);
            Some(m)
        },
    },
    Mutant {
        id: "execute-without-the-run-signal",
        description: "execute receives no signal although the run has one",
        expect: Expect::EveryOf(&[req::ABORT_06]),
        apply: |_, o| {
            let mut m = o.clone();
            let s = m.trace.iter_mut().find_map(|e| match e {
                TraceEntry::Invoke(Invocation::Execute { signal, .. }) if *signal == SignalSeen::Live => Some(signal),
                _ => None,
            })?;
            *s = SignalSeen::None;
            Some(m)
        },
    },
    Mutant {
        id: "results-in-completion-order",
        description: "a parallel batch's result messages follow completion order, not source order",
        expect: Expect::EveryOf(&[req::RESULT_01]),
        apply: |_, o| {
            let ids: Vec<String> = calls(o).into_iter().map(|c| c.0).filter(|c| has(o, "result_end", c)).collect();
            let mut by_end = ids.clone();
            by_end.sort_by_key(|c| first(o, "end", c));
            if !parallel(o) || by_end == ids {
                return None;
            }
            let mut slots: Vec<usize> = ids.iter().flat_map(|c| [at(o, "result_start", c), at(o, "result_end", c)].concat()).collect();
            slots.sort_unstable();
            let entries: Vec<TraceEntry> = by_end
                .iter()
                .flat_map(|c| [at(o, "result_start", c), at(o, "result_end", c)].concat())
                .filter_map(|i| o.trace.get(i).cloned())
                .collect();
            let mut m = o.clone();
            for (slot, e) in slots.into_iter().zip(entries) {
                *m.trace.get_mut(slot)? = e;
            }
            m.tool_results.sort_by_key(|t| by_end.iter().position(|c| *c == t.tool_call_id));
            Some(m)
        },
    },
    Mutant {
        id: "result-keys-reordered",
        description: "the toolResult message's bytes put `timestamp` first",
        expect: Expect::EveryOf(&[req::RESULT_05]),
        apply: |_, o| {
            let mut m = o.clone();
            let t = m.tool_results.first_mut()?;
            let v: Map<String, Json> = serde_json::from_str(&t.json).ok()?;
            let ts = v.get("timestamp")?.clone();
            let mut out = Map::new();
            out.insert("timestamp".into(), ts);
            out.extend(v.into_iter().filter(|(k, _)| k != "timestamp"));
            t.json = Json::Object(out).to_string();
            Some(m)
        },
    },
    Mutant {
        id: "timestamp-dropped",
        description: "the toolResult message's bytes have no `timestamp`",
        expect: Expect::EveryOf(&[req::RESULT_05]),
        apply: |_, o| {
            let mut m = o.clone();
            let t = m.tool_results.first_mut()?;
            let mut v: Map<String, Json> = serde_json::from_str(&t.json).ok()?;
            v.shift_remove("timestamp")?;
            t.json = Json::Object(v).to_string();
            Some(m)
        },
    },
    Mutant {
        id: "added-tool-names-dropped",
        description: "a non-empty addedToolNames is not copied to the toolResult message",
        expect: Expect::EveryOf(&[req::RESULT_06]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| message(o, id).is_some_and(|m| m.get("addedToolNames").is_some()))?;
            let mut m = o.clone();
            edit_results(&mut m, &id, &|msg| {
                msg.shift_remove("addedToolNames");
            });
            Some(m)
        },
    },
    Mutant {
        id: "missing-content-not-normalised",
        description: "a result without content reaches the message as null, not []",
        expect: Expect::EveryOf(&[req::RESULT_07]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| {
                let result = first(o, "end", id).and_then(|e| event(o, e)).and_then(|e| e.get("result"));
                has(o, "execute", id)
                    && !has(o, "afterToolCall", id)
                    && result.is_some_and(|r| r.get("content").is_none_or(Json::is_null) && r.get("isError") != Some(&json!(true)))
                    && message(o, id).is_some_and(|m| m.get("isError") == Some(&json!(false)))
            })?;
            let mut m = o.clone();
            edit_results(&mut m, &id, &|msg| {
                msg.insert("content".into(), Json::Null);
            });
            Some(m)
        },
    },
    Mutant {
        id: "the-terminate-vote-ignored",
        description: "a batch whose every result voted terminate is followed by another model call",
        expect: Expect::EveryOf(&[req::TERM_01]),
        apply: |_, o| {
            let cs = calls(o);
            let fits = o.provider_calls == 1
                && o.end == RunEnd::Resolved
                && !o.trace.iter().any(|e| matches!(e, TraceEntry::Abort))
                // shouldStopAfterTurn, not the vote, ended such a run
                && !stopped_by_the_turn_hook(o)
                && !cs.is_empty()
                && cs.iter().all(|(id, _, stop)| stop == "toolUse" && has(o, "result_end", id));
            if !fits {
                return None;
            }
            let end = o.trace.iter().rposition(|e| label_parts(e).0 == "agent_end")?;
            let mut roles = vec!["user".to_string(), "assistant".into()];
            roles.extend(cs.iter().map(|c| format!("toolResult({})", c.0)));
            let mut m = insert(o, end, TraceEntry::Provider { index: 1, aborted: false, messages: roles });
            m.provider_calls = 2;
            Some(m)
        },
    },
    Mutant {
        id: "a-truncated-turn-executes",
        description: "a call of a turn that hit the output token limit executes",
        expect: Expect::EveryOf(&[req::STOP_01]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, stop| stop == "length" && has(o, "start", id))?;
            Some(insert(o, first(o, "start", &id)? + 1, execute(&id, start_args(o, &id)?)))
        },
    },
    Mutant {
        id: "a-failed-turn-runs-its-calls",
        description: "the tool calls of a turn that ended with `error` start",
        expect: Expect::EveryOf(&[req::STOP_02]),
        apply: |_, o| {
            let (id, name) = call_where(o, |id, _, stop| matches!(stop, "error" | "aborted") && !has(o, "start", id))?;
            let i = o.trace.iter().position(|e| label_parts(e).0 == "message_end:assistant")?;
            let start = json!({"type": "tool_execution_start", "toolCallId": id, "toolName": name, "args": {}});
            Some(insert(o, i + 1, TraceEntry::Event { event: start }))
        },
    },
    Mutant {
        id: "a-listener-failure-swallowed",
        description: "an event listener's rejection is caught: the run resolves where pi rejects with it (the seed's \"does not escape\")",
        expect: Expect::EveryOf(&[req::ORDER_09]),
        apply: |s, o| {
            let undefined = o.trace.iter().any(|e| match e {
                TraceEntry::Event { event } if label_parts(e).0 == "end" => {
                    event.get("result").is_some_and(|r| r.is_null() || *r == json!({"$": "undefined"}))
                }
                _ => false,
            });
            if undefined || !rejected_by_a_listener(s, &o.end) {
                return None;
            }
            end_run_after(o, o.trace.len().checked_sub(1)?)
        },
    },
    Mutant {
        id: "a-result-despite-a-listener-failure",
        description: "a listener rejects on a call's end event, and its toolResult message is still emitted before the run rejects",
        expect: Expect::EveryOf(&[req::ORDER_09]),
        apply: |s, o| {
            if !rejected_by_a_listener(s, &o.end) {
                return None;
            }
            let last = o.trace.len().checked_sub(1)?;
            let (name, call) = label_parts(o.trace.get(last)?);
            let id = call.filter(|_| name == "end")?.to_string();
            let end = event(o, last)?;
            let result = end.get("result")?.as_object()?;
            let name = end.get("toolName")?.clone();
            let undefined = json!({"$": "undefined"});
            let field = |k: &str| result.get(k).cloned().unwrap_or(undefined.clone());
            let message = json!({
                "role": "toolResult",
                "toolCallId": id,
                "toolName": name,
                "content": result.get("content").cloned().unwrap_or(json!([])),
                "details": field("details"),
                "usage": field("usage"),
                "isError": end.get("isError")?.clone(),
                "timestamp": "<timestamp>",
            });
            let mut bytes = message.as_object()?.clone();
            bytes.retain(|_, v| *v != undefined);
            let mut m = o.clone();
            for ty in ["message_start", "message_end"] {
                m.trace.push(TraceEntry::Event { event: json!({"type": ty, "message": message}) });
            }
            m.tool_results.push(ToolResultText { tool_call_id: id, json: Json::Object(bytes).to_string() });
            Some(m)
        },
    },
    Mutant {
        id: "hook-context-sees-own-batch",
        description: "a hook's context holds the results its own batch emitted so far (results join the context as they are emitted)",
        expect: Expect::EveryOf(&[req::ORDER_10]),
        apply: |_, o| {
            let mut m = o.clone();
            let mut batch = 0;
            let mut changed = false;
            for (i, e) in o.trace.iter().enumerate() {
                if matches!(e, TraceEntry::Provider { .. }) {
                    batch = i;
                }
                let done: Vec<Json> = o
                    .trace
                    .get(batch..i)?
                    .iter()
                    .map(label)
                    .filter(|l| l.name == "result_end")
                    .map(|l| json!(format!("toolResult({})", l.call.unwrap_or_default())))
                    .collect();
                if done.is_empty() {
                    continue;
                }
                if let Some(TraceEntry::Invoke(
                    Invocation::BeforeToolCall { messages: Some(Json::Array(roles)), .. }
                    | Invocation::AfterToolCall { messages: Some(Json::Array(roles)), .. },
                )) = m.trace.get_mut(i)
                {
                    roles.extend(done);
                    changed = true;
                }
            }
            changed.then_some(m)
        },
    },
    Mutant {
        id: "queued-messages-dropped-on-terminate",
        description: "a batch whose every result voted terminate ends the run although steering or follow-up messages are queued",
        expect: Expect::EveryOf(&[req::TERM_03]),
        apply: |_, o| {
            if o.end != RunEnd::Resolved || o.trace.iter().any(|e| matches!(e, TraceEntry::Abort)) || stopped_by_the_turn_hook(o) {
                return None;
            }
            let is_provider = |e: &TraceEntry| matches!(e, TraceEntry::Provider { .. });
            for (t, e) in o.trace.iter().enumerate() {
                let TraceEntry::Event { event: turn_end } = e else { continue };
                if label_parts(e).0 != "turn_end" {
                    continue;
                }
                let from = o.trace.get(..t)?.iter().rposition(is_provider).unwrap_or(0);
                let batch = o.trace.get(from..t)?;
                let voted = |id: &str| {
                    batch.iter().rev().find_map(|e| match e {
                        TraceEntry::Event { event } if label_parts(e).0 == "end" && label_parts(e).1 == Some(id) => {
                            event.get("result").and_then(|r| r.get("terminate"))
                        }
                        _ => None,
                    }) == Some(&json!(true))
                };
                let ids: Vec<&str> = turn_end
                    .get("toolResults")
                    .and_then(Json::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|m| m.get("toolCallId").and_then(Json::as_str))
                    .collect();
                let after = o.trace.get(t + 1..)?;
                let next = after.iter().position(is_provider).unwrap_or(after.len());
                let injected = after.get(..next)?.iter().any(|e| label_parts(e).0 == "message_end:user");
                if injected && !ids.is_empty() && ids.iter().all(|id| voted(id)) {
                    return end_run_after(o, t);
                }
            }
            None
        },
    },
    Mutant {
        id: "the-turn-stop-hook-before-turn-end",
        description: "shouldStopAfterTurn is asked before turn_end, as 1.6's finishTurn is",
        expect: Expect::EveryOf(&[req::STOP_03]),
        apply: |_, o| {
            let mut m = o.clone();
            let mut moved = false;
            for i in 1..m.trace.len() {
                let asked = matches!(m.trace.get(i), Some(TraceEntry::Invoke(Invocation::ShouldStopAfterTurn { .. })));
                if asked && m.trace.get(i - 1).is_some_and(|e| label_parts(e).0 == "turn_end") {
                    m.trace.swap(i - 1, i);
                    moved = true;
                }
            }
            moved.then_some(m)
        },
    },
    Mutant {
        id: "the-turn-stop-hook-never-asked",
        description: "shouldStopAfterTurn is not called after a turn (1.6 ignores it), where its `false` let the run go on",
        expect: Expect::EveryOf(&[req::STOP_03]),
        apply: |_, o| {
            let asked = |e: &TraceEntry| matches!(e, TraceEntry::Invoke(Invocation::ShouldStopAfterTurn { .. }));
            let mut m = o.clone();
            let mut k = 0;
            m.trace.retain(|e| {
                k += 1;
                !(asked(e) && o.trace.get(k).is_some_and(|next| label_parts(next).0 != "agent_end"))
            });
            Some(m)
        },
    },
    Mutant {
        id: "the-turn-stop-answer-ignored",
        description: "the run goes on with another model call after shouldStopAfterTurn answered true",
        expect: Expect::EveryOf(&[req::STOP_03]),
        apply: |_, o| {
            if !stopped_by_the_turn_hook(o) || o.end != RunEnd::Resolved {
                return None;
            }
            let end = o.trace.iter().rposition(|e| label_parts(e).0 == "agent_end")?;
            let roles = event(o, end)?
                .get("messages")?
                .as_array()?
                .iter()
                .map(|m| match (m.get("role").and_then(Json::as_str), m.get("toolCallId").and_then(Json::as_str)) {
                    (Some("toolResult"), Some(id)) => format!("toolResult({id})"),
                    (role, _) => role.unwrap_or("?").to_string(),
                })
                .collect();
            let mut m = insert(o, end, TraceEntry::Provider { index: o.provider_calls, aborted: false, messages: roles });
            m.provider_calls += 1;
            Some(m)
        },
    },
    Mutant {
        id: "no-model-call-after-an-abort",
        description: "after a batch the signal aborted, the loop ends without another model request",
        expect: Expect::EveryOf(&[req::ABORT_07]),
        apply: |_, o| {
            let p = o.trace.iter().rposition(|e| matches!(e, TraceEntry::Provider { aborted: true, index, .. } if *index > 0))?;
            let later = o.trace.get(p + 1..)?;
            if o.end != RunEnd::Resolved || later.iter().any(|e| matches!(e, TraceEntry::Provider { .. })) {
                return None;
            }
            let turn_end = o.trace.get(..p)?.iter().rposition(|e| label_parts(e).0 == "turn_end")?;
            let aborts = o.trace.get(turn_end..p)?.iter().filter(|e| matches!(e, TraceEntry::Abort)).count();
            let mut m = end_run_after(o, turn_end)?;
            let at = m.trace.len() - 1;
            for _ in 0..aborts {
                m.trace.insert(at, TraceEntry::Abort);
            }
            Some(m)
        },
    },
    Mutant {
        id: "the-next-request-gets-a-live-signal",
        description: "the model request after an abort gets a live signal, not the run's aborted one",
        expect: Expect::EveryOf(&[req::ABORT_07]),
        apply: |_, o| {
            let mut m = o.clone();
            let flag = m.trace.iter_mut().find_map(|e| match e {
                TraceEntry::Provider { aborted, .. } if *aborted => Some(aborted),
                _ => None,
            })?;
            *flag = false;
            Some(m)
        },
    },
    Mutant {
        id: "a-hook-mutation-lost",
        description: "execute gets the validated arguments, not the object beforeToolCall mutated in place",
        expect: Expect::EveryOf(&[req::HOOK_04]),
        apply: |_, o| {
            let hooked = |id: &str| match invocation(o, "beforeToolCall", id) {
                Some(Invocation::BeforeToolCall { args, .. }) => Some(args),
                _ => None,
            };
            let (id, _) = call_where(o, |id, _, _| hooked(id).zip(params(o, id)).is_some_and(|(h, p)| h != p))?;
            Some(with_params(o, &id, hooked(&id)?))
        },
    },
    Mutant {
        id: "the-hook-returned-args-used",
        description: "execute gets the `args` beforeToolCall returned",
        expect: Expect::EveryOf(&[req::HOOK_04]),
        apply: |s, o| {
            let given = |id: &str| {
                let a = returned(s.hooks.before_tool_call.as_ref(), id)?.get("args")?;
                (a.is_object() && !a.to_string().contains("\"$\"")).then(|| a.clone())
            };
            let (id, _) = call_where(o, |id, _, _| given(id).zip(params(o, id)).is_some_and(|(a, p)| a != p))?;
            Some(with_params(o, &id, given(&id)?))
        },
    },
    Mutant {
        id: "a-null-patch-field-applied",
        description: "afterToolCall's `null` patch fields replace the result's (`!== undefined` where pi uses `??`)",
        expect: Expect::EveryOf(&[req::HOOK_08]),
        apply: |s, o| {
            let nulls = |id: &str| -> Vec<String> {
                returned(s.hooks.after_tool_call.as_ref(), id)
                    .into_iter()
                    .flatten()
                    .filter(|(k, v)| v.is_null() && ["content", "details", "isError"].contains(&k.as_str()))
                    .map(|(k, _)| k.clone())
                    .collect()
            };
            let (id, _) = call_where(o, |id, _, _| {
                has(o, "afterToolCall", id)
                    && message(o, id).is_some_and(|m| nulls(id).iter().any(|f| m.get(f).is_some_and(|v| !v.is_null())))
            })?;
            let fields = nulls(&id);
            let mut m = o.clone();
            edit_results(&mut m, &id, &|msg| {
                for f in &fields {
                    msg.insert(f.clone(), Json::Null);
                }
            });
            edit_end(&mut m, &id, &|e| {
                for f in &fields {
                    if f == "isError" {
                        e.insert(f.clone(), Json::Null);
                    } else if let Some(r) = e.get_mut("result").and_then(Json::as_object_mut) {
                        r.insert(f.clone(), Json::Null);
                    }
                }
            });
            Some(m)
        },
    },
    Mutant {
        id: "an-unfailed-throw-stays-an-error",
        description: "afterToolCall's `{isError: false}` does not turn a thrown tool into a success",
        expect: Expect::EveryOf(&[req::HOOK_10]),
        apply: |_, o| {
            let (id, _) = call_where(o, |id, _, _| {
                matches!(invocation(o, "afterToolCall", id), Some(Invocation::AfterToolCall { is_error, .. }) if is_error == json!(true))
                    && message(o, id).and_then(|m| m.get("isError")) == Some(&json!(false))
            })?;
            let mut m = o.clone();
            set_is_error(&mut m, &id, true);
            Some(m)
        },
    },
    Mutant {
        id: "prepare-gets-a-copy",
        description: "prepareArguments receives a copy of the transcript's arguments: its mutation in place never reaches the transcript",
        expect: Expect::EveryOf(&[req::PREP_03]),
        apply: |_, o| {
            let (i, id, raw) = o.trace.iter().enumerate().find_map(|(i, e)| match e {
                TraceEntry::Invoke(Invocation::PrepareArguments { tool_call_id, args, args_is_transcript: true, .. }) => {
                    Some((i, tool_call_id.clone(), args.clone()))
                }
                _ => None,
            })?;
            // one assistant message holds the call: its id names it
            let holders = calls_in_assistant_messages(o, &id);
            if holders != 1 {
                return None;
            }
            let mut m = o.clone();
            let restore = |msg: &mut Json| {
                if msg.get("role") != Some(&json!("assistant")) {
                    return;
                }
                for b in msg.get_mut("content").and_then(Json::as_array_mut).into_iter().flatten() {
                    if b.get("id") == Some(&json!(id)) {
                        if let Some(b) = b.as_object_mut() {
                            b.insert("arguments".into(), raw.clone());
                        }
                    }
                }
            };
            for (k, e) in m.trace.iter_mut().enumerate() {
                match e {
                    TraceEntry::Invoke(Invocation::PrepareArguments { args_is_transcript, .. }) if k == i => *args_is_transcript = false,
                    TraceEntry::Event { event } if k > i => {
                        if let Some(msg) = event.get_mut("message") {
                            restore(msg);
                        }
                        if let Some(l) = event.get_mut("messages").and_then(Json::as_array_mut) {
                            l.iter_mut().for_each(restore);
                        }
                        let update = event.get("type") == Some(&json!("tool_execution_update")) && event.get("toolCallId") == Some(&json!(id));
                        if let Some(u) = event.as_object_mut().filter(|_| update) {
                            u.insert("args".into(), raw.clone());
                        }
                    }
                    TraceEntry::Invoke(
                        Invocation::BeforeToolCall { tool_call_id, tool_call, .. } | Invocation::AfterToolCall { tool_call_id, tool_call, .. },
                    ) if k > i && *tool_call_id == id => {
                        if let Some(t) = tool_call.as_object_mut() {
                            t.insert("arguments".into(), raw.clone());
                        }
                    }
                    _ => {}
                }
            }
            if let Some(l) = &mut m.messages {
                l.iter_mut().for_each(restore);
            }
            Some(m)
        },
    },
    Mutant {
        id: "end-event-result-without-extras",
        description: "tool_execution_end carries a result rebuilt from content and details, not the finalized result with its other fields",
        expect: Expect::EveryOf(&[req::RESULT_09]),
        apply: |_, o| {
            let extra = |id: &str| {
                let end = first(o, "end", id).and_then(|e| event(o, e));
                let result = end.and_then(|e| e.get("result")).and_then(Json::as_object);
                result.is_some_and(|r| r.keys().any(|k| k != "content" && k != "details"))
            };
            let (id, _) = call_where(o, |id, _, _| has(o, "result_end", id) && extra(id))?;
            let mut m = o.clone();
            edit_end(&mut m, &id, &|e| {
                if let Some(r) = e.get_mut("result").and_then(Json::as_object_mut) {
                    r.retain(|k, _| k == "content" || k == "details");
                }
            });
            Some(m)
        },
    },
    Mutant {
        id: "a-null-string-reaches-the-tool-as-null",
        description: "a string parameter the model sent as `null` reaches execute as `null`, not as the text \"null\"",
        expect: Expect::EveryOf(&[req::RESULT_08]),
        apply: |_, o| {
            let nulled = |id: &str| -> Vec<String> {
                let (Some(raw), Some(p)) = (start_args(o, id), params(o, id)) else {
                    return Vec::new();
                };
                raw.as_object()
                    .into_iter()
                    .flatten()
                    .filter(|(k, v)| v.is_null() && p.get(k.as_str()) == Some(&json!("null")))
                    .map(|(k, _)| k.clone())
                    .collect()
            };
            let (id, _) = call_where(o, |id, _, _| !nulled(id).is_empty())?;
            let mut p = params(o, &id)?;
            for k in nulled(&id) {
                p.as_object_mut()?.insert(k, Json::Null);
            }
            Some(with_params(o, &id, p))
        },
    },
    Mutant {
        id: "a-leading-system-message-in-a-transcript-case",
        description: "a message of a role the loop never makes (a `system` message, as pi 1.6's `toolsAdded`) leads the run's messages, in a case about the transcript",
        expect: Expect::Exactly(&[req::ORDER_01]),
        apply: |s, o| {
            if !about_the_transcript(s) {
                return None;
            }
            with_a_leading_system_message(o)
        },
    },
    Mutant {
        id: "a-leading-system-message-elsewhere",
        description: "the same leading `system` message in a case not about the transcript, where the judge leaves messages of a role the loop never makes out of every projection",
        expect: Expect::Nothing,
        apply: |s, o| {
            if about_the_transcript(s) {
                return None;
            }
            with_a_leading_system_message(o)
        },
    },
];
