//! pi-ai 0.85.0's `validateToolArguments` (with TypeBox 1.3.7), exact to
//! the byte of its error text: what the loop hands to `execute`, or the
//! text of the error tool result.
//!
//! The steps, as pi runs them on a `structuredClone` of the arguments:
//! 1. `normalizeOptionalNulls`: an optional property whose value is `null`
//!    and whose schema rejects `null` is deleted;
//! 2. `Value.Convert` (TypeBox, `convert.rs`), whose return value pi
//!    discards, so only in-place changes to the root object survive;
//! 3. pi's `coerceWithJsonSchema` (`coerce.rs`), for every schema: TypeBox
//!    1.x schemas lack the `Symbol.for("TypeBox.Kind")` pi looks for. Its
//!    result replaces an object root; for a primitive root whose coercion
//!    changed it, pi returns the coerced value if it checks and *the
//!    unconverted value otherwise, without an error*;
//! 4. the compiled `Check`; on failure `Errors` (at most eight) make the
//!    text, with the arguments as pi received them.
//!
//! Schemas are JSON with TypeBox's `~kind` on the nodes a TypeBox builder
//! made (`schema.rs` says why). Outside the supported subset the answer
//! is [`Rejection::Unsupported`], never a guess.

mod check;
mod coerce;
mod convert;
pub(crate) mod js;
mod schema;

pub use js::{stringify, stringify_pretty};

use crate::error::Error;
use check::{check, errors, Failure};
use schema::{Node, Schema};
use serde_json::Value;

/// Why [`validate_tool_arguments`] gives no arguments.
#[derive(Debug, Clone, PartialEq)]
pub enum Rejection {
    /// pi rejects the arguments: the exact text of the error tool result.
    Invalid(String),
    /// The schema or the arguments are outside the modelled subset (an
    /// [`Error`] of kind `Model`: "unsupported schema keyword X", or a
    /// malformed schema).
    Unsupported(Error),
}

impl From<Error> for Rejection {
    fn from(e: Error) -> Rejection {
        Rejection::Unsupported(e)
    }
}

/// `validateToolArguments({parameters: schema}, {name: tool_name,
/// arguments})`: the converted arguments (objects in JavaScript key order,
/// numbers as JavaScript has them; [`stringify`] writes them as
/// `JSON.stringify` does), or why not.
pub fn validate_tool_arguments(
    tool_name: &str,
    schema: &Value,
    arguments: &Value,
) -> Result<Value, Rejection> {
    if nested_deeper_than(schema, MAX_DEPTH) || nested_deeper_than(arguments, MAX_DEPTH) {
        // the walks below recurse; JavaScript's would go deeper than Rust's stack
        return Err(Error::model(format!("nesting deeper than {MAX_DEPTH} levels")).into());
    }
    let root = Schema::Node(Box::new(schema::decode_root(schema)?));
    if has_proto_key(arguments) {
        // assigning `__proto__` changes a JavaScript object's prototype
        return Err(schema::unsupported("__proto__ (as an argument key)").into());
    }
    let received = js::js_ordered(arguments);
    let mut args = received.clone();
    normalize_optional_nulls(&mut args, &root);
    convert::convert_root(&root, &mut args);
    let coerced = coerce::coerce(args.clone(), &root);
    let both_objects = matches!(args, Value::Object(_) | Value::Array(_))
        && matches!(coerced, Value::Object(_) | Value::Array(_));
    if both_objects {
        if args.is_array() != coerced.is_array() {
            return Err(Error::model("an object root coerced into an array").into());
        }
        // pi deletes every key and assigns the coerced ones: the same
        // keys in the same order (coercion neither adds nor removes)
        args = coerced;
    } else if !js::strict_eq(&args, &coerced) {
        // a primitive root that coercion changed: no error either way
        return Ok(if check(&root, &coerced, true) {
            coerced
        } else {
            args
        });
    }
    if check(&root, &args, true) {
        return Ok(args);
    }
    let lines: Vec<String> = errors(&root, &args)
        .iter()
        .map(|f: &Failure| format!("  - {}: {}", f.path(), f.message))
        .collect();
    let lines = if lines.is_empty() {
        "Unknown validation error".to_owned()
    } else {
        lines.join("\n")
    };
    Err(Rejection::Invalid(format!(
        "Validation failed for tool \"{tool_name}\":\n{lines}\n\nReceived arguments:\n{}",
        stringify_pretty(&received)
    )))
}

/// How deep schemas and arguments may nest (objects and arrays).
const MAX_DEPTH: usize = 256;

/// Measured without recursion, so that any input is measured safely.
fn nested_deeper_than(value: &Value, limit: usize) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        match v {
            Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    false
}

fn has_proto_key(value: &Value) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| k == "__proto__" || has_proto_key(v)),
        Value::Array(items) => items.iter().any(has_proto_key),
        _ => false,
    }
}

/// `normalizeOptionalNulls`: walks `properties` and `items` only.
fn normalize_optional_nulls(value: &mut Value, schema: &Schema) {
    let Schema::Node(node) = schema else {
        return;
    };
    match value {
        Value::Array(items) => {
            if let Some(s) = &node.items {
                items
                    .iter_mut()
                    .for_each(|v| normalize_optional_nulls(v, s));
            }
        }
        Value::Object(map) => {
            let Some(props) = &node.properties else {
                return;
            };
            for (name, sub) in props {
                let Some(slot) = map.get_mut(name) else {
                    continue;
                };
                if slot.is_null() && !is_required(node, name) && !check(sub, &Value::Null, true) {
                    // `delete`: the other keys keep their order
                    map.shift_remove(name);
                } else {
                    normalize_optional_nulls(slot, sub);
                }
            }
        }
        _ => {}
    }
}

fn is_required(node: &Node, name: &str) -> bool {
    node.required
        .as_ref()
        .is_some_and(|r| r.iter().any(|n| n == name))
}
