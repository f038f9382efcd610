//! JavaScript values as pi's loop and the scenario's scripts pass them
//! around: primitives, and objects and arrays **by reference** (pi hands
//! the transcript's arguments object itself to `prepareArguments` and to
//! every event; a script's `mutateArgs` changes it in place, and later
//! snapshots see the change). Objects keep JavaScript's key order (array
//! indices first, ascending, then insertion order).
//!
//! Here too: the scenario's values decoded (`materialize`, FORMAT.md's
//! `V`), what the harness records (`encode`, FORMAT.md's encoded values),
//! `JSON.stringify`, `String(value)` and the TypeErrors V8 throws when pi
//! reads a property of `undefined` or `null`.

use crate::validation::js;
use serde_json::{Map, Value as Json};
use std::cell::RefCell;
use std::rc::Rc;
use toolgate_suite::Error;

/// A JavaScript value.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Obj(Obj),
}

/// An object or an array, shared by reference.
#[derive(Clone, Debug)]
pub(crate) struct Obj(Rc<RefCell<ObjData>>);

#[derive(Debug)]
pub(crate) enum ObjData {
    Plain(Vec<(String, Val)>),
    Array(Vec<Val>),
}

/// A value thrown: an `Error` (its class's `name` and its `message`) or
/// any other value.
#[derive(Clone, Debug)]
pub(crate) enum Thrown {
    Error { name: String, message: String },
    Value(Val),
}

impl Thrown {
    pub(crate) fn type_error(message: impl Into<String>) -> Thrown {
        Thrown::Error {
            name: "TypeError".to_owned(),
            message: message.into(),
        }
    }

    /// `error instanceof Error ? error.message : String(error)`, pi's text
    /// of every failure it turns into a result.
    pub(crate) fn text(&self) -> String {
        match self {
            Thrown::Error { message, .. } => message.clone(),
            Thrown::Value(v) => v.to_js_string(),
        }
    }
}

/// What a JavaScript operation gives: a value, or a throw.
pub(crate) type Completion<T> = Result<T, Thrown>;

impl Obj {
    pub(crate) fn plain(pairs: Vec<(String, Val)>) -> Obj {
        let obj = Obj(Rc::new(RefCell::new(ObjData::Plain(Vec::new()))));
        for (k, v) in pairs {
            obj.set(&k, v);
        }
        obj
    }

    pub(crate) fn array(items: Vec<Val>) -> Obj {
        Obj(Rc::new(RefCell::new(ObjData::Array(items))))
    }

    pub(crate) fn same(&self, other: &Obj) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    pub(crate) fn is_array(&self) -> bool {
        matches!(&*self.0.borrow(), ObjData::Array(_))
    }

    /// `obj[key] = value` on an ordinary object (arrays: indices only,
    /// which is all scenarios make).
    pub(crate) fn set(&self, key: &str, value: Val) {
        match &mut *self.0.borrow_mut() {
            ObjData::Plain(pairs) => {
                if let Some(slot) = pairs.iter_mut().find(|(k, _)| k == key) {
                    slot.1 = value;
                    return;
                }
                // array indices come first, ascending; the rest in insertion order
                let at = match index_of(key) {
                    Some(n) => pairs
                        .iter()
                        .position(|(k, _)| index_of(k).is_none_or(|m| m > n))
                        .unwrap_or(pairs.len()),
                    None => pairs.len(),
                };
                pairs.insert(at, (key.to_owned(), value));
            }
            ObjData::Array(items) => {
                if let Some(n) = index_of(key).and_then(|n| usize::try_from(n).ok()) {
                    if n >= items.len() {
                        items.resize(n + 1, Val::Undefined);
                    }
                    if let Some(slot) = items.get_mut(n) {
                        *slot = value;
                    }
                }
            }
        }
    }

    /// `obj[key]` (own properties; an array's indices and `length`).
    pub(crate) fn get(&self, key: &str) -> Val {
        match &*self.0.borrow() {
            ObjData::Plain(pairs) => pairs
                .iter()
                .find(|(k, _)| k == key)
                .map_or(Val::Undefined, |(_, v)| v.clone()),
            ObjData::Array(items) => {
                if key == "length" {
                    return Val::Num(items.len() as f64);
                }
                index_of(key)
                    .and_then(|n| usize::try_from(n).ok())
                    .and_then(|n| items.get(n).cloned())
                    .unwrap_or(Val::Undefined)
            }
        }
    }

    /// `Object.keys(obj)`.
    pub(crate) fn keys(&self) -> Vec<String> {
        match &*self.0.borrow() {
            ObjData::Plain(pairs) => pairs.iter().map(|(k, _)| k.clone()).collect(),
            ObjData::Array(items) => (0..items.len()).map(|i| i.to_string()).collect(),
        }
    }

    /// The own entries, in order (arrays: index keys).
    pub(crate) fn entries(&self) -> Vec<(String, Val)> {
        match &*self.0.borrow() {
            ObjData::Plain(pairs) => pairs.clone(),
            ObjData::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v.clone()))
                .collect(),
        }
    }

    fn items(&self) -> Option<Vec<Val>> {
        match &*self.0.borrow() {
            ObjData::Array(items) => Some(items.clone()),
            ObjData::Plain(_) => None,
        }
    }
}

fn index_of(key: &str) -> Option<u64> {
    js::is_array_index(key)
        .then(|| key.parse::<u64>().ok())
        .flatten()
}

impl Val {
    pub(crate) fn str(s: impl Into<String>) -> Val {
        Val::Str(s.into())
    }

    pub(crate) fn object(pairs: Vec<(&str, Val)>) -> Val {
        Val::Obj(Obj::plain(
            pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        ))
    }

    pub(crate) fn array(items: Vec<Val>) -> Val {
        Val::Obj(Obj::array(items))
    }

    pub(crate) fn is_undefined(&self) -> bool {
        matches!(self, Val::Undefined)
    }

    pub(crate) fn is_nullish(&self) -> bool {
        matches!(self, Val::Undefined | Val::Null)
    }

    pub(crate) fn as_obj(&self) -> Option<&Obj> {
        match self {
            Val::Obj(o) => Some(o),
            _ => None,
        }
    }

    /// `value[key]`: V8's TypeError on `undefined` and `null`.
    pub(crate) fn get(&self, key: &str) -> Completion<Val> {
        match self {
            Val::Undefined | Val::Null => Err(Thrown::type_error(format!(
                "Cannot read properties of {} (reading '{key}')",
                self.to_js_string()
            ))),
            Val::Obj(o) => Ok(o.get(key)),
            Val::Str(s) if key == "length" => Ok(Val::Num(s.encode_utf16().count() as f64)),
            _ => Ok(Val::Undefined),
        }
    }

    /// `value?.[key]`.
    pub(crate) fn get_opt(&self, key: &str) -> Val {
        self.get(key).unwrap_or(Val::Undefined)
    }

    /// `a ?? b`.
    pub(crate) fn or_else(self, other: Val) -> Val {
        if self.is_nullish() {
            other
        } else {
            self
        }
    }

    /// JavaScript truthiness.
    pub(crate) fn truthy(&self) -> bool {
        match self {
            Val::Undefined | Val::Null => false,
            Val::Bool(b) => *b,
            Val::Num(n) => *n != 0.0 && !n.is_nan(),
            Val::Str(s) => !s.is_empty(),
            Val::Obj(_) => true,
        }
    }

    /// `v === true`.
    pub(crate) fn is_true(&self) -> bool {
        matches!(self, Val::Bool(true))
    }

    /// `a === b`.
    pub(crate) fn strict_eq(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Undefined, Val::Undefined) | (Val::Null, Val::Null) => true,
            (Val::Bool(a), Val::Bool(b)) => a == b,
            (Val::Num(a), Val::Num(b)) => a == b,
            (Val::Str(a), Val::Str(b)) => a == b,
            (Val::Obj(a), Val::Obj(b)) => a.same(b),
            _ => false,
        }
    }

    /// `String(value)`.
    pub(crate) fn to_js_string(&self) -> String {
        let mut seen = Vec::new();
        self.string_of(&mut seen)
    }

    fn string_of(&self, seen: &mut Vec<Obj>) -> String {
        match self {
            Val::Undefined => "undefined".to_owned(),
            Val::Null => "null".to_owned(),
            Val::Bool(b) => b.to_string(),
            Val::Num(n) => js::number_to_string(*n),
            Val::Str(s) => s.clone(),
            Val::Obj(o) => match o.items() {
                None => "[object Object]".to_owned(),
                Some(items) => {
                    // Array.prototype.join: a cycle joins as "", holes and nullish as ""
                    if seen.iter().any(|s| s.same(o)) {
                        return String::new();
                    }
                    seen.push(o.clone());
                    let parts: Vec<String> = items
                        .iter()
                        .map(|v| {
                            if v.is_nullish() {
                                String::new()
                            } else {
                                v.string_of(seen)
                            }
                        })
                        .collect();
                    seen.pop();
                    parts.join(",")
                }
            },
        }
    }
}

/// A scenario value `V` as the harness's `materialize` builds it;
/// `{"$":"args"}` is `args`, the argument object the running function
/// received. An error is the message the harness throws.
pub(crate) fn materialize(spec: &Json, args: Option<&Val>) -> Result<Val, String> {
    Ok(match spec {
        Json::Null => Val::Null,
        Json::Bool(b) => Val::Bool(*b),
        Json::Number(n) => Val::Num(js::as_f64(n)),
        Json::String(s) => Val::Str(s.clone()),
        Json::Array(items) => Val::array(
            items
                .iter()
                .map(|s| materialize(s, args))
                .collect::<Result<_, _>>()?,
        ),
        Json::Object(map) => match map.get("$") {
            Some(Json::String(family)) => match family.as_str() {
                "undefined" => Val::Undefined,
                "literal" => from_json(map.get("value").unwrap_or(&Json::Null)),
                "args" => args.cloned().ok_or_else(|| {
                    "{\"$\":\"args\"} used where no arguments were received".to_owned()
                })?,
                other => return Err(format!("unknown value family {other:?}")),
            },
            Some(other) => return Err(format!("unknown value family {other}")),
            None => {
                let mut pairs = Vec::with_capacity(map.len());
                for (k, v) in map {
                    pairs.push((k.clone(), materialize(v, args)?));
                }
                Val::Obj(Obj::plain(pairs))
            }
        },
    })
}

/// JSON as `JSON.parse` makes it (fresh objects, JavaScript key order).
pub(crate) fn from_json(json: &Json) -> Val {
    match json {
        Json::Null => Val::Null,
        Json::Bool(b) => Val::Bool(*b),
        Json::Number(n) => Val::Num(js::as_f64(n)),
        Json::String(s) => Val::Str(s.clone()),
        Json::Array(items) => Val::array(items.iter().map(from_json).collect()),
        Json::Object(map) => Val::Obj(Obj::plain(
            map.iter().map(|(k, v)| (k.clone(), from_json(v))).collect(),
        )),
    }
}

fn number(n: f64) -> Json {
    if n == 0.0 && n.is_sign_negative() {
        return family("number", "-0");
    }
    js::make_number(n).unwrap_or_else(|| family("number", &js::number_to_string(n)))
}

fn family(name: &str, value: &str) -> Json {
    let mut m = Map::new();
    m.insert("$".to_owned(), Json::String(name.to_owned()));
    m.insert("value".to_owned(), Json::String(value.to_owned()));
    Json::Object(m)
}

fn marker(name: &str) -> Json {
    let mut m = Map::new();
    m.insert("$".to_owned(), Json::String(name.to_owned()));
    Json::Object(m)
}

/// What the harness records of a value (FORMAT.md, "Encoded values").
pub(crate) fn encode(value: &Val) -> Json {
    encode_in(value, &mut Vec::new())
}

fn encode_in(value: &Val, seen: &mut Vec<Obj>) -> Json {
    match value {
        Val::Undefined => marker("undefined"),
        Val::Null => Json::Null,
        Val::Bool(b) => Json::Bool(*b),
        Val::Num(n) => number(*n),
        Val::Str(s) => Json::String(s.clone()),
        Val::Obj(o) => {
            if seen.iter().any(|s| s.same(o)) {
                return marker("cycle");
            }
            seen.push(o.clone());
            let out = match o.items() {
                Some(items) => Json::Array(items.iter().map(|v| encode_in(v, seen)).collect()),
                None => {
                    let mut map = Map::new();
                    for (k, v) in o.entries() {
                        map.insert(k, encode_in(&v, seen));
                    }
                    if map.contains_key("$") {
                        let mut wrap = Map::new();
                        wrap.insert("$".to_owned(), Json::String("object".to_owned()));
                        wrap.insert("value".to_owned(), Json::Object(map));
                        Json::Object(wrap)
                    } else {
                        Json::Object(map)
                    }
                }
            };
            seen.pop();
            out
        }
    }
}

/// The value as `JSON.stringify` sees it, as JSON (`None`: it writes
/// nothing, for `undefined`); a cycle is the TypeError V8 throws, which
/// the reference does not model.
pub(crate) fn to_json(value: &Val) -> Result<Option<Json>, Error> {
    to_json_in(value, &mut Vec::new())
}

fn to_json_in(value: &Val, seen: &mut Vec<Obj>) -> Result<Option<Json>, Error> {
    Ok(Some(match value {
        Val::Undefined => return Ok(None),
        Val::Null => Json::Null,
        Val::Bool(b) => Json::Bool(*b),
        Val::Num(n) => {
            if n.is_finite() {
                js::make_number(*n).unwrap_or(Json::Null)
            } else {
                Json::Null
            }
        }
        Val::Str(s) => Json::String(s.clone()),
        Val::Obj(o) => {
            if seen.iter().any(|s| s.same(o)) {
                return Err(Error::model(
                    "JSON.stringify of a cyclic value (V8's TypeError is not modelled)",
                ));
            }
            seen.push(o.clone());
            let out = match o.items() {
                Some(items) => {
                    let mut out = Vec::with_capacity(items.len());
                    for v in &items {
                        out.push(to_json_in(v, seen)?.unwrap_or(Json::Null));
                    }
                    Json::Array(out)
                }
                None => {
                    let mut map = Map::new();
                    for (k, v) in o.entries() {
                        if let Some(j) = to_json_in(&v, seen)? {
                            map.insert(k, j);
                        }
                    }
                    Json::Object(map)
                }
            };
            seen.pop();
            out
        }
    }))
}

/// `JSON.stringify(value)` of an object or array.
pub(crate) fn stringify(value: &Val) -> Result<String, Error> {
    Ok(to_json(value)?.map_or_else(|| "undefined".to_owned(), |j| js::stringify(&j)))
}

/// FORMAT.md's mask: a shallow copy with a numeric `timestamp` and
/// `durationMs` replaced by `"<timestamp>"` and `"<durationMs>"`.
pub(crate) fn masked(value: &Val) -> Val {
    match value {
        Val::Obj(o) if !o.is_array() => Val::Obj(Obj::plain(
            o.entries()
                .into_iter()
                .map(|(k, v)| {
                    let v = match (k.as_str(), &v) {
                        ("timestamp", Val::Num(_)) => Val::str("<timestamp>"),
                        ("durationMs", Val::Num(_)) => Val::str("<durationMs>"),
                        _ => v,
                    };
                    (k, v)
                })
                .collect(),
        )),
        other => other.clone(),
    }
}

/// Whether `undefined` is anywhere inside (a key's value or an item),
/// which `structuredClone` keeps and JSON cannot say.
pub(crate) fn holds_undefined(value: &Val) -> bool {
    fn walk(value: &Val, seen: &mut Vec<Obj>) -> bool {
        match value {
            Val::Undefined => true,
            Val::Obj(o) => {
                if seen.iter().any(|s| s.same(o)) {
                    return false;
                }
                seen.push(o.clone());
                let found = o.entries().iter().any(|(_, v)| walk(v, seen));
                seen.pop();
                found
            }
            _ => false,
        }
    }
    walk(value, &mut Vec::new())
}
