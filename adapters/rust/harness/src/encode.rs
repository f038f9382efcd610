//! What a runtime delivers to the model, as JSON for the observation, and
//! a call's arguments as JSON text; both without recursion, whatever the
//! depth. The encoding cuts what would make the reply line huge (the
//! markers of `adapters/node/boundary/encode-delivered.mjs`: `$string`,
//! `$cut`), while [`utf8_bytes`] still counts the whole value.

use serde_json::{Map, Value};

/// Longest string kept whole in an observation, in UTF-16 code units (a
/// JavaScript string's length: the suite's strings are JavaScript's).
pub const KEPT_STRING: usize = 65_536;
/// Deepest container kept in an observation.
pub const KEPT_DEPTH: usize = 64;
/// Most entries of one container kept in an observation.
pub const KEPT_ENTRIES: usize = 4_096;

fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// The longest prefix of `text` within `units` UTF-16 code units.
fn utf16_prefix(text: &str, units: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += c.len_utf16();
        if used > units {
            return &text[..at];
        }
    }
    text
}

/// The UTF-8 bytes of `value` as compact JSON text (a string as itself),
/// counted as the Node and Python adapters count them (a string's bytes
/// and its two quotes, escapes not counted), without building the text.
pub fn utf8_bytes(value: &Value) -> u64 {
    if let Value::String(text) = value {
        return text.len() as u64;
    }
    let mut total = 0u64;
    let mut stack = vec![value];
    while let Some(item) = stack.pop() {
        total += match item {
            Value::String(text) => text.len() as u64 + 2,
            Value::Null | Value::Bool(true) => 4,
            Value::Bool(false) => 5,
            Value::Number(n) => n.to_string().len() as u64,
            Value::Array(items) => {
                stack.extend(items);
                2 + items.len().saturating_sub(1) as u64
            }
            Value::Object(map) => {
                let keys: u64 = map.keys().map(|k| k.len() as u64 + 3).sum();
                stack.extend(map.values());
                2 + map.len().saturating_sub(1) as u64 + keys
            }
        };
    }
    total
}

/// Where an encoded value goes: the root, an array slot, an object key.
enum Slot {
    Root,
    Item(usize, usize),
    Key(usize, String),
}

/// `value` as JSON for the observation: strings over [`KEPT_STRING`] as
/// `{"$string": prefix, "length": n}`, containers past [`KEPT_DEPTH`] as
/// `{"$cut": "depth"}`, past [`KEPT_ENTRIES`] entries cut with a marker.
pub fn encode_delivered(value: &Value) -> Value {
    // containers being filled, by number; each holds its finished parts
    let mut containers: Vec<Value> = Vec::new();
    let mut parents: Vec<(usize, Slot)> = Vec::new();
    let mut root = Value::Null;
    // work items: (value, depth, where it goes)
    let mut stack: Vec<(&Value, usize, Slot)> = vec![(value, 0, Slot::Root)];
    let mut placed: Vec<(Slot, Value)> = Vec::new();
    while let Some((item, depth, slot)) = stack.pop() {
        let encoded = match item {
            Value::String(text) if utf16_len(text) > KEPT_STRING => {
                let mut cut = Map::new();
                cut.insert("$string".into(), utf16_prefix(text, KEPT_STRING).into());
                cut.insert("length".into(), utf16_len(text).into());
                Value::Object(cut)
            }
            Value::Array(_) | Value::Object(_) if depth >= KEPT_DEPTH => {
                Value::Object(Map::from_iter([("$cut".into(), "depth".into())]))
            }
            Value::Array(items) => {
                let id = containers.len();
                let kept = items.len().min(KEPT_ENTRIES);
                let mut out = vec![Value::Null; kept];
                if items.len() > KEPT_ENTRIES {
                    out.push(Value::Object(Map::from_iter([
                        ("$cut".into(), "entries".into()),
                        ("length".into(), items.len().into()),
                    ])));
                }
                containers.push(Value::Array(out));
                parents.push((id, slot));
                for (at, entry) in items.iter().take(KEPT_ENTRIES).enumerate() {
                    stack.push((entry, depth + 1, Slot::Item(id, at)));
                }
                continue;
            }
            Value::Object(map) => {
                let id = containers.len();
                let mut out = Map::new();
                if map.len() > KEPT_ENTRIES {
                    out.insert(
                        "$cut".into(),
                        Value::Object(Map::from_iter([("entries".into(), map.len().into())])),
                    );
                }
                // keys are placed now, so they keep their order
                for key in map.keys().take(KEPT_ENTRIES) {
                    out.insert(key.clone(), Value::Null);
                }
                containers.push(Value::Object(out));
                parents.push((id, slot));
                for (key, entry) in map.iter().take(KEPT_ENTRIES) {
                    stack.push((entry, depth + 1, Slot::Key(id, key.clone())));
                }
                continue;
            }
            scalar => scalar.clone(),
        };
        placed.push((slot, encoded));
    }
    // fill the scalars in, then each container into its parent, innermost
    // (highest number) first: a container's number is above its parent's
    for (slot, value) in placed {
        put(&mut containers, &mut root, slot, value);
    }
    while let Some((id, slot)) = parents.pop() {
        let value = std::mem::take(&mut containers[id]);
        put(&mut containers, &mut root, slot, value);
    }
    root
}

fn put(containers: &mut [Value], root: &mut Value, slot: Slot, value: Value) {
    match slot {
        Slot::Root => *root = value,
        Slot::Item(id, at) => {
            if let Value::Array(items) = &mut containers[id] {
                items[at] = value;
            }
        }
        Slot::Key(id, key) => {
            if let Value::Object(map) = &mut containers[id] {
                map.insert(key, value);
            }
        }
    }
}

/// `value` as compact JSON text (`JSON.stringify`'s for the JSON a model
/// sends), written without recursion.
pub fn json_text(value: &Value) -> String {
    enum Piece<'a> {
        Value(&'a Value),
        Text(&'static str),
        Key(&'a str),
    }
    let mut out = String::new();
    let mut stack = vec![Piece::Value(value)];
    while let Some(piece) = stack.pop() {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Key(key) => {
                out.push_str(&Value::from(key).to_string());
                out.push(':');
            }
            Piece::Value(Value::Array(items)) => {
                out.push('[');
                stack.push(Piece::Text("]"));
                for (at, item) in items.iter().enumerate().rev() {
                    stack.push(Piece::Value(item));
                    if at > 0 {
                        stack.push(Piece::Text(","));
                    }
                }
            }
            Piece::Value(Value::Object(map)) => {
                out.push('{');
                stack.push(Piece::Text("}"));
                for (at, (key, item)) in map.iter().enumerate().rev() {
                    stack.push(Piece::Value(item));
                    stack.push(Piece::Key(key));
                    if at > 0 {
                        stack.push(Piece::Text(","));
                    }
                }
            }
            Piece::Value(scalar) => out.push_str(&scalar.to_string()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(value: Value, encoded: Value, bytes: u64) {
        assert_eq!(encode_delivered(&value), encoded, "{value}");
        assert_eq!(utf8_bytes(&value), bytes, "{value}");
        if !value.is_string() {
            assert_eq!(json_text(&value), serde_json::to_string(&value).unwrap());
        }
    }

    #[test]
    fn small_values_are_kept_and_counted_as_their_text() {
        check(json!("héllo"), json!("héllo"), 6);
        check(
            json!({"a": [1, null, true], "b": {"c": "d"}}),
            json!({"a": [1, null, true], "b": {"c": "d"}}),
            33,
        );
        check(json!([]), json!([]), 2);
        check(json!({"z": 1, "a": 2}), json!({"z": 1, "a": 2}), 13);
    }

    #[test]
    fn long_strings_deep_and_wide_values_are_cut_with_markers() {
        let long = "é".repeat(KEPT_STRING + 1);
        let encoded = encode_delivered(&json!([long]));
        assert_eq!(encoded[0]["length"], json!(KEPT_STRING + 1));
        assert_eq!(
            encoded[0]["$string"].as_str().unwrap().chars().count(),
            KEPT_STRING
        );
        let mut deep = json!(1);
        for _ in 0..KEPT_DEPTH + 2 {
            deep = json!([deep]);
        }
        let mut at = &encode_delivered(&deep);
        for _ in 0..KEPT_DEPTH {
            at = &at[0];
        }
        assert_eq!(at, &json!({"$cut": "depth"}));
        let wide = Value::Array((0..KEPT_ENTRIES + 5).map(Value::from).collect());
        let encoded = encode_delivered(&wide);
        assert_eq!(encoded.as_array().unwrap().len(), KEPT_ENTRIES + 1);
        assert_eq!(
            encoded[KEPT_ENTRIES],
            json!({"$cut": "entries", "length": KEPT_ENTRIES + 5})
        );
        assert_eq!(
            utf8_bytes(&wide),
            serde_json::to_string(&wide).unwrap().len() as u64
        );
    }
}
