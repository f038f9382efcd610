//! Plans: small, flat descriptions of hostile scenarios that proptest
//! generates and shrinks, and their rendering into the scenario format.
//!
//! A plan says *what kind* of hostility a scenario has ("the validator
//! returns a thenable whose `then` getter throws", "the output is a
//! 10^6-slot sparse array"); [`Plan::render`] turns it into the JSON a
//! corpus case or an adapter reads. Shrinking works on the plan, so a
//! counterexample shrinks toward fewer tools, fewer calls, plain kinds and
//! small sizes, and renders into a scenario a person can read.

use serde_json::{json, Map, Value as Json};
use toolgate_core::scenario::Scenario;

/// A whole scenario.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Registered in order, each as one `registerMany` batch.
    pub batches: Vec<BatchPlan>,
    pub calls: Vec<CallPlan>,
}

/// One `registerMany` batch.
#[derive(Debug, Clone)]
pub struct BatchPlan {
    pub tools: Vec<ToolPlan>,
    pub shape: BatchShape,
}

/// How a batch is packaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchShape {
    Array,
    /// A hole before the entry at this index (clamped to the batch).
    HoleAt(usize),
    /// A plain object with the entries as properties.
    NotAnArray,
    ProxyToArray,
    RevokedProxy,
}

/// One tool definition.
#[derive(Debug, Clone)]
pub struct ToolPlan {
    pub name: NamePlan,
    pub definition: DefinitionShape,
    pub validator: ValidatorPlan,
    pub executor: ExecutorPlan,
}

/// A tool name, from a small pool so that duplicates and near-duplicates
/// are frequent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamePlan {
    /// `t0` to `t15`
    Plain(u8),
    /// `" t0"`: differs from `t0`
    Padded(u8),
    /// Blank after trimming (each kind of JavaScript whitespace).
    Blank(u8),
    Empty,
}

impl NamePlan {
    pub fn text(self) -> String {
        match self {
            NamePlan::Plain(i) => format!("t{i}"),
            NamePlan::Padded(i) => format!(" t{i}"),
            NamePlan::Blank(i) => BLANKS
                .get(usize::from(i) % BLANKS.len())
                .copied()
                .unwrap_or(" ")
                .to_string(),
            NamePlan::Empty => String::new(),
        }
    }

    /// Whether a definition with this name is valid.
    pub fn is_valid(self) -> bool {
        matches!(self, NamePlan::Plain(_) | NamePlan::Padded(_))
    }
}

const BLANKS: [&str; 6] = [
    " ",
    "\t\n",
    "\u{3000}",
    "\u{FEFF}",
    "\u{2028}",
    "\u{A0}\u{1680}",
];

/// Which of the four fields a definition shape concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Name,
    Description,
    Validate,
    Execute,
}

impl Field {
    pub const ALL: [Field; 4] = [
        Field::Name,
        Field::Description,
        Field::Validate,
        Field::Execute,
    ];
    fn key(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Description => "description",
            Field::Validate => "validate",
            Field::Execute => "execute",
        }
    }
}

/// How a definition object is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefinitionShape {
    Plain,
    /// Every field behind a getter.
    Getters,
    /// This field's getter throws.
    ThrowingGetter(Field),
    /// This field is inherited, not own.
    Inherited(Field),
    Missing(Field),
    /// This field has the wrong type.
    WrongType(Field),
    /// A pass-through proxy around a plain definition.
    Proxy,
}

impl DefinitionShape {
    pub fn is_valid(self) -> bool {
        matches!(
            self,
            DefinitionShape::Plain | DefinitionShape::Getters | DefinitionShape::Proxy
        )
    }
}

/// What a thrown value is.
#[derive(Debug, Clone, PartialEq)]
pub enum ThrownPlan {
    Error(Option<String>),
    Text(String),
    Number,
    ObjectWithMessage(String),
    /// `message` behind a getter: never consulted.
    MessageGetter,
    NonRecoverable {
        subclass: bool,
    },
    FieldLookAlike,
    PrototypeLookAlike,
    ContractErrorLookAlike,
}

impl ThrownPlan {
    pub fn is_genuine(&self) -> bool {
        matches!(self, ThrownPlan::NonRecoverable { .. })
    }
}

/// A validator.
#[derive(Debug, Clone, PartialEq)]
pub enum ValidatorPlan {
    /// `{ok: true, value}`.
    Accept(ValuePlan),
    /// `{ok: false, error}`.
    Reject(String),
    Throw(ThrownPlan),
    /// A decision that is not an object, lacks fields or has wrong types.
    Malformed(MalformedDecision),
    /// A native promise.
    Promise(PromiseState),
    /// A thenable.
    Thenable(ThenPlan),
    /// `{ok: true, value}` with `value` behind a getter that aborts or throws.
    DecisionGetter {
        aborts: bool,
        throws: Option<ThrownPlan>,
    },
    /// Aborts the signal, then behaves as the inner plan.
    Aborting(Box<ValidatorPlan>),
}

/// A malformed decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MalformedDecision {
    Undefined,
    Text,
    Empty,
    OkNotBoolean,
    AcceptWithoutValue,
    RejectWithoutError,
    RejectBlankError,
}

/// A native promise's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromiseState {
    Fulfilled,
    Rejected,
    Pending,
}

/// A thenable's `then`.
#[derive(Debug, Clone, PartialEq)]
pub enum ThenPlan {
    /// A method that returns undefined (never settles).
    Method,
    /// A method that resolves with this value.
    Resolves(ValuePlan),
    /// A method that rejects with this value.
    Rejects(ThrownPlan),
    MethodThrows(ThrownPlan),
    GetterThrows(ThrownPlan),
    /// `then` is 5: not a thenable.
    NotAFunction,
}

/// An executor.
#[derive(Debug, Clone, PartialEq)]
pub enum ExecutorPlan {
    Returns(ValuePlan),
    Throws(ThrownPlan),
    Rejects(ThrownPlan),
    Fulfills(ValuePlan),
    /// A promise that never settles by itself; optionally listens for the
    /// abort and settles late.
    Pending {
        listen: bool,
        late: Option<bool>,
    },
    Thenable(ThenPlan),
    Aborting(Box<ExecutorPlan>),
}

/// A value (tool output or decision value): a tree with back references.
#[derive(Debug, Clone, PartialEq)]
pub enum ValuePlan {
    Null,
    Bool(bool),
    Number(f64),
    Str(StrPlan),
    BigInt(BigPlan),
    Undefined,
    Symbol,
    Function,
    Object(ObjectPlan),
    Array(Vec<SlotPlan>),
    /// A reference to the container `n` levels up (0 is the parent): a cycle.
    Ancestor(u8),
    /// The same container written at two places (shared, not cyclic).
    Shared(Box<ValuePlan>),
    /// A large value built compactly.
    Large(LargePlan),
    /// A proxy around the inner container.
    Proxy(Box<ValuePlan>, TrapPlan),
    /// An object with a prototype the serializer refuses.
    Unsupported(UnsupportedProto),
}

/// A string as code units: surrogates and controls are common.
#[derive(Debug, Clone, PartialEq)]
pub struct StrPlan(pub Vec<u16>);

/// A BigInt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BigPlan {
    Small(i64),
    /// `sign * (2^exp + offset)`.
    Power {
        negative: bool,
        exp: u64,
        offset: i8,
    },
}

/// An object.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectPlan {
    pub props: Vec<(KeyPlan, ValuePlan)>,
    pub proto: ObjectProto,
    pub accessor: bool,
    pub hidden: bool,
    pub symbol_key: bool,
}

/// A key from a pool that exercises UTF-16 order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyPlan(pub u8);

const KEYS: [&str; 12] = [
    "a",
    "b",
    "10",
    "9",
    "é",
    "\u{1F600}",
    "\u{FFFF}",
    "toJSON",
    "then",
    "Z",
    "",
    "a\"b",
];

impl ValuePlan {
    /// Whether `Promise.resolve` would look into this value (read `then`)
    /// instead of fulfilling with it: any proxy, a promise, and objects
    /// with a `then`.
    pub fn adopted_by_promises(&self) -> bool {
        match self {
            ValuePlan::Proxy(..) | ValuePlan::Unsupported(UnsupportedProto::Promise) => true,
            ValuePlan::Shared(inner) => inner.adopted_by_promises(),
            ValuePlan::Object(o) => o.props.iter().any(|(k, _)| k.text() == "then"),
            _ => false,
        }
    }
}

impl KeyPlan {
    pub fn text(self) -> &'static str {
        KEYS.get(usize::from(self.0) % KEYS.len())
            .copied()
            .unwrap_or("a")
    }
}

/// Prototypes the serializer accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectProto {
    Plain,
    Null,
    OtherRealm,
}

/// Prototypes the serializer refuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnsupportedProto {
    Date,
    Map,
    Set,
    RegExp,
    Boxed,
    Class,
    ArrayProtoOnObject,
    Promise,
}

/// An array slot.
#[derive(Debug, Clone, PartialEq)]
pub enum SlotPlan {
    Value(ValuePlan),
    Hole,
    Accessor,
}

/// A proxy trap behavior.
#[derive(Debug, Clone, PartialEq)]
pub enum TrapPlan {
    PassThrough,
    Throws(TrapName, ThrownPlan),
    Aborts(TrapName),
    Revoked,
}

/// The traps the contract reaches during inspection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrapName {
    GetPrototypeOf,
    OwnKeys,
    GetOwnPropertyDescriptor,
}

impl TrapName {
    fn text(self) -> &'static str {
        match self {
            TrapName::GetPrototypeOf => "getPrototypeOf",
            TrapName::OwnKeys => "ownKeys",
            TrapName::GetOwnPropertyDescriptor => "getOwnPropertyDescriptor",
        }
    }
}

/// Large values, each crossing some budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LargePlan {
    Nest { depth: u32, array: bool },
    WideObject(u32),
    WideArray(u32),
    Sparse(u32),
    LongString { piece: u8, times: u32 },
    HugeBigInt(u32),
    LongKeys { count: u16, length: u32 },
}

/// One call.
#[derive(Debug, Clone)]
pub struct CallPlan {
    /// Index into all tools of all batches (modulo), or an unknown name.
    pub target: Target,
    pub id: IdPlan,
    pub shape: CallShape,
    pub arguments: ArgumentsPlan,
    pub abort: AbortPlanGen,
    pub real_registry: bool,
}

/// Which name a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Tool(u8),
    Unknown,
}

/// A call id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdPlan {
    Plain(u8),
    Astral,
    Blank,
}

impl IdPlan {
    pub fn text(self) -> String {
        match self {
            IdPlan::Plain(i) => format!("call-{i}"),
            IdPlan::Astral => "call-\u{1F600}".into(),
            IdPlan::Blank => " \u{3000}".into(),
        }
    }
}

/// How the call object is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallShape {
    Plain,
    /// Every field behind a getter (each runs once).
    Getters,
    /// A getter on `id` that aborts the signal.
    AbortingGetter,
    ThrowingGetter(CallField),
    Inherited(CallField),
    Missing(CallField),
    WrongType(CallField),
    RevokedProxy,
    NotAnObject,
}

/// The four fields of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallField {
    Type,
    Id,
    Name,
    Arguments,
}

impl CallField {
    fn key(self) -> &'static str {
        match self {
            CallField::Type => "type",
            CallField::Id => "id",
            CallField::Name => "name",
            CallField::Arguments => "arguments",
        }
    }
}

/// A call's arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgumentsPlan {
    /// Plain data (may still contain values the copy refuses).
    Value(ValuePlan),
    NullPrototype,
    OtherRealm,
    WithHole,
    Cycle,
    Deep(u32),
    Wide(u32),
    ThrowingGetter,
}

/// When the signal aborts from outside.
#[derive(Debug, Clone, PartialEq)]
pub enum AbortPlanGen {
    None,
    Before(Option<Json>),
    WhenPending(Option<Json>),
    /// A sweep (CORE-CAN-09): the call made `upto + 1` times, aborted after
    /// 0, 1, ... `upto` job-queue turns, with the same reason.
    Sweep {
        upto: u8,
        reason: Option<Json>,
    },
}

/// Names of the nodes of a rendered plan that properties look at.
#[derive(Debug, Clone, Default)]
pub struct Roles {
    /// Validator function names, by tool.
    pub validators: Vec<String>,
    /// Executor function names, by tool.
    pub executors: Vec<String>,
    /// Per call: the id and name it carries when its shape is well formed.
    pub calls: Vec<Option<(String, String)>>,
}

impl Plan {
    /// All tools of all batches, in order.
    pub fn tools(&self) -> impl Iterator<Item = &ToolPlan> {
        self.batches.iter().flat_map(|b| b.tools.iter())
    }

    /// The scenario and the names of its roles.
    pub fn render(&self) -> (Scenario, Roles) {
        let mut r = Renderer::default();
        let mut roles = Roles::default();
        let mut registrations = Vec::new();
        let mut tool_index = 0usize;
        for batch in &self.batches {
            let mut entries = Vec::new();
            for tool in &batch.tools {
                let (def, validate, execute) = r.tool(tool, tool_index);
                roles.validators.push(validate);
                roles.executors.push(execute);
                entries.push(def);
                tool_index += 1;
            }
            registrations.push(r.batch(batch.shape, entries));
        }
        let names: Vec<String> = self.tools().map(|t| t.name.text()).collect();
        let mut calls = Vec::new();
        for (c, call) in self.calls.iter().enumerate() {
            let name = match call.target {
                Target::Tool(i) if !names.is_empty() => names
                    .get(usize::from(i) % names.len())
                    .cloned()
                    .unwrap_or_default(),
                _ => "unknown-tool".to_string(),
            };
            let id = call.id.text();
            let well_formed = matches!(
                call.shape,
                CallShape::Plain | CallShape::Getters | CallShape::AbortingGetter
            );
            roles
                .calls
                .push(well_formed.then(|| (id.clone(), name.clone())));
            let value = r.call(call, &id, &name, c);
            let mut spec = json!({"call": value});
            if !call.real_registry {
                spec["registry"] = json!("notARegistry");
            }
            match &call.abort {
                AbortPlanGen::None => {}
                AbortPlanGen::Before(reason) => {
                    spec["abort"] = json!({"before": reason_json(reason)})
                }
                AbortPlanGen::WhenPending(reason) => {
                    spec["abort"] = json!({"whenPending": reason_json(reason)})
                }
                AbortPlanGen::Sweep { upto, reason } => {
                    // the same call value each time, so the judge sees one
                    // sweep (same call, registry and reason)
                    for turns in 0..u32::from(*upto) {
                        let mut earlier = spec.clone();
                        let mut at = reason_json(reason);
                        at["turns"] = json!(turns);
                        earlier["abort"] = json!({ "afterTurns": at });
                        calls.push(earlier);
                        roles.calls.push(roles.calls.last().cloned().flatten());
                    }
                    let mut at = reason_json(reason);
                    at["turns"] = json!(upto);
                    spec["abort"] = json!({ "afterTurns": at });
                }
            }
            calls.push(spec);
        }
        let scenario = json!({"nodes": r.nodes, "registrations": registrations, "calls": calls});
        // rendering only produces the grammar's own forms, so this cannot fail
        let scenario = serde_json::from_value(scenario).unwrap_or_default();
        (scenario, roles)
    }
}

fn reason_json(reason: &Option<Json>) -> Json {
    match reason {
        Some(r) => json!({"reason": r}),
        None => json!({}),
    }
}

#[derive(Default)]
struct Renderer {
    nodes: Map<String, Json>,
    counter: usize,
}

impl Renderer {
    fn name(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}{}", self.counter)
    }

    fn add(&mut self, prefix: &str, node: Json) -> Json {
        let name = self.name(prefix);
        self.nodes.insert(name.clone(), node);
        json!({"ref": name})
    }

    fn function(&mut self, prefix: &str, node: Json) -> String {
        let name = self.name(prefix);
        self.nodes.insert(name.clone(), node);
        name
    }

    fn tool(&mut self, tool: &ToolPlan, index: usize) -> (Json, String, String) {
        let validate = self.validator(&tool.validator, index);
        let execute = self.executor(&tool.executor, index);
        let fields = [
            (Field::Name, json!(tool.name.text())),
            (Field::Description, json!("a generated tool")),
            (Field::Validate, json!({"ref": validate})),
            (Field::Execute, json!({"ref": execute})),
        ];
        let mut props = Map::new();
        let mut define = Vec::new();
        let mut parent = Map::new();
        for (field, value) in fields {
            let key = field.key();
            match tool.definition {
                DefinitionShape::Getters => {
                    let g = self.add("getter", json!({"$": "function", "returns": value}));
                    define.push(json!({"key": key, "get": g}));
                }
                DefinitionShape::ThrowingGetter(f) if f == field => {
                    let g = self.add(
                        "getter",
                        json!({"$": "function", "throws": "field getter failed"}),
                    );
                    define.push(json!({"key": key, "get": g}));
                }
                DefinitionShape::Inherited(f) if f == field => {
                    parent.insert(key.to_string(), value);
                }
                DefinitionShape::Missing(f) if f == field => {}
                DefinitionShape::WrongType(f) if f == field => {
                    let wrong = match field {
                        Field::Name | Field::Description => json!(7),
                        Field::Validate | Field::Execute => json!("not a function"),
                    };
                    props.insert(key.to_string(), wrong);
                }
                _ => {
                    props.insert(key.to_string(), value);
                }
            }
        }
        let mut def = json!({"$": "object", "props": props});
        if !define.is_empty() {
            def["define"] = Json::Array(define);
        }
        if !parent.is_empty() {
            def["proto"] = json!({"$": "object", "props": parent});
        }
        let def = self.add("tool", def);
        let def = if tool.definition == DefinitionShape::Proxy {
            self.add("proxy", json!({"$": "proxy", "target": def}))
        } else {
            def
        };
        (def, validate, execute)
    }

    fn batch(&mut self, shape: BatchShape, entries: Vec<Json>) -> Json {
        match shape {
            BatchShape::Array => json!({"$": "array", "items": entries}),
            BatchShape::HoleAt(i) => {
                let mut items = entries;
                let at = i.min(items.len());
                items.insert(at, json!({"$": "hole"}));
                json!({"$": "array", "items": items})
            }
            BatchShape::NotAnArray => {
                let props: Map<String, Json> = entries
                    .into_iter()
                    .enumerate()
                    .map(|(i, e)| (i.to_string(), e))
                    .collect();
                json!({"$": "object", "props": props})
            }
            BatchShape::ProxyToArray => {
                json!({"$": "proxy", "target": {"$": "array", "items": entries}})
            }
            BatchShape::RevokedProxy => {
                json!({"$": "proxy", "target": {"$": "array", "items": entries}, "revoked": true})
            }
        }
    }

    fn thrown(&mut self, t: &ThrownPlan) -> Json {
        match t {
            ThrownPlan::Error(Some(m)) => json!({"$": "error", "class": "error", "message": m}),
            ThrownPlan::Error(None) => json!({"$": "error", "class": "error"}),
            ThrownPlan::Text(m) => json!(m),
            ThrownPlan::Number => json!(42),
            ThrownPlan::ObjectWithMessage(m) => json!({"$": "object", "props": {"message": m}}),
            ThrownPlan::MessageGetter => {
                let g = self.add("getter", json!({"$": "function", "returns": "from a getter"}));
                json!({"$": "object", "define": [{"key": "message", "get": g}]})
            }
            ThrownPlan::NonRecoverable { subclass: false } => self.add("fatal", json!({"$": "nonRecoverable", "message": "fatal"})),
            ThrownPlan::NonRecoverable { subclass: true } => self.add(
                "fatal",
                json!({"$": "nonRecoverable", "message": "fatal", "proto": {"$": "object", "proto": {"builtin": "nonRecoverableToolError"}}}),
            ),
            ThrownPlan::FieldLookAlike => {
                json!({"$": "object", "props": {"code": "NON_RECOVERABLE_TOOL_ERROR", "nonRecoverable": true, "message": "look-alike"}})
            }
            ThrownPlan::PrototypeLookAlike => {
                json!({"$": "object", "proto": {"builtin": "nonRecoverableToolError"}, "define": [{"key": "message", "value": "look-alike", "enumerable": false}]})
            }
            ThrownPlan::ContractErrorLookAlike => {
                json!({"$": "object", "proto": {"builtin": "toolContractError"}, "props": {"code": "INVALID_TOOL_CALL", "message": "look-alike"}})
            }
        }
    }

    fn then(&mut self, plan: &ThenPlan) -> Json {
        match plan {
            ThenPlan::Method => json!({"$": "object", "props": {"then": {"$": "function"}}}),
            ThenPlan::Resolves(v) => {
                let v = self.value(v, &mut Vec::new());
                json!({"$": "object", "props": {"then": {"$": "function", "callsBack": {"index": 0, "value": v}}}})
            }
            ThenPlan::Rejects(t) => {
                let t = self.thrown(t);
                json!({"$": "object", "props": {"then": {"$": "function", "callsBack": {"index": 1, "value": t}}}})
            }
            ThenPlan::MethodThrows(t) => {
                let t = self.thrown(t);
                json!({"$": "object", "props": {"then": {"$": "function", "throws": t}}})
            }
            ThenPlan::GetterThrows(t) => {
                let t = self.thrown(t);
                json!({"$": "object", "define": [{"key": "then", "get": {"$": "function", "throws": t}}]})
            }
            ThenPlan::NotAFunction => {
                json!({"$": "object", "props": {"then": 5, "ok": true, "value": null}})
            }
        }
    }

    fn validator(&mut self, plan: &ValidatorPlan, index: usize) -> String {
        let mut effects = Vec::new();
        let mut plan = plan;
        while let ValidatorPlan::Aborting(inner) = plan {
            effects.push(json!({"abort": {"reason": format!("validator {index} aborted")}}));
            plan = inner;
        }
        let (key, value) = match plan {
            ValidatorPlan::Accept(v) => {
                let v = self.value(v, &mut Vec::new());
                (
                    "returns",
                    json!({"$": "object", "props": {"ok": true, "value": v}}),
                )
            }
            ValidatorPlan::Reject(m) => (
                "returns",
                json!({"$": "object", "props": {"ok": false, "error": m}}),
            ),
            ValidatorPlan::Throw(t) => ("throws", self.thrown(t)),
            ValidatorPlan::Malformed(m) => (
                "returns",
                match m {
                    MalformedDecision::Undefined => json!({"$": "undefined"}),
                    MalformedDecision::Text => json!("ok"),
                    MalformedDecision::Empty => json!({"$": "object"}),
                    MalformedDecision::OkNotBoolean => {
                        json!({"$": "object", "props": {"ok": "true"}})
                    }
                    MalformedDecision::AcceptWithoutValue => {
                        json!({"$": "object", "props": {"ok": true}})
                    }
                    MalformedDecision::RejectWithoutError => {
                        json!({"$": "object", "props": {"ok": false}})
                    }
                    MalformedDecision::RejectBlankError => {
                        json!({"$": "object", "props": {"ok": false, "error": " \n"}})
                    }
                },
            ),
            ValidatorPlan::Promise(state) => {
                ("returns", promise(*state, json!(null), json!("rejected")))
            }
            ValidatorPlan::Thenable(t) => ("returns", self.then(t)),
            ValidatorPlan::DecisionGetter { aborts, throws } => {
                let mut getter = json!({"$": "function", "returns": 1});
                if *aborts {
                    getter["effects"] = json!([{"abort": {"reason": "decision getter aborted"}}]);
                }
                if let Some(t) = throws {
                    let t = self.thrown(t);
                    getter.as_object_mut().map(|g| g.remove("returns"));
                    getter["throws"] = t;
                }
                let g = self.add("getter", getter);
                (
                    "returns",
                    json!({"$": "object", "props": {"ok": true}, "define": [{"key": "value", "get": g}]}),
                )
            }
            ValidatorPlan::Aborting(_) => ("returns", json!(null)),
        };
        let mut node = json!({"$": "function"});
        node[key] = value;
        if !effects.is_empty() {
            node["effects"] = Json::Array(effects);
        }
        self.function("validate", node)
    }

    fn executor(&mut self, plan: &ExecutorPlan, index: usize) -> String {
        let mut effects = Vec::new();
        let mut plan = plan;
        while let ExecutorPlan::Aborting(inner) = plan {
            effects.push(json!({"abort": {"reason": format!("executor {index} aborted")}}));
            plan = inner;
        }
        let (key, value) = match plan {
            ExecutorPlan::Returns(v) => ("returns", self.value(v, &mut Vec::new())),
            ExecutorPlan::Throws(t) => ("throws", self.thrown(t)),
            ExecutorPlan::Rejects(t) => {
                let t = self.thrown(t);
                ("returns", json!({"$": "promise", "rejected": t}))
            }
            // a promise cannot be fulfilled with what `Promise.resolve`
            // adopts (a thenable, or a proxy whose `then` is read): awaiting
            // one is awaiting the value itself, so the executor returns it
            ExecutorPlan::Fulfills(v) if v.adopted_by_promises() => {
                ("returns", self.value(v, &mut Vec::new()))
            }
            ExecutorPlan::Fulfills(v) => {
                let v = self.value(v, &mut Vec::new());
                ("returns", json!({"$": "promise", "fulfilled": v}))
            }
            ExecutorPlan::Pending { listen, late } => {
                if *listen {
                    effects.push(json!("listenForAbort"));
                }
                let mut p = json!({"$": "promise", "pending": true});
                match late {
                    Some(true) => p["afterAbort"] = json!({"fulfill": "late"}),
                    Some(false) => p["afterAbort"] = json!({"reject": "late"}),
                    None => {}
                }
                ("returns", self.add("pending", p))
            }
            ExecutorPlan::Thenable(t) => ("returns", self.then(t)),
            ExecutorPlan::Aborting(_) => ("returns", json!(null)),
        };
        let mut node = json!({"$": "function"});
        node[key] = value;
        if !effects.is_empty() {
            node["effects"] = Json::Array(effects);
        }
        self.function("execute", node)
    }

    /// A value; containers become named nodes so ancestors can be referred to.
    fn value(&mut self, plan: &ValuePlan, path: &mut Vec<String>) -> Json {
        match plan {
            ValuePlan::Null => json!(null),
            ValuePlan::Bool(b) => json!(b),
            ValuePlan::Number(n) => number(*n),
            ValuePlan::Str(s) => string(&s.0),
            ValuePlan::BigInt(BigPlan::Small(n)) => {
                json!({"$": "bigint", "decimal": n.to_string()})
            }
            ValuePlan::BigInt(BigPlan::Power {
                negative,
                exp,
                offset,
            }) => {
                let offset = if *exp < 8 { 0 } else { i64::from(*offset) };
                json!({"$": "bigint", "pow2": exp, "negative": negative, "offset": offset})
            }
            ValuePlan::Undefined => json!({"$": "undefined"}),
            ValuePlan::Symbol => json!({"$": "symbol", "id": 1}),
            ValuePlan::Function => json!({"$": "function", "returns": "never called"}),
            ValuePlan::Object(o) => {
                let name = self.name("object");
                path.push(name.clone());
                let mut props = Map::new();
                for (k, v) in &o.props {
                    let v = self.value(v, path);
                    props.insert(k.text().to_string(), v);
                }
                path.pop();
                let mut node = json!({"$": "object", "props": props});
                let mut define = Vec::new();
                if o.accessor {
                    define.push(json!({"key": "accessor", "get": {"$": "function", "throws": "accessor ran"}}));
                }
                if o.hidden {
                    define.push(json!({"key": "hidden", "value": 1, "enumerable": false}));
                }
                if o.symbol_key {
                    define.push(json!({"key": {"symbol": 1}, "value": 1}));
                }
                if !define.is_empty() {
                    node["define"] = Json::Array(define);
                }
                match o.proto {
                    ObjectProto::Plain => {}
                    ObjectProto::Null => node["proto"] = json!("null"),
                    ObjectProto::OtherRealm => node["proto"] = json!("otherRealmObject"),
                }
                self.nodes.insert(name.clone(), node);
                json!({"ref": name})
            }
            ValuePlan::Array(slots) => {
                let name = self.name("array");
                path.push(name.clone());
                let items: Vec<Json> = slots
                    .iter()
                    .map(|s| match s {
                        SlotPlan::Value(v) => self.value(v, path),
                        SlotPlan::Hole => json!({"$": "hole"}),
                        SlotPlan::Accessor => json!({"$": "getter", "get": {"$": "function", "throws": "slot getter ran"}}),
                    })
                    .collect();
                path.pop();
                self.nodes
                    .insert(name.clone(), json!({"$": "array", "items": items}));
                json!({"ref": name})
            }
            ValuePlan::Ancestor(n) => {
                let up = usize::from(*n);
                match path.len().checked_sub(up + 1).and_then(|i| path.get(i)) {
                    Some(name) => json!({"ref": name}),
                    None => json!(null),
                }
            }
            ValuePlan::Shared(inner) => {
                let v = self.value(inner, path);
                json!({"$": "array", "items": [v.clone(), v]})
            }
            ValuePlan::Large(l) => large(*l),
            ValuePlan::Proxy(inner, trap) => {
                let target = match self.value(inner, path) {
                    target @ Json::Object(_) if target.get("ref").is_some() => target,
                    _ => json!({"$": "object", "props": {"a": 1}}),
                };
                let mut node = json!({"$": "proxy", "target": target});
                match trap {
                    TrapPlan::PassThrough => {}
                    TrapPlan::Throws(name, t) => {
                        let t = self.thrown(t);
                        node["traps"] = json!({name.text(): {"throw": t}});
                    }
                    TrapPlan::Aborts(name) => {
                        node["traps"] = json!({name.text(): {"abort": {"reason": "trap aborted"}}})
                    }
                    TrapPlan::Revoked => node["revoked"] = json!(true),
                }
                self.add("proxy", node)
            }
            ValuePlan::Unsupported(p) => match p {
                UnsupportedProto::Date => json!({"$": "object", "proto": {"builtin": "date"}}),
                UnsupportedProto::Map => json!({"$": "object", "proto": {"builtin": "map"}}),
                UnsupportedProto::Set => json!({"$": "object", "proto": {"builtin": "set"}}),
                UnsupportedProto::RegExp => json!({"$": "object", "proto": {"builtin": "regExp"}}),
                UnsupportedProto::Boxed => {
                    json!({"$": "object", "proto": {"builtin": "numberBox"}})
                }
                UnsupportedProto::Class => {
                    json!({"$": "object", "proto": {"class": "Point"}, "props": {"x": 1}})
                }
                UnsupportedProto::ArrayProtoOnObject => json!({"$": "object", "proto": "array"}),
                UnsupportedProto::Promise => json!({"$": "promise", "fulfilled": 1}),
            },
        }
    }

    fn call(&mut self, call: &CallPlan, id: &str, name: &str, index: usize) -> Json {
        let arguments = self.arguments(&call.arguments);
        let fields = [
            (CallField::Type, json!("toolCall")),
            (CallField::Id, json!(id)),
            (CallField::Name, json!(name)),
            (CallField::Arguments, arguments),
        ];
        if call.shape == CallShape::NotAnObject {
            return json!("a string is not a call");
        }
        let mut props = Map::new();
        let mut define = Vec::new();
        let mut parent = Map::new();
        for (field, value) in fields {
            let key = field.key();
            match call.shape {
                CallShape::Getters => define.push(json!({"key": key, "get": {"$": "function", "returns": value}})),
                CallShape::AbortingGetter if field == CallField::Id => define.push(json!({"key": key, "get": {
                    "$": "function", "effects": [{"abort": {"reason": format!("call {index} getter aborted")}}], "returns": value}})),
                CallShape::ThrowingGetter(f) if f == field => define.push(json!({"key": key, "get": {"$": "function", "throws": "call getter failed"}})),
                CallShape::Inherited(f) if f == field => {
                    parent.insert(key.to_string(), value);
                }
                CallShape::Missing(f) if f == field => {}
                CallShape::WrongType(f) if f == field => {
                    props.insert(key.to_string(), json!(5));
                }
                _ => {
                    props.insert(key.to_string(), value);
                }
            }
        }
        let mut node = json!({"$": "object", "props": props});
        if !define.is_empty() {
            node["define"] = Json::Array(define);
        }
        if !parent.is_empty() {
            node["proto"] = json!({"$": "object", "props": parent});
        }
        if call.shape == CallShape::RevokedProxy {
            return json!({"$": "proxy", "target": node, "revoked": true});
        }
        node
    }

    fn arguments(&mut self, plan: &ArgumentsPlan) -> Json {
        match plan {
            ArgumentsPlan::Value(v) => {
                let v = self.value(v, &mut Vec::new());
                json!({"$": "object", "props": {"input": v}})
            }
            ArgumentsPlan::NullPrototype => {
                json!({"$": "object", "proto": "null", "props": {"x": 1}})
            }
            ArgumentsPlan::OtherRealm => {
                json!({"$": "object", "proto": "otherRealmObject", "props": {"x": 1}})
            }
            ArgumentsPlan::WithHole => {
                json!({"$": "object", "props": {"list": {"$": "array", "items": [1, {"$": "hole"}, 3]}}})
            }
            ArgumentsPlan::Cycle => {
                let name = self.name("args");
                self.nodes.insert(
                    name.clone(),
                    json!({"$": "object", "props": {"me": {"ref": name}}}),
                );
                json!({"ref": name})
            }
            ArgumentsPlan::Deep(depth) => {
                json!({"$": "object", "props": {"deep": {"$": "nest", "depth": depth.max(&1), "kind": "array"}}})
            }
            ArgumentsPlan::Wide(n) => {
                json!({"$": "object", "repeat": {"count": n, "prefix": "k", "value": 1}})
            }
            ArgumentsPlan::ThrowingGetter => {
                json!({"$": "object", "define": [{"key": "x", "get": {"$": "function", "throws": "argument getter failed"}}]})
            }
        }
    }
}

fn promise(state: PromiseState, value: Json, reason: Json) -> Json {
    match state {
        PromiseState::Fulfilled => json!({"$": "promise", "fulfilled": value}),
        PromiseState::Rejected => json!({"$": "promise", "rejected": reason}),
        PromiseState::Pending => json!({"$": "promise", "pending": true}),
    }
}

fn number(n: f64) -> Json {
    if n.is_nan() {
        json!({"$": "number", "value": "NaN"})
    } else if n.is_infinite() {
        json!({"$": "number", "value": if n > 0.0 { "Infinity" } else { "-Infinity" }})
    } else if n == 0.0 && n.is_sign_negative() {
        json!({"$": "number", "value": "-0"})
    } else {
        json!(n)
    }
}

fn string(units: &[u16]) -> Json {
    match String::from_utf16(units) {
        Ok(s) => json!(s),
        Err(_) => json!({"$": "string", "units": units}),
    }
}

fn large(l: LargePlan) -> Json {
    match l {
        LargePlan::Nest { depth, array } => {
            json!({"$": "nest", "depth": depth.max(1), "kind": if array { "array" } else { "object" }})
        }
        LargePlan::WideObject(n) => {
            json!({"$": "object", "repeat": {"count": n, "prefix": "k", "value": 1}})
        }
        LargePlan::WideArray(n) => json!({"$": "array", "fill": {"count": n, "value": 1}}),
        LargePlan::Sparse(len) => json!({"$": "array", "length": len, "items": [1]}),
        LargePlan::LongString { piece, times } => {
            let piece = ["x", "\u{e9}", "\u{1F600}", "\n", "\""]
                .get(usize::from(piece) % 5)
                .copied()
                .unwrap_or("x");
            json!({"$": "string", "repeat": piece, "times": times})
        }
        LargePlan::HugeBigInt(exp) => json!({"$": "bigint", "pow2": exp}),
        LargePlan::LongKeys { count, length } => {
            // keys sharing a long prefix: the worst case of the key sort
            let prefix = "k".repeat(usize::try_from(length.min(20_000)).unwrap_or(0));
            json!({"$": "object", "repeat": {"count": count, "prefix": prefix, "value": 1}})
        }
    }
}

/// A scenario whose only content is `value`, decoded as its single
/// registration entry: how serializer properties get a model value out of
/// a plan without running any step of the contract.
pub fn value_scenario(value: &ValuePlan) -> Scenario {
    let mut r = Renderer::default();
    let v = r.value(value, &mut Vec::new());
    let scenario = json!({"nodes": r.nodes, "registrations": [v]});
    serde_json::from_value(scenario).unwrap_or_default()
}
