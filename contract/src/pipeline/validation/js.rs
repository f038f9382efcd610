//! The JavaScript value semantics the validator leans on, over
//! `serde_json` values: `Number(string)`, `Number::toString`, strict
//! equality, `String.prototype.trim`, the key order of JS objects, and
//! `JSON.stringify` (compact and with an indent of two).

use crate::js_string::is_js_whitespace;
use num_traits::ToPrimitive;
use serde_json::{Map, Number, Value};

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
    match value {
        Value::Array(items) => Value::Array(items.iter().map(js_ordered).collect()),
        Value::Object(map) => {
            let mut indices: Vec<(u64, &String, &Value)> = map
                .iter()
                .filter(|(k, _)| is_array_index(k))
                .map(|(k, v)| (k.parse::<u64>().unwrap_or(0), k, v))
                .collect();
            indices.sort_by_key(|(n, _, _)| *n);
            let mut out = Map::new();
            for (_, k, v) in indices {
                out.insert(k.clone(), js_ordered(v));
            }
            for (k, v) in map.iter().filter(|(k, _)| !is_array_index(k)) {
                out.insert(k.clone(), js_ordered(v));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

/// `JSON.stringify(value)`.
pub fn stringify(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, None, 0);
    out
}

/// `JSON.stringify(value, null, 2)`.
pub fn stringify_pretty(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, Some(2), 0);
    out
}

fn write_string(out: &mut String, s: &str) {
    // serde_json escapes exactly what JSON.stringify escapes for well-formed
    // strings: `"`, `\`, and the controls below U+0020 (short forms for
    // \b \t \n \f \r, lowercase \u00xx for the rest)
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

fn write_value(out: &mut String, value: &Value, indent: Option<usize>, depth: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_to_string(as_f64(n))),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_value(out, item, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push(']');
        }
        Value::Object(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, indent, depth + 1);
                write_string(out, k);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(out, v, indent, depth + 1);
            }
            newline(out, indent, depth);
            out.push('}');
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
