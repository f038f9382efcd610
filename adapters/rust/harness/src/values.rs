//! A case's values in Rust: plain JSON as `serde_json::Value`, and the
//! hostile families (an object with a `"$"` key,
//! `corpus/schema/boundary-scenario.schema.json`) as what is hostile to a
//! Rust runtime. A 10^5-deep `Value` overflows the stack of whatever
//! serializes, clones or drops it recursively (serde_json does all three);
//! a cyclic value is one whose `Serialize` never ends; a function, a
//! throwing getter and a throwing `toJSON` are values whose `Serialize`
//! fails (at once, or after a first field); NaN, a BigInt, a set and
//! bytes are merely odd (serde_json writes `null`, digits, an array).
//! `adapters/node/boundary/behaviours.mjs` and
//! `adapters/python/src/toolgate_adapter/values.py` build the same cases.

use serde::ser::{Error as _, SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// What a tool body returns: a JSON tree whose leaves may be hostile.
/// `Serialize` writes it as serde would write the Rust value it stands for.
#[derive(Debug, Clone)]
pub enum ToolValue {
    /// Plain JSON (a 10^5-deep or 999,000-key family is one of these).
    Json(Value),
    /// An object whose entries may hold families.
    Object(Vec<(String, ToolValue)>),
    Array(Vec<ToolValue>),
    /// `{"name": "loop", "self": <itself>}`: serializing it never ends.
    Cyclic,
    /// JavaScript's `undefined`: Rust's `()`.
    Undefined,
    /// An integer past 64 bits, in decimal (serialized as an `i128`).
    BigInt(String),
    /// A value whose `Serialize` fails at once (a closure has none).
    Function,
    /// `{"ok": true, "broken": <fails>}`: serializing fails after a field.
    ThrowingGetter(String),
    /// A value whose `Serialize` fails with the message.
    ThrowingToJson(String),
    /// NaN or an infinity (serde_json writes `null`).
    Number(f64),
    /// A set of scalars (a sequence).
    Set(Vec<Value>),
    /// A byte buffer (`serialize_bytes`; serde_json writes numbers).
    Bytes(Vec<u8>),
}

impl Serialize for ToolValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolValue::Json(value) => value.serialize(serializer),
            ToolValue::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            ToolValue::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            ToolValue::Cyclic => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("name", "loop")?;
                map.serialize_entry("self", &ToolValue::Cyclic)?;
                map.end()
            }
            ToolValue::Undefined => serializer.serialize_unit(),
            ToolValue::BigInt(digits) => match digits.parse::<i128>() {
                Ok(n) => serializer.serialize_i128(n),
                Err(_) => Err(S::Error::custom(format!(
                    "the integer {digits} does not fit in an i128"
                ))),
            },
            ToolValue::Function => Err(S::Error::custom("a function cannot be serialized")),
            ToolValue::ThrowingGetter(message) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("ok", &true)?;
                map.serialize_key("broken")?;
                map.serialize_value(&Failing(message))?;
                map.end()
            }
            ToolValue::ThrowingToJson(message) => Failing(message).serialize(serializer),
            ToolValue::Number(n) => serializer.serialize_f64(*n),
            ToolValue::Set(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            ToolValue::Bytes(bytes) => serializer.serialize_bytes(bytes),
        }
    }
}

impl ToolValue {
    /// The start of the value's JSON text, at most about `chars`
    /// characters, written without recursion into its JSON parts and with
    /// a cycle or a failing leaf described (for messages: it never fails).
    pub fn preview(&self, chars: usize) -> String {
        enum Piece<'a> {
            Value(&'a ToolValue),
            Text(String),
        }
        let mut out = String::new();
        let mut stack = vec![Piece::Value(self)];
        while let Some(piece) = stack.pop() {
            if out.len() > chars {
                out.push('…');
                break;
            }
            let value = match piece {
                Piece::Text(text) => {
                    out.push_str(&text);
                    continue;
                }
                Piece::Value(value) => value,
            };
            match value {
                ToolValue::Json(json) => {
                    let text = crate::encode::json_text(json);
                    let mut end = text.len().min(chars + 1);
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    out.push_str(&text[..end]);
                }
                ToolValue::Object(entries) => {
                    out.push('{');
                    stack.push(Piece::Text("}".into()));
                    for (at, (key, item)) in entries.iter().enumerate().rev() {
                        stack.push(Piece::Value(item));
                        let comma = if at > 0 { "," } else { "" };
                        stack.push(Piece::Text(format!(
                            "{comma}{}:",
                            Value::from(key.as_str())
                        )));
                    }
                }
                ToolValue::Array(items) => {
                    out.push('[');
                    stack.push(Piece::Text("]".into()));
                    for (at, item) in items.iter().enumerate().rev() {
                        stack.push(Piece::Value(item));
                        if at > 0 {
                            stack.push(Piece::Text(",".into()));
                        }
                    }
                }
                ToolValue::Cyclic => out.push_str(r#"{"name":"loop","self":[cyclic]}"#),
                ToolValue::Undefined => out.push_str("undefined"),
                ToolValue::BigInt(digits) => out.push_str(digits),
                ToolValue::Function => out.push_str("[function]"),
                ToolValue::ThrowingGetter(_) => out.push_str(r#"{"ok":true,"broken":[throws]}"#),
                ToolValue::ThrowingToJson(_) => out.push_str("[throwing toJSON]"),
                ToolValue::Number(n) => out.push_str(&n.to_string()),
                ToolValue::Set(items) => {
                    out.push_str(&format!("Set({})", Value::from(items.clone())))
                }
                ToolValue::Bytes(bytes) => out.push_str(&format!("[{} bytes]", bytes.len())),
            }
        }
        out
    }

    /// Drops the value without recursion, whatever its depth (its own
    /// drop, like serde_json's, recurses).
    pub fn dismantle(self) {
        let mut stack = vec![self];
        while let Some(value) = stack.pop() {
            match value {
                ToolValue::Json(json) => dismantle(json),
                ToolValue::Object(entries) => stack.extend(entries.into_iter().map(|(_, v)| v)),
                ToolValue::Array(items) => stack.extend(items),
                _ => {}
            }
        }
    }
}

/// A value whose serialization fails with its message.
struct Failing<'a>(&'a str);

impl Serialize for Failing<'_> {
    fn serialize<S: Serializer>(&self, _serializer: S) -> Result<S::Ok, S::Error> {
        Err(S::Error::custom(self.0))
    }
}

/// A call's arguments: JSON that may be 10^5 deep, taken apart without
/// recursion when dropped (serde_json's own drop would recurse).
#[derive(Debug, Default)]
pub struct Arguments(Option<Value>);

impl Arguments {
    pub fn new(value: Value) -> Arguments {
        Arguments(Some(value))
    }

    /// The arguments (`null` once taken).
    pub fn value(&self) -> &Value {
        self.0.as_ref().unwrap_or(&Value::Null)
    }

    /// The arguments as the JSON text a provider sends (compact, non-ASCII
    /// kept: `JSON.stringify`'s text), written without recursion.
    pub fn text(&self) -> String {
        crate::encode::json_text(self.value())
    }

    /// Takes the value: from now on, dropping it is the taker's concern.
    pub fn take(&mut self) -> Value {
        self.0.take().unwrap_or(Value::Null)
    }
}

impl Drop for Arguments {
    fn drop(&mut self) {
        if let Some(value) = self.0.take() {
            dismantle(value);
        }
    }
}

/// Drops `value` without recursion, whatever its depth.
pub fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// A case's value as Rust builds it.
pub fn materialize(spec: &Value) -> Result<ToolValue, String> {
    if !holds_family(spec) {
        return Ok(ToolValue::Json(spec.clone()));
    }
    match spec {
        Value::Array(items) => Ok(ToolValue::Array(
            items.iter().map(materialize).collect::<Result<_, _>>()?,
        )),
        Value::Object(map) if !map.contains_key("$") => Ok(ToolValue::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), materialize(v)?)))
                .collect::<Result<_, String>>()?,
        )),
        Value::Object(map) => family(map),
        scalar => Ok(ToolValue::Json(scalar.clone())),
    }
}

/// A case's value that JSON can hold (a call's arguments: the model
/// produces JSON), or why it is not one.
pub fn materialize_json(spec: &Value) -> Result<Value, String> {
    match materialize(spec)? {
        ToolValue::Json(value) => Ok(value),
        other => to_json(other),
    }
}

fn to_json(value: ToolValue) -> Result<Value, String> {
    match value {
        ToolValue::Json(value) => Ok(value),
        ToolValue::Array(items) => Ok(Value::Array(
            items.into_iter().map(to_json).collect::<Result<_, _>>()?,
        )),
        ToolValue::Object(entries) => Ok(Value::Object(
            entries
                .into_iter()
                .map(|(k, v)| Ok((k, to_json(v)?)))
                .collect::<Result<_, String>>()?,
        )),
        other => Err(format!("{other:?} is not JSON a model could send")),
    }
}

/// Whether `spec` holds a family anywhere (iteratively: specs are small,
/// but a literal may not be).
fn holds_family(spec: &Value) -> bool {
    let mut stack = vec![spec];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => {
                if map.contains_key("$") {
                    return true;
                }
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    false
}

fn size(map: &Map<String, Value>, field: &str) -> Result<usize, String> {
    map.get(field)
        .and_then(Value::as_u64)
        .map(|n| n as usize)
        .ok_or_else(|| format!("the family needs a size `{field}`"))
}

fn text(map: &Map<String, Value>, field: &str) -> String {
    map.get(field)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn family(map: &Map<String, Value>) -> Result<ToolValue, String> {
    let name = map.get("$").and_then(Value::as_str).unwrap_or_default();
    Ok(match name {
        "literal" => ToolValue::Json(map.get("value").cloned().unwrap_or(Value::Null)),
        "cyclic" => ToolValue::Cyclic,
        "deep" => {
            // built bottom-up: no recursion, whatever the depth
            let mut node = Value::Object(Map::from_iter([("leaf".into(), Value::Bool(true))]));
            for _ in 0..size(map, "depth")? {
                node = Value::Object(Map::from_iter([("next".into(), node)]));
            }
            ToolValue::Json(node)
        }
        "wide" => ToolValue::Json(Value::Object(
            (0..size(map, "keys")?)
                .map(|i| (format!("k{i}"), Value::from(i)))
                .collect(),
        )),
        "longString" => ToolValue::Json(Value::String("x".repeat(size(map, "length")?))),
        "bigint" => ToolValue::BigInt(text(map, "value")),
        "undefined" => ToolValue::Undefined,
        "function" => ToolValue::Function,
        "throwingGetter" => ToolValue::ThrowingGetter(text(map, "message")),
        "throwingToJSON" => ToolValue::ThrowingToJson(text(map, "message")),
        "number" => ToolValue::Number(match map.get("value").and_then(Value::as_str) {
            Some("NaN") => f64::NAN,
            Some("Infinity") => f64::INFINITY,
            Some("-Infinity") => f64::NEG_INFINITY,
            Some("-0") => -0.0,
            other => return Err(format!("unknown number {other:?}")),
        }),
        "set" => ToolValue::Set(match map.get("items") {
            Some(Value::Array(items)) => items.clone(),
            _ => Vec::new(),
        }),
        // `fill` 128-255 makes bytes that are not UTF-8
        "bytes" => ToolValue::Bytes(vec![
            match map.get("fill") {
                None => 0,
                Some(fill) => fill
                    .as_u64()
                    .and_then(|b| u8::try_from(b).ok())
                    .ok_or_else(|| format!("`fill` {fill} is not a byte"))?,
            };
            size(map, "length")?
        ]),
        other => return Err(format!("unknown value family {other:?}")),
    })
}

/// How a case's thrown value `E` fails a Rust tool: `{"error": m}` is an
/// ordinary `Err(ToolError)`; `{"string": s}` and `{"value": J}`, which
/// JavaScript throws outside its `Error` type, are a panic (Rust's failure
/// outside the typed error channel) whose payload is the `String`, or a
/// [`ThrownValue`] holding the value (built from `J`, kept here as its spec).
#[derive(Debug, Clone)]
pub enum Thrown {
    Error(String),
    PanicText(String),
    PanicValue(Value),
}

impl Thrown {
    pub fn from_spec(spec: &Value) -> Result<Thrown, String> {
        if let Some(message) = spec.get("error") {
            return Ok(Thrown::Error(message.as_str().unwrap_or_default().into()));
        }
        if let Some(text) = spec.get("string") {
            return Ok(Thrown::PanicText(text.as_str().unwrap_or_default().into()));
        }
        if let Some(value) = spec.get("value") {
            // built once to find a bad spec now, and taken apart
            materialize(value)?.dismantle();
            return Ok(Thrown::PanicValue(value.clone()));
        }
        Err(format!("unknown thrown value {spec}"))
    }
}

/// The payload of a panic carrying a case's value: what Rust has nearest to
/// JavaScript's `throw {...}`. Its drop takes the value apart without
/// recursion: a runtime that catches the panic and drops the payload is
/// not punished for a 10^5-deep value it cannot even read.
#[derive(Debug)]
pub struct ThrownValue(Option<ToolValue>);

impl ThrownValue {
    pub fn new(value: ToolValue) -> ThrownValue {
        ThrownValue(Some(value))
    }

    pub fn value(&self) -> &ToolValue {
        self.0.as_ref().unwrap_or(&ToolValue::Undefined)
    }
}

impl Drop for ThrownValue {
    fn drop(&mut self) {
        if let Some(value) = self.0.take() {
            value.dismantle();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(spec: Value, serialized: Result<&str, &str>) {
        let value = materialize(&spec).unwrap();
        let got = serde_json::to_string(&value).map_err(|e| e.to_string());
        assert_eq!(got.as_deref().map_err(|e| e.as_ref()), serialized, "{spec}");
    }

    #[test]
    fn each_family_serializes_as_serde_writes_the_rust_value() {
        check(json!({"a": [1, "x"]}), Ok(r#"{"a":[1,"x"]}"#));
        check(
            json!({"$": "deep", "depth": 2}),
            Ok(r#"{"next":{"next":{"leaf":true}}}"#),
        );
        check(json!({"$": "wide", "keys": 2}), Ok(r#"{"k0":0,"k1":1}"#));
        check(json!({"$": "longString", "length": 3}), Ok(r#""xxx""#));
        check(json!({"$": "bigint", "value": "12"}), Ok("12"));
        check(json!({"$": "undefined"}), Ok("null"));
        check(
            json!({"$": "function"}),
            Err("a function cannot be serialized"),
        );
        check(json!({"$": "throwingGetter", "message": "no"}), Err("no"));
        check(
            json!({"$": "throwingToJSON", "message": "nope"}),
            Err("nope"),
        );
        check(json!({"$": "number", "value": "NaN"}), Ok("null"));
        check(json!({"$": "set", "items": [1, 2]}), Ok("[1,2]"));
        check(json!({"$": "bytes", "length": 2}), Ok("[0,0]"));
        check(
            json!({"$": "bytes", "length": 2, "fill": 255}),
            Ok("[255,255]"),
        );
        check(json!({"$": "literal", "value": {"$": 1}}), Ok(r#"{"$":1}"#));
        check(
            json!({"n": {"$": "number", "value": "Infinity"}, "k": [true]}),
            Ok(r#"{"n":null,"k":[true]}"#),
        );
    }

    #[test]
    fn a_deep_value_is_written_and_dropped_without_recursion() {
        let Ok(ToolValue::Json(deep)) = materialize(&json!({"$": "deep", "depth": 200_000})) else {
            panic!("deep is JSON");
        };
        assert_eq!(crate::encode::json_text(&deep).len(), 200_000 * 9 + 13);
        drop(Arguments::new(deep));
        let wide = materialize_json(&json!([{"a": {"$": "wide", "keys": 3}}, "z"])).unwrap();
        assert_eq!(wide, json!([{"a": {"k0": 0, "k1": 1, "k2": 2}}, "z"]));
        assert!(materialize_json(&json!({"$": "cyclic"})).is_err());
    }
}
