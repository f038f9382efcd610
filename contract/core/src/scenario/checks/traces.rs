//! Naming the differences of traces: functions run too often or too
//! rarely, in another order or with other arguments, traps, aborts and
//! listeners, and the serializer rule a content difference breaks.

use super::*;

impl Facts<'_> {
    // --- traces -----------------------------------------------------------

    pub(super) fn trace(
        &self,
        owner: Owner,
        e: &[Event],
        a: &[Event],
        call: Option<&CallObserved>,
        out: &mut Vec<Violation>,
    ) {
        if same_as_written(e, a) {
            return;
        }
        let at = match owner {
            Owner::Registration(i) => format!("registration {i}"),
            Owner::Call(i) => self.call_label(i),
        };
        let before = out.len();
        // set when some part of the difference has no predicate, so the
        // diff is shown besides whatever was named
        let mut unexplained = false;
        let mut counts_differ = false;
        for (name, (en, an)) in run_counts(e, a) {
            if en == an {
                continue;
            }
            counts_differ = true;
            match self.run_count(owner, name, en, an, call) {
                Some((requirement, what)) => {
                    out.push(Violation::named(requirement, format!("{at}: {what}")))
                }
                None => unexplained = true,
            }
        }
        let names = |t: &'_ [Event]| -> Vec<String> {
            t.iter()
                .filter_map(|ev| match ev {
                    Event::Call(c) => Some(c.call.clone()),
                    _ => None,
                })
                .collect()
        };
        let (en, an) = (names(e), names(a));
        if !counts_differ && en != an {
            unexplained |= !self.order(&at, &en, &an, out);
        }
        if en == an {
            unexplained |= !self.arguments(&at, e, a, out);
        }
        unexplained |= !self.other_events(&at, e, a, out);
        let aborts = |t: &'_ [Event]| -> Vec<Event> {
            t.iter()
                .filter(|ev| matches!(ev, Event::Abort(_)))
                .cloned()
                .collect()
        };
        let (ea, aa) = (aborts(e), aborts(a));
        if ea != aa {
            match owner {
                Owner::Call(i) => {
                    let reasons = |t: &[Event]| -> String {
                        let list: Vec<String> = t
                            .iter()
                            .filter_map(|ev| match ev {
                                Event::Abort(x) => Some(reason(&x.abort)),
                                _ => None,
                            })
                            .collect();
                        format!("[{}]", list.join(", "))
                    };
                    out.push(Violation::named(
                        self.cancel_requirement(i, e),
                        format!(
                            "{at}: the signal aborted {} with reasons {}, expected {} with {}",
                            times(aa.len()),
                            reasons(&aa),
                            times(ea.len()),
                            reasons(&ea)
                        ),
                    ));
                }
                Owner::Registration(_) => unexplained = true,
            }
        }
        if unexplained || out.len() == before {
            out.push(diff(&format!("{at} trace"), e, a));
        }
    }

    pub(super) fn run_count(
        &self,
        owner: Owner,
        name: &str,
        en: usize,
        an: usize,
        call: Option<&CallObserved>,
    ) -> Option<(&'static str, String)> {
        let role = self.role(name);
        let plain = format!("`{name}` ran {}, expected {}", times(an), times(en));
        let Owner::Call(i) = owner else {
            let requirement = match role {
                Some(Role::InheritedDefinitionGetter) => "CORE-DEF-02",
                Some(Role::BatchGetter) => "CORE-REG-02",
                _ => "CORE-DEF-05",
            };
            return Some((requirement, plain));
        };
        let stopped = |executor: bool| -> Option<(&'static str, String)> {
            let e = call?;
            Some((
                self.stopped_requirement(i, e, executor),
                format!("`{name}` ran {} after {}", times(an), short(&e.outcome)),
            ))
        };
        let requirement = match role? {
            Role::Executor if en == 0 => return stopped(true),
            Role::Validator if en == 0 => return stopped(false),
            Role::Executor => "CORE-EXE-01",
            Role::Validator => "CORE-VAL-01",
            Role::DefinitionGetter | Role::InheritedDefinitionGetter | Role::BatchGetter => {
                "CORE-DEF-07"
            }
            Role::CallGetter => "CORE-CALL-03",
            Role::InheritedCallGetter => "CORE-CALL-02",
            Role::ArgumentsGetter => "CORE-CALL-06",
            Role::Then => "CORE-VAL-04",
            Role::DecisionGetter => "CORE-VAL-08",
            Role::OutputThen => "CORE-EXE-03",
            Role::OutputGetter | Role::OutputFunction => "CORE-SER-05",
            Role::OutputSlotGetter => "CORE-SER-06",
            Role::BatchProxy
            | Role::DefinitionProxy
            | Role::CallProxy
            | Role::ArgumentsProxy
            | Role::DecisionProxy
            | Role::OutputProxy
            | Role::ThrownProxy => return None,
        };
        Some((requirement, plain))
    }

    /// Same runs, another order. Returns whether it named the difference.
    pub(super) fn order(
        &self,
        at: &str,
        en: &[String],
        an: &[String],
        out: &mut Vec<Violation>,
    ) -> bool {
        let first =
            |names: &[String], role: Role| names.iter().position(|n| self.role(n) == Some(role));
        if let (Some(v), Some(x)) = (first(an, Role::Validator), first(an, Role::Executor)) {
            if x < v {
                out.push(Violation::named(
                    "CORE-VAL-01",
                    format!(
                        "{at}: `{}` ran before `{}`",
                        an.get(x).map_or("", |s| s),
                        an.get(v).map_or("", |s| s)
                    ),
                ));
                return true;
            }
        }
        let Some(p) = en.iter().zip(an).position(|(x, y)| x != y) else {
            return false;
        };
        let (Some(want), Some(got)) = (en.get(p), an.get(p)) else {
            return false;
        };
        let requirement = match self.role(want).or_else(|| self.role(got)) {
            Some(Role::CallGetter | Role::InheritedCallGetter) => "CORE-CALL-03",
            Some(Role::DefinitionGetter | Role::InheritedDefinitionGetter) => "CORE-DEF-05",
            Some(Role::BatchGetter) => "CORE-REG-02",
            Some(Role::DecisionGetter) => "CORE-VAL-08",
            Some(Role::ArgumentsGetter) => "CORE-CALL-06",
            Some(Role::Then) => "CORE-VAL-04",
            Some(Role::Validator) => "CORE-VAL-01",
            Some(Role::Executor) => "CORE-EXE-01",
            _ => return false,
        };
        out.push(Violation::named(
            requirement,
            format!(
                "{at}: function call {} is `{got}`, expected `{want}`",
                p + 1
            ),
        ));
        true
    }

    /// Same calls in the same order, other arguments. Returns whether every
    /// difference was named.
    pub(super) fn arguments(
        &self,
        at: &str,
        e: &[Event],
        a: &[Event],
        out: &mut Vec<Violation>,
    ) -> bool {
        let calls = |t: &'_ [Event]| -> Vec<(String, Vec<Json>)> {
            t.iter()
                .filter_map(|ev| match ev {
                    Event::Call(c) => Some((c.call.clone(), c.args.clone())),
                    _ => None,
                })
                .collect()
        };
        let mut all_named = true;
        for ((name, ea), (_, aa)) in calls(e).iter().zip(calls(a).iter()) {
            if same_as_written(ea, aa) {
                continue;
            }
            let requirement = match self.role(name) {
                Some(Role::Validator) => "CORE-CALL-06",
                Some(Role::Executor) => "CORE-EXE-01",
                Some(Role::Then) => "CORE-VAL-04",
                _ => {
                    all_named = false;
                    continue;
                }
            };
            out.push(Violation::named(
                requirement,
                format!(
                    "{at}: `{name}` received {}, expected {}",
                    clip(&Json::Array(aa.clone()).to_string()),
                    clip(&Json::Array(ea.clone()).to_string())
                ),
            ));
        }
        all_named
    }

    /// Traps, abort listeners and late settlements, compared as multisets.
    /// Returns whether every difference was named.
    pub(super) fn other_events(
        &self,
        at: &str,
        e: &[Event],
        a: &[Event],
        out: &mut Vec<Violation>,
    ) -> bool {
        let tally = |t: &'_ [Event]| -> BTreeMap<(u8, String, String), usize> {
            let mut m = BTreeMap::new();
            for ev in t {
                let key = match ev {
                    Event::Trap(tr) => (0, tr.proxy.clone(), tr.trap.js_name().to_string()),
                    Event::AbortListener(l) => (1, l.abort_listener.clone(), String::new()),
                    Event::LateSettlement(l) => {
                        let how = if l.rejected {
                            "rejection"
                        } else {
                            "fulfilment"
                        };
                        (2, l.late_settlement.clone(), how.to_string())
                    }
                    _ => continue,
                };
                *m.entry(key).or_insert(0) += 1;
            }
            m
        };
        let (et, atally) = (tally(e), tally(a));
        let keys: std::collections::BTreeSet<&(u8, String, String)> =
            et.keys().chain(atally.keys()).collect();
        let mut all_named = true;
        for key in keys {
            let (en, an) = (
                et.get(key).copied().unwrap_or(0),
                atally.get(key).copied().unwrap_or(0),
            );
            if en == an {
                continue;
            }
            let (kind, name, detail) = key;
            let (requirement, what) = match kind {
                0 => match self.role(name).and_then(trap_requirement_of) {
                    Some(r) => (r, format!("trap `{detail}` of `{name}` ran")),
                    None => {
                        all_named = false;
                        continue;
                    }
                },
                1 => ("CORE-CAN-06", format!("abort listener `{name}` fired")),
                _ => (
                    "CORE-CAN-06",
                    format!("a late {detail} of `{name}` was observed"),
                ),
            };
            out.push(Violation::named(
                requirement,
                format!("{at}: {what} {}, expected {}", times(an), times(en)),
            ));
        }
        all_named
    }

    // --- contents ---------------------------------------------------------

    /// The CORE-SER requirement a success content difference belongs to.
    pub(super) fn content_requirement(&self, e: &str, a: &str) -> &'static str {
        let (ec, ac): (Vec<char>, Vec<char>) = (e.chars().collect(), a.chars().collect());
        let (et, at) = (truncated(&ec), truncated(&ac));
        match (et, at) {
            (Some(p), None) => return self.truncation_requirement(p, ac.len()),
            (None, Some(p)) => return self.truncation_requirement(p, ec.len()),
            (Some(p), Some(q)) if p.len() != q.len() => {
                return self.truncation_requirement(p, q.len())
            }
            _ => {}
        }
        let Some(pos) = first_difference(&ec, &ac) else {
            return "CORE-SER-17";
        };
        classify(&ec, &ac, pos)
    }

    /// Which budget cut `prefix` (the content before the marker).
    pub(super) fn truncation_requirement(&self, prefix: &[char], other_len: usize) -> &'static str {
        if prefix.len() >= TRUNCATED_PREFIX || other_len >= TRUNCATED_PREFIX {
            return "CORE-SER-10";
        }
        let s = scan(prefix, prefix.len());
        if s.stack.len() > MAX_DEPTH {
            "CORE-SER-11"
        } else if s.values >= MAX_NODES {
            "CORE-SER-12"
        } else if s.entries >= MAX_ENTRIES {
            "CORE-SER-13"
        } else if self.has_huge_bigint() {
            "CORE-SER-03"
        } else {
            "CORE-SER-10"
        }
    }

    pub(super) fn has_huge_bigint(&self) -> bool {
        let mut stack: Vec<&Json> = self.scenario.nodes.values().collect();
        stack.extend(self.scenario.calls.iter().map(|c| &c.call));
        let mut budget: u32 = 100_000;
        while let Some(j) = stack.pop() {
            budget = match budget.checked_sub(1) {
                Some(b) => b,
                None => return false,
            };
            match j {
                Json::Object(o) => {
                    if o.get("$").and_then(Json::as_str) == Some("bigint") {
                        let pow = o.get("pow2").and_then(Json::as_u64).unwrap_or(0);
                        let digits = o.get("decimal").and_then(Json::as_str).map_or(0, str::len);
                        if pow >= crate::constants::MAX_BIGINT_BITS || digits > 1233 {
                            return true;
                        }
                    }
                    stack.extend(o.values());
                }
                Json::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        false
    }
}
