//! TypeBox 1.3.7's `Check` and `Errors` over the subset, with the en_US
//! messages and pi's path format.
//!
//! Two checks exist in the package: the compiled validator pi calls for
//! the verdict, and the interpreted one `Value.Convert` uses inside unions
//! and `Errors` uses for the report. They differ only where the compiler
//! takes a shortcut (`additionalProperties: false` with every property
//! required counts own keys), so `compiled` says which one is meant.

use super::js::{as_f64, is_integer, number_to_string, strict_eq};
use super::schema::{JsonType, Node, Schema, Types};
use serde_json::{Map, Value};

/// TypeBox's default `maxErrors`: later errors are dropped.
const MAX_ERRORS: usize = 8;

pub(crate) fn type_matches(t: JsonType, value: &Value) -> bool {
    match t {
        JsonType::String => value.is_string(),
        // JSON numbers are finite, so `Number.isFinite` holds for each
        JsonType::Number => value.is_number(),
        JsonType::Integer => matches!(value, Value::Number(n) if is_integer(as_f64(n))),
        JsonType::Boolean => value.is_boolean(),
        JsonType::Null => value.is_null(),
        JsonType::Array => value.is_array(),
        JsonType::Object => value.is_object(),
    }
}

fn types_match(types: &Types, value: &Value) -> bool {
    match types {
        Types::One(t) => type_matches(*t, value),
        Types::Many(ts) => ts.iter().any(|t| type_matches(*t, value)),
    }
}

/// `name` is one of the node's properties: TypeBox escapes the names into
/// one pattern for `additionalProperties`, so this is an exact match.
fn declared(node: &Node, name: &str) -> bool {
    node.properties
        .as_ref()
        .is_some_and(|p| p.iter().any(|(n, _)| n == name))
}

pub(crate) fn check(schema: &Schema, value: &Value, compiled: bool) -> bool {
    match schema {
        Schema::Bool(b) => *b,
        Schema::Node(node) => check_node(node, value, compiled),
    }
}

fn check_node(node: &Node, value: &Value, compiled: bool) -> bool {
    if let Some(types) = &node.types {
        if !types_match(types, value) {
            return false;
        }
    }
    let ok = match value {
        Value::Object(map) => check_object(node, map, compiled),
        Value::Array(items) => check_array(node, items, compiled),
        Value::String(s) => string_ok(node, s).is_none(),
        Value::Number(n) => number_ok(node, as_f64(n)).is_none(),
        _ => true,
    };
    ok && node.constant.as_ref().is_none_or(|c| strict_eq(value, c))
        && node
            .enumeration
            .as_ref()
            .is_none_or(|e| e.iter().any(|o| strict_eq(value, o)))
        && node
            .any_of
            .as_ref()
            .is_none_or(|members| members.iter().any(|m| check(m, value, compiled)))
}

fn check_object(node: &Node, map: &Map<String, Value>, compiled: bool) -> bool {
    if let Some(required) = &node.required {
        if !required.iter().all(|k| map.contains_key(k)) {
            return false;
        }
    }
    if let Some(additional) = &node.additional {
        let fast = compiled
            && *additional == Schema::Bool(false)
            && node
                .required
                .as_ref()
                .zip(node.properties.as_ref())
                .is_some_and(|(r, p)| r.len() == p.len());
        let ok = if fast {
            // the compiled shortcut: own keys counted against `required`
            map.len() == node.required.as_ref().map_or(0, Vec::len)
        } else {
            map.iter()
                .all(|(k, v)| declared(node, k) || check(additional, v, compiled))
        };
        if !ok {
            return false;
        }
    }
    node.properties.as_ref().is_none_or(|props| {
        props
            .iter()
            .all(|(k, sub)| map.get(k).is_none_or(|v| check(sub, v, compiled)))
    })
}

fn check_array(node: &Node, items: &[Value], compiled: bool) -> bool {
    node.items
        .as_ref()
        .is_none_or(|s| items.iter().all(|v| check(s, v, compiled)))
        && array_limits(node, items.len()).is_none()
}

/// The first failing array size keyword, in TypeBox's order.
fn array_limits(node: &Node, len: usize) -> Option<(&'static str, f64)> {
    let len = len as f64;
    if let Some(max) = node.max_items.filter(|m| len > *m) {
        return Some(("maxItems", max));
    }
    node.min_items.filter(|m| len < *m).map(|m| ("minItems", m))
}

fn string_ok(node: &Node, s: &str) -> Option<(&'static str, f64)> {
    string_errors(node, s).into_iter().next()
}

fn string_errors(node: &Node, s: &str) -> Vec<(&'static str, f64)> {
    let units: Vec<u16> = s.encode_utf16().collect();
    let mut out = Vec::new();
    if let Some(max) = node.max_length.filter(|m| !graphemes::at_most(&units, *m)) {
        out.push(("maxLength", max));
    }
    if let Some(min) = node.min_length.filter(|m| !graphemes::at_least(&units, *m)) {
        out.push(("minLength", min));
    }
    out
}

fn number_ok(node: &Node, n: f64) -> Option<(&'static str, f64)> {
    number_errors(node, n).into_iter().next()
}

/// Failing number keywords with their comparison, in TypeBox's order.
/// JSON numbers and limits are never NaN, so a failed `<` is a `>=`.
fn number_errors(node: &Node, n: f64) -> Vec<(&'static str, f64)> {
    let mut out = Vec::new();
    if let Some(l) = node.exclusive_maximum.filter(|l| n >= *l) {
        out.push(("<", l));
    }
    if let Some(l) = node.exclusive_minimum.filter(|l| n <= *l) {
        out.push((">", l));
    }
    if let Some(l) = node.maximum.filter(|l| n > *l) {
        out.push(("<=", l));
    }
    if let Some(l) = node.minimum.filter(|l| n < *l) {
        out.push((">=", l));
    }
    out
}

/// One entry of `validator.Errors(value)`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Failure {
    pub instance_path: String,
    pub message: String,
    /// For `required`: the first missing name, which pi appends to the path.
    pub first_missing: Option<String>,
}

impl Failure {
    fn new(path: &str, message: String) -> Failure {
        Failure {
            instance_path: path.to_owned(),
            message,
            first_missing: None,
        }
    }

    /// pi's `formatValidationPath`: one leading `/` dropped, the others
    /// turned into dots (keys are not escaped), `root` when empty; a
    /// non-empty first missing name is appended for `required`.
    pub(crate) fn path(&self) -> String {
        let base = self
            .instance_path
            .strip_prefix('/')
            .unwrap_or(&self.instance_path)
            .replace('/', ".");
        match self.first_missing.as_deref() {
            Some(name) if !name.is_empty() => {
                if base.is_empty() {
                    name.to_owned()
                } else {
                    format!("{base}.{name}")
                }
            }
            _ if base.is_empty() => "root".to_owned(),
            _ => base,
        }
    }
}

/// `validator.Errors(value)`: every failure, at most eight.
pub(crate) fn errors(root: &Schema, value: &Value) -> Vec<Failure> {
    let mut out = Vec::new();
    errors_at(root, value, "", &mut out);
    out.truncate(MAX_ERRORS);
    out
}

fn errors_at(schema: &Schema, value: &Value, path: &str, out: &mut Vec<Failure>) -> bool {
    let node = match schema {
        Schema::Bool(true) => return true,
        Schema::Bool(false) => {
            out.push(Failure::new(path, "schema is false".to_owned()));
            return false;
        }
        Schema::Node(node) => node,
    };
    // every keyword is evaluated (no short circuit), in this order
    let mut ok = true;
    if let Some(types) = &node.types {
        if !types_match(types, value) {
            let message = match types {
                Types::One(t) => format!("must be {}", t.name()),
                Types::Many(ts) => format!(
                    "must be either {}",
                    ts.iter().map(|t| t.name()).collect::<Vec<_>>().join(" or ")
                ),
            };
            out.push(Failure::new(path, message));
            ok = false;
        }
    }
    match value {
        Value::Object(map) => ok &= object_errors(node, map, path, out),
        Value::Array(items) => {
            if let Some(s) = &node.items {
                for (i, v) in items.iter().enumerate() {
                    ok &= errors_at(s, v, &format!("{path}/{i}"), out);
                }
            }
            let len = items.len() as f64;
            if let Some(max) = node.max_items.filter(|m| len > *m) {
                out.push(Failure::new(
                    path,
                    format!("must not have more than {} items", number_to_string(max)),
                ));
                ok = false;
            }
            if let Some(min) = node.min_items.filter(|m| len < *m) {
                out.push(Failure::new(
                    path,
                    format!("must not have fewer than {} items", number_to_string(min)),
                ));
                ok = false;
            }
        }
        Value::String(s) => {
            for (keyword, limit) in string_errors(node, s) {
                let relation = if keyword == "maxLength" {
                    "more"
                } else {
                    "fewer"
                };
                out.push(Failure::new(
                    path,
                    format!(
                        "must not have {relation} than {} characters",
                        number_to_string(limit)
                    ),
                ));
                ok = false;
            }
        }
        Value::Number(n) => {
            for (comparison, limit) in number_errors(node, as_f64(n)) {
                out.push(Failure::new(
                    path,
                    format!("must be {comparison} {}", number_to_string(limit)),
                ));
                ok = false;
            }
        }
        _ => {}
    }
    if node.constant.as_ref().is_some_and(|c| !strict_eq(value, c)) {
        out.push(Failure::new(path, "must be equal to constant".to_owned()));
        ok = false;
    }
    if node
        .enumeration
        .as_ref()
        .is_some_and(|e| !e.iter().any(|o| strict_eq(value, o)))
    {
        out.push(Failure::new(
            path,
            "must be equal to one of the allowed values".to_owned(),
        ));
        ok = false;
    }
    if let Some(members) = &node.any_of {
        let mut failed = Vec::new();
        let mut any = false;
        for m in members {
            let mut own = Vec::new();
            if errors_at(m, value, path, &mut own) {
                any = true;
            } else {
                failed.extend(own);
            }
        }
        if !any {
            // the members' own errors first, then the union's
            out.extend(failed);
            out.push(Failure::new(
                path,
                "must match a schema in anyOf".to_owned(),
            ));
            ok = false;
        }
    }
    ok
}

fn object_errors(
    node: &Node,
    map: &Map<String, Value>,
    path: &str,
    out: &mut Vec<Failure>,
) -> bool {
    let mut ok = true;
    if let Some(required) = &node.required {
        let missing: Vec<&String> = required.iter().filter(|k| !map.contains_key(*k)).collect();
        if let Some(first) = missing.first() {
            out.push(Failure {
                instance_path: path.to_owned(),
                message: format!(
                    "must have required properties {}",
                    missing
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                first_missing: Some((*first).clone()),
            });
            ok = false;
        }
    }
    if let Some(additional) = &node.additional {
        // the undeclared values' own errors are collected and dropped: only
        // the object's one line is reported
        if !map
            .iter()
            .all(|(k, v)| declared(node, k) || check(additional, v, false))
        {
            out.push(Failure::new(
                path,
                "must not have additional properties".to_owned(),
            ));
            ok = false;
        }
    }
    if let Some(props) = &node.properties {
        for (k, sub) in props {
            if let Some(v) = map.get(k) {
                ok &= errors_at(sub, v, &format!("{path}/{k}"), out);
            }
        }
    }
    ok
}

/// TypeBox's string length: grapheme clusters by its own approximation
/// (combining marks, variation selectors, ZWJ sequences, flag pairs), on
/// UTF-16 code units, with its fast path that counts units until a unit
/// that may start a longer cluster.
mod graphemes {
    fn code_point_at(units: &[u16], i: usize) -> u32 {
        match (units.get(i), units.get(i + 1)) {
            (Some(&hi @ 0xD800..=0xDBFF), Some(&lo @ 0xDC00..=0xDFFF)) => {
                0x10000 + ((u32::from(hi) - 0xD800) << 10) + (u32::from(lo) - 0xDC00)
            }
            (Some(&u), _) => u32::from(u),
            (None, _) => 0,
        }
    }

    fn width(cp: u32) -> usize {
        if cp > 0xFFFF {
            2
        } else {
            1
        }
    }

    fn is_combining(cp: u32) -> bool {
        matches!(cp, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0xFE20..=0xFE2F)
    }

    fn is_selector(cp: u32) -> bool {
        matches!(cp, 0xFE00..=0xFE0F)
    }

    fn is_regional(cp: u32) -> bool {
        matches!(cp, 0x1F1E6..=0x1F1FF)
    }

    fn consume_modifiers(units: &[u16], mut i: usize) -> usize {
        while i < units.len() {
            let cp = code_point_at(units, i);
            if is_combining(cp) || is_selector(cp) {
                i += width(cp);
            } else {
                break;
            }
        }
        i
    }

    fn next_cluster(units: &[u16], start: usize) -> usize {
        let first = code_point_at(units, start);
        let mut end = consume_modifiers(units, start + width(first));
        while end + 1 < units.len() && units.get(end) == Some(&0x200D) {
            let next = code_point_at(units, end + 1);
            end = consume_modifiers(units, end + 1 + width(next));
        }
        if is_regional(first) && end < units.len() && is_regional(code_point_at(units, end)) {
            end += width(code_point_at(units, end));
        }
        end
    }

    fn may_join(unit: u16) -> bool {
        let u = u32::from(unit);
        matches!(u, 0xD800..=0xDBFF) || is_combining(u) || is_selector(u) || u == 0x200D
    }

    fn count_reaches(units: &[u16], limit: f64) -> bool {
        let mut count = 0.0;
        let mut i = 0;
        while i < units.len() {
            i = next_cluster(units, i);
            count += 1.0;
            if count >= limit {
                return true;
            }
        }
        false
    }

    fn count_exceeds(units: &[u16], limit: f64) -> bool {
        let mut count = 0.0;
        let mut i = 0;
        while i < units.len() {
            i = next_cluster(units, i);
            count += 1.0;
            if count > limit {
                return true;
            }
        }
        false
    }

    pub(super) fn at_least(units: &[u16], min: f64) -> bool {
        if min == 0.0 {
            return true;
        }
        let mut i = 0;
        while let Some(&u) = units.get(i) {
            if may_join(u) {
                return count_reaches(units, min);
            }
            i += 1;
            if i as f64 >= min {
                return true;
            }
        }
        false
    }

    pub(super) fn at_most(units: &[u16], max: f64) -> bool {
        let mut i = 0;
        while let Some(&u) = units.get(i) {
            if may_join(u) {
                return !count_exceeds(units, max);
            }
            i += 1;
            if i as f64 > max {
                return false;
            }
        }
        true
    }
}
