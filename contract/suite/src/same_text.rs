//! Whether two JSON values are written as the same text, without writing
//! them: a judge's way to pass an observation equal to the reference's
//! before decoding either.
//!
//! `serde_json`'s `==` is not that test: it ignores the order of an
//! object's keys (the crate's `preserve_order` keeps the order, and its
//! map's equality still ignores it), and it takes `-0.0` for `0.0`. An
//! observation is compared byte for byte, so both count here.

use serde::Serialize;
use serde_json::Value as Json;

/// Whether two values (observations, or parts of them) are written as the
/// same text: `==`, then, only when that holds, which is when keys' order
/// alone can differ, [`same_text`] on them written as JSON values.
pub fn same_as_written<T: Serialize + PartialEq + ?Sized>(a: &T, b: &T) -> bool {
    a == b
        && match (serde_json::to_value(a), serde_json::to_value(b)) {
            (Ok(a), Ok(b)) => same_text(&a, &b),
            _ => false,
        }
}

/// Whether `a` and `b` are written (compactly, by `serde_json`) as the same
/// text: the same values, objects' keys in the same order, floats to the
/// bit. Walks both with a stack of its own, so a value nested as deep as a
/// case may make it does not overflow the thread's.
pub fn same_text(a: &Json, b: &Json) -> bool {
    let mut pending = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        match (a, b) {
            (Json::Object(x), Json::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for ((kx, vx), (ky, vy)) in x.iter().zip(y) {
                    if kx != ky {
                        return false;
                    }
                    pending.push((vx, vy));
                }
            }
            (Json::Array(x), Json::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                pending.extend(x.iter().zip(y));
            }
            (Json::Number(x), Json::Number(y)) => {
                // an integer and a float are never equal here; two floats
                // are compared by their bits, as their texts differ
                let bits =
                    |n: &serde_json::Number| n.as_f64().filter(|_| n.is_f64()).map(f64::to_bits);
                if x != y || bits(x) != bits(y) {
                    return false;
                }
            }
            (Json::Object(_) | Json::Array(_) | Json::Number(_), _) => return false,
            (a, b) => {
                if a != b {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::same_text;
    use serde_json::{json, Value as Json};

    /// `same_text` says what writing both says, and is symmetric.
    fn check(a: Json, b: Json) {
        let written = serde_json::to_string(&a).unwrap() == serde_json::to_string(&b).unwrap();
        assert_eq!(same_text(&a, &b), written, "{a} against {b}");
        assert_eq!(same_text(&b, &a), written, "{b} against {a}");
    }

    #[test]
    fn it_is_the_written_text_compared() {
        let object = json!({"a": 1, "b": [true, null, "x"], "c": {"d": 1.5}});
        check(object.clone(), object.clone());
        // what `==` takes for equal and the texts do not
        check(json!({"a": 1, "b": 2}), json!({"b": 2, "a": 1}));
        check(
            json!({"o": {"a": 1, "b": 2}}),
            json!({"o": {"b": 2, "a": 1}}),
        );
        check(json!(-0.0), json!(0.0));
        check(json!([-0.0]), json!([0.0]));
        // what differs in both
        check(json!(1), json!(1.0));
        check(json!(1), json!(-1));
        check(json!(u64::MAX), json!(i64::MIN));
        check(json!("1"), json!(1));
        check(json!(null), json!(false));
        check(json!([1, 2]), json!([2, 1]));
        check(json!([1, 2]), json!([1, 2, 3]));
        check(json!({"a": 1}), json!({"a": 1, "b": 2}));
        check(json!({"a": 1}), json!({"b": 1}));
        check(json!({"a": [1]}), json!({"a": {"0": 1}}));
        check(json!([]), json!({}));
        check(json!(""), json!(null));
        check(json!(0.1), json!(0.1));
        check(json!(1e300), json!(1e300));
    }

    #[test]
    fn a_deep_nest_does_not_overflow_the_stack() {
        let deep = |leaf: Json| {
            let mut v = leaf;
            for _ in 0..100_000 {
                v = Json::Array(vec![v]);
            }
            v
        };
        let (a, b, c) = (deep(json!(1)), deep(json!(1)), deep(json!(2)));
        assert!(same_text(&a, &b));
        assert!(!same_text(&a, &c));
        // dropping such a nest recurses in serde_json: let it leak
        std::mem::forget((a, b, c));
    }
}
