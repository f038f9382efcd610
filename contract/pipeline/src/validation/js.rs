//! The JavaScript value semantics the validator leans on, over
//! `serde_json` values: `Number(string)`, `Number::toString`, strict
//! equality, `String.prototype.trim`, the key order of JS objects, and
//! `JSON.stringify` (compact and with an indent of two).

use num_traits::ToPrimitive;
use serde_json::{Map, Number, Value};
use toolgate_suite::js_string::is_js_whitespace;

/// 2^53: below it an integral double is written as its digits.
const SAFE_BOUND: f64 = 9_007_199_254_740_992.0;

/// `String.prototype.trim`: every trimmed character is in the BMP.
pub(crate) fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| u16::try_from(u32::from(c)).is_ok_and(is_js_whitespace))
}

/// `Number(s)` for a string (StringToNumber): NaN when not numeric.
pub(crate) fn string_to_number(s: &str) -> f64 {
    let t = trim(s);
    if t.is_empty() {
        return 0.0;
    }
    for (prefixes, radix) in [(["0x", "0X"], 16), (["0o", "0O"], 8), (["0b", "0B"], 2)] {
        for p in prefixes {
            if let Some(digits) = t.strip_prefix(p) {
                return radix_to_number(digits, radix);
            }
        }
    }
    let (negative, unsigned) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let magnitude = if unsigned == "Infinity" {
        f64::INFINITY
    } else if is_decimal_literal(unsigned) {
        // the grammar is checked above, so Rust's correctly rounded parser
        // reads the same value as JavaScript's
        unsigned.parse::<f64>().unwrap_or(f64::NAN)
    } else {
        return f64::NAN;
    };
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// StrUnsignedDecimalLiteral without `Infinity`: digits with an optional
/// fraction (at least one digit overall) and an optional exponent.
fn is_decimal_literal(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(at) => (s.get(..at).unwrap_or(""), s.get(at + 1..)),
        None => (s, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, f),
        None => (mantissa, ""),
    };
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty());
    let exponent_ok = match exponent {
        None => true,
        Some(e) => {
            let e = e.strip_prefix(['+', '-']).unwrap_or(e);
            !e.is_empty() && digits(e)
        }
    };
    mantissa_ok && exponent_ok
}

fn radix_to_number(digits: &str, radix: u32) -> f64 {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return f64::NAN;
    }
    num_bigint::BigUint::parse_bytes(digits.as_bytes(), radix)
        .and_then(|n| n.to_f64())
        .unwrap_or(f64::NAN)
}

/// `Number::toString` (and `String(n)`, and a number in a template).
pub(crate) fn number_to_string(n: f64) -> String {
    if n == 0.0 {
        // -0 prints as 0
        return "0".to_owned();
    }
    if n.is_nan() {
        return "NaN".to_owned();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    ryu_js::Buffer::new().format_finite(n).to_owned()
}

/// A JSON number for a finite double: integral values below 2^53 as
/// integers, so that even `serde_json`'s own text matches JavaScript's.
pub(crate) fn make_number(n: f64) -> Option<Value> {
    if n.fract() == 0.0 && n.abs() < SAFE_BOUND {
        // exact: |n| < 2^53 fits an i64 (and -0 becomes 0, as JSON writes it)
        Some(Value::Number(Number::from(n as i64)))
    } else {
        Number::from_f64(n).map(Value::Number)
    }
}

/// A JSON number as the double JavaScript reads from the same text.
pub(crate) fn as_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// `Number.isInteger`.
pub(crate) fn is_integer(n: f64) -> bool {
    n.is_finite() && n.fract() == 0.0
}

/// `a === b` where at least one side is a primitive (objects and arrays
/// are never strictly equal to anything here: no two are the same object).
pub(crate) fn strict_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => as_f64(x) == as_f64(y),
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

/// Whether `key` is an array index, which JavaScript orders first.
pub(crate) fn is_array_index(key: &str) -> bool {
    if key == "0" {
        return true;
    }
    let mut bytes = key.bytes();
    matches!(bytes.next(), Some(b'1'..=b'9'))
        && key.len() <= 10
        && bytes.all(|b| b.is_ascii_digit())
        && key.parse::<u64>().is_ok_and(|n| n < 4_294_967_295)
}

/// The value with every object's keys in the order JavaScript keeps them:
/// array indices ascending, then the other keys in insertion order.
pub(crate) fn js_ordered(value: &Value) -> Value {
    rebuild(value, true)
}

/// A copy of `value` (`Value::clone`, without recursion).
pub(crate) fn deep_clone(value: &Value) -> Value {
    rebuild(value, false)
}

/// An object's entries as they are copied: in JavaScript's key order, or
/// as they are.
fn entries(map: &Map<String, Value>, js_order: bool) -> Vec<(&String, &Value)> {
    if !js_order || !map.keys().any(|k| is_array_index(k)) {
        return map.iter().collect();
    }
    let mut indices: Vec<(u64, &String, &Value)> = map
        .iter()
        .filter(|(k, _)| is_array_index(k))
        .map(|(k, v)| (k.parse::<u64>().unwrap_or(0), k, v))
        .collect();
    indices.sort_by_key(|(n, _, _)| *n);
    let mut out: Vec<(&String, &Value)> = Vec::with_capacity(map.len());
    out.extend(indices.into_iter().map(|(_, k, v)| (k, v)));
    out.extend(map.iter().filter(|(k, _)| !is_array_index(k)));
    out
}

/// One container being copied: what is left of the source, what is made.
enum Frame<'a> {
    Array(std::slice::Iter<'a, Value>, Vec<Value>),
    Object(
        std::vec::IntoIter<(&'a String, &'a Value)>,
        Map<String, Value>,
        Option<&'a String>,
    ),
}

impl<'a> Frame<'a> {
    /// A frame for a container, or the copy of a primitive.
    fn open(value: &'a Value, js_order: bool) -> Result<Frame<'a>, Value> {
        match value {
            Value::Array(items) => Ok(Frame::Array(items.iter(), Vec::with_capacity(items.len()))),
            Value::Object(map) => Ok(Frame::Object(
                entries(map, js_order).into_iter(),
                Map::with_capacity(map.len()),
                None,
            )),
            other => Err(other.clone()),
        }
    }

    fn next(&mut self) -> Option<&'a Value> {
        match self {
            Frame::Array(items, _) => items.next(),
            Frame::Object(entries, _, key) => entries.next().map(|(k, v)| {
                *key = Some(k);
                v
            }),
        }
    }

    fn push(&mut self, made: Value) {
        match self {
            Frame::Array(_, out) => out.push(made),
            Frame::Object(_, out, key) => {
                if let Some(k) = key.take() {
                    out.insert(k.clone(), made);
                }
            }
        }
    }

    fn finish(self) -> Value {
        match self {
            Frame::Array(_, out) => Value::Array(out),
            Frame::Object(_, out, _) => Value::Object(out),
        }
    }
}

/// The copy, with an explicit stack: any depth is copied safely.
fn rebuild(value: &Value, js_order: bool) -> Value {
    let mut stack = match Frame::open(value, js_order) {
        Ok(frame) => vec![frame],
        Err(primitive) => return primitive,
    };
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(child) => match Frame::open(child, js_order) {
                Ok(frame) => stack.push(frame),
                Err(primitive) => top.push(primitive),
            },
            None => {
                let made = stack.pop().map(Frame::finish).unwrap_or(Value::Null);
                match stack.last_mut() {
                    Some(parent) => parent.push(made),
                    None => return made,
                }
            }
        }
    }
    Value::Null
}

/// `JSON.stringify(value)`.
pub fn stringify(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, None);
    out
}

/// `JSON.stringify(value, null, 2)`.
pub fn stringify_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Some(2));
    out
}

fn write_string(out: &mut String, s: &str) {
    // JSON.stringify escapes `"`, `\`, and the controls below U+0020 (lone
    // surrogates too, which a Rust string cannot hold)
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push('"');
        out.push_str(s);
        out.push('"');
        return;
    }
    // serde_json escapes exactly these, with the same short forms (\b \t \n
    // \f \r) and lowercase \u00xx for the rest
    match serde_json::to_string(s) {
        Ok(text) => out.push_str(&text),
        Err(_) => out.push_str("\"\""),
    }
}

fn newline(out: &mut String, indent: Option<usize>, depth: usize) {
    if let Some(width) = indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', width * depth));
    }
}

/// A container being written: its remaining items or entries, and whether
/// one was written yet.
enum Open<'a> {
    Array(std::slice::Iter<'a, Value>, bool),
    Object(serde_json::map::Iter<'a>, bool),
}

/// Writes `value` with an explicit stack of open containers, so that any
/// depth is written safely; `depth` of a line is the number of containers
/// open around it.
fn write_value(out: &mut String, value: &Value, indent: Option<usize>) {
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut next = Some(value);
    loop {
        match next.take() {
            None => {}
            Some(Value::Null) => out.push_str("null"),
            Some(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
            Some(Value::Number(n)) => out.push_str(&number_to_string(as_f64(n))),
            Some(Value::String(s)) => write_string(out, s),
            Some(Value::Array(items)) if items.is_empty() => out.push_str("[]"),
            Some(Value::Array(items)) => {
                out.push('[');
                stack.push(Open::Array(items.iter(), false));
            }
            Some(Value::Object(map)) if map.is_empty() => out.push_str("{}"),
            Some(Value::Object(map)) => {
                out.push('{');
                stack.push(Open::Object(map.iter(), false));
            }
        }
        let depth = stack.len();
        let Some(top) = stack.last_mut() else {
            return;
        };
        let (started, close) = match top {
            Open::Array(items, started) => match items.next() {
                Some(item) => {
                    next = Some(item);
                    (std::mem::replace(started, true), None)
                }
                None => (true, Some(']')),
            },
            Open::Object(entries, started) => match entries.next() {
                Some((k, v)) => {
                    let was = std::mem::replace(started, true);
                    if was {
                        out.push(',');
                    }
                    newline(out, indent, depth);
                    write_string(out, k);
                    out.push(':');
                    if indent.is_some() {
                        out.push(' ');
                    }
                    next = Some(v);
                    continue;
                }
                None => (true, Some('}')),
            },
        };
        match close {
            Some(bracket) => {
                stack.pop();
                newline(out, indent, depth - 1);
                out.push(bracket);
            }
            None => {
                if started {
                    out.push(',');
                }
                newline(out, indent, depth);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn number_conversion_follows_string_to_number() {
        assert_eq!(string_to_number(""), 0.0);
        assert_eq!(string_to_number("  "), 0.0);
        assert_eq!(string_to_number(" 7 "), 7.0);
        assert_eq!(string_to_number("0x10"), 16.0);
        assert_eq!(string_to_number("1e3"), 1000.0);
        assert_eq!(string_to_number(".5"), 0.5);
        assert_eq!(string_to_number("5."), 5.0);
        assert_eq!(string_to_number("-Infinity"), f64::NEG_INFINITY);
        assert!(string_to_number("-0x10").is_nan());
        assert!(string_to_number("12n").is_nan());
        assert!(string_to_number("1_000").is_nan());
        assert!(string_to_number("e5").is_nan());
        assert!(string_to_number("inf").is_nan());
    }

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        assert_eq!(number_to_string(-0.0), "0");
        assert_eq!(number_to_string(5.0), "5");
        assert_eq!(number_to_string(1e21), "1e+21");
        assert_eq!(number_to_string(1.5e-7), "1.5e-7");
    }

    #[test]
    fn the_iterative_writers_and_copies_match_serde_json() {
        let v = json!({"a": [1, [], {}, [2, [3, {"b": "q\"\\\n\u{1}é"}]]], "c": {"d": null, "e": true},
            "f": [[[[]]]], "g": {"h": {"i": {}}}});
        assert_eq!(stringify(&v), serde_json::to_string(&v).unwrap_or_default());
        assert_eq!(
            stringify_pretty(&v),
            serde_json::to_string_pretty(&v).unwrap_or_default()
        );
        assert_eq!(deep_clone(&v), v);
        assert_eq!(js_ordered(&v), v);
        assert_eq!(stringify_pretty(&json!([])), "[]");
        assert_eq!(stringify_pretty(&json!("x")), "\"x\"");
    }

    #[test]
    fn keys_follow_javascript_order() {
        let v: Value =
            serde_json::from_str(r#"{"b":1,"10":2,"a":3,"2":4,"01":5}"#).unwrap_or(json!(null));
        assert_eq!(
            stringify(&js_ordered(&v)),
            r#"{"2":4,"10":2,"b":1,"a":3,"01":5}"#
        );
        assert_eq!(
            stringify_pretty(&json!({"a":[],"b":{}})),
            "{\n  \"a\": [],\n  \"b\": {}\n}"
        );
    }
}
