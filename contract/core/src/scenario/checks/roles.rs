//! Roles of the scenario's nodes: what each function, getter and proxy is
//! to the call flow (a validator, a getter of the call, a `then` on an
//! output...), learnt by walking the scenario's heap, and the requirement an
//! abort or a trap of each role belongs to. A heuristic for naming only.

use super::*;

/// What a node is to the contract, as far as a simple walk of the scenario
/// can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
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
pub(super) enum Place {
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

pub(super) const DEFINITION_FIELDS: [&str; 4] = ["name", "description", "validate", "execute"];
pub(super) const CALL_FIELDS: [&str; 4] = ["type", "id", "name", "arguments"];

pub(super) struct Walk<'h> {
    pub(super) heap: &'h crate::model::Heap,
    pub(super) roles: HashMap<NodeId, Role>,
    pub(super) seen: HashSet<(NodeId, Place)>,
    pub(super) queue: VecDeque<(NodeId, Place)>,
    pub(super) validators: Vec<NodeId>,
    pub(super) executors: Vec<NodeId>,
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

pub(super) fn analyse(built: &Built) -> HashMap<NodeId, Role> {
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
pub(super) fn cancel_requirement_of(role: Role) -> &'static str {
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
pub(super) fn trap_requirement_of(role: Role) -> Option<&'static str> {
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
