//! A boundary scenario as a core scenario: the boundary suite's reference
//! is the core reference (`scenario::oracle`) run on this translation, so
//! the boundary suite never re-implements a step. What the core contract
//! has no words for is decided here, once, before the core runs:
//!
//! - the JSON Schema and the extra check are evaluated on the arguments
//!   (with the `jsonschema` crate, as runtimes validate), and the tool's
//!   validator is scripted to accept or refuse with that verdict;
//! - the turn's calls run one after another on the core, each with its own
//!   signal: an abort `before` aborts every call before it starts; one
//!   `whilePending` or `afterSettled` lands when the calls that settle on
//!   their own have settled, so it aborts exactly the calls whose
//!   behaviour is `pending`;
//! - a call whose tool never settles, without an abort, is stopped by the
//!   boundary's deadline (the turn's driver aborts it with the reason
//!   [`DEADLINE_REASON`]), as BOUNDARY-TIME-01 asks of every runtime.
//!
//! Values and behaviours are decoded by hand, so a bad scenario gives an
//! error naming its JSON Pointer, never a panic.

use super::spec::{AbortTiming, BoundaryScenario};
use serde_json::{json, Map, Value as Json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use toolgate_core::scenario::Scenario;
use toolgate_suite::Error;

/// The reason the turn's driver aborts a call whose tool never settles.
pub const DEADLINE_REASON: &str = "toolgate: the tool did not settle before the deadline";

/// Largest `depth`, `keys` and `length` of the large value families.
pub const MAX_FAMILY_SIZE: u64 = 20_000_000;

/// Largest `length` of a `bytes` value: the core builds it as an object of
/// that many index keys, as `JSON.stringify` sees a `Uint8Array`.
pub const MAX_BYTES: u64 = 1_048_576;

/// The non-finite numbers a `number` value names.
const NON_FINITE: [&str; 3] = ["NaN", "Infinity", "-Infinity"];

/// How deep the arguments are looked at by the schema check: schemas of
/// the suite describe a few levels only, so a 10^5-deep nest is cut here
/// (below this depth, containers are checked as empty).
const SCHEMA_DEPTH: u64 = 64;

/// A behaviour of a tool body, decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum Behaviour {
    Returns(Json),
    Resolves(Json),
    Throws(Json),
    Rejects(Json),
    Pending {
        rejects_on_abort: bool,
    },
    Progress {
        values: Vec<Json>,
        then: Box<Behaviour>,
    },
}

impl Behaviour {
    /// Whether the body never settles by itself.
    pub fn is_pending(&self) -> bool {
        match self {
            Behaviour::Pending { .. } => true,
            Behaviour::Progress { then, .. } => then.is_pending(),
            _ => false,
        }
    }
}

fn bad(at: &str, what: impl std::fmt::Display) -> Error {
    Error::scenario(format!("{at}: {what}"))
}

fn only_keys(o: &Map<String, Json>, keys: &[&str], at: &str) -> Result<(), Error> {
    match o.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(bad(at, format!("unexpected field `{k}`"))),
        None => Ok(()),
    }
}

/// Decodes a behaviour at JSON Pointer `at`.
pub fn behaviour(b: &Json, at: &str) -> Result<Behaviour, Error> {
    let o = b
        .as_object()
        .ok_or_else(|| bad(at, "a behaviour is an object"))?;
    if let Some(values) = o.get("progress") {
        only_keys(o, &["progress", "then"], at)?;
        let values = values
            .as_array()
            .ok_or_else(|| bad(&format!("{at}/progress"), "an array of values"))?;
        for (i, v) in values.iter().enumerate() {
            check_value(v, &format!("{at}/progress/{i}"))?;
        }
        let then = o
            .get("then")
            .ok_or_else(|| bad(at, "`progress` needs `then`"))?;
        return Ok(Behaviour::Progress {
            values: values.clone(),
            then: Box::new(behaviour(then, &format!("{at}/then"))?),
        });
    }
    if o.len() != 1 {
        return Err(bad(
            at,
            "a behaviour has exactly one of returns, resolves, throws, rejects, pending, progress",
        ));
    }
    let (kind, v) = o.iter().next().ok_or_else(|| bad(at, "empty behaviour"))?;
    let inner = format!("{at}/{kind}");
    match kind.as_str() {
        "returns" => check_value(v, &inner).map(|()| Behaviour::Returns(v.clone())),
        "resolves" => check_value(v, &inner).map(|()| Behaviour::Resolves(v.clone())),
        "throws" => check_thrown(v, &inner).map(|()| Behaviour::Throws(v.clone())),
        "rejects" => check_thrown(v, &inner).map(|()| Behaviour::Rejects(v.clone())),
        "pending" => {
            let p = v.as_object().ok_or_else(|| {
                bad(
                    &inner,
                    "`pending` is {\"onAbort\": \"reject\" | \"ignore\"}",
                )
            })?;
            only_keys(p, &["onAbort"], &inner)?;
            match p.get("onAbort").and_then(Json::as_str) {
                Some("reject") => Ok(Behaviour::Pending {
                    rejects_on_abort: true,
                }),
                Some("ignore") => Ok(Behaviour::Pending {
                    rejects_on_abort: false,
                }),
                _ => Err(bad(&inner, "`onAbort` is \"reject\" or \"ignore\"")),
            }
        }
        other => Err(bad(at, format!("unknown behaviour `{other}`"))),
    }
}

fn check_thrown(t: &Json, at: &str) -> Result<(), Error> {
    let o = t
        .as_object()
        .ok_or_else(|| bad(at, "a thrown value is {error}, {string} or {value}"))?;
    if o.len() != 1 {
        return Err(bad(
            at,
            "a thrown value has exactly one of error, string, value",
        ));
    }
    match (o.get("error"), o.get("string"), o.get("value")) {
        (Some(Json::String(_)), _, _) | (_, Some(Json::String(_)), _) => Ok(()),
        (_, _, Some(v)) => check_value(v, &format!("{at}/value")),
        _ => Err(bad(at, "`error` and `string` hold strings")),
    }
}

/// The size field of a large family, bounded.
fn size(o: &Map<String, Json>, key: &str, at: &str) -> Result<u64, Error> {
    match o.get(key).and_then(Json::as_u64) {
        Some(n) if n <= MAX_FAMILY_SIZE => Ok(n),
        _ => Err(bad(
            at,
            format!("`{key}` is an integer from 0 to {MAX_FAMILY_SIZE}"),
        )),
    }
}

/// Checks a value (JSON with `$` families) without building it.
pub fn check_value(v: &Json, at: &str) -> Result<(), Error> {
    // iterative: a value given as literal JSON may itself be deep
    let mut open = vec![(v, at.to_string())];
    while let Some((v, at)) = open.pop() {
        match v {
            Json::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    open.push((item, format!("{at}/{i}")));
                }
            }
            Json::Object(o) => match o.get("$") {
                None => {
                    for (k, item) in o {
                        open.push((item, format!("{at}/{}", escape(k))));
                    }
                }
                Some(tag) => {
                    let tag = tag.as_str().ok_or_else(|| bad(&at, "`$` names a family"))?;
                    match tag {
                        "literal" => only_keys(o, &["$", "value"], &at)?,
                        "cyclic" | "undefined" | "function" => only_keys(o, &["$"], &at)?,
                        "deep" => {
                            only_keys(o, &["$", "depth"], &at)?;
                            size(o, "depth", &at)?;
                        }
                        "wide" => {
                            only_keys(o, &["$", "keys"], &at)?;
                            size(o, "keys", &at)?;
                        }
                        "longString" => {
                            only_keys(o, &["$", "length"], &at)?;
                            size(o, "length", &at)?;
                        }
                        "bigint" => {
                            only_keys(o, &["$", "value"], &at)?;
                            let digits = o.get("value").and_then(Json::as_str).unwrap_or("");
                            let body = digits.strip_prefix('-').unwrap_or(digits);
                            if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
                                return Err(bad(&at, "`value` is a decimal string"));
                            }
                        }
                        "throwingGetter" | "throwingToJSON" => {
                            only_keys(o, &["$", "message"], &at)?;
                            if !o.get("message").is_some_and(Json::is_string) {
                                return Err(bad(&at, "`message` is a string"));
                            }
                        }
                        "number" => {
                            only_keys(o, &["$", "value"], &at)?;
                            let named = o.get("value").and_then(Json::as_str);
                            if !named.is_some_and(|v| NON_FINITE.contains(&v)) {
                                return Err(bad(
                                    &at,
                                    "`value` is \"NaN\", \"Infinity\" or \"-Infinity\"",
                                ));
                            }
                        }
                        "set" => {
                            only_keys(o, &["$", "items"], &at)?;
                            let items = o.get("items").and_then(Json::as_array);
                            // hashable in every language: scalars only
                            if !items
                                .is_some_and(|i| i.iter().all(|v| !v.is_array() && !v.is_object()))
                            {
                                return Err(bad(&at, "`items` is an array of JSON scalars"));
                            }
                        }
                        "bytes" => {
                            only_keys(o, &["$", "length", "fill"], &at)?;
                            if o.get("fill")
                                .is_some_and(|f| f.as_u64().is_none_or(|b| b > 255))
                            {
                                return Err(bad(&at, "`fill` is an integer from 0 to 255"));
                            }
                            let length = o.get("length").and_then(Json::as_u64);
                            if length.is_none_or(|n| n > MAX_BYTES) {
                                return Err(bad(
                                    &at,
                                    format!("`length` is an integer from 0 to {MAX_BYTES}"),
                                ));
                            }
                        }
                        other => return Err(bad(&at, format!("unknown value family `{other}`"))),
                    }
                }
            },
            _ => {}
        }
    }
    Ok(())
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Builds core scenario values; named nodes (cycles) go into `nodes`.
#[derive(Default)]
struct Nodes {
    nodes: Map<String, Json>,
}

/// `{"$": tag, ...entries}`, built in place. Not `json!`: it serializes
/// each value it is given (`to_value(&v)`), which copied every nested
/// level's subtree again, quadratic in depth, and took 63% of the
/// `boundary_fast` target's time on its working corpus (perf, 2026-12-05).
fn tagged<const N: usize>(tag: &str, entries: [(&str, Json); N]) -> Json {
    let mut o = Map::new();
    o.insert("$".into(), Json::from(tag));
    for (key, value) in entries {
        o.insert(key.into(), value);
    }
    Json::Object(o)
}

impl Nodes {
    fn name(&mut self, prefix: &str, node: Json) -> Json {
        let name = format!("{prefix}{}", self.nodes.len());
        self.nodes.insert(name.clone(), node);
        json!({ "ref": name })
    }

    /// The core form of a (checked) value.
    fn value(&mut self, v: &Json) -> Json {
        match v {
            Json::Array(items) => {
                let items = items.iter().map(|i| self.value(i)).collect();
                tagged("array", [("items", Json::Array(items))])
            }
            Json::Object(o) => match o.get("$").and_then(Json::as_str) {
                None => {
                    let props = o.iter().map(|(k, v)| (k.clone(), self.value(v))).collect();
                    tagged("object", [("props", Json::Object(props))])
                }
                Some(tag) => self.family(tag, o),
            },
            other => other.clone(),
        }
    }

    fn family(&mut self, tag: &str, o: &Map<String, Json>) -> Json {
        let n = |key: &str| o.get(key).and_then(Json::as_u64).unwrap_or(0);
        let message = o.get("message").cloned().unwrap_or(Json::Null);
        match tag {
            "literal" => {
                let inner = o.get("value").cloned().unwrap_or(Json::Null);
                self.literal(&inner)
            }
            "cyclic" => {
                let name = format!("cycle{}", self.nodes.len());
                self.nodes.insert(
                    name.clone(),
                    json!({"$": "object", "props": {"name": "loop", "self": {"ref": name}}}),
                );
                json!({ "ref": name })
            }
            "deep" if n("depth") == 0 => json!({"$": "object", "props": {"leaf": true}}),
            "deep" => json!({"$": "nest", "depth": n("depth"), "key": "next",
                "inner": {"$": "object", "props": {"leaf": true}}}),
            "wide" => json!({"$": "object", "repeat": {"count": n("keys"), "prefix": "k"}}),
            "longString" => json!({"$": "string", "repeat": "x", "times": n("length")}),
            "bigint" => {
                json!({"$": "bigint", "decimal": o.get("value").cloned().unwrap_or(Json::Null)})
            }
            "undefined" => json!({"$": "undefined"}),
            "number" => {
                json!({"$": "number", "value": o.get("value").cloned().unwrap_or(Json::Null)})
            }
            // a Set's entries are no properties: the core sees an empty
            // object whose prototype is Set.prototype
            "set" => json!({"$": "object", "proto": {"builtin": "set"}}),
            // a Uint8Array, as its own index keys, each holding `fill`
            "bytes" => {
                let fill = o.get("fill").cloned().unwrap_or(json!(0));
                json!({"$": "object", "repeat": {"count": n("length"), "prefix": "", "value": fill}})
            }
            "function" => self.name("fn", json!({"$": "function"})),
            "throwingGetter" => json!({"$": "object", "props": {"ok": true}, "define": [
                {"key": "broken", "get": {"$": "function", "throws": {"$": "error", "message": message}}}
            ]}),
            // the core walk never calls toJSON: the method is one more
            // function-valued property
            _ => json!({"$": "object", "props": {"ok": true,
                "toJSON": {"$": "function", "throws": {"$": "error", "message": message}}}}),
        }
    }

    /// A literal JSON value (objects with a `$` key included) in core form.
    fn literal(&mut self, v: &Json) -> Json {
        match v {
            Json::Array(items) => {
                let items = items.iter().map(|i| self.literal(i)).collect();
                tagged("array", [("items", Json::Array(items))])
            }
            Json::Object(o) => {
                let props = o
                    .iter()
                    .map(|(k, v)| (k.clone(), self.literal(v)))
                    .collect();
                tagged("object", [("props", Json::Object(props))])
            }
            other => other.clone(),
        }
    }

    fn thrown(&mut self, t: &Json) -> Json {
        if let Some(m) = t.get("error") {
            return json!({"$": "error", "message": m});
        }
        if let Some(s) = t.get("string") {
            return s.clone();
        }
        let v = t.get("value").cloned().unwrap_or(Json::Null);
        self.value(&v)
    }

    /// The executor function node of a behaviour.
    fn executor(&mut self, b: &Behaviour) -> Json {
        match b {
            Behaviour::Returns(v) => tagged("function", [("returns", self.value(v))]),
            Behaviour::Resolves(v) => {
                let promise = tagged("promise", [("fulfilled", self.value(v))]);
                tagged("function", [("returns", promise)])
            }
            Behaviour::Throws(t) => tagged("function", [("throws", self.thrown(t))]),
            Behaviour::Rejects(t) => {
                let promise = tagged("promise", [("rejected", self.thrown(t))]);
                tagged("function", [("returns", promise)])
            }
            Behaviour::Pending { rejects_on_abort } => {
                let promise = if *rejects_on_abort {
                    json!({"$": "promise", "pending": true,
                        "afterAbort": {"reject": {"$": "error", "class": "error", "message": "aborted"}}})
                } else {
                    json!({"$": "promise", "pending": true})
                };
                json!({"$": "function", "effects": ["listenForAbort"], "returns": promise})
            }
            // the core has no progress channel: the body then behaves as told
            Behaviour::Progress { then, .. } => self.executor(then),
        }
    }
}

/// The arguments of a call as plain JSON for the schema check, containers
/// below [`SCHEMA_DEPTH`] left empty and large families built in full only
/// where the schema could look (a 10^6-key object is built: schemas count
/// properties).
pub fn arguments_for_schema(v: &Json) -> Json {
    plain(v, 0)
}

fn plain(v: &Json, depth: u64) -> Json {
    if depth >= SCHEMA_DEPTH {
        return match v {
            Json::Array(_) => json!([]),
            Json::Object(o) if !o.contains_key("$") => json!({}),
            Json::Object(_) => json!({}),
            other => other.clone(),
        };
    }
    match v {
        Json::Array(items) => Json::Array(items.iter().map(|i| plain(i, depth + 1)).collect()),
        Json::Object(o) => match o.get("$").and_then(Json::as_str) {
            None => Json::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), plain(v, depth + 1)))
                    .collect(),
            ),
            Some("literal") => o.get("value").cloned().unwrap_or(Json::Null),
            Some("deep") => {
                let depth_left = SCHEMA_DEPTH.saturating_sub(depth);
                let levels = o.get("depth").and_then(Json::as_u64).unwrap_or(0);
                let mut node = if levels <= depth_left {
                    json!({"leaf": true})
                } else {
                    json!({})
                };
                for _ in 0..levels.min(depth_left) {
                    node = json!({ "next": node });
                }
                node
            }
            Some("wide") => {
                let keys = o.get("keys").and_then(Json::as_u64).unwrap_or(0);
                Json::Object((0..keys).map(|i| (format!("k{i}"), Json::Null)).collect())
            }
            Some("longString") => {
                let length = o.get("length").and_then(Json::as_u64).unwrap_or(0);
                Json::String("x".repeat(usize::try_from(length).unwrap_or(0)))
            }
            // not JSON: what a schema sees of them is that they are not
            // plain data
            Some(_) => Json::Null,
        },
        other => other.clone(),
    }
}

/// The compiled validator of `schema`. The translation and the judge ask
/// for each call's verdict, the properties judge every mutant: compiled
/// once per schema text, in a cache that is emptied when it grows past a
/// few hundred schemas (a fuzzer's JSON inputs bring new ones forever).
fn validator(schema: &Json) -> Result<Arc<jsonschema::Validator>, String> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = OnceLock::new();
    const MOST: usize = 256;
    let key = schema.to_string();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(v);
    }
    let compiled = Arc::new(jsonschema::validator_for(schema).map_err(|e| e.to_string())?);
    if let Ok(mut c) = cache.lock() {
        if c.len() >= MOST {
            c.clear();
        }
        c.insert(key, Arc::clone(&compiled));
    }
    Ok(compiled)
}

/// The schema's and the check's verdict on a call's arguments: `None`
/// when accepted, else the refusal's message.
pub fn verdict(
    schema: &Json,
    check: Option<&super::spec::CheckSpec>,
    arguments: &Json,
    at: &str,
) -> Result<Option<String>, Error> {
    let validator = validator(schema).map_err(|e| {
        bad(
            &format!("{at}/inputSchema"),
            format!("not a usable JSON Schema: {e}"),
        )
    })?;
    let plain = arguments_for_schema(arguments);
    // `is_valid` first: it builds no error, and most arguments are valid
    if !validator.is_valid(&plain) {
        if let Some(error) = validator.iter_errors(&plain).next() {
            let path = error.instance_path().to_string();
            let path = if path.is_empty() {
                "/".to_string()
            } else {
                path
            };
            return Ok(Some(format!("{path}: {error}")));
        }
    }
    if let Some(check) = check {
        if plain.get(&check.key) == Some(&check.equals) {
            return Ok(Some(check.message.clone()));
        }
    }
    Ok(None)
}

/// The decoded behaviours of `scenario`'s tools, checked with the rest of
/// the scenario (names in `abort` exist and fit their timing).
pub fn decode(scenario: &BoundaryScenario) -> Result<Vec<Behaviour>, Error> {
    let behaviours = scenario
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| behaviour(&t.behaviour, &format!("/tools/{i}/behaviour")))
        .collect::<Result<Vec<_>, _>>()?;
    // every schema, not only those a call reaches: a case file with an
    // unusable schema is malformed when it is loaded, not when it runs
    for (i, tool) in scenario.tools.iter().enumerate() {
        validator(&tool.input_schema).map_err(|e| {
            bad(
                &format!("/tools/{i}/inputSchema"),
                format!("not a usable JSON Schema: {e}"),
            )
        })?;
    }
    for (i, call) in scenario.turn.iter().enumerate() {
        // the suite links results to calls by id: an id that is blank or
        // repeated leaves a result no call to be judged against
        if call.id.trim().is_empty() {
            return Err(bad(&format!("/turn/{i}/id"), "a call id is not blank"));
        }
        if scenario.turn.iter().take(i).any(|c| c.id == call.id) {
            return Err(bad(
                &format!("/turn/{i}/id"),
                format!("call id `{}` is used twice in the turn", call.id),
            ));
        }
        let at = format!("/turn/{i}/arguments");
        check_value(&call.arguments, &at)?;
        let is_object = match &call.arguments {
            Json::Object(o) => match o.get("$").and_then(Json::as_str) {
                None => true,
                Some("deep" | "wide") => true,
                Some("literal") => o.get("value").is_some_and(Json::is_object),
                Some(_) => false,
            },
            _ => false,
        };
        if !is_object {
            return Err(bad(&at, "the arguments a model produces are a JSON object"));
        }
    }
    let pending_of = |id: &str| -> Result<bool, Error> {
        let call = scenario
            .turn
            .iter()
            .find(|c| c.id == id)
            .ok_or_else(|| bad("/abort", format!("no call `{id}` in the turn")))?;
        let tool = scenario
            .tools
            .iter()
            .position(|t| t.name == call.name)
            .and_then(|i| behaviours.get(i))
            .ok_or_else(|| bad("/abort", format!("call `{id}` names no tool")))?;
        Ok(tool.is_pending())
    };
    match &scenario.abort {
        Some(AbortTiming::WhilePending(id)) if !pending_of(id)? => Err(bad(
            "/abort/whilePending",
            format!("call `{id}`'s tool settles on its own"),
        )),
        Some(AbortTiming::AfterSettled(id)) => {
            if pending_of(id)? {
                return Err(bad(
                    "/abort/afterSettled",
                    format!("call `{id}`'s tool never settles"),
                ));
            }
            if scenario.turn.first().map(|c| c.id.as_str()) != Some(id.as_str()) {
                return Err(bad(
                    "/abort/afterSettled",
                    format!("call `{id}` must come first in the turn"),
                ));
            }
            for c in scenario.turn.iter().filter(|c| c.id != *id) {
                if !pending_of(&c.id)? {
                    return Err(bad(
                        "/abort/afterSettled",
                        format!("call `{}` settles on its own: the abort's place among the settlements would be the runtime's", c.id),
                    ));
                }
            }
            Ok(behaviours)
        }
        _ => Ok(behaviours),
    }
}

/// The core scenarios of a boundary one: one per call of the turn (at
/// least one), each registering every tool in one batch and making that
/// call. The core's validators are scripted with one fixed answer, while a
/// runtime's schema answers each call's arguments: so each call runs on
/// its own registry, whose validators answer with that call's verdict.
/// Calls are independent on the core anyway (each has its own signal).
pub fn to_core(scenario: &BoundaryScenario) -> Result<Vec<Scenario>, Error> {
    let behaviours = decode(scenario)?;
    let first_of = |name: &str| scenario.tools.iter().position(|t| t.name == name);
    let mut verdicts = Vec::new();
    for call in &scenario.turn {
        let verdict = match first_of(&call.name) {
            Some(i) => {
                let tool = scenario
                    .tools
                    .get(i)
                    .ok_or_else(|| bad("/tools", "no such tool"))?;
                verdict(
                    &tool.input_schema,
                    tool.check.as_ref(),
                    &call.arguments,
                    &format!("/tools/{i}"),
                )?
            }
            None => None,
        };
        verdicts.push(Some((call, verdict)));
    }
    if verdicts.is_empty() {
        verdicts.push(None);
    }
    let mut out = Vec::new();
    for entry in verdicts {
        let mut nodes = Nodes::default();
        let decision = match entry.as_ref().and_then(|(_, v)| v.as_ref()) {
            None => json!({"$": "object", "props": {"ok": true, "value": {"$": "object"}}}),
            Some(message) => json!({"$": "object", "props": {"ok": false, "error": message}}),
        };
        let mut batch = Vec::new();
        for (i, (tool, b)) in scenario.tools.iter().zip(&behaviours).enumerate() {
            let execute = nodes.executor(b);
            let name = format!("execute{i}");
            nodes.nodes.insert(name.clone(), execute);
            // the core wants a description; runtimes take tools without
            let description = if tool.description.trim().is_empty() {
                format!("the tool {}", tool.name)
            } else {
                tool.description.clone()
            };
            batch.push(json!({"$": "object", "props": {
                "name": tool.name,
                "description": description,
                "validate": {"$": "function", "returns": decision},
                "execute": {"ref": name},
            }}));
        }
        let mut calls = Vec::new();
        if let Some((call, _)) = entry {
            let pending = first_of(&call.name)
                .and_then(|i| behaviours.get(i))
                .is_some_and(Behaviour::is_pending);
            let abort = match (&scenario.abort, pending) {
                (Some(AbortTiming::Before {}), _) => Some(json!({"before": {}})),
                (Some(_), true) => Some(json!({"whenPending": {}})),
                (None, true) => Some(json!({"whenPending": {"reason": DEADLINE_REASON}})),
                _ => None,
            };
            let mut spec = Map::new();
            spec.insert(
                "call".into(),
                json!({"$": "object", "props": {
                    "type": "toolCall",
                    "id": call.id,
                    "name": call.name,
                    "arguments": nodes.value(&call.arguments),
                }}),
            );
            if let Some(abort) = abort {
                spec.insert("abort".into(), abort);
            }
            calls.push(spec);
        }
        let core = json!({
            "nodes": nodes.nodes,
            "registrations": [{"$": "array", "items": batch}],
            "calls": calls,
        });
        out.push(
            serde_json::from_value(core)
                .map_err(|e| Error::scenario(format!("translation: {e}")))?,
        );
    }
    Ok(out)
}
