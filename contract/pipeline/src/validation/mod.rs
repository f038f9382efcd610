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
//!
//! Where pi itself throws `RangeError: Maximum call stack size exceeded`,
//! at a size that V8's stack sets, the reference refuses well before that
//! size instead of guessing the stack: arguments nested more than
//! `MAX_ARGUMENT_DEPTH` levels (pi's `structuredClone` throws from about
//! 1,900), and schemas whose compiled check nests too deep
//! (`schema::MAX_COMPILED_NESTING`: TypeBox's `Compile` throws from about
//! 1,600 properties in one object). Width alone never throws in pi: a
//! million argument keys pass or fail as any other arguments, here too.

mod check;
mod coerce;
mod convert;
pub(crate) mod js;
mod schema;

pub use js::{stringify, stringify_pretty};

use check::{check, errors, Failure};
use schema::{Node, Schema};
use serde_json::Value;
use toolgate_suite::Error;

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
    if deeper_than(schema, MAX_SCHEMA_DEPTH) {
        // the schema walks below recurse, and TypeBox's compiled check nests
        // past V8's stack first (`schema::MAX_COMPILED_NESTING`)
        return Err(Error::model(format!(
            "a schema nested more than {MAX_SCHEMA_DEPTH} levels deep"
        ))
        .into());
    }
    if deeper_than(arguments, MAX_ARGUMENT_DEPTH) {
        return Err(Error::model(format!(
            "arguments nested more than {MAX_ARGUMENT_DEPTH} levels deep: pi's structuredClone \
             of them throws RangeError: Maximum call stack size exceeded past a depth that \
             V8's stack sets (about 1,900 nested objects or 3,200 nested arrays with Node \
             20.20.2's default stack), which the reference does not model"
        ))
        .into());
    }
    let root = Schema::Node(Box::new(schema::decode_root(schema)?));
    if has_proto_key(arguments) {
        // assigning `__proto__` changes a JavaScript object's prototype
        return Err(schema::unsupported("__proto__ (as an argument key)").into());
    }
    // the arguments as pi received them are made again for the error text,
    // so that the passing path copies them only once
    let mut args = js::js_ordered(arguments);
    normalize_optional_nulls(&mut args, &root);
    convert::convert_root(&root, &mut args);
    if matches!(args, Value::Object(_) | Value::Array(_)) {
        // coercion keeps an object an object and an array an array; pi
        // deletes every key and assigns the coerced ones: the same keys in
        // the same order (coercion neither adds nor removes)
        args = coerce::coerce(args, &root);
    } else {
        let coerced = coerce::coerce(args.clone(), &root);
        if !js::strict_eq(&args, &coerced) {
            // a primitive root that coercion changed: no error either way
            return Ok(if check(&root, &coerced, true) {
                coerced
            } else {
                args
            });
        }
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
        stringify_pretty(&js::js_ordered(arguments))
    )))
}

/// How deep a schema document may nest (objects and arrays): the walks
/// over the decoded schema recurse once per level.
const MAX_SCHEMA_DEPTH: usize = 256;

/// How deep arguments may nest (objects and arrays, the root counting
/// one). pi answers at this depth and deeper, until its `structuredClone`
/// throws `RangeError: Maximum call stack size exceeded`: measured with
/// Node 20.20.2's default stack, `{p: ...}` over 1,926 nested objects
/// passes and over 1,927 throws (3,245 and 3,246 nested arrays), at any
/// schema. That depth depends on V8's stack, not on anything a reference
/// can see, so the reference answers up to about half of it and refuses
/// past it. Every walk of the arguments that does not follow the schema
/// (copies, key order, the `__proto__` search, the error text) uses an
/// explicit stack; the walks that follow the schema go no deeper than it.
const MAX_ARGUMENT_DEPTH: usize = 1_000;

/// Whether objects and arrays nest more than `limit` levels (the root
/// container is level one), measured without recursion.
fn deeper_than(value: &Value, limit: usize) -> bool {
    let container = |c: &&Value| matches!(c, Value::Array(_) | Value::Object(_));
    let mut stack: Vec<(&Value, usize)> = Some(value)
        .filter(container)
        .map(|v| (v, 1))
        .into_iter()
        .collect();
    while let Some((v, depth)) = stack.pop() {
        if depth > limit {
            return true;
        }
        match v {
            Value::Array(items) => {
                stack.extend(items.iter().filter(container).map(|c| (c, depth + 1)))
            }
            Value::Object(map) => {
                stack.extend(map.values().filter(container).map(|c| (c, depth + 1)))
            }
            _ => {}
        }
    }
    false
}

/// Whether any object in `value` has a `__proto__` key, without recursion.
fn has_proto_key(value: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if map.contains_key("__proto__") {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
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
