//! Naming the differences of a call's outcome: the step that should have
//! decided, the rule of a result's fields and content, what in a call or
//! its arguments is wrong.

use super::*;

impl Facts<'_> {
    // --- calls ------------------------------------------------------------

    pub(super) fn call(
        &self,
        i: usize,
        e: &CallObserved,
        a: &CallObserved,
        out: &mut Vec<Violation>,
    ) {
        let mut local = Vec::new();
        let label = self.call_label(i);
        if let Some(AbortPlan::AfterTurns(t)) =
            self.scenario.calls.get(i).and_then(|c| c.abort.as_ref())
        {
            // judged by `host_limits::excuse`: what is left is no abort
            // point, or an earlier one than a call with fewer turns gave
            if e != a {
                let reason = crate::signal::AbortReason::from_option(t.reason.clone());
                let points = crate::scenario::oracle::abort_points(self.scenario, i, &reason)
                    .unwrap_or_default();
                let is_point = points.contains(a);
                // landed at a point (same trace), but ended otherwise: the
                // ending is named as any ending is (a reason not propagated
                // is CORE-CAN-01's, not the timing's)
                let landed = points.iter().find(|p| {
                    p.trace == a.trace && p.unhandled_rejections == a.unhandled_rejections
                });
                if let (false, Some(point)) = (is_point, landed) {
                    self.outcome(i, &label, point, a, &mut local);
                    if !local.is_empty() {
                        out.extend(local);
                        return;
                    }
                }
                out.push(Violation::named(
                    "CORE-CAN-09",
                    if is_point {
                        format!(
                            "{label}: the abort after {} turn(s) gave {}, an abort point earlier \
                             than one a call with fewer turns gave",
                            t.turns,
                            short(&a.outcome)
                        )
                    } else {
                        format!(
                            "{label}: the abort after {} turn(s) gave {} with a trace that none of \
                             the reference's abort points has",
                            t.turns,
                            short(&a.outcome)
                        )
                    },
                ));
                return;
            }
        }
        if e.outcome != a.outcome {
            self.outcome(i, &label, e, a, &mut local);
        }
        self.trace(Owner::Call(i), &e.trace, &a.trace, Some(e), &mut local);
        if e.unhandled_rejections != a.unhandled_rejections {
            let late_rejection = e
                .trace
                .iter()
                .chain(&a.trace)
                .any(|ev| matches!(ev, Event::LateSettlement(l) if l.rejected));
            let requirement = if late_rejection {
                "CORE-CAN-06"
            } else if self.validator_returns_thenable(&e.trace) {
                "CORE-VAL-04"
            } else {
                "CORE-VAL-03"
            };
            local.push(Violation::named(
                requirement,
                format!(
                    "{label}: {} unhandled promise rejection(s), expected {}",
                    a.unhandled_rejections, e.unhandled_rejections
                ),
            ));
        }
        if local.is_empty() && e != a {
            local.push(diff(&label, e, a));
        }
        out.extend(local);
    }

    pub(super) fn validator_result(&self, trace: &[Event]) -> Option<&Node> {
        let v = self.first_with_role(trace, Role::Validator)?;
        match self.completion(v)? {
            Completion::Return(Value::Ref(r)) => self.node(*r),
            _ => None,
        }
    }

    pub(super) fn validator_returns_promise(&self, trace: &[Event]) -> bool {
        matches!(self.validator_result(trace), Some(Node::Promise(_)))
    }

    pub(super) fn validator_returns_thenable(&self, trace: &[Event]) -> bool {
        trace
            .iter()
            .any(|e| matches!(e, Event::Call(c) if self.role(&c.call) == Some(Role::Then)))
    }

    pub(super) fn outcome(
        &self,
        i: usize,
        label: &str,
        e: &CallObserved,
        a: &CallObserved,
        out: &mut Vec<Violation>,
    ) {
        let words = format!(
            "{label}: expected {}, got {}",
            describe(&e.outcome),
            describe(&a.outcome)
        );
        let requirement = match (&e.outcome, &a.outcome) {
            (Outcome::Result(er), Outcome::Result(ar)) => {
                self.results(i, label, er, ar, &e.trace, out);
                return;
            }
            (Outcome::Cancelled(_), _) => self.cancel_requirement(i, &e.trace),
            (Outcome::Pending, _) => "CORE-CAN-06",
            (Outcome::ContractError(_), _) => self.call_problem(i).unwrap_or("CORE-CALL-02"),
            (Outcome::NonRecoverable(_), _) => "CORE-NRE-01",
            (Outcome::Rejected(_), _) => "CORE-CALL-02",
            (Outcome::Result(_), Outcome::Rejected(v)) if v.get("malformedResult").is_some() => {
                "CORE-RES-01"
            }
            (Outcome::Result(er), other) => match other {
                Outcome::NonRecoverable(_) => "CORE-NRE-02",
                _ if er.is_error => match error_payload(&er.content) {
                    Some(p) => self.error_requirement(&p.code, p.message.as_deref(), &e.trace),
                    None => "CORE-RES-02",
                },
                Outcome::Cancelled(_) => "CORE-CAN-08",
                Outcome::ContractError(_) => self.refused_call(i),
                _ => "CORE-EXE-03",
            },
        };
        out.push(Violation::named(requirement, words));
        // a genuine error that propagated where it must not breaks the rule
        // of its step too
        match (&e.outcome, &a.outcome) {
            (Outcome::Cancelled(_), Outcome::NonRecoverable(_)) => out.push(Violation::named(
                "CORE-NRE-03",
                format!("{label}: the genuine error propagated before the abort check"),
            )),
            (Outcome::Result(_), Outcome::Cancelled(_))
                if self.abort_source(&e.trace) == Some(Role::ThrownProxy) =>
            {
                out.push(Violation::named(
                    "CORE-RES-03",
                    format!(
                        "{label}: an abort while the failure message was read came after the \
                         failure path's check, so the call must give its result"
                    ),
                ))
            }
            (Outcome::Result(er), Outcome::NonRecoverable(_))
                if error_payload(&er.content)
                    .is_some_and(|p| p.code == "TOOL_VALIDATION_FAILED") =>
            {
                // a genuine error a validator's decision threw propagates
                // (CORE-NRE-01); one kept by the asynchrony check does not
                out.push(Violation::named(
                    "CORE-VAL-04",
                    format!("{label}: a genuine error kept by the asynchrony check propagated"),
                ))
            }
            (Outcome::Result(er), Outcome::Rejected(thrown))
                if er.is_error && self.is_look_alike(thrown) =>
            {
                out.push(Violation::named(
                    "CORE-NRE-02",
                    format!("{label}: an error object that is not a genuine NonRecoverableToolError rejected the call"),
                ))
            }
            _ => {}
        }
    }

    /// Whether a thrown value as observed is an object of the scenario that
    /// is not a genuine `NonRecoverableToolError` (a look-alike, an error).
    pub(super) fn is_look_alike(&self, thrown: &Json) -> bool {
        let Some(name) = thrown.get("node").and_then(Json::as_str) else {
            return false;
        };
        let Some(id) = self.id(name) else {
            return false;
        };
        matches!(self.node(id), Some(Node::Object(o)) if !o.non_recoverable_brand)
    }

    /// Whether a thrown value as observed (`{"node": name}`) is a genuine
    /// `NonRecoverableToolError` of the scenario.
    pub(super) fn is_genuine(&self, thrown: &Json) -> bool {
        let Some(name) = thrown.get("node").and_then(Json::as_str) else {
            return false;
        };
        let Some(id) = self.id(name) else {
            return false;
        };
        matches!(self.node(id), Some(Node::Object(o)) if o.non_recoverable_brand)
    }

    /// Both results: the six fields, then the content by what differs.
    pub(super) fn results(
        &self,
        i: usize,
        label: &str,
        er: &ResultMessage,
        ar: &ResultMessage,
        trace: &[Event],
        out: &mut Vec<Violation>,
    ) {
        let linked = [
            ("id", &er.id, &ar.id),
            ("toolCallId", &er.tool_call_id, &ar.tool_call_id),
            ("toolName", &er.tool_name, &ar.tool_name),
        ];
        for (field, ev, av) in linked {
            if ev != av {
                out.push(Violation::named(
                    self.linking_requirement(i, field, av),
                    format!("{label}: {field} is {av}, expected {ev}"),
                ));
            }
        }
        if er.role != ar.role {
            out.push(Violation::named(
                "CORE-RES-01",
                format!("{label}: role is {:?}, expected {:?}", ar.role, er.role),
            ));
        }
        if er.is_error != ar.is_error {
            out.push(Violation::named(
                "CORE-RES-01",
                format!(
                    "{label}: isError is {}, expected {}",
                    ar.is_error, er.is_error
                ),
            ));
        }
        if er.content == ar.content {
            return;
        }
        let ep = er.is_error.then(|| error_payload(&er.content)).flatten();
        let ap = error_payload(&ar.content);
        let at = content_difference(&er.content, &ar.content);
        match (er.is_error, ep, ap) {
            (true, Some(ep), Some(ap)) if ep.code != ap.code => {
                out.push(Violation::named(
                    self.error_requirement(&ep.code, ep.message.as_deref(), trace),
                    format!("{label}: result code is {}, expected {}", ap.code, ep.code),
                ));
                if ep.code == "TOOL_OUTPUT_SERIALIZATION_FAILED" {
                    out.push(Violation::named(
                        "CORE-EXE-05",
                        format!("{label}: a refused output must give {}", ep.code),
                    ));
                }
            }
            (true, Some(ep), Some(ap)) => match (&ep.message, &ap.message) {
                (Some(em), Some(am)) if em != am => {
                    let words = format!(
                        "{label}: {} message is {}, expected {}",
                        ep.code,
                        quote(am),
                        quote(em)
                    );
                    let primary = self.message_requirement(&ep.code, em, trace);
                    // a thrown value's message is both its step's and the
                    // failure-message rule's business
                    let secondary = if primary == "CORE-RES-03" {
                        self.failure_step_requirement(&ep.code, trace)
                    } else if is_fallback(em) {
                        Some("CORE-RES-03")
                    } else {
                        None
                    };
                    out.push(Violation::named(primary, words.clone()));
                    if let Some(r) = secondary.filter(|r| *r != primary) {
                        out.push(Violation::named(r, words));
                    }
                }
                _ => out.push(Violation::named(
                    "CORE-RES-02",
                    format!("{label}: error {at}"),
                )),
            },
            (true, Some(ep), None) if !ar.is_error => out.push(Violation::named(
                self.error_requirement(&ep.code, ep.message.as_deref(), trace),
                format!("{label}: expected result {}, got a success result", ep.code),
            )),
            (true, _, _) => out.push(Violation::named(
                "CORE-RES-02",
                format!("{label}: error {at}"),
            )),
            (false, _, Some(ap)) if ar.is_error => out.push(Violation::named(
                self.refused_output(&ap.code, ap.message.as_deref(), trace),
                format!("{label}: expected a success result, got result {}", ap.code),
            )),
            (false, _, _) => {
                out.push(Violation::named(
                    self.content_requirement(&er.content, &ar.content),
                    format!("{label}: {at}"),
                ));
                if marker_where_truncated(&er.content, &ar.content) {
                    out.push(Violation::named(
                        "CORE-SER-15",
                        format!(
                            "{label}: a marker was written where the budgets stop the walk first"
                        ),
                    ));
                }
            }
        }
    }

    /// RES-04 when a concurrent call got another call's value, else RES-01.
    pub(super) fn linking_requirement(&self, i: usize, field: &str, got: &Json) -> &'static str {
        if !self.scenario.concurrent {
            return "CORE-RES-01";
        }
        let other = self.scenario.calls.iter().enumerate().any(|(j, c)| {
            let props = c.call.get("props");
            let id = props.and_then(|p| p.get("id"));
            let name = props.and_then(|p| p.get("name"));
            j != i
                && match field {
                    "toolName" => name == Some(got),
                    "id" => {
                        id.and_then(Json::as_str)
                            .map(|s| {
                                Json::String(format!("{}{s}", crate::constants::RESULT_ID_PREFIX))
                            })
                            .as_ref()
                            == Some(got)
                    }
                    _ => id == Some(got),
                }
        });
        if other {
            "CORE-RES-04"
        } else {
            "CORE-RES-01"
        }
    }

    /// The requirement of an error result the reference produced, by code.
    pub(super) fn error_requirement(
        &self,
        code: &str,
        message: Option<&str>,
        trace: &[Event],
    ) -> &'static str {
        match code {
            "TOOL_NOT_FOUND" => "CORE-CALL-07",
            "TOOL_VALIDATION_FAILED" => self.validation_requirement(message, trace),
            "TOOL_ARGUMENTS_INVALID" => "CORE-VAL-09",
            "TOOL_EXECUTION_FAILED" => self.execution_requirement(trace),
            "TOOL_OUTPUT_SERIALIZATION_FAILED" => self.serialization_requirement(trace),
            _ => "CORE-RES-02",
        }
    }

    /// Same code, another message: a fixed message belongs to its step's
    /// requirement, a thrown value's to the failure message rules.
    pub(super) fn message_requirement(
        &self,
        code: &str,
        expected: &str,
        trace: &[Event],
    ) -> &'static str {
        match code {
            "TOOL_NOT_FOUND" => "CORE-CALL-07",
            "TOOL_ARGUMENTS_INVALID" => "CORE-VAL-09",
            "TOOL_VALIDATION_FAILED" if fixed_validation_message(expected) => {
                self.validation_requirement(Some(expected), trace)
            }
            "TOOL_EXECUTION_FAILED" if expected == fixed::EXECUTION_FAILED => {
                self.execution_requirement(trace)
            }
            "TOOL_OUTPUT_SERIALIZATION_FAILED" if expected == fixed::SERIALIZATION_FAILED => {
                "CORE-EXE-05"
            }
            "TOOL_OUTPUT_SERIALIZATION_FAILED" if expected.starts_with("Cannot perform ") => {
                "CORE-SER-09"
            }
            _ => "CORE-RES-03",
        }
    }

    /// The step whose failure a thrown value's message reports.
    pub(super) fn failure_step_requirement(
        &self,
        code: &str,
        trace: &[Event],
    ) -> Option<&'static str> {
        match code {
            "TOOL_EXECUTION_FAILED" => Some(self.execution_requirement(trace)),
            "TOOL_VALIDATION_FAILED" => Some(self.validation_requirement(None, trace)),
            "TOOL_OUTPUT_SERIALIZATION_FAILED" => Some("CORE-EXE-05"),
            _ => None,
        }
    }

    pub(super) fn validation_requirement(
        &self,
        message: Option<&str>,
        trace: &[Event],
    ) -> &'static str {
        match message {
            Some(fixed::VALIDATION_NOT_SYNC) => {
                if self.validator_returns_promise(trace) {
                    "CORE-VAL-03"
                } else {
                    "CORE-VAL-04"
                }
            }
            Some(fixed::DECISION_NOT_OBJECT | fixed::DECISION_OK_NOT_BOOLEAN | OWN_OK) => {
                "CORE-VAL-05"
            }
            Some(OWN_VALUE) => "CORE-VAL-06",
            Some(OWN_ERROR | fixed::DECISION_REJECT_WITHOUT_ERROR) => "CORE-VAL-07",
            Some(fixed::DECISION_INVALID) => "CORE-VAL-08",
            Some(fixed::VALIDATION_FAILED) => "CORE-VAL-02",
            // a thrown value's message: whoever ran last threw it
            _ => {
                let last = trace.iter().rev().find_map(|e| match e {
                    Event::Call(c) => self.role(&c.call),
                    _ => None,
                });
                match last {
                    Some(Role::Then) => "CORE-VAL-04",
                    Some(Role::DecisionGetter) => "CORE-VAL-08",
                    _ => "CORE-VAL-02",
                }
            }
        }
    }

    pub(super) fn execution_requirement(&self, trace: &[Event]) -> &'static str {
        let executor = self.first_with_role(trace, Role::Executor);
        match executor.and_then(|f| self.completion(f)) {
            Some(Completion::Throw(_)) => "CORE-EXE-02",
            Some(_) => "CORE-EXE-04",
            None => "CORE-EXE-02",
        }
    }

    pub(super) fn serialization_requirement(&self, trace: &[Event]) -> &'static str {
        let trapped = trace
            .iter()
            .any(|e| matches!(e, Event::Trap(t) if self.role(&t.proxy) == Some(Role::OutputProxy)));
        let revoked = self.roles.iter().any(|(id, role)| {
            *role == Role::OutputProxy
                && matches!(self.node(*id), Some(Node::Proxy(p)) if p.revoked)
        });
        if trapped || revoked {
            "CORE-SER-09"
        } else {
            "CORE-SER-08"
        }
    }

    /// A success expected and an error result given: the rule that should
    /// have let the call through.
    pub(super) fn refused_output(
        &self,
        code: &str,
        message: Option<&str>,
        trace: &[Event],
    ) -> &'static str {
        match code {
            "TOOL_OUTPUT_SERIALIZATION_FAILED" => self.serialization_requirement(trace),
            "TOOL_EXECUTION_FAILED" => "CORE-EXE-03",
            "TOOL_VALIDATION_FAILED" => self.validation_requirement(message, trace),
            "TOOL_ARGUMENTS_INVALID" => "CORE-VAL-06",
            "TOOL_NOT_FOUND" => "CORE-CALL-07",
            _ => "CORE-RES-02",
        }
    }

    /// A result expected and `INVALID_TOOL_CALL` given.
    pub(super) fn refused_call(&self, i: usize) -> &'static str {
        let has_arguments = self
            .built
            .as_ref()
            .and_then(|b| b.calls.get(i))
            .and_then(|v| self.field_of(v, "arguments"))
            .and_then(|v| self.through_proxies(&v).flatten())
            .is_some_and(|id| match self.node(id) {
                Some(Node::Object(o)) => o.enumerable_strings().next().is_some(),
                Some(Node::Array(a)) => a.length > 0,
                _ => false,
            });
        if has_arguments {
            "CORE-CALL-06"
        } else {
            "CORE-CALL-02"
        }
    }

    /// The value a field of an object would be read as (data or getter).
    pub(super) fn field_of(&self, v: &Value, key: &str) -> Option<Value> {
        let id = self.through_proxies(v).flatten()?;
        let Some(Node::Object(o)) = self.node(id) else {
            return None;
        };
        match o.own(&PropKey::from(key))? {
            Property::Data { value, .. } => Some(value.clone()),
            Property::Accessor {
                getter: Some(g), ..
            } => match self.completion(*g)? {
                Completion::Return(v) => Some(v.clone()),
                _ => None,
            },
            Property::Accessor { getter: None, .. } => Some(Value::Undefined),
        }
    }

    /// What makes call `i` invalid, as a CALL requirement.
    pub(super) fn call_problem(&self, i: usize) -> Option<&'static str> {
        let spec = self.scenario.calls.get(i)?;
        if spec.registry == RegistryKind::NotARegistry {
            return Some("CORE-CALL-01");
        }
        let call = self.built.as_ref()?.calls.get(i)?;
        let Some(target) = self.through_proxies(call) else {
            return Some("CORE-CALL-05");
        };
        let o = match target.and_then(|id| self.node(id)) {
            Some(Node::Object(o)) => o,
            _ => return Some("CORE-CALL-02"),
        };
        for key in CALL_FIELDS {
            let value = match o.own(&PropKey::from(key)) {
                None => return Some("CORE-CALL-02"),
                Some(Property::Data { value, .. }) => value,
                Some(Property::Accessor { getter: None, .. }) => &Value::Undefined,
                Some(Property::Accessor {
                    getter: Some(g), ..
                }) => match self.completion(*g) {
                    Some(Completion::Throw(_)) => return Some("CORE-CALL-05"),
                    Some(Completion::Return(v)) => v,
                    _ => &Value::Undefined,
                },
            };
            let fine = match key {
                "type" => {
                    matches!(value, Value::String(s) if *s == crate::JsString::new("toolCall"))
                }
                "id" | "name" => matches!(value, Value::String(s) if !s.is_blank()),
                _ => match self.through_proxies(value) {
                    None => return Some("CORE-CALL-05"),
                    Some(t) => matches!(t.and_then(|id| self.node(id)), Some(Node::Object(_))),
                },
            };
            if !fine {
                return Some("CORE-CALL-04");
            }
            if key == "arguments" {
                return self.arguments_problem(value);
            }
        }
        None
    }

    /// What in the arguments the copy refuses (a depth-first walk keeping
    /// its path, so cycles are told from shared values).
    pub(super) fn arguments_problem(&self, root: &Value) -> Option<&'static str> {
        enum Step<'v> {
            Enter(&'v Value),
            Leave(NodeId),
        }
        let mut stack = vec![Step::Enter(root)];
        let mut path: HashSet<NodeId> = HashSet::new();
        let mut budget: u32 = 1_000_000;
        let undefined = Value::Undefined;
        while let Some(step) = stack.pop() {
            budget = budget.checked_sub(1)?;
            let value = match step {
                Step::Leave(id) => {
                    path.remove(&id);
                    continue;
                }
                Step::Enter(v) => v,
            };
            let id = match value {
                Value::Null | Value::Bool(_) | Value::String(_) => continue,
                Value::Number(n) if n.is_finite() => continue,
                Value::Number(_) | Value::Undefined | Value::BigInt(_) | Value::Symbol(_) => {
                    return Some("CORE-CALL-06")
                }
                Value::Ref(_) => match self.through_proxies(value) {
                    None => return Some("CORE-CALL-05"),
                    Some(None) => continue,
                    Some(Some(id)) => id,
                },
            };
            if !path.insert(id) {
                return Some("CORE-CALL-06");
            }
            stack.push(Step::Leave(id));
            let props: Vec<&Property> = match self.node(id) {
                Some(Node::Object(o)) => {
                    if !matches!(o.proto, Proto::ObjectPrototype | Proto::Null) {
                        return Some("CORE-CALL-06");
                    }
                    o.enumerable_strings().map(|(_, p)| p).collect()
                }
                Some(Node::Array(a)) => {
                    if a.slots.len() < a.length as usize {
                        return Some("CORE-CALL-06");
                    }
                    a.slots.values().collect()
                }
                _ => return Some("CORE-CALL-06"),
            };
            for prop in props {
                match prop {
                    Property::Data { value, .. } => stack.push(Step::Enter(value)),
                    Property::Accessor { getter: None, .. } => stack.push(Step::Enter(&undefined)),
                    Property::Accessor {
                        getter: Some(g), ..
                    } => match self.completion(*g) {
                        Some(Completion::Throw(_)) => return Some("CORE-CALL-05"),
                        Some(Completion::Return(v)) => stack.push(Step::Enter(v)),
                        _ => stack.push(Step::Enter(&undefined)),
                    },
                }
            }
        }
        None
    }

    /// The requirement broken by a function running when the reference's
    /// outcome says it must not (the step that should have stopped first).
    pub(super) fn stopped_requirement(
        &self,
        i: usize,
        e: &CallObserved,
        executor: bool,
    ) -> &'static str {
        match &e.outcome {
            Outcome::Result(r) if r.is_error => match error_payload(&r.content) {
                Some(p) => match p.code.as_str() {
                    "TOOL_ARGUMENTS_INVALID" => "CORE-VAL-09",
                    "TOOL_VALIDATION_FAILED" => {
                        self.validation_requirement(p.message.as_deref(), &e.trace)
                    }
                    "TOOL_NOT_FOUND" => "CORE-CALL-07",
                    _ if executor => "CORE-EXE-01",
                    _ => "CORE-VAL-01",
                },
                None => "CORE-RES-02",
            },
            Outcome::Cancelled(_) => self.cancel_requirement(i, &e.trace),
            Outcome::ContractError(_) => self.call_problem(i).unwrap_or("CORE-CALL-06"),
            Outcome::NonRecoverable(_) => "CORE-NRE-01",
            _ if executor => "CORE-EXE-01",
            _ => "CORE-VAL-01",
        }
    }
}
