//! The judge's comparison of what the transcript and the model get: the
//! assistant messages' arguments, the message summaries of `turn_end`,
//! `agent_end` and the run's result, the toolResult bytes, and the number
//! of model calls (the terminate vote).

use super::*;

impl<'a> Judging<'a> {
    /// An assistant message summary: its tool calls' arguments are the
    /// transcript's (prepareArguments may rewrite them in place, validation
    /// must not).
    pub(super) fn assistant(&mut self, x: &Json, y: &Json) {
        if same(x, y) {
            return;
        }
        let blocks = |m: &Json| {
            m.get("content")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let (xb, yb) = (blocks(x), blocks(y));
        let mut named = false;
        for (p, q) in xb.iter().zip(&yb) {
            let (pa, qa) = (p.get("arguments"), q.get("arguments"));
            if let (Some(pa), Some(qa)) = (pa, qa) {
                if !same(pa, qa) {
                    let call = p
                        .get("id")
                        .and_then(Json::as_str)
                        .unwrap_or("?")
                        .to_string();
                    let live = matches!(
                        self.e.invoke("prepareArguments", &call),
                        Some(Invocation::PrepareArguments {
                            args_is_transcript: true,
                            ..
                        })
                    );
                    let id = if live { req::PREP_03 } else { req::VAL_01 };
                    self.name(
                        &[id],
                        format!(
                            "transcript arguments of {call}: expected {}, got {}",
                            quote(pa),
                            quote(qa)
                        ),
                    );
                    named = true;
                }
            }
        }
        let strip = |m: &Json| {
            let mut m = m.clone();
            if let Some(a) = m.get_mut("content").and_then(Json::as_array_mut) {
                for b in a.iter_mut().filter_map(Json::as_object_mut) {
                    b.remove("arguments");
                }
            }
            m
        };
        if !same(&strip(x), &strip(y)) || (!named && xb.len() != yb.len()) {
            self.unexplained(format!(
                "assistant message: expected {}, got {}",
                quote(x),
                quote(y)
            ));
        }
    }

    /// Message summaries (turn_end's results, agent_end's and the run's
    /// messages): their sequence, then each against its own event.
    pub(super) fn summaries(&mut self, x: &Json, y: &Json, what: &str) {
        let list = |v: &Json| v.as_array().cloned().unwrap_or_default();
        let key = |m: &Json| match m.get("role").and_then(Json::as_str) {
            Some("toolResult") => format!(
                "toolResult({})",
                m.get("toolCallId").and_then(Json::as_str).unwrap_or("?")
            ),
            Some(r) => r.to_string(),
            None => "?".into(),
        };
        // a message of a role the loop never makes is leading_messages'
        let explained = |m: &Json| {
            !own_role(&key(m))
                || self
                    .explained
                    .iter()
                    .any(|c| key(m) == format!("toolResult({c})"))
        };
        let (xl, yl): (Vec<Json>, Vec<Json>) = (
            list(x).into_iter().filter(|m| !explained(m)).collect(),
            list(y).into_iter().filter(|m| !explained(m)).collect(),
        );
        let seq = |l: &[Json], f: &dyn Fn(&str) -> bool| -> Vec<String> {
            l.iter().map(key).filter(|k| f(k)).collect()
        };
        let (xs, ys) = (seq(&xl, &|_| true), seq(&yl, &|_| true));
        if xs != ys && !self.ends_differ {
            let msg = format!("{what}: {ys:?}, expected {xs:?}");
            let providers_differ = self.e.obs.provider_calls != self.a.obs.provider_calls;
            if seq(&xl, &|k| k.starts_with("toolResult("))
                != seq(&yl, &|k| k.starts_with("toolResult("))
            {
                self.name(&[req::RESULT_01], msg.clone());
            }
            // a model call more or less brings its assistant message, and
            // the messages queued for it: the provider-call predicate's
            let queued = providers_differ && self.e.queued_messages();
            let others = |k: &str| {
                !k.starts_with("toolResult(")
                    && (k != "assistant" || !providers_differ)
                    && (k != "user" || !queued)
            };
            if seq(&xl, &others) != seq(&yl, &others) {
                self.name(&[req::ORDER_01], msg);
            }
        }
        // pair the n-th summary of each key
        let mut nth: BTreeMap<String, usize> = BTreeMap::new();
        for p in &xl {
            let k = key(p);
            let n = nth.entry(k.clone()).or_default();
            let Some(q) = yl.iter().filter(|q| key(q) == k).nth(*n) else {
                continue;
            };
            *n += 1;
            if same(p, q) {
                continue;
            }
            if let Some(call) = k
                .strip_prefix("toolResult(")
                .and_then(|c| c.strip_suffix(')'))
            {
                // a summary is its result message: that message's difference
                let own = |v: &View<'_>, m: &Json| {
                    v.event("result_end", call)
                        .and_then(|e| e.get("message"))
                        .is_some_and(|e| same(e, m))
                };
                if own(&self.e, p) && own(&self.a, q) {
                    continue;
                }
                self.message(call, p, q);
            } else if k == "assistant" {
                self.assistant(p, q);
            } else {
                self.name(
                    &[req::ORDER_01],
                    format!("{what}: {k} {}, expected {}", quote(q), quote(p)),
                );
            }
        }
    }

    /// The toolResult messages as bytes a provider would send.
    pub(super) fn tool_results(&mut self) {
        let keep = |v: &View<'a>| -> Vec<&'a ToolResultText> {
            v.obs
                .tool_results
                .iter()
                .filter(|t| !self.explained.contains(&t.tool_call_id))
                .collect()
        };
        let (x, y) = (keep(&self.e), keep(&self.a));
        let ids =
            |l: &[&ToolResultText]| l.iter().map(|t| t.tool_call_id.clone()).collect::<Vec<_>>();
        if ids(&x) != ids(&y) && !self.ends_differ {
            self.name(
                &[req::RESULT_01],
                format!("toolResults for {:?}, expected {:?}", ids(&y), ids(&x)),
            );
        }
        for p in &x {
            let Some(q) = y.iter().find(|q| q.tool_call_id == p.tool_call_id) else {
                continue;
            };
            if p.json == q.json {
                continue;
            }
            let call = p.tool_call_id.as_str();
            let msg = format!(
                "toolResult bytes of {call}: expected {}, got {}",
                p.json, q.json
            );
            let parse = |t: &str| serde_json::from_str::<Json>(t).ok();
            match (parse(&p.json), parse(&q.json)) {
                (Some(pv), Some(qv)) if keys(&pv) == keys(&qv) => {
                    let outcome = ["content", "isError", "details"]
                        .iter()
                        .any(|k| pv.get(k) != qv.get(k));
                    if outcome {
                        self.outcome(call);
                    } else {
                        self.name(&[req::RESULT_05], msg);
                    }
                }
                (Some(pv), Some(qv)) => {
                    let added = keys(&pv).contains(&"addedToolNames")
                        != keys(&qv).contains(&"addedToolNames");
                    let ids: &[&str] = if added {
                        &[req::RESULT_05, req::RESULT_06]
                    } else {
                        &[req::RESULT_05]
                    };
                    self.name(ids, msg);
                }
                _ => self.name(&[req::RESULT_05], msg),
            }
        }
    }

    /// The number of model calls: the terminate vote, unless an abort or a
    /// stop decided it.
    pub(super) fn provider_calls(&mut self) {
        let (n, m) = (self.e.obs.provider_calls, self.a.obs.provider_calls);
        if n == m || self.ends_differ {
            return;
        }
        let has = |k: Kind| self.calls.iter().any(|c| c.kind == k);
        let aborted = self.e.entries().any(|(_, l, _)| l.name == "abort");
        // a model call the implementation did not make, which pi made
        // with the aborted signal: after an aborted batch pi asks the
        // model again, whatever the batch voted (PIPE-ABORT-07)
        let aborted_call = self.e.entries().any(|(_, _, e)| {
            matches!(e, TraceEntry::Provider { index, aborted: true, .. } if *index == m)
        });
        let ids: Vec<&str> = if n > m && aborted_call {
            vec![req::ABORT_07]
        } else if has(Kind::Cut) {
            vec![req::TERM_04]
        } else if has(Kind::NotRun) {
            vec![req::STOP_02]
        } else if has(Kind::Length) {
            vec![req::STOP_01]
        } else if aborted {
            vec![req::ABORT_07]
        } else if self.e.stopped_by_the_turn_hook() != self.a.stopped_by_the_turn_hook() {
            // the run ends when shouldStopAfterTurn answers true, and only
            // then (PIPE-STOP-03; 1.6 ignores it and goes on)
            vec![req::STOP_03]
        } else if n > m && self.queued_after_a_vote(m) {
            // the call the implementation did not make came from messages
            // queued after a batch that voted to terminate (PIPE-TERM-03)
            vec![req::TERM_03]
        } else if has(Kind::Stopped) || self.calls.iter().any(|c| self.e.has("afterToolCall", c.id))
        {
            vec![req::TERM_01, req::TERM_02]
        } else {
            vec![req::TERM_01]
        };
        self.name(&ids, format!("{m} model call(s), expected {n}"));
    }

    /// Whether the reference's model call `index` came from messages
    /// queued after a batch that voted to terminate: steering or follow-up
    /// messages injected after a `turn_end` whose every result has
    /// `terminate: true` on its end event.
    fn queued_after_a_vote(&self, index: u32) -> bool {
        let entries: Vec<(usize, &Label, &TraceEntry)> = self.e.entries().collect();
        let provider = format!("provider:{index}");
        let Some(at) = entries.iter().position(|(_, l, _)| l.name == provider) else {
            return false;
        };
        let before = entries.get(..at).unwrap_or_default();
        let Some(turn_end) = before.iter().rposition(|(_, l, _)| l.name == "turn_end") else {
            return false;
        };
        let injected = before
            .iter()
            .skip(turn_end)
            .any(|(_, l, _)| l.name == "message_end:user");
        let Some((_, _, TraceEntry::Event { event })) = before.get(turn_end) else {
            return false;
        };
        let ids: Vec<&str> = event
            .get("toolResults")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .filter_map(|m| m.get("toolCallId").and_then(Json::as_str))
            .collect();
        let batch = before.get(..turn_end).unwrap_or_default();
        let voted = |id: &str| {
            let end = batch.iter().rev().find_map(|(_, l, e)| match e {
                TraceEntry::Event { event } if l.name == "end" && l.call.as_deref() == Some(id) => {
                    Some(event)
                }
                _ => None,
            });
            end.and_then(|e| e.get("result"))
                .and_then(|r| r.get("terminate"))
                == Some(&Json::Bool(true))
        };
        injected && !ids.is_empty() && ids.iter().all(|id| voted(id))
    }

    /// The messages of a role pi's loop never makes (a `system` message,
    /// which 0.85.0 never adds) wherever the observation shows messages: the
    /// trace's message events, the model's and the hooks' context,
    /// `turn_end`'s, `agent_end`'s and the resolved messages. They are
    /// about what goes in the transcript (PIPE-ORDER-01: what the run emits
    /// and resolves with), judged here once, in the cases about the
    /// transcript: those putting messages in it beyond the prompt (queued
    /// steering or follow-up messages) or recording what the hooks see of
    /// it (`hookContext`). Every other projection leaves them out.
    pub(super) fn leading_messages(&mut self) {
        let (x, y) = (foreign_messages(&self.e), foreign_messages(&self.a));
        if x == y || !self.about_the_transcript() {
            return;
        }
        let first = x
            .iter()
            .zip(&y)
            .find(|(p, q)| p != q)
            .map(|(p, q)| format!("{q} where {p} was expected"))
            .unwrap_or_else(|| match (x.get(y.len()), y.get(x.len())) {
                (Some(p), _) => format!("{p} missing"),
                (_, Some(q)) => format!("{q} not expected"),
                _ => String::new(),
            });
        self.name(
            &[req::ORDER_01],
            format!(
                "messages of a role the loop does not make: {} of them, expected {} ({first})",
                y.len(),
                x.len()
            ),
        );
    }

    /// Whether the case is about what goes in the transcript: it queues
    /// steering or follow-up messages, or records the hooks' context.
    fn about_the_transcript(&self) -> bool {
        about_the_transcript(self.s)
    }

    /// The messages the run resolved with.
    pub(super) fn messages(&mut self) {
        if let (Some(x), Some(y)) = (&self.e.obs.messages, &self.a.obs.messages) {
            let (x, y) = (Json::Array(x.clone()), Json::Array(y.clone()));
            if !same(&x, &y) {
                self.summaries(&x, &y, "messages");
            }
        } else if self.e.obs.messages.is_some() != self.a.obs.messages.is_some()
            && !self.ends_differ
        {
            self.unexplained("the resolved messages are missing on one side".into());
        }
    }
}

/// Where an observation shows a message of a role pi's loop does not make
/// (`own_role`), in order: `<place>: <role>`.
fn foreign_messages(v: &View<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let role_of = |m: &Json| {
        m.get("role")
            .and_then(Json::as_str)
            .unwrap_or("?")
            .to_string()
    };
    let summaries = |place: &str, list: Option<&Json>, out: &mut Vec<String>| {
        for m in list.and_then(Json::as_array).into_iter().flatten() {
            let role = role_of(m);
            if !own_role(&role) {
                out.push(format!("{place}: {role}"));
            }
        }
    };
    let roles = |place: &str, list: &[String], out: &mut Vec<String>| {
        for r in list.iter().filter(|r| !own_role(r)) {
            out.push(format!("{place}: {r}"));
        }
    };
    for (l, entry) in v.labels.iter().zip(&v.obs.trace).take(v.len) {
        match entry {
            TraceEntry::Event { event } => {
                if foreign_message(l) {
                    out.push(l.to_string());
                }
                summaries(&format!("{l}.messages"), event.get("messages"), &mut out);
                summaries(
                    &format!("{l}.toolResults"),
                    event.get("toolResults"),
                    &mut out,
                );
            }
            TraceEntry::Provider { messages, .. } => roles(&l.to_string(), messages, &mut out),
            TraceEntry::Invoke(inv) => {
                if let Ok(Json::Object(o)) = serde_json::to_value(inv) {
                    if let Some(Json::Array(ms)) = o.get("messages") {
                        let ms: Vec<String> = ms
                            .iter()
                            .filter_map(Json::as_str)
                            .map(str::to_string)
                            .collect();
                        roles(&l.to_string(), &ms, &mut out);
                    }
                }
            }
            _ => {}
        }
    }
    if let Some(ms) = &v.obs.messages {
        summaries("messages", Some(&Json::Array(ms.clone())), &mut out);
    }
    out
}
