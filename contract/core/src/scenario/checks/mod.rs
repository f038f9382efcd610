//! The checks that judge an implementation: its observation of a scenario
//! against the reference's, turned into violations that name the SPEC.md
//! requirement each difference breaks and say what happened in words.
//!
//! [`check_core`] compares whole observations: every difference gives at
//! least one violation, named when a predicate recognises it, else a
//! readable diff.
//!
//! Predicates need to know what a trace entry *is* (a validator, a getter of
//! the call, a `then` on a decision...), which the observation does not say.
//! They learn it from a role analysis of the scenario's heap: which
//! functions are definitions' `validate` and `execute`, which nodes are
//! reachable from calls, from decisions (validator return values) and from
//! outputs (executor return values). The analysis is a heuristic for naming
//! only: whether something is a violation never depends on it.

use super::build::{build, Built};
use super::observation::{
    CallObserved, Event, Observation, Outcome, ReasonObserved, Registered, RegistrationObserved,
    ResultMessage,
};
use super::spec::{AbortPlan, RegistryKind, Scenario};
use crate::constants::{marker, TRUNCATION_MARKER};
use crate::constants::{message as fixed, MAX_DEPTH, MAX_ENTRIES, MAX_NODES, TRUNCATED_PREFIX};
use crate::error::ContractCode;
use crate::model::{
    Completion, Effect, Node, NodeId, PromiseNode, PropKey, Property, Proto, Trap, TrapBehavior,
    Value, MAX_CHAIN,
};
use serde::Serialize;
use serde_json::Value as Json;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// One way an observation departs from the reference's (the one type of
/// every suite, in [`crate::suites`]).
pub use toolgate_suite::Violation;

/// Whether two observations, or parts of them, are the same as written:
/// their `==` ignores the order of a JSON object's keys, which an argument
/// copy must keep (CORE-CALL-06).
pub use toolgate_suite::same_as_written;

/// Every difference between `expected` (the reference's observation of
/// `scenario`) and `actual`, as violations.
pub fn check_core(
    scenario: &Scenario,
    expected: &Observation,
    actual: &Observation,
) -> Vec<Violation> {
    check_core_facts(Facts::new(scenario), expected, actual)
}

/// [`check_core`] with `scenario` already decoded (`built`, within any
/// limits it fits: they only refuse, never change, what a scenario
/// decodes to), for a caller that has it: decoding is most of the checks'
/// cost on a large heap.
pub fn check_core_built(
    scenario: &Scenario,
    built: Built,
    expected: &Observation,
    actual: &Observation,
) -> Vec<Violation> {
    check_core_facts(Facts::with(scenario, Some(built)), expected, actual)
}

fn check_core_facts(
    facts: Facts<'_>,
    expected: &Observation,
    actual: &Observation,
) -> Vec<Violation> {
    let mut out = Vec::new();
    facts.registrations(expected, actual, &mut out);
    if expected.names != actual.names {
        // all or nothing is the rule at stake once any registration failed
        let failed = expected
            .registrations
            .iter()
            .any(|r| r.outcome != Registered::Ok);
        out.push(Violation::named(
            if failed { "CORE-REG-05" } else { "CORE-REG-07" },
            format!(
                "names after the scenario are {}, expected {}",
                Json::Array(actual.names.clone()),
                Json::Array(expected.names.clone())
            ),
        ));
    }
    let n = expected.calls.len().max(actual.calls.len());
    for i in 0..n {
        match (expected.calls.get(i), actual.calls.get(i)) {
            (Some(e), Some(a)) => facts.call(i, e, a, &mut out),
            (Some(_), None) => out.push(Violation::unnamed(format!(
                "{} was not observed",
                facts.call_label(i)
            ))),
            (None, Some(_)) => out.push(Violation::unnamed(format!(
                "call {i} was observed but the scenario makes {} call(s)",
                expected.calls.len()
            ))),
            (None, None) => {}
        }
    }
    out
}

/// How many times each function ran, expected and actual, by name.
fn run_counts<'a>(e: &'a [Event], a: &'a [Event]) -> BTreeMap<&'a str, (usize, usize)> {
    let mut counts: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for ev in e {
        if let Event::Call(c) = ev {
            counts.entry(c.call.as_str()).or_default().0 += 1;
        }
    }
    for ev in a {
        if let Event::Call(c) = ev {
            counts.entry(c.call.as_str()).or_default().1 += 1;
        }
    }
    counts
}

fn times(n: usize) -> String {
    if n == 1 {
        "1 time".to_string()
    } else {
        format!("{n} times")
    }
}

/// "call 0 (c1)": the index, and the call's id when the scenario spells it
/// as a plain string.
fn call_label(scenario: &Scenario, i: usize) -> String {
    let id = scenario
        .calls
        .get(i)
        .and_then(|c| c.call.get("props"))
        .and_then(|p| p.get("id"))
        .and_then(Json::as_str);
    match id {
        // quoted when blank or odd, so the label stays readable
        Some(id)
            if !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_alphanumeric() || "-_.:".contains(c)) =>
        {
            format!("call {i} ({id})")
        }
        Some(id) => format!("call {i} ({id:?})"),
        None => format!("call {i}"),
    }
}

mod calls;
mod content;
mod registrations;
mod roles;
mod traces;
mod words;

use content::*;
use roles::*;
use words::*;

// ---------------------------------------------------------------------------
// Facts about one scenario, and the core predicates

struct Facts<'s> {
    scenario: &'s Scenario,
    built: Option<Built>,
    /// Node ids by name, as traces name nodes.
    ids: HashMap<String, NodeId>,
    roles: HashMap<NodeId, Role>,
}

/// Which observation a trace belongs to.
#[derive(Clone, Copy)]
enum Owner {
    Registration(usize),
    Call(usize),
}

impl<'s> Facts<'s> {
    fn new(scenario: &'s Scenario) -> Facts<'s> {
        // a scenario the reference cannot build still gets checked, with
        // fewer names
        Facts::with(scenario, build(scenario).ok())
    }

    fn with(scenario: &'s Scenario, built: Option<Built>) -> Facts<'s> {
        let roles = built.as_ref().map(analyse).unwrap_or_default();
        let mut ids = HashMap::new();
        for (id, name) in built.iter().flat_map(Built::names) {
            ids.entry(name.into_owned()).or_insert(id);
        }
        Facts {
            scenario,
            built,
            ids,
            roles,
        }
    }

    fn id(&self, name: &str) -> Option<NodeId> {
        self.ids.get(name).copied()
    }

    fn node(&self, id: NodeId) -> Option<&Node> {
        self.built.as_ref()?.heap.node(id)
    }

    fn role(&self, name: &str) -> Option<Role> {
        self.id(name).and_then(|id| self.roles.get(&id).copied())
    }

    fn completion(&self, id: NodeId) -> Option<&Completion> {
        match self.node(id) {
            Some(Node::Function(f)) => Some(&f.script.completion),
            _ => None,
        }
    }

    fn call_label(&self, i: usize) -> String {
        call_label(self.scenario, i)
    }

    /// The first function of `role` the trace shows running.
    fn first_with_role(&self, trace: &[Event], role: Role) -> Option<NodeId> {
        trace.iter().find_map(|e| match e {
            Event::Call(c) if self.role(&c.call) == Some(role) => self.id(&c.call),
            _ => None,
        })
    }

    fn function_aborts(&self, name: &str) -> bool {
        match self.id(name).and_then(|id| self.node(id)) {
            Some(Node::Function(f)) => f
                .script
                .effects
                .iter()
                .any(|e| matches!(e, Effect::Abort(_))),
            _ => false,
        }
    }

    fn trap_aborts(&self, proxy: &str, trap: Trap) -> bool {
        match self.id(proxy).and_then(|id| self.node(id)) {
            Some(Node::Proxy(p)) => matches!(p.trap(trap), TrapBehavior::Abort(_)),
            _ => false,
        }
    }

    /// The CAN requirement of call `i`'s cancellation, from where the abort
    /// comes from: the plan, else the node whose run the reference's trace
    /// shows just before the abort, else any node that can abort.
    /// The role of what aborted the signal first in `trace`: the function
    /// or trap recorded just before the abort, when it is one that aborts.
    fn abort_source(&self, trace: &[Event]) -> Option<Role> {
        let abort_at = trace.iter().position(|e| matches!(e, Event::Abort(_)));
        let before = abort_at
            .and_then(|k| k.checked_sub(1))
            .and_then(|k| trace.get(k));
        match before {
            Some(Event::Call(c)) if self.function_aborts(&c.call) => self.role(&c.call),
            Some(Event::Trap(t)) if self.trap_aborts(&t.proxy, t.trap) => self.role(&t.proxy),
            _ => None,
        }
    }

    fn cancel_requirement(&self, i: usize, trace: &[Event]) -> &'static str {
        let plan = self.scenario.calls.get(i).and_then(|c| c.abort.as_ref());
        // an abort from outside, before the call or after some job-queue
        // turns (landed at an abort point, or CORE-CAN-09 names it): what
        // is left to differ is its reason
        if let Some(AbortPlan::Before(_) | AbortPlan::AfterTurns(_)) = plan {
            return "CORE-CAN-01";
        }
        if let Some(role) = self.abort_source(trace) {
            return cancel_requirement_of(role);
        }
        if let Some(AbortPlan::WhenPending(_)) = plan {
            return "CORE-CAN-06";
        }
        // no trace to go by: the first node that can abort, in heap order
        if let Some(built) = &self.built {
            for id in built.heap.ids() {
                let aborts = match built.heap.node(id) {
                    Some(Node::Function(f)) => f
                        .script
                        .effects
                        .iter()
                        .any(|e| matches!(e, Effect::Abort(_))),
                    Some(Node::Proxy(p)) => p
                        .traps
                        .values()
                        .any(|t| matches!(t, TrapBehavior::Abort(_))),
                    _ => false,
                };
                if let (true, Some(role)) = (aborts, self.roles.get(&id)) {
                    return cancel_requirement_of(*role);
                }
            }
        }
        "CORE-CAN-01"
    }
}
