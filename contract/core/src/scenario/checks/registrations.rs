//! Naming the differences of registrations: which definition or batch rule
//! a registration that ended otherwise broke.

use super::*;

impl Facts<'_> {
    // --- registrations ----------------------------------------------------

    pub(super) fn registrations(
        &self,
        expected: &Observation,
        actual: &Observation,
        out: &mut Vec<Violation>,
    ) {
        if expected.initial != actual.initial {
            // the construction follows registerMany's rules (CORE-REG-06)
            let words = match (&expected.initial, &actual.initial) {
                (Some(e), Some(a)) if e.outcome != a.outcome => format!(
                    "the registry's construction: expected {}, got {}",
                    registered(&e.outcome),
                    registered(&a.outcome)
                ),
                (Some(_), None) => "the registry's construction was not observed".to_string(),
                (None, Some(_)) => {
                    "a construction was observed but the scenario has no initial batch".to_string()
                }
                (e, a) => diff("the registry's construction", e, a).message,
            };
            out.push(Violation::named("CORE-REG-06", words));
        }
        let n = expected.registrations.len().max(actual.registrations.len());
        for i in 0..n {
            match (expected.registrations.get(i), actual.registrations.get(i)) {
                (Some(e), Some(a)) => self.registration(i, e, a, out),
                (Some(_), None) => out.push(Violation::unnamed(format!(
                    "registration {i} was not observed"
                ))),
                (None, Some(_)) => out.push(Violation::unnamed(format!(
                    "registration {i} was observed but the scenario makes {} registration(s)",
                    expected.registrations.len()
                ))),
                (None, None) => {}
            }
        }
    }

    pub(super) fn registration(
        &self,
        i: usize,
        e: &RegistrationObserved,
        a: &RegistrationObserved,
        out: &mut Vec<Violation>,
    ) {
        let mut local = Vec::new();
        if e.outcome != a.outcome {
            let requirement = match (e.outcome.clone(), a.outcome.clone()) {
                (Registered::ContractError(ec), Registered::ContractError(ac))
                    if self.first_failure_decides(i, ec, ac) =>
                {
                    "CORE-REG-03"
                }
                (Registered::ContractError(code), _) => self.registration_requirement(i, code),
                // the reference never throws anything else
                (Registered::Rejected(_), _) => "CORE-DEF-01",
                (Registered::Ok, Registered::Rejected(_)) => "CORE-DEF-01",
                (Registered::Ok, Registered::ContractError(code)) => match code {
                    // a valid batch refused: the rule that admits it
                    ContractCode::InvalidToolDefinition => "CORE-DEF-01",
                    ContractCode::DuplicateToolName => "CORE-REG-04",
                    ContractCode::InvalidToolBatch | ContractCode::InvalidToolCall => "CORE-REG-01",
                },
                (Registered::Ok, Registered::Ok) => "CORE-REG-06",
            };
            local.push(Violation::named(
                requirement,
                format!(
                    "registration {i}: expected {}, got {}",
                    registered(&e.outcome),
                    registered(&a.outcome)
                ),
            ));
            if let (Registered::ContractError(_), Registered::Rejected(thrown)) =
                (&e.outcome, &a.outcome)
            {
                if self.is_genuine(thrown) {
                    local.push(Violation::named(
                        "CORE-NRE-04",
                        format!("registration {i}: a genuine NonRecoverableToolError thrown while reading a definition propagated"),
                    ));
                }
            }
        }
        self.trace(Owner::Registration(i), &e.trace, &a.trace, None, &mut local);
        if local.is_empty() && e != a {
            local.push(diff(&format!("registration {i}"), e, a));
        }
        out.extend(local);
    }

    /// Whether two different failure codes come from a batch holding more
    /// than one fault, where only the order of the checks decides.
    pub(super) fn first_failure_decides(
        &self,
        i: usize,
        ec: ContractCode,
        ac: ContractCode,
    ) -> bool {
        if ec == ac {
            return false;
        }
        let problems = self.batch_problems(i);
        let distinct: HashSet<&str> = problems.iter().copied().collect();
        let duplicate =
            ec == ContractCode::DuplicateToolName || ac == ContractCode::DuplicateToolName;
        distinct.len() >= 2 || (duplicate && !problems.is_empty())
    }

    pub(super) fn registration_requirement(&self, i: usize, code: ContractCode) -> &'static str {
        let problems = self.batch_problems(i);
        let find = |prefix: &str| problems.iter().copied().find(|p| p.starts_with(prefix));
        match code {
            ContractCode::InvalidToolDefinition => find("CORE-DEF-").unwrap_or("CORE-DEF-01"),
            ContractCode::InvalidToolBatch => find("CORE-REG-").unwrap_or("CORE-REG-01"),
            ContractCode::DuplicateToolName => "CORE-REG-04",
            ContractCode::InvalidToolCall => "CORE-REG-01",
        }
    }

    /// The faults of batch `i` in index order, as requirement ids (a few at
    /// most: only the first ones can decide).
    pub(super) fn batch_problems(&self, i: usize) -> Vec<&'static str> {
        let Some(built) = &self.built else {
            return Vec::new();
        };
        let Some(batch) = built.registrations.get(i) else {
            return Vec::new();
        };
        let Some(array) = self.through_proxies(batch) else {
            return vec!["CORE-REG-01"];
        };
        let Some(Node::Array(array)) = array.and_then(|id| built.heap.node(id)) else {
            return vec!["CORE-REG-01"];
        };
        let mut problems = Vec::new();
        let mut next: u64 = 0;
        for (&index, prop) in &array.slots {
            if problems.len() >= 4 {
                return problems;
            }
            if u64::from(index) > next {
                problems.push("CORE-REG-02");
            }
            next = u64::from(index) + 1;
            let problem = match prop {
                Property::Data { value, .. } => self.definition_problem(value),
                Property::Accessor { getter: None, .. } => Some("CORE-DEF-01"),
                Property::Accessor {
                    getter: Some(g), ..
                } => match self.completion(*g) {
                    Some(Completion::Throw(_)) => Some("CORE-REG-01"),
                    Some(Completion::Return(v)) => self.definition_problem(v),
                    _ => Some("CORE-DEF-01"),
                },
            };
            problems.extend(problem);
        }
        if u64::from(array.length) > next {
            problems.push("CORE-REG-02");
        }
        problems
    }

    /// Follows proxies to their final target. `None` when a proxy on the
    /// way is revoked or has a throwing trap; `Some(None)` for a primitive.
    pub(super) fn through_proxies(&self, v: &Value) -> Option<Option<NodeId>> {
        let Value::Ref(mut id) = v else {
            return Some(None);
        };
        for _ in 0..=MAX_CHAIN {
            match self.node(id) {
                Some(Node::Proxy(p)) => {
                    let throws = p
                        .traps
                        .values()
                        .any(|t| matches!(t, TrapBehavior::Throw(_)));
                    if p.revoked || throws {
                        return None;
                    }
                    id = p.target;
                }
                _ => return Some(Some(id)),
            }
        }
        Some(Some(id))
    }

    /// What is wrong with one definition, if anything.
    pub(super) fn definition_problem(&self, v: &Value) -> Option<&'static str> {
        let Some(target) = self.through_proxies(v) else {
            return Some("CORE-DEF-06");
        };
        let Some(id) = target else {
            return Some("CORE-DEF-01");
        };
        let o = match self.node(id) {
            Some(Node::Object(o)) => o,
            Some(Node::Function(_)) | None => return Some("CORE-DEF-01"),
            Some(_) => return Some("CORE-DEF-02"),
        };
        for key in DEFINITION_FIELDS {
            let value = match o.own(&PropKey::from(key)) {
                None => return Some("CORE-DEF-02"),
                Some(Property::Data { value, .. }) => value,
                Some(Property::Accessor { getter: None, .. }) => &Value::Undefined,
                Some(Property::Accessor {
                    getter: Some(g), ..
                }) => match self.completion(*g) {
                    Some(Completion::Throw(_)) => return Some("CORE-DEF-06"),
                    Some(Completion::Return(v)) => v,
                    _ => &Value::Undefined,
                },
            };
            let fine = match key {
                "name" | "description" => matches!(value, Value::String(s) if !s.is_blank()),
                _ => {
                    matches!(value, Value::Ref(f) if matches!(self.node(*f), Some(Node::Function(_))))
                }
            };
            if !fine {
                return Some(if key == "name" || key == "description" {
                    "CORE-DEF-03"
                } else {
                    "CORE-DEF-04"
                });
            }
        }
        None
    }
}
