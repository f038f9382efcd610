//! The judge's comparison of the entries both observations have (the
//! n-th entry of each label against the n-th): events, invocations, and a
//! call's outcome, named by the stage pi decided it at.

use super::*;

impl<'a> Judging<'a> {
    /// Each entry both observations have (the n-th of its label), compared.
    pub(super) fn contents(&mut self) {
        let mut at: BTreeMap<Label, Vec<usize>> = BTreeMap::new();
        for (i, l, _) in self.a.entries() {
            at.entry(l.clone()).or_default().push(i);
        }
        let mut seen: BTreeMap<Label, usize> = BTreeMap::new();
        let pairs: Vec<(Label, &'a TraceEntry, &'a TraceEntry)> = self
            .e
            .entries()
            .filter_map(|(_, l, x)| {
                let n = seen.entry(l.clone()).or_default();
                *n += 1;
                let j = *at.get(l)?.get(*n - 1)?;
                Some((l.clone(), x, self.a.obs.trace.get(j)?))
            })
            .collect();
        for (l, x, y) in pairs {
            if bytes(x) != bytes(y) {
                self.entry(&l, x, y);
            }
        }
    }

    pub(super) fn entry(&mut self, l: &Label, x: &TraceEntry, y: &TraceEntry) {
        let call = l.call.clone().unwrap_or_default();
        match (x, y) {
            (TraceEntry::Event { event: x }, TraceEntry::Event { event: y }) => {
                self.event(l, &call, x, y)
            }
            (TraceEntry::Invoke(x), TraceEntry::Invoke(y)) => self.invocation(&call, x, y),
            (
                TraceEntry::Provider {
                    aborted: xa,
                    messages: xm,
                    ..
                },
                TraceEntry::Provider {
                    aborted: ya,
                    messages: ym,
                    ..
                },
            ) => {
                if xa != ya {
                    self.name(
                        &[req::ABORT_07],
                        format!("{l}: signal aborted {ya}, expected {xa}"),
                    );
                }
                if xm != ym {
                    // messages of a role the loop never makes are
                    // leading_messages'
                    let explained = &self.explained;
                    let keep = |m: &Vec<String>| -> Vec<String> {
                        m.iter()
                            .filter(|r| own_role(r))
                            .filter(|r| {
                                !explained.iter().any(|c| **r == format!("toolResult({c})"))
                            })
                            .cloned()
                            .collect()
                    };
                    if keep(xm) != keep(ym) {
                        self.name(
                            &[req::RESULT_01],
                            format!("{l} got {ym:?}, expected {xm:?}"),
                        );
                    }
                }
            }
            _ => self.unexplained(format!("{l} differs")),
        }
    }

    pub(super) fn event(&mut self, l: &Label, call: &str, x: &Json, y: &Json) {
        match l.name.as_ref() {
            "start" | "update" | "end" => {
                if keys(x) != keys(y) {
                    self.name(
                        &[req::ORDER_02],
                        format!("{l} keys {:?}, expected {:?}", keys(y), keys(x)),
                    );
                }
                for k in keys(x) {
                    let (Some(p), Some(q)) = (x.get(k), y.get(k)) else {
                        continue;
                    };
                    if same(p, q) {
                        continue;
                    }
                    let msg = format!("{l} {k}: expected {}, got {}", quote(p), quote(q));
                    match k {
                        "args" if self.prepare_got_a_copy(call, p, q) => {
                            self.name(&[req::PREP_03], msg)
                        }
                        "args" => self.name(&[req::PREP_02], msg),
                        "partialResult" => self.name(&[req::ORDER_08], msg),
                        "result" | "isError" => self.end_result(call, msg),
                        _ => self.name(&[req::ORDER_02], msg),
                    }
                }
            }
            "result_start" | "result_end" => {
                let (Some(p), Some(q)) = (x.get("message"), y.get("message")) else {
                    return self.unexplained(format!("{l} differs"));
                };
                self.message(call, p, q);
            }
            "turn_end" => {
                if let (Some(p), Some(q)) = (x.get("message"), y.get("message")) {
                    self.assistant(p, q);
                }
                if let (Some(p), Some(q)) = (x.get("toolResults"), y.get("toolResults")) {
                    self.summaries(p, q, "turn_end.toolResults");
                }
            }
            "agent_end" => {
                if let (Some(p), Some(q)) = (x.get("messages"), y.get("messages")) {
                    self.summaries(p, q, "agent_end.messages");
                }
            }
            "message_start:assistant" | "message_end:assistant" => {
                if let (Some(p), Some(q)) = (x.get("message"), y.get("message")) {
                    self.assistant(p, q);
                }
            }
            "message_start:user" | "message_end:user" => self.name(
                &[req::ORDER_01],
                format!("{l}: expected {}, got {}", quote(x), quote(y)),
            ),
            _ => self.unexplained(format!("{l}: expected {}, got {}", quote(x), quote(y))),
        }
    }

    /// A toolResult message (or its summary).
    pub(super) fn message(&mut self, call: &str, x: &Json, y: &Json) {
        let (kx, ky) = (keys(x), keys(y));
        if kx != ky {
            let added = kx.contains(&"addedToolNames") != ky.contains(&"addedToolNames");
            let ids: &[&str] = if added {
                &[req::RESULT_05, req::RESULT_06]
            } else {
                &[req::RESULT_05]
            };
            self.name(
                ids,
                format!("result message of {call}: keys {ky:?}, expected {kx:?}"),
            );
        }
        for k in kx {
            let (Some(p), Some(q)) = (x.get(k), y.get(k)) else {
                continue;
            };
            if same(p, q) {
                continue;
            }
            match k {
                "content" | "isError" | "details" => self.outcome(call),
                "addedToolNames" => self.name(
                    &[req::RESULT_06],
                    format!(
                        "result message of {call}: addedToolNames {}, expected {}",
                        quote(q),
                        quote(p)
                    ),
                ),
                _ => self.name(
                    &[req::RESULT_05],
                    format!(
                        "result message of {call}: {k} {}, expected {}",
                        quote(q),
                        quote(p)
                    ),
                ),
            }
        }
    }

    /// The end event's result or flag: the call's outcome when its message
    /// differs too, else the end event alone (it must carry the result as is).
    pub(super) fn end_result(&mut self, call: &str, msg: String) {
        let differs = match (self.e.outcome(call), self.a.outcome(call)) {
            (Some(x), Some(y)) => {
                bytes(&x) != bytes(&y)
                    || bytes(&self.e.outcomes(call)) != bytes(&self.a.outcomes(call))
            }
            _ => true,
        };
        if differs || !self.e.has("result_end", call) {
            self.outcome(call);
        } else {
            self.name(&[req::RESULT_09], msg);
        }
    }

    /// The call's outcome (content, isError, details), named by where pi
    /// decided it.
    pub(super) fn outcome(&mut self, id: &str) {
        if !self.outcome_done.insert(id.to_string()) {
            return;
        }
        let (Some(last_x), Some(last_y)) = (self.e.outcome(id), self.a.outcome(id)) else {
            return;
        };
        // the first that differs of the results of calls sharing the id
        let (xs, ys) = (self.e.outcomes(id), self.a.outcomes(id));
        let (x, y) = match xs.iter().zip(&ys).find(|(p, q)| bytes(p) != bytes(q)) {
            Some((p, q)) => (p.clone(), q.clone()),
            None => (last_x, last_y),
        };
        if bytes(&x) == bytes(&y) {
            return;
        }
        let text = |o: &(Json, Json, Json)| {
            (o.0.get(0)
                .and_then(|b| b.get("text"))
                .and_then(Json::as_str))
            .unwrap_or_default()
            .to_string()
        };
        let (xt, yt) = (text(&x), text(&y));
        let msg = format!(
            "call {id}: expected {} (isError {}), got {} (isError {})",
            quote(&x.0),
            x.1,
            quote(&y.0),
            y.1
        );
        let name = self.call(id).map_or("", |c| c.name).to_string();
        let hooks = &self.s.hooks;
        let ids: Vec<&str> = match self.kind(id) {
            // 0.85 checks the signal only after the hook: what a stage
            // decided before that stands (1.6 checks first)
            k if k != Kind::Executed
                && yt == "Operation aborted"
                && xt != yt
                && self.e.aborted_before_end(id) =>
            {
                vec![req::ABORT_02]
            }
            Kind::Unknown if yt == format!("Tool \"{name}\" not found") => {
                vec![req::LOOKUP_01, req::LOOKUP_03]
            }
            Kind::Unknown => vec![req::LOOKUP_01],
            Kind::Invalid if x.1 == y.1 && same(&x.2, &y.2) => validation_text(&xt, &yt),
            Kind::Invalid => vec![req::VAL_02],
            Kind::PrepareFailed => vec![req::PREP_04],
            Kind::Stopped if throws(hooks.before_tool_call.as_ref(), id) => vec![req::HOOK_03],
            Kind::Stopped => vec![req::HOOK_02],
            Kind::Aborted => vec![req::ABORT_01],
            Kind::Length => vec![req::STOP_01],
            Kind::Executed => self.executed(id, &yt),
            Kind::NotRun | Kind::Cut | Kind::Other => Vec::new(),
        };
        if ids.is_empty() {
            self.unexplained(msg);
        } else {
            self.name(&ids, msg);
        }
    }

    pub(super) fn executed(&self, id: &str, yt: &str) -> Vec<&'static str> {
        let end_result = self.e.event("end", id).and_then(|e| e.get("result"));
        let undefined = end_result.is_some_and(|r| same(r, &serde_json::json!({"$": "undefined"})));
        let mut ids = if undefined {
            vec![req::RESULT_04]
        } else if self.call(id).is_some_and(|c| c.args_error)
            && yt.starts_with("Invalid arguments for tool ")
        {
            vec![req::VAL_10]
        } else if yt.starts_with("Validation failed for tool ") {
            if self.plain_schema(id) {
                vec![req::VAL_06, req::VAL_08]
            } else {
                vec![req::VAL_06]
            }
        } else if let Some(Invocation::AfterToolCall { is_error, .. }) =
            self.e.invoke("afterToolCall", id)
        {
            let after = self.s.hooks.after_tool_call.as_ref();
            let patch = match script(after, id).and_then(|s| s.then.as_ref()) {
                Some(Outcome::Return(Json::Object(p))) => Some(p),
                _ => None,
            };
            let null_patch = patch.is_some_and(|p| p.values().any(Json::is_null));
            let unfailed = *is_error == Json::Bool(true)
                && self.e.outcome(id).is_some_and(|o| o.1 == Json::Bool(false));
            // the outcome's fields that differ: (name, the actual's value)
            let differs: Vec<(&str, Json)> = match (self.e.outcome(id), self.a.outcome(id)) {
                (Some(x), Some(y)) => [
                    ("content", x.0, y.0),
                    ("isError", x.1, y.1),
                    ("details", x.2, y.2),
                ]
                .into_iter()
                .filter(|(_, p, q)| !same(p, q))
                .map(|(k, _, q)| (k, q))
                .collect(),
                _ => Vec::new(),
            };
            // every difference a field the patch set to `null`, taken as a
            // value: the patch applied, only not as `??` (PIPE-HOOK-08)
            let null_taken = !differs.is_empty()
                && differs.iter().all(|(k, v)| {
                    v.is_null() && patch.and_then(|p| p.get(*k)).is_some_and(Json::is_null)
                });
            // only isError differs, still true: the patch's
            // `isError: false` did not unfail the thrown tool (PIPE-HOOK-10)
            let kept_failed = unfailed
                && matches!(differs.as_slice(), [("isError", v)] if *v == Json::Bool(true));
            if null_taken {
                vec![req::HOOK_08]
            } else if kept_failed {
                vec![req::HOOK_10]
            } else {
                let mut ids = vec![req::HOOK_07];
                if throws(after, id) {
                    ids.push(req::HOOK_09);
                }
                if null_patch {
                    ids.push(req::HOOK_08);
                }
                if unfailed {
                    ids.push(req::HOOK_10);
                }
                ids
            }
        } else if self.e.outcome(id).is_some_and(|o| o.1 == Json::Bool(true)) {
            vec![req::RESULT_02]
        } else if end_result.and_then(|r| r.get("isError")) == Some(&Json::Bool(true)) {
            vec![req::RESULT_03]
        } else if end_result.is_some_and(|r| {
            r.get("content").is_none_or(Json::is_null) || r.get("details") == Some(&Json::Null)
        }) {
            vec![req::RESULT_07]
        } else {
            vec![req::RESULT_05]
        };
        if self.e.aborted_before_end(id) {
            ids.push(req::ABORT_05);
        }
        ids
    }

    pub(super) fn invocation(&mut self, call: &str, x: &Invocation, y: &Invocation) {
        let j = |v: &Invocation| serde_json::to_value(v).unwrap_or_default();
        let (xv, yv) = (j(x), j(y));
        for k in keys(&xv) {
            let (Some(p), Some(q)) = (xv.get(k), yv.get(k)) else {
                continue;
            };
            if same(p, q) || (k == "messages" && same(&own_roles(p), &own_roles(q))) {
                continue;
            }
            let of = xv.get("of").and_then(Json::as_str).unwrap_or("?");
            let msg = format!("{of}({call}) {k}: expected {}, got {}", quote(p), quote(q));
            let arguments = |v: &Json| v.get("arguments").cloned().unwrap_or(Json::Null);
            let ids: Vec<&str> = match (of, k) {
                ("prepareArguments", "argsIsTranscript") => vec![req::PREP_03],
                ("prepareArguments", _) => vec![req::PREP_01],
                (_, "toolCall") if self.prepare_got_a_copy(call, &arguments(p), &arguments(q)) => {
                    vec![req::PREP_03]
                }
                (_, "toolCall") => vec![req::PREP_02],
                (_, "messages") if self.sees_its_own_batch(call, p, q) => vec![req::ORDER_10],
                ("beforeToolCall", "args") | ("execute", "params") => self.params(call, of),
                ("beforeToolCall", _) => vec![req::HOOK_01],
                ("afterToolCall", _) => vec![req::HOOK_06],
                ("execute", _) => vec![req::ABORT_06],
                _ => Vec::new(),
            };
            if ids.is_empty() {
                self.unexplained(msg);
            } else {
                self.name(&ids, msg);
            }
        }
    }

    /// Whether the actual's copy of a call's arguments `y`, where the
    /// reference's `x` shows the transcript's live object, is what
    /// `prepareArguments` received while `x` shows its mutation in place:
    /// prepare got a copy, so the mutation never reached the transcript
    /// (PIPE-PREP-03), not a lost raw tool call (PIPE-PREP-02).
    pub(super) fn prepare_got_a_copy(&self, call: &str, x: &Json, y: &Json) -> bool {
        match self.e.invoke("prepareArguments", call) {
            Some(Invocation::PrepareArguments {
                args_is_transcript: true,
                args,
                ..
            }) => same(args, y) && !same(args, x),
            _ => false,
        }
    }

    /// Whether the context a hook got (`y`, the roles of its messages)
    /// holds more results of the hook's own batch than the reference's
    /// (`x`): results join the context only after the batch (PIPE-ORDER-10).
    pub(super) fn sees_its_own_batch(&self, call: &str, x: &Json, y: &Json) -> bool {
        let Some(turn) = self.call(call).map(|c| c.turn) else {
            return false;
        };
        let own: Vec<String> = (self.calls.iter())
            .filter(|c| c.turn == turn)
            .map(|c| format!("toolResult({})", c.id))
            .collect();
        let count = |v: &Json| {
            v.as_array()
                .into_iter()
                .flatten()
                .filter(|r| r.as_str().is_some_and(|r| own.iter().any(|o| o == r)))
                .count()
        };
        count(y) > count(x)
    }

    /// The arguments a hook or execute received, named by what made them
    /// differ from the transcript's in the reference.
    pub(super) fn params(&self, call: &str, of: &str) -> Vec<&'static str> {
        let args = |v: &View<'_>, name: &str| match v.invoke(name, call) {
            Some(Invocation::BeforeToolCall { args, .. }) => Some(args.clone()),
            Some(Invocation::Execute { params, .. }) => Some(params.clone()),
            _ => None,
        };
        let raw = self
            .e
            .event("start", call)
            .and_then(|s| s.get("args"))
            .cloned();
        let validated = args(&self.e, "beforeToolCall").or_else(|| args(&self.e, "execute"));
        // execute gets the very object beforeToolCall got (PIPE-HOOK-04):
        // with the hook's mutation in place, and not the `args` the hook
        // returned
        if of == "execute" {
            let (expected, actual) = (args(&self.e, "execute"), args(&self.a, "execute"));
            let mutation_lost = validated
                .as_ref()
                .zip(expected.as_ref())
                .is_some_and(|(v, e)| !same(v, e))
                && validated
                    .as_ref()
                    .zip(actual.as_ref())
                    .is_some_and(|(v, a)| same(v, a));
            let returned = match script(self.s.hooks.before_tool_call.as_ref(), call)
                .and_then(|s| s.then.as_ref())
            {
                Some(Outcome::Return(r)) => r.get("args"),
                _ => None,
            };
            let returned_used = returned
                .zip(actual.as_ref())
                .is_some_and(|(r, a)| same(r, a))
                && returned
                    .zip(expected.as_ref())
                    .is_some_and(|(r, e)| !same(r, e));
            if mutation_lost || returned_used {
                return vec![req::HOOK_04];
            }
        }
        let mut ids = Vec::new();
        if of == "execute"
            && validated
                .as_ref()
                .zip(args(&self.e, "execute").as_ref())
                .is_some_and(|(p, q)| !same(p, q))
        {
            ids.push(req::HOOK_04);
        }
        if self.e.has("prepareArguments", call) {
            ids.push(req::PREP_01);
        } else if let (Some(raw), Some(v)) = (&raw, &validated) {
            if !same(raw, v) {
                ids.push(req::VAL_06);
                if raw
                    .as_object()
                    .is_some_and(|o| o.values().any(Json::is_null))
                {
                    ids.push(req::VAL_07);
                }
                if self.plain_schema(call) {
                    ids.push(req::VAL_08);
                }
            }
        }
        // a string the model sent as `null` reaches the tool as the text
        // "null" (TypeBox-built schemas; PIPE-RESULT-08, 1.6: plain ones
        // too): the tool got something else, or got it where pi does not
        // give it
        if of == "execute" {
            let text = Json::from("null");
            let (x, y) = (args(&self.e, "execute"), args(&self.a, "execute"));
            let (x, y) = (
                x.as_ref().and_then(Json::as_object),
                y.as_ref().and_then(Json::as_object),
            );
            if let (Some(raw), Some(x), Some(y)) = (raw.as_ref().and_then(Json::as_object), x, y) {
                let differs = raw.iter().any(|(k, v)| {
                    let (p, q) = (x.get(k), y.get(k));
                    v.is_null() && (p == Some(&text) || q == Some(&text)) && p != q
                });
                if differs {
                    ids.push(req::RESULT_08);
                }
            }
        }
        if ids.is_empty() {
            ids.push(req::VAL_01);
        }
        ids
    }
}

/// A validation failure text against the reference's: the frame
/// (PIPE-VAL-02), the paths (03), the messages (04), the arguments printed
/// (05), a non-object root (09).
fn validation_text(x: &str, y: &str) -> Vec<&'static str> {
    struct Parts<'t> {
        header: &'t str,
        lines: Vec<(&'t str, &'t str)>,
        received: &'t str,
    }
    pub(super) fn parts(t: &str) -> Option<Parts<'_>> {
        let (head, received) = t.split_once("\n\nReceived arguments:\n")?;
        let (header, body) = head.split_once('\n')?;
        let lines = body
            .split('\n')
            .map(|l| l.strip_prefix("  - ")?.split_once(": "))
            .collect::<Option<Vec<_>>>()?;
        Some(Parts {
            header,
            lines,
            received,
        })
    }
    let (Some(p), Some(q)) = (parts(x), parts(y)) else {
        return vec![req::VAL_02];
    };
    let mut ids = Vec::new();
    if p.header != q.header {
        ids.push(req::VAL_02);
    }
    let paths = |p: &Parts<'_>| p.lines.iter().map(|l| l.0.to_string()).collect::<Vec<_>>();
    let messages = |p: &Parts<'_>| p.lines.iter().map(|l| l.1.to_string()).collect::<Vec<_>>();
    if paths(&p) != paths(&q) {
        ids.push(req::VAL_03);
    }
    if messages(&p) != messages(&q) {
        ids.push(req::VAL_04);
    }
    if p.received != q.received {
        ids.push(req::VAL_05);
    }
    if !ids.is_empty() && p.lines.contains(&("root", "must be object")) {
        ids.push(req::VAL_09);
    }
    if ids.is_empty() {
        ids.push(req::VAL_02);
    }
    ids
}

/// A hook context's roles without those of messages the loop never makes
/// (`leading_messages`' to judge).
fn own_roles(v: &Json) -> Json {
    match v.as_array() {
        Some(roles) => Json::Array(
            roles
                .iter()
                .filter(|r| r.as_str().is_none_or(own_role))
                .cloned()
                .collect(),
        ),
        None => v.clone(),
    }
}
