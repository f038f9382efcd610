//! pi-ai 0.85.0's own `coerceWithJsonSchema`: the conversion a schema gets
//! from its plain JSON keywords (`type`, `properties`,
//! `additionalProperties`, `items`, `anyOf`). pi runs it on every schema
//! without the `Symbol.for("TypeBox.Kind")` symbol, which TypeBox 1.x
//! schemas do not carry either, so it runs after `Value.Convert` too.

use super::check::{check, type_matches};
use super::js::{
    as_f64, deep_clone, is_integer, make_number, number_to_string, string_to_number, trim,
};
use super::schema::{JsonType, Node, Schema};
use serde_json::Value;

/// `coerceWithJsonSchema(value, schema)`, its result. Objects and arrays
/// are changed in place in JavaScript; here the returned value carries
/// the same changes.
pub(crate) fn coerce(value: Value, schema: &Schema) -> Value {
    let Schema::Node(node) = schema else {
        // `getSchemaTypes(true)` is empty and there is nothing to walk
        return value;
    };
    let mut next = value;
    if let Some(members) = &node.any_of {
        next = coerce_union(next, members);
    }
    let types = node.types.as_ref().map(|t| t.list()).unwrap_or_default();
    let matches_member = types.len() > 1 && types.iter().any(|t| type_matches(*t, &next));
    if !types.is_empty() && !matches_member {
        // the first type whose coercion changes the value wins
        if let Some(changed) = types.iter().find_map(|t| coerce_primitive(&next, *t)) {
            next = changed;
        }
    }
    match &mut next {
        Value::Object(map) if types.contains(&JsonType::Object) => {
            coerce_object(node, map);
        }
        Value::Array(items) if types.contains(&JsonType::Array) => {
            if let Some(s) = &node.items {
                for slot in items.iter_mut() {
                    *slot = coerce(std::mem::take(slot), s);
                }
            }
        }
        _ => {}
    }
    next
}

fn coerce_object(node: &Node, map: &mut serde_json::Map<String, Value>) {
    let props = node.properties.as_deref().unwrap_or(&[]);
    for (name, sub) in props {
        if let Some(slot) = map.get_mut(name) {
            *slot = coerce(std::mem::take(slot), sub);
        }
    }
    if let Some(additional @ Schema::Node(_)) = &node.additional {
        for (key, slot) in map.iter_mut() {
            if !props.iter().any(|(n, _)| n == key) {
                *slot = coerce(std::mem::take(slot), additional);
            }
        }
    }
}

/// `coerceWithUnionSchema`: a member that already accepts the value keeps
/// it; else the first member whose coercion of a clone it accepts.
fn coerce_union(value: Value, members: &[Schema]) -> Value {
    if members.iter().any(|m| check(m, &value, true)) {
        return value;
    }
    for m in members {
        let candidate = coerce(deep_clone(&value), m);
        if check(m, &candidate, true) {
            return candidate;
        }
    }
    value
}

/// `coercePrimitiveByType`, `Some` only when the result differs (`!==`).
fn coerce_primitive(value: &Value, t: JsonType) -> Option<Value> {
    match (t, value) {
        (JsonType::Number | JsonType::Integer, Value::Null) => make_number(0.0),
        (JsonType::Number | JsonType::Integer, Value::Bool(b)) => {
            make_number(if *b { 1.0 } else { 0.0 })
        }
        (JsonType::Number, Value::String(s)) if !trim(s).is_empty() => Some(string_to_number(s))
            .filter(|n| n.is_finite())
            .and_then(make_number),
        (JsonType::Integer, Value::String(s)) if !trim(s).is_empty() => Some(string_to_number(s))
            .filter(|n| is_integer(*n))
            .and_then(make_number),
        (JsonType::Boolean, Value::Null) => Some(Value::Bool(false)),
        (JsonType::Boolean, Value::String(s)) => match s.as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        (JsonType::Boolean, Value::Number(n)) => {
            let n = as_f64(n);
            if n == 1.0 {
                Some(Value::Bool(true))
            } else if n == 0.0 {
                Some(Value::Bool(false))
            } else {
                None
            }
        }
        (JsonType::String, Value::Null) => Some(Value::String(String::new())),
        (JsonType::String, Value::Number(n)) => Some(Value::String(number_to_string(as_f64(n)))),
        (JsonType::String, Value::Bool(b)) => Some(Value::String(b.to_string())),
        (JsonType::Null, Value::String(s)) if s.is_empty() => Some(Value::Null),
        (JsonType::Null, Value::Number(n)) if as_f64(n) == 0.0 => Some(Value::Null),
        (JsonType::Null, Value::Bool(false)) => Some(Value::Null),
        _ => None,
    }
}
