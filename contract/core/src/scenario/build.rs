//! Decodes a scenario into the host model: named and inline nodes into one
//! heap, values into model values. The grammar of scenario values lives
//! here and in `corpus/README.md`; the two must agree.
//!
//! Inline nodes (a node spec where a value is expected) are named by the
//! JSON Pointer of their place in the scenario, e.g. `/calls/0/call`, so an
//! adapter names them the same way without coordination.

use super::spec::Scenario;
use crate::bigint::BigIntValue;
use crate::js_string::JsString;
use crate::model::*;
use crate::Error;
use serde_json::{Map, Value as Json};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

/// Upper bounds that keep a malformed or hostile scenario from exhausting
/// memory while still allowing every size the suite uses.
pub const MAX_REPEAT: u64 = 2_000_000;
/// Code units of one generated string.
pub const MAX_STRING_UNITS: u64 = 20_000_000;
/// Containers of one `nest`.
pub const MAX_NEST: u64 = 2_000_000;

/// A scenario decoded into the model.
#[derive(Debug)]
pub struct Built {
    pub heap: Heap,
    names: Names,
    pub initial: Option<Value>,
    pub registrations: Vec<Value>,
    pub calls: Vec<Value>,
}

impl Built {
    /// The name of node `id`: its name in `nodes`, the JSON Pointer of an
    /// inline node's place, or `<pointer>#<level>` for a level of a `nest`.
    pub fn name(&self, id: NodeId) -> Cow<'_, str> {
        match self.names.ids.get(id.0 as usize) {
            Some(Name::Given(name)) => Cow::Borrowed(name),
            Some(Name::Level { nest, level }) => match self.names.nests.get(*nest as usize) {
                Some(at) => Cow::Owned(format!("{at}#{level}")),
                None => Cow::Borrowed("?"),
            },
            None => Cow::Borrowed("?"),
        }
    }

    /// Every node's id and name, in id order.
    pub fn names(&self) -> impl Iterator<Item = (NodeId, Cow<'_, str>)> {
        self.heap.ids().map(|id| (id, self.name(id)))
    }
}

/// Node names by id. A `nest`'s levels are named when asked for: a
/// 10^6-deep nest would otherwise cost as many strings to build and free.
#[derive(Debug, Default)]
struct Names {
    ids: Vec<Name>,
    /// The JSON Pointer of each `nest`, by number.
    nests: Vec<String>,
}

#[derive(Debug)]
enum Name {
    Given(String),
    Level { nest: u32, level: u64 },
}

struct Builder {
    b: HeapBuilder,
    by_name: HashMap<String, NodeId>,
    names: Names,
    limits: Limits,
}

fn bad(at: &str, what: impl std::fmt::Display) -> Error {
    Error::scenario(format!("{at}: {what}"))
}

/// Size limits of one decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Properties of one `repeat`, slots of one `fill`.
    pub repeat: u64,
    /// Code units of one generated string.
    pub string_units: u64,
    /// Containers of one `nest`.
    pub nest: u64,
}

impl Limits {
    /// What corpus cases may use.
    pub const CASES: Limits = Limits {
        repeat: MAX_REPEAT,
        string_units: MAX_STRING_UNITS,
        nest: MAX_NEST,
    };
    /// What a fuzz input may use: large enough to cross every budget many
    /// times over, small enough to keep executions fast.
    pub const FUZZ: Limits = Limits {
        repeat: 20_000,
        string_units: 200_000,
        nest: 20_000,
    };
}

/// Decodes `scenario` within the limits of corpus cases.
pub fn build(scenario: &Scenario) -> Result<Built, Error> {
    build_with(scenario, Limits::CASES)
}

/// Decodes `scenario` within `limits`.
pub fn build_with(scenario: &Scenario, limits: Limits) -> Result<Built, Error> {
    let mut builder = Builder {
        b: HeapBuilder::new(),
        by_name: HashMap::new(),
        names: Names::default(),
        limits,
    };
    // allocate every named node first so references (and cycles) resolve
    for name in scenario.nodes.keys() {
        if name.starts_with('/') {
            return Err(bad(
                &format!("/nodes/{name}"),
                "node names must not start with '/'",
            ));
        }
        let id = builder.placeholder(Name::Given(name.clone()));
        builder.by_name.insert(name.clone(), id);
    }
    for (name, spec) in &scenario.nodes {
        let at = format!("/nodes/{}", escape_pointer(name));
        let id = builder
            .by_name
            .get(name)
            .copied()
            .ok_or_else(|| bad(&at, "lost node"))?;
        let node = builder.node(spec, &at)?;
        builder.set(id, node, &at)?;
    }
    let initial = match &scenario.initial {
        Some(v) => Some(builder.value(v, "/initial")?),
        None => None,
    };
    let registrations = scenario
        .registrations
        .iter()
        .enumerate()
        .map(|(i, v)| builder.value(v, &format!("/registrations/{i}")))
        .collect::<Result<Vec<_>, _>>()?;
    let calls = scenario
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| builder.value(&c.call, &format!("/calls/{i}/call")))
        .collect::<Result<Vec<_>, _>>()?;
    let heap = builder.b.finish()?;
    Ok(Built {
        heap,
        names: builder.names,
        initial,
        registrations,
        calls,
    })
}

/// Escapes a name for use in a JSON Pointer (RFC 6901).
pub fn escape_pointer(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn field<'a>(o: &'a Map<String, Json>, key: &str) -> Option<&'a Json> {
    o.get(key)
}

fn count(o: &Map<String, Json>, key: &str, at: &str, max: u64) -> Result<u64, Error> {
    let n = field(o, key)
        .and_then(Json::as_u64)
        .ok_or_else(|| bad(at, format!("`{key}` must be a non-negative integer")))?;
    if n > max {
        return Err(bad(at, format!("`{key}` {n} is above the limit {max}")));
    }
    Ok(n)
}

fn only_keys(o: &Map<String, Json>, allowed: &[&str], at: &str) -> Result<(), Error> {
    match o.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(bad(
            at,
            format!("unknown field `{k}` (allowed: {})", allowed.join(", ")),
        )),
        None => Ok(()),
    }
}

impl Builder {
    fn placeholder(&mut self, name: Name) -> NodeId {
        self.names.ids.push(name);
        self.b
            .alloc(Node::Object(ObjectNode::new(Proto::ObjectPrototype)))
    }

    fn set(&mut self, id: NodeId, node: Node, at: &str) -> Result<(), Error> {
        let slot = self.b.node_mut(id).ok_or_else(|| bad(at, "lost node"))?;
        *slot = node;
        Ok(())
    }

    /// A value: JSON scalars stand for themselves; objects are tagged.
    fn value(&mut self, v: &Json, at: &str) -> Result<Value, Error> {
        match v {
            Json::Null => Ok(Value::Null),
            Json::Bool(b) => Ok(Value::Bool(*b)),
            Json::Number(n) => n
                .as_f64()
                .map(Value::Number)
                .ok_or_else(|| bad(at, "number out of range")),
            Json::String(s) => Ok(Value::String(JsString::new(s))),
            Json::Array(_) => Err(bad(
                at,
                "a value cannot be a JSON array; use {\"$\": \"array\", \"items\": [...]}",
            )),
            Json::Object(o) => {
                if let Some(name) = field(o, "ref") {
                    only_keys(o, &["ref"], at)?;
                    let name = name
                        .as_str()
                        .ok_or_else(|| bad(at, "`ref` must be a node name"))?;
                    return self
                        .by_name
                        .get(name)
                        .map(|id| Value::Ref(*id))
                        .ok_or_else(|| bad(at, format!("no node named `{name}`")));
                }
                let tag = field(o, "$")
                    .and_then(Json::as_str)
                    .ok_or_else(|| bad(at, "an object value needs `$` or `ref`"))?;
                match tag {
                    "undefined" => {
                        only_keys(o, &["$"], at)?;
                        Ok(Value::Undefined)
                    }
                    "number" => {
                        only_keys(o, &["$", "value"], at)?;
                        match field(o, "value").and_then(Json::as_str) {
                            Some("NaN") => Ok(Value::Number(f64::NAN)),
                            Some("Infinity") => Ok(Value::Number(f64::INFINITY)),
                            Some("-Infinity") => Ok(Value::Number(f64::NEG_INFINITY)),
                            Some("-0") => Ok(Value::Number(-0.0)),
                            _ => Err(bad(at, "`value` must be NaN, Infinity, -Infinity or -0")),
                        }
                    }
                    "bigint" => self.bigint(o, at).map(Value::BigInt),
                    "symbol" => {
                        only_keys(o, &["$", "id"], at)?;
                        let id = field(o, "id").and_then(Json::as_u64).unwrap_or(0);
                        Ok(Value::Symbol(
                            u32::try_from(id).map_err(|_| bad(at, "symbol id too large"))?,
                        ))
                    }
                    "string" => self.string(o, at).map(Value::String),
                    _ => {
                        let node = self.node(v, at)?;
                        let id = self.placeholder(Name::Given(at.to_string()));
                        self.set(id, node, at)?;
                        Ok(Value::Ref(id))
                    }
                }
            }
        }
    }

    fn bigint(&mut self, o: &Map<String, Json>, at: &str) -> Result<BigIntValue, Error> {
        only_keys(o, &["$", "decimal", "pow2", "negative", "offset"], at)?;
        if let Some(d) = field(o, "decimal") {
            let d = d
                .as_str()
                .ok_or_else(|| bad(at, "`decimal` must be a string"))?;
            return BigIntValue::from_decimal(d)
                .ok_or_else(|| bad(at, "`decimal` must be an optional '-' and digits"));
        }
        let exp = field(o, "pow2")
            .and_then(Json::as_u64)
            .ok_or_else(|| bad(at, "a bigint needs `decimal` or `pow2`"))?;
        let negative = field(o, "negative")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        let offset = field(o, "offset")
            .map_or(Some(0), Json::as_i64)
            .ok_or_else(|| bad(at, "`offset` must be an integer"))?;
        BigIntValue::power_of_two(negative, exp, offset)
            .ok_or_else(|| bad(at, "|offset| must be below 2^pow2"))
    }

    fn string(&mut self, o: &Map<String, Json>, at: &str) -> Result<JsString, Error> {
        only_keys(o, &["$", "units", "repeat", "times"], at)?;
        if let Some(units) = field(o, "units") {
            let units = units
                .as_array()
                .ok_or_else(|| bad(at, "`units` must be an array of UTF-16 code units"))?
                .iter()
                .map(|u| u.as_u64().and_then(|u| u16::try_from(u).ok()))
                .collect::<Option<Vec<u16>>>()
                .ok_or_else(|| bad(at, "`units` must hold integers 0..=65535"))?;
            return Ok(JsString::from_units(units));
        }
        let piece = match field(o, "repeat") {
            Some(Json::String(s)) => s.encode_utf16().collect::<Vec<u16>>(),
            Some(Json::Object(inner)) => self
                .string(inner, &format!("{at}/repeat"))?
                .units()
                .to_vec(),
            _ => return Err(bad(at, "a string needs `units` or `repeat` and `times`")),
        };
        let max_units = self.limits.string_units;
        let times = count(o, "times", at, max_units)?;
        let total = (piece.len() as u64).saturating_mul(times);
        if total > max_units {
            return Err(bad(
                at,
                format!("{total} code units is above the limit {max_units}"),
            ));
        }
        let mut units = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
        for _ in 0..times {
            units.extend_from_slice(&piece);
        }
        Ok(JsString::from_units(units))
    }

    fn key(&mut self, v: &Json, at: &str) -> Result<PropKey, Error> {
        match v {
            Json::String(s) => Ok(PropKey::String(JsString::new(s))),
            Json::Object(o) if field(o, "symbol").is_some() => {
                let id = field(o, "symbol")
                    .and_then(Json::as_u64)
                    .ok_or_else(|| bad(at, "`symbol` must be an integer"))?;
                Ok(PropKey::Symbol(
                    u32::try_from(id).map_err(|_| bad(at, "symbol id too large"))?,
                ))
            }
            Json::Object(o) => self.string(o, at).map(PropKey::String),
            _ => Err(bad(
                at,
                "a key is a string, {\"$\": \"string\", ...} or {\"symbol\": n}",
            )),
        }
    }

    fn function_id(&mut self, v: &Json, at: &str) -> Result<NodeId, Error> {
        match self.value(v, at)? {
            Value::Ref(id) => Ok(id),
            _ => Err(bad(at, "a getter must be a function node")),
        }
    }

    fn proto(&mut self, v: Option<&Json>, default: Proto, at: &str) -> Result<Proto, Error> {
        let Some(v) = v else { return Ok(default) };
        match v {
            Json::String(s) => match s.as_str() {
                "object" => Ok(Proto::ObjectPrototype),
                "array" => Ok(Proto::ArrayPrototype),
                "null" => Ok(Proto::Null),
                "otherRealmObject" => Ok(Proto::OtherRealmObject),
                "otherRealmArray" => Ok(Proto::OtherRealmArray),
                other => Err(bad(at, format!("unknown prototype `{other}`"))),
            },
            Json::Object(o) if field(o, "builtin").is_some() => {
                let b: Builtin =
                    serde_json::from_value(field(o, "builtin").cloned().unwrap_or(Json::Null))
                        .map_err(|e| bad(at, format!("unknown builtin prototype: {e}")))?;
                Ok(Proto::Builtin(b))
            }
            Json::Object(o) if field(o, "class").is_some() => {
                let name = field(o, "class")
                    .and_then(Json::as_str)
                    .ok_or_else(|| bad(at, "`class` must be a string"))?;
                Ok(Proto::Class(JsString::new(name)))
            }
            other => match self.value(other, at)? {
                Value::Ref(id) => Ok(Proto::Node(id)),
                _ => Err(bad(
                    at,
                    "a prototype is a name, {\"builtin\"}, {\"class\"}, or a node",
                )),
            },
        }
    }

    fn property(&mut self, v: &Json, at: &str) -> Result<(PropKey, Property), Error> {
        let o = v
            .as_object()
            .ok_or_else(|| bad(at, "a property definition is an object"))?;
        only_keys(o, &["key", "value", "get", "setterOnly", "enumerable"], at)?;
        let key = self.key(
            field(o, "key").ok_or_else(|| bad(at, "`key` is required"))?,
            &format!("{at}/key"),
        )?;
        let enumerable = field(o, "enumerable")
            .and_then(Json::as_bool)
            .unwrap_or(true);
        let prop = match (field(o, "value"), field(o, "get"), field(o, "setterOnly")) {
            (Some(v), None, None) => Property::Data {
                value: self.value(v, &format!("{at}/value"))?,
                enumerable,
            },
            (None, Some(g), None) => Property::Accessor {
                getter: Some(self.function_id(g, &format!("{at}/get"))?),
                enumerable,
            },
            (None, None, Some(Json::Bool(true))) => Property::Accessor {
                getter: None,
                enumerable,
            },
            _ => {
                return Err(bad(
                    at,
                    "a property has exactly one of `value`, `get`, `setterOnly: true`",
                ))
            }
        };
        Ok((key, prop))
    }

    fn trap(&mut self, v: &Json, at: &str) -> Result<TrapBehavior, Error> {
        match v {
            Json::String(s) if s == "passThrough" => Ok(TrapBehavior::PassThrough),
            Json::Object(o) if field(o, "throw").is_some() => {
                only_keys(o, &["throw"], at)?;
                Ok(TrapBehavior::Throw(self.value(
                    field(o, "throw").unwrap_or(&Json::Null),
                    &format!("{at}/throw"),
                )?))
            }
            Json::Object(o) if field(o, "abort").is_some() => {
                only_keys(o, &["abort"], at)?;
                Ok(TrapBehavior::Abort(reason(field(o, "abort"), at)?))
            }
            _ => Err(bad(
                at,
                "a trap is \"passThrough\", {\"throw\": value} or {\"abort\": {\"reason\"?}}",
            )),
        }
    }

    fn script(&mut self, o: &Map<String, Json>, at: &str) -> Result<Script, Error> {
        let mut effects = Vec::new();
        if let Some(list) = field(o, "effects") {
            let list = list
                .as_array()
                .ok_or_else(|| bad(at, "`effects` must be an array"))?;
            for (i, e) in list.iter().enumerate() {
                let eat = format!("{at}/effects/{i}");
                effects.push(match e {
                    Json::String(s) if s == "listenForAbort" => Effect::ListenForAbort,
                    Json::Object(eo) if field(eo, "abort").is_some() => {
                        only_keys(eo, &["abort"], &eat)?;
                        Effect::Abort(reason(field(eo, "abort"), &eat)?)
                    }
                    _ => {
                        return Err(bad(
                            &eat,
                            "an effect is \"listenForAbort\" or {\"abort\": {\"reason\"?}}",
                        ))
                    }
                });
            }
        }
        let completion = match (
            field(o, "returns"),
            field(o, "throws"),
            field(o, "callsBack"),
        ) {
            (None, None, None) => Completion::ReturnUndefined,
            (Some(v), None, None) => Completion::Return(self.value(v, &format!("{at}/returns"))?),
            (None, Some(v), None) => Completion::Throw(self.value(v, &format!("{at}/throws"))?),
            (None, None, Some(Json::Object(cb))) => {
                let index = cb
                    .get("index")
                    .and_then(Json::as_u64)
                    .ok_or_else(|| bad(at, "`callsBack.index` must be 0 or 1"))?;
                let value = self.value(
                    cb.get("value").unwrap_or(&Json::Null),
                    &format!("{at}/callsBack/value"),
                )?;
                Completion::CallArg {
                    index: usize::try_from(index).unwrap_or(usize::MAX),
                    value,
                }
            }
            _ => {
                return Err(bad(
                    at,
                    "a function has at most one of `returns`, `throws`, `callsBack`",
                ))
            }
        };
        Ok(Script {
            effects,
            completion,
        })
    }

    /// A node spec (`$` is its kind).
    fn node(&mut self, v: &Json, at: &str) -> Result<Node, Error> {
        let o = v
            .as_object()
            .ok_or_else(|| bad(at, "a node is an object with `$`"))?;
        let tag = field(o, "$")
            .and_then(Json::as_str)
            .ok_or_else(|| bad(at, "a node needs `$`"))?;
        match tag {
            "object" => self.object(o, at).map(Node::Object),
            "error" => {
                only_keys(o, &["$", "class", "message"], at)?;
                let class = field(o, "class")
                    .cloned()
                    .unwrap_or(Json::String("error".into()));
                let builtin: Builtin = serde_json::from_value(class)
                    .map_err(|e| bad(at, format!("unknown error class: {e}")))?;
                let mut obj = ObjectNode::new(Proto::Builtin(builtin));
                if let Some(m) = field(o, "message") {
                    let m = self.value(m, &format!("{at}/message"))?;
                    obj.define("message", Property::data(m).hidden());
                }
                Ok(Node::Object(obj))
            }
            "nonRecoverable" => {
                only_keys(o, &["$", "message", "proto"], at)?;
                let proto = self.proto(
                    field(o, "proto"),
                    Proto::Builtin(Builtin::NonRecoverableToolError),
                    &format!("{at}/proto"),
                )?;
                let mut obj = ObjectNode::new(proto);
                obj.non_recoverable_brand = true;
                if let Some(m) = field(o, "message") {
                    let m = self.value(m, &format!("{at}/message"))?;
                    obj.define("message", Property::data(m).hidden());
                }
                obj.define(
                    "code",
                    Property::data(crate::constants::NON_RECOVERABLE_CODE),
                );
                obj.define("nonRecoverable", Property::data(true));
                Ok(Node::Object(obj))
            }
            "array" => self.array(o, at).map(Node::Array),
            "function" => {
                only_keys(o, &["$", "effects", "returns", "throws", "callsBack"], at)?;
                Ok(Node::Function(FunctionNode {
                    script: self.script(o, at)?,
                }))
            }
            "proxy" => {
                only_keys(o, &["$", "target", "traps", "revoked"], at)?;
                let target = match self.value(
                    field(o, "target").unwrap_or(&Json::Null),
                    &format!("{at}/target"),
                )? {
                    Value::Ref(id) => id,
                    _ => return Err(bad(at, "a proxy target must be an object or array node")),
                };
                let mut traps = BTreeMap::new();
                if let Some(t) = field(o, "traps") {
                    let t = t
                        .as_object()
                        .ok_or_else(|| bad(at, "`traps` must be an object"))?;
                    for (name, behavior) in t {
                        let trap: Trap = serde_json::from_value(Json::String(name.clone()))
                            .map_err(|_| bad(at, format!("unknown trap `{name}`")))?;
                        let behavior = self.trap(behavior, &format!("{at}/traps/{name}"))?;
                        traps.insert(trap, behavior);
                    }
                }
                let revoked = field(o, "revoked").and_then(Json::as_bool).unwrap_or(false);
                Ok(Node::Proxy(ProxyNode {
                    target,
                    traps,
                    revoked,
                }))
            }
            "promise" => {
                only_keys(
                    o,
                    &["$", "fulfilled", "rejected", "pending", "afterAbort"],
                    at,
                )?;
                let promise = match (
                    field(o, "fulfilled"),
                    field(o, "rejected"),
                    field(o, "pending"),
                ) {
                    (Some(v), None, None) => {
                        PromiseNode::Fulfilled(self.value(v, &format!("{at}/fulfilled"))?)
                    }
                    (None, Some(v), None) => {
                        PromiseNode::Rejected(self.value(v, &format!("{at}/rejected"))?)
                    }
                    (None, None, Some(Json::Bool(true))) => {
                        let after_abort = match field(o, "afterAbort") {
                            None => None,
                            Some(Json::Object(a)) if a.contains_key("fulfill") => {
                                Some(Settlement::Fulfill(self.value(
                                    a.get("fulfill").unwrap_or(&Json::Null),
                                    &format!("{at}/afterAbort/fulfill"),
                                )?))
                            }
                            Some(Json::Object(a)) if a.contains_key("reject") => {
                                Some(Settlement::Reject(self.value(
                                    a.get("reject").unwrap_or(&Json::Null),
                                    &format!("{at}/afterAbort/reject"),
                                )?))
                            }
                            Some(_) => {
                                return Err(bad(
                                    at,
                                    "`afterAbort` is {\"fulfill\": v} or {\"reject\": v}",
                                ))
                            }
                        };
                        PromiseNode::Pending { after_abort }
                    }
                    _ => {
                        return Err(bad(
                            at,
                            "a promise is `fulfilled`, `rejected` or `pending: true`",
                        ))
                    }
                };
                Ok(Node::Promise(promise))
            }
            "nest" => self.nest(o, at),
            other => Err(bad(at, format!("unknown node kind `{other}`"))),
        }
    }

    fn object(&mut self, o: &Map<String, Json>, at: &str) -> Result<ObjectNode, Error> {
        only_keys(o, &["$", "proto", "props", "define", "repeat"], at)?;
        let proto = self.proto(
            field(o, "proto"),
            Proto::ObjectPrototype,
            &format!("{at}/proto"),
        )?;
        let mut obj = ObjectNode::new(proto);
        if let Some(props) = field(o, "props") {
            let props = props
                .as_object()
                .ok_or_else(|| bad(at, "`props` must be an object"))?;
            for (k, v) in props {
                let value = self.value(v, &format!("{at}/props/{}", escape_pointer(k)))?;
                obj.define(k.as_str(), Property::data(value));
            }
        }
        if let Some(defs) = field(o, "define") {
            let defs = defs
                .as_array()
                .ok_or_else(|| bad(at, "`define` must be an array"))?;
            for (i, d) in defs.iter().enumerate() {
                let (key, prop) = self.property(d, &format!("{at}/define/{i}"))?;
                obj.define(key, prop);
            }
        }
        if let Some(Json::Object(r)) = field(o, "repeat") {
            let rat = format!("{at}/repeat");
            only_keys(r, &["count", "prefix", "value", "enumerable"], &rat)?;
            let n = count(r, "count", &rat, self.limits.repeat)?;
            let prefix = r.get("prefix").and_then(Json::as_str).unwrap_or("k");
            let value = self.value(
                r.get("value").unwrap_or(&Json::Null),
                &format!("{rat}/value"),
            )?;
            let enumerable = r.get("enumerable").and_then(Json::as_bool).unwrap_or(true);
            obj.reserve(usize::try_from(n).unwrap_or(0));
            let mut key = String::with_capacity(prefix.len() + 20);
            for i in 0..n {
                key.clear();
                key.push_str(prefix);
                push_decimal(&mut key, i);
                obj.define(
                    key.as_str(),
                    Property::Data {
                        value: value.clone(),
                        enumerable,
                    },
                );
            }
        }
        Ok(obj)
    }

    fn array(&mut self, o: &Map<String, Json>, at: &str) -> Result<ArrayNode, Error> {
        only_keys(o, &["$", "proto", "items", "length", "fill"], at)?;
        let proto = self.proto(
            field(o, "proto"),
            Proto::ArrayPrototype,
            &format!("{at}/proto"),
        )?;
        let mut slots = Slots::new();
        let mut next: u64 = 0;
        if let Some(items) = field(o, "items") {
            let items = items
                .as_array()
                .ok_or_else(|| bad(at, "`items` must be an array"))?;
            for (i, item) in items.iter().enumerate() {
                let iat = format!("{at}/items/{i}");
                let index = u32::try_from(i).map_err(|_| bad(&iat, "too many items"))?;
                match item
                    .as_object()
                    .and_then(|io| io.get("$"))
                    .and_then(Json::as_str)
                {
                    Some("hole") => {}
                    Some("getter") => {
                        let io = item.as_object().ok_or_else(|| bad(&iat, "lost item"))?;
                        let prop = match io.get("get") {
                            Some(g) => {
                                Property::getter(self.function_id(g, &format!("{iat}/get"))?)
                            }
                            None => Property::Accessor {
                                getter: None,
                                enumerable: true,
                            },
                        };
                        slots.insert(index, prop);
                    }
                    _ => {
                        slots.insert(index, Property::data(self.value(item, &iat)?));
                    }
                }
                next = u64::from(index) + 1;
            }
        }
        if let Some(Json::Object(f)) = field(o, "fill") {
            let fat = format!("{at}/fill");
            only_keys(f, &["from", "count", "value"], &fat)?;
            let from = f.get("from").and_then(Json::as_u64).unwrap_or(next);
            let n = count(f, "count", &fat, self.limits.repeat)?;
            let value = self.value(
                f.get("value").unwrap_or(&Json::Null),
                &format!("{fat}/value"),
            )?;
            for i in from..from.saturating_add(n) {
                let index = u32::try_from(i).map_err(|_| bad(&fat, "index above 2^32 - 2"))?;
                slots.insert(index, Property::data(value.clone()));
            }
            next = next.max(from.saturating_add(n));
        }
        let length = match field(o, "length") {
            Some(l) => l
                .as_u64()
                .ok_or_else(|| bad(at, "`length` must be a non-negative integer"))?,
            None => next,
        };
        let length = u32::try_from(length)
            .ok()
            .filter(|l| *l != u32::MAX)
            .ok_or_else(|| bad(at, "`length` above 2^32 - 2"))?;
        if next > u64::from(length) {
            return Err(bad(at, "`length` is shorter than the items"));
        }
        Ok(ArrayNode {
            proto,
            length,
            slots,
        })
    }

    /// `depth` nested containers, each holding the next under `key` (objects)
    /// or at index 0 (arrays), the innermost holding `inner`.
    fn nest(&mut self, o: &Map<String, Json>, at: &str) -> Result<Node, Error> {
        only_keys(o, &["$", "depth", "kind", "key", "inner"], at)?;
        let depth = count(o, "depth", at, self.limits.nest)?;
        if depth == 0 {
            return Err(bad(at, "`depth` must be at least 1"));
        }
        let arrays = match field(o, "kind").and_then(Json::as_str).unwrap_or("object") {
            "object" => false,
            "array" => true,
            other => {
                return Err(bad(
                    at,
                    format!("`kind` must be object or array, not {other}"),
                ))
            }
        };
        // one key for every level: a clone shares its code units
        let key = PropKey::from(field(o, "key").and_then(Json::as_str).unwrap_or("a"));
        let mut inner = match field(o, "inner") {
            Some(v) => Some(self.value(v, &format!("{at}/inner"))?),
            None => None,
        };
        let wrap = |inner: Option<Value>| -> Node {
            if arrays {
                let slots = inner
                    .map(|v| (0, Property::data(v)))
                    .into_iter()
                    .collect::<Slots>();
                let length = u32::try_from(slots.len()).unwrap_or(0);
                Node::Array(ArrayNode {
                    proto: Proto::ArrayPrototype,
                    length,
                    slots,
                })
            } else {
                let mut obj = ObjectNode::new(Proto::ObjectPrototype);
                if let Some(v) = inner {
                    obj.define(key.clone(), Property::data(v));
                }
                Node::Object(obj)
            }
        };
        let nest = u32::try_from(self.names.nests.len()).map_err(|_| bad(at, "too many nests"))?;
        self.names.nests.push(at.to_string());
        // a nest's levels are known at once: their room is made once
        let levels = usize::try_from(depth).unwrap_or(0);
        self.b.reserve(levels);
        self.names.ids.reserve(levels);
        for level in 1..depth {
            let node = wrap(inner.take());
            let id = self.placeholder(Name::Level {
                nest,
                level: depth - level,
            });
            self.set(id, node, at)?;
            inner = Some(Value::Ref(id));
        }
        Ok(wrap(inner))
    }
}

/// Writes `n` in decimal, as `write!(s, "{n}")` does, without the
/// formatting machinery (a quarter of a `repeat`'s key building).
fn push_decimal(s: &mut String, n: u64) {
    // the largest power of ten not above n (10 * divisor <= n cannot overflow)
    let mut divisor = 1u64;
    while n / divisor >= 10 {
        divisor *= 10;
    }
    loop {
        s.push(char::from(b'0' + (n / divisor % 10) as u8));
        if divisor == 1 {
            break;
        }
        divisor /= 10;
    }
}

fn reason(v: Option<&Json>, at: &str) -> Result<Option<Json>, Error> {
    match v {
        Some(Json::Object(r)) => {
            only_keys(r, &["reason"], at)?;
            Ok(r.get("reason").cloned())
        }
        _ => Err(bad(at, "an abort is {} or {\"reason\": <json>}")),
    }
}

#[cfg(test)]
mod tests {
    use super::push_decimal;

    #[test]
    fn push_decimal_writes_what_display_writes() {
        for n in [0, 7, 9, 10, 99, 100, 90_927, 4_294_967_295, u64::MAX] {
            let mut s = String::from("k");
            push_decimal(&mut s, n);
            assert_eq!(s, format!("k{n}"));
        }
    }
}
