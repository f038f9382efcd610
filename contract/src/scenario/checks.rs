//! The checks that judge an implementation: its observation of a scenario
//! against the reference's, turned into violations that name the SPEC.md
//! requirement each difference breaks and say what happened in words.
//!
//! [`check_core`] compares whole observations: every difference gives at
//! least one violation, named when a predicate recognises it, else a
//! readable diff. [`check_boundary`] compares only the projection of
//! SPEC.md `## boundary` (per call: outcome class, the result's
//! `toolCallId`, how many times each function ran, unhandled rejections).
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
use std::fmt;

/// One way an observation departs from the reference's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The SPEC.md id broken; `None` when no predicate recognised the
    /// difference (the message is then a diff).
    pub requirement: Option<String>,
    pub message: String,
}

impl Violation {
    fn named(requirement: &str, message: impl Into<String>) -> Violation {
        Violation {
            requirement: Some(requirement.to_string()),
            message: message.into(),
        }
    }

    fn unnamed(message: impl Into<String>) -> Violation {
        Violation {
            requirement: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.requirement {
            Some(r) => write!(f, "{r}: {}", self.message),
            None => write!(f, "differs from the reference: {}", self.message),
        }
    }
}

/// Every difference between `expected` (the reference's observation of
/// `scenario`) and `actual`, as violations.
pub fn check_core(
    scenario: &Scenario,
    expected: &Observation,
    actual: &Observation,
) -> Vec<Violation> {
    let facts = Facts::new(scenario);
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

/// The differences visible in the boundary projection, each naming the
/// BOUNDARY requirement of the call's expected outcome.
pub fn check_boundary(
    scenario: &Scenario,
    expected: &Observation,
    actual: &Observation,
) -> Vec<Violation> {
    let mut out = Vec::new();
    let n = expected.calls.len().max(actual.calls.len());
    for i in 0..n {
        let label = call_label(scenario, i);
        let Some(e) = expected.calls.get(i) else {
            out.push(Violation::unnamed(format!(
                "call {i} was observed but the scenario makes {} call(s)",
                expected.calls.len()
            )));
            continue;
        };
        let requirement = boundary_requirement(&e.outcome);
        let violation = |what: String| Violation {
            requirement: requirement.map(str::to_string),
            message: format!("{label}: {what}"),
        };
        let Some(a) = actual.calls.get(i) else {
            out.push(violation("was not observed".to_string()));
            continue;
        };
        let (ec, ac) = (class(&e.outcome), class(&a.outcome));
        if ec != ac {
            out.push(violation(format!("expected {ec}, got {ac}")));
        }
        if let (Outcome::Result(er), Outcome::Result(ar)) = (&e.outcome, &a.outcome) {
            if er.tool_call_id != ar.tool_call_id {
                out.push(violation(format!(
                    "toolCallId is {}, expected {}",
                    ar.tool_call_id, er.tool_call_id
                )));
            }
        }
        for (name, (en, an)) in run_counts(&e.trace, &a.trace) {
            if en != an {
                out.push(violation(format!(
                    "`{name}` ran {}, expected {}",
                    times(an),
                    times(en)
                )));
            }
        }
        if (e.unhandled_rejections == 0) != (a.unhandled_rejections == 0) {
            out.push(Violation::named(
                "BOUNDARY-05",
                format!(
                    "{label}: {} unhandled promise rejection(s), expected {}",
                    a.unhandled_rejections, e.unhandled_rejections
                ),
            ));
        }
    }
    out
}

/// The outcome classes of the boundary projection.
fn class(o: &Outcome) -> &'static str {
    match o {
        Outcome::Result(r) if r.is_error => "an error result",
        Outcome::Result(_) => "a success result",
        Outcome::Pending => "a pending call",
        Outcome::Cancelled(_)
        | Outcome::ContractError(_)
        | Outcome::NonRecoverable(_)
        | Outcome::Rejected(_) => "a rejection",
    }
}

/// The BOUNDARY requirement that governs a call expected to end as `o`.
fn boundary_requirement(o: &Outcome) -> Option<&'static str> {
    match o {
        Outcome::Result(r) if !r.is_error => Some("BOUNDARY-04"),
        Outcome::Result(r) => match error_payload(&r.content)?.code.as_str() {
            "TOOL_NOT_FOUND" => Some("BOUNDARY-01"),
            "TOOL_VALIDATION_FAILED" | "TOOL_ARGUMENTS_INVALID" => Some("BOUNDARY-02"),
            "TOOL_EXECUTION_FAILED" | "TOOL_OUTPUT_SERIALIZATION_FAILED" => Some("BOUNDARY-03"),
            _ => None,
        },
        _ => None,
    }
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

// ---------------------------------------------------------------------------
// Roles of the scenario's nodes

/// What a node is to the contract, as far as a simple walk of the scenario
/// can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    BatchGetter,
    BatchProxy,
    DefinitionGetter,
    InheritedDefinitionGetter,
    DefinitionProxy,
    Validator,
    Executor,
    CallGetter,
    InheritedCallGetter,
    CallProxy,
    ArgumentsGetter,
    ArgumentsProxy,
    /// `then` on a validator's return value (or its getter).
    Then,
    DecisionGetter,
    DecisionProxy,
    /// `then` on an executor's return value (or its getter).
    OutputThen,
    OutputGetter,
    OutputSlotGetter,
    /// A function value inside an output (`toJSON` included): never called.
    OutputFunction,
    OutputProxy,
    /// A proxy thrown (or rejected with) somewhere: the failure message
    /// is read through its `getOwnPropertyDescriptor` trap.
    ThrownProxy,
}

/// Where a walk is in the scenario's graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Place {
    Batch,
    Definition,
    DefinitionProto,
    Call,
    CallProto,
    Arguments,
    Decision,
    DecisionProto,
    Output,
    OutputProto,
}

const DEFINITION_FIELDS: [&str; 4] = ["name", "description", "validate", "execute"];
const CALL_FIELDS: [&str; 4] = ["type", "id", "name", "arguments"];

struct Walk<'h> {
    heap: &'h crate::model::Heap,
    roles: HashMap<NodeId, Role>,
    seen: HashSet<(NodeId, Place)>,
    queue: VecDeque<(NodeId, Place)>,
    validators: Vec<NodeId>,
    executors: Vec<NodeId>,
}

impl<'h> Walk<'h> {
    /// A shared node keeps the role it was first found in; the phases run
    /// in the order of the call flow so that is the earliest use.
    fn mark(&mut self, id: NodeId, role: Role) {
        self.roles.entry(id).or_insert(role);
    }

    fn push(&mut self, v: &Value, place: Place) {
        if let Value::Ref(id) = v {
            if place == Place::Output && matches!(self.heap.node(*id), Some(Node::Function(_))) {
                self.mark(*id, Role::OutputFunction);
                return;
            }
            if self.seen.insert((*id, place)) {
                self.queue.push_back((*id, place));
            }
        }
    }

    fn push_proto(&mut self, proto: &Proto, place: Place) {
        if let Proto::Node(id) = proto {
            self.push(&Value::Ref(*id), place);
        }
    }

    fn completion(&self, f: NodeId) -> Option<&'h Completion> {
        match self.heap.node(f) {
            Some(Node::Function(func)) => Some(&func.script.completion),
            _ => None,
        }
    }

    fn returned(&self, f: NodeId) -> Option<&'h Value> {
        match self.completion(f) {
            Some(Completion::Return(v)) => Some(v),
            _ => None,
        }
    }

    /// A `then` on an output: what it resolves with is awaited in turn.
    fn output_then(&mut self, f: NodeId) {
        self.mark(f, Role::OutputThen);
        if let Some(Completion::CallArg { index: 0, value }) = self.completion(f) {
            self.push(value, Place::Output);
        }
    }

    fn run(&mut self) {
        while let Some((id, place)) = self.queue.pop_front() {
            self.visit(id, place);
        }
    }

    fn visit(&mut self, id: NodeId, place: Place) {
        let heap = self.heap;
        let Some(node) = heap.node(id) else { return };
        if let Node::Proxy(p) = node {
            let role = match place {
                Place::Batch => Role::BatchProxy,
                Place::Definition | Place::DefinitionProto => Role::DefinitionProxy,
                Place::Call | Place::CallProto => Role::CallProxy,
                Place::Arguments => Role::ArgumentsProxy,
                Place::Decision | Place::DecisionProto => Role::DecisionProxy,
                Place::Output | Place::OutputProto => Role::OutputProxy,
            };
            self.mark(id, role);
            self.push(&Value::Ref(p.target), place);
            return;
        }
        match (node, place) {
            (Node::Array(a), Place::Batch) => {
                for prop in a.slots.values() {
                    match prop {
                        Property::Data { value, .. } => self.push(value, Place::Definition),
                        Property::Accessor {
                            getter: Some(g), ..
                        } => {
                            self.mark(*g, Role::BatchGetter);
                            if let Some(v) = self.returned(*g) {
                                self.push(v, Place::Definition);
                            }
                        }
                        Property::Accessor { getter: None, .. } => {}
                    }
                }
            }
            (Node::Object(o), Place::Definition | Place::DefinitionProto) => {
                let own = place == Place::Definition;
                for key in DEFINITION_FIELDS {
                    let function = match o.own(&PropKey::from(key)) {
                        Some(Property::Data {
                            value: Value::Ref(f),
                            ..
                        }) if own => Some(*f),
                        Some(Property::Accessor {
                            getter: Some(g), ..
                        }) => {
                            let role = if own {
                                Role::DefinitionGetter
                            } else {
                                Role::InheritedDefinitionGetter
                            };
                            self.mark(*g, role);
                            match self.returned(*g) {
                                Some(Value::Ref(f)) if own => Some(*f),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    if let Some(f) = function {
                        if key == "validate" {
                            self.mark(f, Role::Validator);
                            self.validators.push(f);
                        } else if key == "execute" {
                            self.mark(f, Role::Executor);
                            self.executors.push(f);
                        }
                    }
                }
                self.push_proto(&o.proto, Place::DefinitionProto);
            }
            (Node::Object(o), Place::Call | Place::CallProto) => {
                let own = place == Place::Call;
                for key in CALL_FIELDS {
                    match o.own(&PropKey::from(key)) {
                        Some(Property::Data { value, .. }) if own && key == "arguments" => {
                            self.push(value, Place::Arguments);
                        }
                        Some(Property::Accessor {
                            getter: Some(g), ..
                        }) => {
                            let role = if own {
                                Role::CallGetter
                            } else {
                                Role::InheritedCallGetter
                            };
                            self.mark(*g, role);
                            if own && key == "arguments" {
                                if let Some(v) = self.returned(*g) {
                                    self.push(v, Place::Arguments);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                self.push_proto(&o.proto, Place::CallProto);
            }
            (Node::Object(o), Place::Arguments) => {
                for (_, prop) in o.enumerable_strings() {
                    self.argument(prop);
                }
            }
            (Node::Array(a), Place::Arguments) => {
                for prop in a.slots.values() {
                    self.argument(prop);
                }
            }
            (Node::Object(o), Place::Decision | Place::DecisionProto) => {
                if place == Place::Decision {
                    for key in ["ok", "value", "error"] {
                        if let Some(Property::Accessor {
                            getter: Some(g), ..
                        }) = o.own(&PropKey::from(key))
                        {
                            self.mark(*g, Role::DecisionGetter);
                        }
                    }
                }
                let then = match o.own(&PropKey::from("then")) {
                    Some(Property::Data {
                        value: Value::Ref(f),
                        ..
                    }) => Some(*f),
                    Some(Property::Accessor {
                        getter: Some(g), ..
                    }) => {
                        self.mark(*g, Role::Then);
                        match self.returned(*g) {
                            Some(Value::Ref(f)) => Some(*f),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                if let Some(f) = then {
                    self.mark(f, Role::Then);
                    // what a validator's `then` returns is observed in turn:
                    // a thenable there has its own `then` called
                    if let Some(v) = self.returned(f) {
                        self.push(v, Place::Decision);
                    }
                }
                self.push_proto(&o.proto, Place::DecisionProto);
            }
            (Node::Object(o), Place::Output | Place::OutputProto) => {
                let then = PropKey::from("then");
                for key in o.keys() {
                    let Some(prop) = o.own(key) else { continue };
                    match prop {
                        Property::Data {
                            value: Value::Ref(f),
                            ..
                        } if *key == then => self.output_then(*f),
                        Property::Accessor {
                            getter: Some(g), ..
                        } if *key == then => {
                            self.mark(*g, Role::OutputThen);
                            if let Some(Value::Ref(f)) = self.returned(*g) {
                                self.output_then(*f);
                            }
                        }
                        Property::Accessor {
                            getter: Some(g), ..
                        } => self.mark(*g, Role::OutputGetter),
                        Property::Data { value, .. } if place == Place::Output => {
                            self.push(value, Place::Output);
                        }
                        _ => {}
                    }
                }
                self.push_proto(&o.proto, Place::OutputProto);
            }
            (Node::Array(a), Place::Output) => {
                for prop in a.slots.values() {
                    match prop {
                        Property::Data { value, .. } => self.push(value, Place::Output),
                        Property::Accessor {
                            getter: Some(g), ..
                        } => self.mark(*g, Role::OutputSlotGetter),
                        Property::Accessor { getter: None, .. } => {}
                    }
                }
                // an array's prototype is inspected too (a proxy there traps)
                self.push_proto(&a.proto, Place::OutputProto);
            }
            (Node::Promise(PromiseNode::Fulfilled(v)), Place::Output) => {
                self.push(v, Place::Output);
            }
            _ => {}
        }
    }

    fn argument(&mut self, prop: &Property) {
        match prop {
            Property::Data { value, .. } => self.push(value, Place::Arguments),
            Property::Accessor {
                getter: Some(g), ..
            } => {
                self.mark(*g, Role::ArgumentsGetter);
                if let Some(v) = self.returned(*g) {
                    self.push(v, Place::Arguments);
                }
            }
            Property::Accessor { getter: None, .. } => {}
        }
    }
}

fn analyse(built: &Built) -> HashMap<NodeId, Role> {
    let mut w = Walk {
        heap: &built.heap,
        roles: HashMap::new(),
        seen: HashSet::new(),
        queue: VecDeque::new(),
        validators: Vec::new(),
        executors: Vec::new(),
    };
    for v in built.initial.iter().chain(&built.registrations) {
        w.push(v, Place::Batch);
    }
    w.run();
    for v in &built.calls {
        w.push(v, Place::Call);
    }
    w.run();
    for f in std::mem::take(&mut w.validators) {
        if let Some(v) = w.returned(f) {
            w.push(v, Place::Decision);
        }
    }
    w.run();
    for f in std::mem::take(&mut w.executors) {
        if let Some(v) = w.returned(f) {
            w.push(v, Place::Output);
        }
    }
    w.run();
    // anything thrown or rejected with, wherever it is: a proxy there runs
    // a trap only when a failure message is read from it
    for i in 0..built.heap.len() {
        let thrown: Vec<&Value> = match built.heap.node(NodeId(i as u32)) {
            Some(Node::Function(f)) => match &f.script.completion {
                Completion::Throw(v) | Completion::CallArg { index: 1, value: v } => vec![v],
                _ => Vec::new(),
            },
            Some(Node::Promise(PromiseNode::Rejected(v))) => vec![v],
            Some(Node::Proxy(p)) => p
                .traps
                .values()
                .filter_map(|t| match t {
                    crate::model::TrapBehavior::Throw(v) => Some(v),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        for v in thrown {
            if let Value::Ref(id) = v {
                if matches!(built.heap.node(*id), Some(Node::Proxy(_))) {
                    w.mark(*id, Role::ThrownProxy);
                }
            }
        }
    }
    w.roles
}

/// The CAN requirement for an abort coming from a node of this role.
fn cancel_requirement_of(role: Role) -> &'static str {
    match role {
        Role::CallGetter
        | Role::InheritedCallGetter
        | Role::CallProxy
        | Role::ArgumentsGetter
        | Role::ArgumentsProxy => "CORE-CAN-02",
        Role::Validator | Role::Then => "CORE-CAN-03",
        Role::DecisionGetter | Role::DecisionProxy => "CORE-CAN-04",
        Role::OutputProxy => "CORE-CAN-07",
        Role::Executor
        | Role::OutputThen
        | Role::OutputGetter
        | Role::OutputSlotGetter
        | Role::OutputFunction => "CORE-CAN-05",
        Role::BatchGetter
        | Role::BatchProxy
        | Role::DefinitionGetter
        | Role::InheritedDefinitionGetter
        | Role::DefinitionProxy => "CORE-CAN-01",
        Role::ThrownProxy => "CORE-RES-03",
    }
}

/// The requirement a trap event of a proxy of this role belongs to.
fn trap_requirement_of(role: Role) -> Option<&'static str> {
    match role {
        Role::OutputProxy => Some("CORE-SER-09"),
        Role::CallProxy => Some("CORE-CALL-05"),
        Role::ArgumentsProxy => Some("CORE-CALL-06"),
        Role::DecisionProxy => Some("CORE-VAL-08"),
        Role::DefinitionProxy => Some("CORE-DEF-06"),
        Role::BatchProxy => Some("CORE-REG-01"),
        Role::ThrownProxy => Some("CORE-RES-03"),
        _ => None,
    }
}

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
        let built = build(scenario).ok();
        let roles = built.as_ref().map(analyse).unwrap_or_default();
        let mut ids = HashMap::new();
        for (i, name) in built.iter().flat_map(|b| b.names.iter().enumerate()) {
            if let Ok(raw) = u32::try_from(i) {
                ids.entry(name.clone()).or_insert(NodeId(raw));
            }
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
        if let Some(AbortPlan::Before(_)) = plan {
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
            for (i, _) in built.names.iter().enumerate() {
                let Ok(raw) = u32::try_from(i) else { break };
                let id = NodeId(raw);
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

    // --- registrations ----------------------------------------------------

    fn registrations(
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

    fn registration(
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
    fn first_failure_decides(&self, i: usize, ec: ContractCode, ac: ContractCode) -> bool {
        if ec == ac {
            return false;
        }
        let problems = self.batch_problems(i);
        let distinct: HashSet<&str> = problems.iter().copied().collect();
        let duplicate =
            ec == ContractCode::DuplicateToolName || ac == ContractCode::DuplicateToolName;
        distinct.len() >= 2 || (duplicate && !problems.is_empty())
    }

    fn registration_requirement(&self, i: usize, code: ContractCode) -> &'static str {
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
    fn batch_problems(&self, i: usize) -> Vec<&'static str> {
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
    fn through_proxies(&self, v: &Value) -> Option<Option<NodeId>> {
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
    fn definition_problem(&self, v: &Value) -> Option<&'static str> {
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

    // --- calls ------------------------------------------------------------

    fn call(&self, i: usize, e: &CallObserved, a: &CallObserved, out: &mut Vec<Violation>) {
        let mut local = Vec::new();
        let label = self.call_label(i);
        if let Some(AbortPlan::AfterTurns(t)) =
            self.scenario.calls.get(i).and_then(|c| c.abort.as_ref())
        {
            // judged by `host_limits::excuse`: what is left is no abort
            // point, or an earlier one than a call with fewer turns gave
            if e != a {
                let reason = crate::signal::AbortReason::from_option(t.reason.clone());
                let is_point = super::oracle::abort_points(self.scenario, i, &reason)
                    .is_ok_and(|points| points.contains(a));
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

    fn validator_result(&self, trace: &[Event]) -> Option<&Node> {
        let v = self.first_with_role(trace, Role::Validator)?;
        match self.completion(v)? {
            Completion::Return(Value::Ref(r)) => self.node(*r),
            _ => None,
        }
    }

    fn validator_returns_promise(&self, trace: &[Event]) -> bool {
        matches!(self.validator_result(trace), Some(Node::Promise(_)))
    }

    fn validator_returns_thenable(&self, trace: &[Event]) -> bool {
        trace
            .iter()
            .any(|e| matches!(e, Event::Call(c) if self.role(&c.call) == Some(Role::Then)))
    }

    fn outcome(
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
    fn is_look_alike(&self, thrown: &Json) -> bool {
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
    fn is_genuine(&self, thrown: &Json) -> bool {
        let Some(name) = thrown.get("node").and_then(Json::as_str) else {
            return false;
        };
        let Some(id) = self.id(name) else {
            return false;
        };
        matches!(self.node(id), Some(Node::Object(o)) if o.non_recoverable_brand)
    }

    /// Both results: the six fields, then the content by what differs.
    fn results(
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
    fn linking_requirement(&self, i: usize, field: &str, got: &Json) -> &'static str {
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
    fn error_requirement(
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
    fn message_requirement(&self, code: &str, expected: &str, trace: &[Event]) -> &'static str {
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
    fn failure_step_requirement(&self, code: &str, trace: &[Event]) -> Option<&'static str> {
        match code {
            "TOOL_EXECUTION_FAILED" => Some(self.execution_requirement(trace)),
            "TOOL_VALIDATION_FAILED" => Some(self.validation_requirement(None, trace)),
            "TOOL_OUTPUT_SERIALIZATION_FAILED" => Some("CORE-EXE-05"),
            _ => None,
        }
    }

    fn validation_requirement(&self, message: Option<&str>, trace: &[Event]) -> &'static str {
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

    fn execution_requirement(&self, trace: &[Event]) -> &'static str {
        let executor = self.first_with_role(trace, Role::Executor);
        match executor.and_then(|f| self.completion(f)) {
            Some(Completion::Throw(_)) => "CORE-EXE-02",
            Some(_) => "CORE-EXE-04",
            None => "CORE-EXE-02",
        }
    }

    fn serialization_requirement(&self, trace: &[Event]) -> &'static str {
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
    fn refused_output(&self, code: &str, message: Option<&str>, trace: &[Event]) -> &'static str {
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
    fn refused_call(&self, i: usize) -> &'static str {
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
    fn field_of(&self, v: &Value, key: &str) -> Option<Value> {
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
    fn call_problem(&self, i: usize) -> Option<&'static str> {
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
    fn arguments_problem(&self, root: &Value) -> Option<&'static str> {
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
    fn stopped_requirement(&self, i: usize, e: &CallObserved, executor: bool) -> &'static str {
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

    // --- traces -----------------------------------------------------------

    fn trace(
        &self,
        owner: Owner,
        e: &[Event],
        a: &[Event],
        call: Option<&CallObserved>,
        out: &mut Vec<Violation>,
    ) {
        if e == a {
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

    fn run_count(
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
    fn order(&self, at: &str, en: &[String], an: &[String], out: &mut Vec<Violation>) -> bool {
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
    fn arguments(&self, at: &str, e: &[Event], a: &[Event], out: &mut Vec<Violation>) -> bool {
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
            if ea == aa {
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
    fn other_events(&self, at: &str, e: &[Event], a: &[Event], out: &mut Vec<Violation>) -> bool {
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
    fn content_requirement(&self, e: &str, a: &str) -> &'static str {
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
    fn truncation_requirement(&self, prefix: &[char], other_len: usize) -> &'static str {
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

    fn has_huge_bigint(&self) -> bool {
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

/// The fallbacks of the failure-message rule (CORE-RES-03).
fn is_fallback(message: &str) -> bool {
    [
        fixed::VALIDATION_FAILED,
        fixed::EXECUTION_FAILED,
        fixed::SERIALIZATION_FAILED,
        fixed::VALIDATION_NOT_SYNC,
    ]
    .contains(&message)
}

const OWN_OK: &str = "Expected own property ok";
const OWN_VALUE: &str = "Expected own property value";
const OWN_ERROR: &str = "Expected own property error";

fn fixed_validation_message(m: &str) -> bool {
    [
        fixed::VALIDATION_FAILED,
        fixed::VALIDATION_NOT_SYNC,
        fixed::DECISION_NOT_OBJECT,
        fixed::DECISION_OK_NOT_BOOLEAN,
        fixed::DECISION_REJECT_WITHOUT_ERROR,
        fixed::DECISION_INVALID,
        OWN_OK,
        OWN_VALUE,
        OWN_ERROR,
    ]
    .contains(&m)
}

fn registered(r: &Registered) -> String {
    match r {
        Registered::Ok => "ok".to_string(),
        Registered::ContractError(c) => format!("contract error {c}"),
        Registered::Rejected(what) => format!("rejected with {}", clip(&what.to_string())),
    }
}

fn reason(r: &ReasonObserved) -> String {
    match &r.reason {
        None => "AbortError".to_string(),
        Some(j) => clip(&j.to_string()),
    }
}

/// An outcome in words.
fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Result(r) if r.is_error => match error_payload(&r.content) {
            Some(p) => format!("result {}", p.code),
            None => "an error result".to_string(),
        },
        Outcome::Result(_) => "a success result".to_string(),
        Outcome::Cancelled(r) => format!("cancelled with reason {}", reason(r)),
        Outcome::ContractError(c) => format!("contract error {c}"),
        Outcome::NonRecoverable(n) => format!("rejected with the non-recoverable error `{n}`"),
        Outcome::Pending => "a pending call".to_string(),
        Outcome::Rejected(what) => format!("rejected with {}", clip(&what.to_string())),
    }
}

/// An outcome in one word or code, for "ran after ...".
fn short(o: &Outcome) -> String {
    match o {
        Outcome::Result(r) if r.is_error => {
            error_payload(&r.content).map_or_else(|| "an error result".to_string(), |p| p.code)
        }
        Outcome::Result(_) => "success".to_string(),
        Outcome::Cancelled(_) => "cancellation".to_string(),
        Outcome::ContractError(c) => c.to_string(),
        Outcome::NonRecoverable(_) => "a non-recoverable error".to_string(),
        Outcome::Pending => "pending".to_string(),
        Outcome::Rejected(_) => "a rejection".to_string(),
    }
}

/// The code and (when the content is whole) message of an error content.
struct ErrorPayload {
    code: String,
    message: Option<String>,
}

fn error_payload(content: &str) -> Option<ErrorPayload> {
    if let Ok(j) = serde_json::from_str::<Json>(content) {
        let error = j.get("error")?;
        return Some(ErrorPayload {
            code: error.get("code")?.as_str()?.to_string(),
            message: error
                .get("message")
                .and_then(Json::as_str)
                .map(str::to_string),
        });
    }
    // a truncated payload is not JSON; its code still leads it
    let rest = content.strip_prefix("{\"error\":{\"code\":\"")?;
    let code: String = rest.chars().take_while(|c| *c != '"').collect();
    let well_formed = !code.is_empty() && code.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    well_formed.then_some(ErrorPayload {
        code,
        message: None,
    })
}

/// The code points before the marker, when `content` was truncated. A
/// serialized content holds no raw newline, so a trailing marker can only
/// be the truncation's.
fn truncated(content: &[char]) -> Option<&[char]> {
    let marker: Vec<char> = TRUNCATION_MARKER.chars().collect();
    let cut = content.len().checked_sub(marker.len())?;
    match (content.get(..cut), content.get(cut..)) {
        (Some(prefix), Some(tail)) if tail == marker.as_slice() => Some(prefix),
        _ => None,
    }
}

fn first_difference(e: &[char], a: &[char]) -> Option<usize> {
    match e.iter().zip(a).position(|(x, y)| x != y) {
        Some(p) => Some(p),
        None if e.len() != a.len() => Some(e.len().min(a.len())),
        None => None,
    }
}

/// "content differs at code point N: expected ..., got ...".
fn content_difference(e: &str, a: &str) -> String {
    let (ec, ac): (Vec<char>, Vec<char>) = (e.chars().collect(), a.chars().collect());
    match first_difference(&ec, &ac) {
        Some(p) => format!(
            "content differs at code point {p}: expected {}, got {}",
            excerpt(&ec, p),
            excerpt(&ac, p)
        ),
        None => "content differs".to_string(),
    }
}

/// Up to 24 code points either side of `at`, quoted with escapes, with an
/// ellipsis where text was left out.
fn excerpt(s: &[char], at: usize) -> String {
    const SIDE: usize = 24;
    let start = at.saturating_sub(SIDE);
    let end = at.saturating_add(SIDE).min(s.len());
    let text: String = s
        .iter()
        .skip(start)
        .take(end.saturating_sub(start))
        .collect();
    format!(
        "`{}{}{}`",
        if start > 0 { "…" } else { "" },
        visible(&text),
        if end < s.len() { "…" } else { "" }
    )
}

/// Text as is, but with control characters escaped so a newline (the
/// marker's) or a raw control code stays visible on one line.
fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

fn clip(s: &str) -> String {
    const MAX: usize = 120;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}…")
    }
}

fn quote(s: &str) -> String {
    clip(&format!("{s:?}"))
}

/// A container open at the scan's position.
#[derive(Debug, Clone, Copy)]
struct Frame {
    object: bool,
    /// The next string in this object is a key.
    key_next: bool,
}

/// Whether `actual` writes a marker value (`"[Circular]"`...) exactly where
/// `expected` is cut by a budget: a check made in the wrong order.
fn marker_where_truncated(expected: &str, actual: &str) -> bool {
    let (ec, ac): (Vec<char>, Vec<char>) = (expected.chars().collect(), actual.chars().collect());
    let Some(prefix) = truncated(&ec) else {
        return false;
    };
    if prefix.len() >= TRUNCATED_PREFIX || !ac.starts_with(prefix) {
        return false;
    }
    let rest: String = ac.iter().skip(prefix.len()).take(24).collect();
    [
        marker::CIRCULAR,
        marker::UNDEFINED,
        marker::SYMBOL,
        marker::FUNCTION,
    ]
    .iter()
    .any(|m| rest.starts_with(&format!("\"{m}\"")))
}

/// What a left-to-right scan of a (possibly cut) content saw.
#[derive(Debug, Default)]
struct Scan {
    stack: Vec<Frame>,
    values: usize,
    entries: usize,
    /// Start of the string being read, and whether it is a key.
    string: Option<(usize, bool)>,
    escape: bool,
    scalar: bool,
}

impl Scan {
    fn value_starts(&mut self) {
        self.values += 1;
        if let Some(f) = self.stack.last() {
            if !f.object {
                self.entries += 1;
            }
        }
    }

    /// Whether a string starting now is a key.
    fn key_now(&self) -> bool {
        self.stack.last().is_some_and(|f| f.object && f.key_next)
    }
}

fn is_scalar_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.')
}

/// Scans `chars` up to (not including) `end`.
fn scan(chars: &[char], end: usize) -> Scan {
    let mut s = Scan::default();
    for (i, &c) in chars.iter().enumerate().take(end) {
        if s.string.is_some() {
            if s.escape {
                s.escape = false;
            } else if c == '\\' {
                s.escape = true;
            } else if c == '"' {
                if let Some((start, false)) = s.string {
                    // holes and accessor slots are entries, not values
                    let text: String = chars.iter().take(i).skip(start + 1).collect();
                    if text == marker::EMPTY || text == marker::ACCESSOR {
                        s.values = s.values.saturating_sub(1);
                    }
                }
                s.string = None;
            }
            continue;
        }
        if is_scalar_char(c) {
            if !s.scalar {
                s.scalar = true;
                s.value_starts();
            }
            continue;
        }
        s.scalar = false;
        match c {
            '"' => {
                let key = s.key_now();
                if key {
                    s.entries += 1;
                    if let Some(f) = s.stack.last_mut() {
                        f.key_next = false;
                    }
                } else {
                    s.value_starts();
                }
                s.string = Some((i, key));
            }
            '{' | '[' => {
                s.value_starts();
                s.stack.push(Frame {
                    object: c == '{',
                    key_next: c == '{',
                });
            }
            '}' | ']' => {
                s.stack.pop();
            }
            ',' => {
                if let Some(f) = s.stack.last_mut() {
                    f.key_next = f.object;
                }
            }
            _ => {}
        }
    }
    s
}

/// Where a position falls in a content.
enum Spot {
    /// Inside a string (or on its opening quote): where it starts, whether
    /// it is a key.
    Str(usize, bool),
    Scalar,
    /// Between tokens: in an object (`Some(true)`), an array, or at the top.
    Structure(Option<bool>),
}

fn spot(chars: &[char], pos: usize) -> Spot {
    let s = scan(chars, pos);
    if let Some((start, key)) = s.string {
        return Spot::Str(start, key);
    }
    let here = chars.get(pos).copied();
    if here == Some('"') {
        return Spot::Str(pos, s.key_now());
    }
    if s.scalar || here.is_some_and(is_scalar_char) {
        return Spot::Scalar;
    }
    Spot::Structure(s.stack.last().map(|f| f.object))
}

/// The raw text of the string token opening at `start`.
fn string_token(chars: &[char], start: usize) -> String {
    let mut out = String::new();
    let mut escape = false;
    for &c in chars.iter().skip(start + 1) {
        if escape {
            escape = false;
        } else if c == '\\' {
            escape = true;
        } else if c == '"' {
            break;
        }
        out.push(c);
    }
    out
}

/// The CORE-SER requirement of a difference at `pos` of two untruncated
/// (or equally cut) contents, by the token it falls in.
fn classify(e: &[char], a: &[char], pos: usize) -> &'static str {
    let spots = [(e, spot(e, pos)), (a, spot(a, pos))];
    for (chars, sp) in &spots {
        if let Spot::Str(start, false) = sp {
            let token = string_token(chars, *start);
            match token.as_str() {
                marker::UNDEFINED | marker::SYMBOL | marker::FUNCTION => return "CORE-SER-04",
                marker::CIRCULAR => return "CORE-SER-07",
                marker::EMPTY | marker::ACCESSOR => return "CORE-SER-06",
                _ => {}
            }
            let digits = token.strip_prefix('-').unwrap_or(&token);
            if let Some(digits) = digits.strip_suffix('n') {
                if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                    return "CORE-SER-03";
                }
            }
        }
    }
    if spots.iter().any(|(_, sp)| matches!(sp, Spot::Str(_, true))) {
        return "CORE-SER-05";
    }
    if spots.iter().any(|(_, sp)| matches!(sp, Spot::Str(..))) {
        return "CORE-SER-02";
    }
    if spots.iter().any(|(_, sp)| matches!(sp, Spot::Scalar)) {
        return "CORE-SER-01";
    }
    let (es, as_): (String, String) = (e.iter().collect(), a.iter().collect());
    let same_value = matches!(
        (serde_json::from_str::<Json>(&es), serde_json::from_str::<Json>(&as_)),
        (Ok(x), Ok(y)) if x == y
    );
    if same_value {
        // same members, other order: the sort by UTF-16 code units
        return "CORE-SER-05";
    }
    match spots.first().map(|(_, sp)| sp) {
        Some(Spot::Structure(Some(true))) => "CORE-SER-05",
        Some(Spot::Structure(Some(false))) => "CORE-SER-06",
        _ => "CORE-SER-17",
    }
}

/// A readable diff of two values as pretty JSON: the differing lines with
/// two lines of context, `-` expected and `+` actual.
fn diff<T: Serialize + ?Sized>(what: &str, e: &T, a: &T) -> Violation {
    const CONTEXT: usize = 2;
    const MAX_LINES: usize = 40;
    let pretty = |v: &T| serde_json::to_string_pretty(v).unwrap_or_default();
    let (et, at) = (pretty(e), pretty(a));
    let (el, al): (Vec<&str>, Vec<&str>) = (et.lines().collect(), at.lines().collect());
    let head = el.iter().zip(&al).take_while(|(x, y)| x == y).count();
    let tail = el
        .iter()
        .skip(head)
        .rev()
        .zip(al.iter().skip(head).rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut text = format!("{what}:\n");
    let context_start = head.saturating_sub(CONTEXT);
    for l in el.iter().skip(context_start).take(head - context_start) {
        text.push_str(&format!("    {l}\n"));
    }
    let section = |lines: &[&str], sign: char, text: &mut String| {
        let changed = lines.len().saturating_sub(head + tail);
        for l in lines.iter().skip(head).take(changed.min(MAX_LINES)) {
            text.push_str(&format!("  {sign} {l}\n"));
        }
        if changed > MAX_LINES {
            text.push_str(&format!(
                "  {sign} … {} more line(s)\n",
                changed - MAX_LINES
            ));
        }
    };
    section(&el, '-', &mut text);
    section(&al, '+', &mut text);
    let after = el.len().saturating_sub(tail);
    for l in el.iter().skip(after).take(CONTEXT) {
        text.push_str(&format!("    {l}\n"));
    }
    Violation::unnamed(text.trim_end().to_string())
}
