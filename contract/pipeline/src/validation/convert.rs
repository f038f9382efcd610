//! TypeBox 1.3.7's `Value.Convert` over the subset: the per-kind `Try*`
//! conversions, dispatched on each node's `~kind`.
//!
//! JavaScript converts objects in place and builds new arrays; pi throws
//! the root's return value away. [`convert`] is the conversion as a parent
//! sees it (`value[key] = FromType(...)`), [`convert_root`] keeps only what
//! lands in the caller's object.

use super::check::check;
use super::js::{as_f64, deep_clone, make_number, number_to_string, strict_eq, string_to_number};
use super::schema::{Kind, Node, Schema};
use serde_json::{Map, Value};

/// The largest integer a double holds exactly (`Number.MAX_SAFE_INTEGER`).
const MAX_SAFE: i128 = 9_007_199_254_740_991;

/// `FromType(context, schema, value)`, its result.
pub(crate) fn convert(schema: &Schema, value: Value) -> Value {
    let Schema::Node(node) = schema else {
        return value;
    };
    let Some(kind) = node.kind else {
        // no `~kind`: `FromType` falls through, the value is unchanged
        return value;
    };
    match kind {
        Kind::Array => {
            let items = match value {
                Value::Array(items) => items,
                // `TryArray` wraps anything else
                other => vec![other],
            };
            Value::Array(
                items
                    .into_iter()
                    .map(|v| match &node.items {
                        Some(s) => convert(s, v),
                        None => v,
                    })
                    .collect(),
            )
        }
        Kind::Boolean => try_boolean(&value).unwrap_or(value),
        Kind::Integer => try_number(&value)
            .and_then(|n| make_number(n.trunc()))
            .unwrap_or(value),
        Kind::Number => try_number(&value).and_then(make_number).unwrap_or(value),
        Kind::Null => try_null(&value).unwrap_or(value),
        Kind::String => try_string(&value).unwrap_or(value),
        Kind::Literal => match &node.constant {
            Some(c) => convert_literal(c, value),
            None => value,
        },
        Kind::Object => match value {
            Value::Object(map) => Value::Object(convert_object(node, map)),
            other => other,
        },
        Kind::Union => convert_union(schema, node.any_of.as_deref().unwrap_or(&[]), value),
        Kind::Enum => convert_enum(node.enumeration.as_deref().unwrap_or(&[]), value),
        Kind::Any | Kind::Unknown => value,
    }
}

/// `Value.Convert` at the root, whose result pi discards: an object is
/// converted in place; an array's items (or a wrapped non-array) keep only
/// their own in-place changes; nothing else changes.
pub(crate) fn convert_root(schema: &Schema, value: &mut Value) {
    let Schema::Node(node) = schema else {
        return;
    };
    match node.kind {
        Some(Kind::Object) => {
            if let Value::Object(map) = value {
                let taken = std::mem::take(map);
                *map = convert_object(node, taken);
            }
        }
        Some(Kind::Array) => {
            if let Some(items_schema) = &node.items {
                match value {
                    Value::Array(items) => {
                        items.iter_mut().for_each(|v| convert_root(items_schema, v))
                    }
                    // `[value].map(...)`: the wrapped value itself is converted
                    other => convert_root(items_schema, other),
                }
            }
        }
        _ => {}
    }
}

fn convert_object(node: &Node, mut map: Map<String, Value>) -> Map<String, Value> {
    let props = node.properties.as_deref().unwrap_or(&[]);
    for (name, sub) in props {
        if let Some(slot) = map.get_mut(name) {
            *slot = convert(sub, std::mem::take(slot));
        }
    }
    if let Some(additional @ Schema::Node(_)) = &node.additional {
        // TypeBox 1.3.7 converts, once per declared property, every key
        // that is not that property: undeclared keys once per declared
        // one, declared keys too (with two or more), none without any
        let keys: Vec<String> = map.keys().cloned().collect();
        for (name, _) in props {
            for key in keys.iter().filter(|k| *k != name) {
                if let Some(slot) = map.get_mut(key) {
                    *slot = convert(additional, std::mem::take(slot));
                }
            }
        }
    }
    map
}

fn convert_union(union: &Schema, members: &[Schema], value: Value) -> Value {
    if members.iter().any(|m| check(m, &value, false)) {
        return value;
    }
    // every member converts its own clone; the first candidate the whole
    // union accepts wins
    members
        .iter()
        .map(|m| convert(m, deep_clone(&value)))
        .find(|candidate| check(union, candidate, false))
        .unwrap_or(value)
}

/// `Enum` converts as the union of its literals (`Evaluate`).
fn convert_enum(options: &[Value], value: Value) -> Value {
    if options.iter().any(|o| strict_eq(&value, o)) {
        return value;
    }
    options
        .iter()
        .map(|o| convert_literal(o, deep_clone(&value)))
        .find(|candidate| options.iter().any(|o| strict_eq(candidate, o)))
        .unwrap_or(value)
}

/// `FromLiteral`: converted by the constant's kind, kept only if equal.
fn convert_literal(constant: &Value, value: Value) -> Value {
    if strict_eq(constant, &value) {
        return value;
    }
    let converted = match constant {
        Value::Bool(_) => try_boolean(&value),
        Value::Number(_) => try_number(&value).and_then(make_number),
        Value::String(_) => try_string(&value),
        _ => None,
    };
    match converted {
        Some(c) if strict_eq(constant, &c) => c,
        _ => value,
    }
}

/// `TryString`.
fn try_string(value: &Value) -> Option<Value> {
    Some(Value::String(match value {
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_to_string(as_f64(n)),
        Value::Null => "null".to_owned(),
        Value::String(s) => s.clone(),
        _ => return None,
    }))
}

/// `TryBoolean`.
fn try_boolean(value: &Value) -> Option<Value> {
    let b = match value {
        Value::Bool(b) => *b,
        Value::Number(n) => {
            let n = as_f64(n);
            if n == 0.0 {
                false
            } else if n == 1.0 {
                true
            } else {
                return None;
            }
        }
        Value::Null => false,
        Value::String(s) => match (s.to_lowercase().as_str(), s.as_str()) {
            ("false", _) | (_, "0") => false,
            ("true", _) | (_, "1") => true,
            _ => return None,
        },
        _ => return None,
    };
    Some(Value::Bool(b))
}

/// `TryNull`.
fn try_null(value: &Value) -> Option<Value> {
    let ok = match value {
        Value::Bool(b) => !*b,
        Value::Number(n) => as_f64(n) == 0.0,
        Value::Null => true,
        Value::String(s) => {
            let lower = s.to_lowercase();
            lower == "undefined" || lower == "null" || s.is_empty() || s == "0"
        }
        _ => false,
    };
    ok.then_some(Value::Null)
}

/// `TryNumber`, as a double (always finite when `Some`).
fn try_number(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::Number(n) => Some(as_f64(n)),
        Value::Null => Some(0.0),
        Value::String(s) => number_from_string(s),
        _ => None,
    }
}

fn number_from_string(s: &str) -> Option<f64> {
    let n = string_to_number(s);
    if n.is_finite() {
        return Some(n);
    }
    match s.to_lowercase().as_str() {
        "false" => return Some(0.0),
        "true" => return Some(1.0),
        _ => {}
    }
    // `TryBigInt`: only the `123n` form is left (decimal and integer texts
    // were numbers above), kept within the safe integers
    let digits = s.strip_suffix('n')?;
    let (negative, magnitude) = match digits.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, digits),
    };
    let well_formed = magnitude == "0"
        || (magnitude.starts_with(|c: char| ('1'..='9').contains(&c))
            && magnitude.bytes().all(|b| b.is_ascii_digit()));
    if !well_formed || magnitude.len() > 17 {
        return None;
    }
    let n: i128 = magnitude.parse().ok()?;
    if n > MAX_SAFE {
        return None;
    }
    // `Number(-0n)` is 0
    let n = if negative { -n } else { n };
    Some(n as f64)
}
