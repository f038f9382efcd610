//! Hostile arguments for the pipeline suite's validation reference
//! (`toolgate_pipeline::validation`, pi-ai 0.85.0's
//! `validateToolArguments` with TypeBox 1.3.7), at growing sizes, shared by
//! the criterion bench (`benches/validation.rs`) and the table
//! (`src/bin/bench-table.rs`).
//!
//! Every family is a function from a size to a [`Case`]: a schema, the
//! arguments as a `serde_json` value and their JSON text, built once and
//! outside any measured loop. Two things are measured on each case:
//! `validate_tool_arguments(schema, arguments)` and, as the same-run
//! baseline, `serde_json` parsing the arguments' text into a value.
//! [`Answer`] says what the reference answers at each size, and why pi
//! answers the same (or throws where the reference refuses).

use serde::Deserialize;
use serde_json::{json, Map, Value};
use toolgate_pipeline::validation::{stringify, validate_tool_arguments, Rejection};

/// One input: the schema, the arguments and their JSON text.
pub struct Case {
    pub schema: Value,
    pub arguments: Value,
    /// `JSON.stringify(arguments)`: what the model's tool call carries.
    pub text: String,
}

impl Case {
    fn new(schema: Value, arguments: Value) -> Case {
        let text = stringify(&arguments);
        Case {
            schema,
            arguments,
            text,
        }
    }

    /// One validation: what the benchmarks measure.
    pub fn validate(&self) -> Result<Value, Rejection> {
        validate_tool_arguments("probe", &self.schema, &self.arguments)
    }

    /// What the reference answered, to compare with the family's [`Answer`].
    pub fn answer(&self) -> Answer {
        match self.validate() {
            Ok(value) => {
                dismantle(value);
                Answer::Passes
            }
            Err(Rejection::Invalid(_)) => Answer::Fails,
            Err(Rejection::Unsupported(_)) => Answer::Refused,
        }
    }
}

/// `serde_json::from_str::<Value>(text)` without the recursion limit of 128
/// (the `unbounded_depth` feature): the same parser, whose recursion then
/// needs a stack as deep as the text (the bench runs on a large one).
pub fn parse(text: &str) -> serde_json::Result<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Drops a value of any depth without recursion (`Value`'s own drop
/// recurses once per level).
pub fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// What the reference answers, as pi does: arguments, pi's error text, or a
/// refusal where pi throws `RangeError: Maximum call stack size exceeded`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Passes,
    Fails,
    Refused,
}

impl Answer {
    pub fn describe(self) -> &'static str {
        match self {
            Answer::Passes => "passes",
            Answer::Fails => "fails (pi's text)",
            Answer::Refused => "refused (pi: RangeError)",
        }
    }
}

/// A family of hostile arguments.
pub struct Family {
    pub name: &'static str,
    /// What a size counts.
    pub unit: &'static str,
    /// Sizes, ascending.
    pub sizes: &'static [u64],
    pub build: fn(u64) -> Case,
    /// What the reference answers at a size (the bench checks it).
    pub answer: fn(u64) -> Answer,
    /// One line on why this shape.
    pub about: &'static str,
}

const WIDE: &[u64] = &[100, 1_000, 10_000, 100_000, 1_000_000];
const DEEP: &[u64] = &[10, 100, 1_000, 10_000, 100_000];

/// The families, in table order.
pub fn families() -> Vec<Family> {
    vec![
        Family {
            name: "wide_extra_keys_false",
            unit: "extra keys",
            sizes: WIDE,
            build: |n| Case::new(typebox_p(Some(json!(false))), wide(n, |i| json!(i))),
            answer: |_| Answer::Fails,
            about: "{p: \"x\", k0: 0, ...} against TypeBox {p: String}, additionalProperties false: one error line, then every key in the text",
        },
        Family {
            name: "wide_extra_keys_true",
            unit: "extra keys",
            sizes: WIDE,
            build: |n| Case::new(typebox_p(Some(json!(true))), wide(n, |i| json!(i))),
            answer: |_| Answer::Passes,
            about: "the same arguments, additionalProperties true: every key kept",
        },
        Family {
            name: "wide_declared",
            unit: "properties",
            sizes: &[10, 100, 1_000, 10_000, 100_000],
            build: wide_declared,
            answer: |n| {
                if n <= 1_020 {
                    Answer::Passes
                } else {
                    Answer::Refused
                }
            },
            about: "n declared number properties, all required, additionalProperties false; TypeBox's Compile throws in pi from 1,606",
        },
        Family {
            name: "deep_any_objects",
            unit: "levels",
            sizes: DEEP,
            build: |d| Case::new(typebox_any(), deep(d, true)),
            answer: deep_answer,
            about: "{p: {a: {a: ...}}} against TypeBox {p: Any}; pi's structuredClone throws from 1,928 levels",
        },
        Family {
            name: "deep_any_arrays",
            unit: "levels",
            sizes: DEEP,
            build: |d| {
                let schema = json!({"type": "object", "properties": {"p": {}}, "required": ["p"]});
                Case::new(schema, deep(d, false))
            },
            answer: deep_answer,
            about: "{p: [[[...]]]} against plain {p: {}}; pi's structuredClone throws from 3,247 levels",
        },
        Family {
            name: "coerce_strings",
            unit: "values",
            sizes: WIDE,
            build: coerce_strings,
            answer: |_| Answer::Passes,
            about: "{p: \"x\", k0: \"0.5\", ...} against plain additionalProperties {type: number}: every value coerced",
        },
        Family {
            name: "coerce_declared",
            unit: "properties",
            sizes: &[10, 100, 1_000],
            build: coerce_declared,
            answer: |_| Answer::Passes,
            about: "n declared number, boolean and integer properties given as strings, all coerced",
        },
    ]
}

/// The family called `name`.
pub fn family(name: &str) -> Option<Family> {
    families().into_iter().find(|f| f.name == name)
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// `{p: "x", k0: value(0), k1: value(1), ...}`.
fn wide(n: u64, value: impl Fn(usize) -> Value) -> Value {
    let n = to_usize(n);
    let mut map = Map::with_capacity(n + 1);
    map.insert("p".to_owned(), json!("x"));
    for i in 0..n {
        map.insert(format!("k{i}"), value(i));
    }
    Value::Object(map)
}

/// TypeBox's `Type.Object({p: Type.String()}, {additionalProperties})`, as
/// JSON with its `~kind` markers.
fn typebox_p(additional: Option<Value>) -> Value {
    let mut schema = json!({"type": "object", "required": ["p"],
        "properties": {"p": {"type": "string", "~kind": "String"}}, "~kind": "Object"});
    if let (Some(a), Some(map)) = (additional, schema.as_object_mut()) {
        map.insert("additionalProperties".to_owned(), a);
    }
    schema
}

/// `Type.Object({p: Type.Any()})`.
fn typebox_any() -> Value {
    json!({"type": "object", "required": ["p"], "properties": {"p": {"~kind": "Any"}}, "~kind": "Object"})
}

/// `{p: ...}` with `depth` containers in all (the root counting one):
/// objects `{a: ...}` or arrays `[...]` around `"x"`, built without
/// recursion.
fn deep(depth: u64, objects: bool) -> Value {
    let mut v = json!("x");
    for _ in 1..depth {
        v = if objects {
            let mut map = Map::new();
            map.insert("a".to_owned(), v);
            Value::Object(map)
        } else {
            Value::Array(vec![v])
        };
    }
    let mut root = Map::new();
    root.insert("p".to_owned(), v);
    Value::Object(root)
}

fn deep_answer(depth: u64) -> Answer {
    if depth <= 1_000 {
        Answer::Passes
    } else {
        Answer::Refused
    }
}

fn names(n: u64) -> impl Iterator<Item = String> {
    (0..n).map(|i| format!("k{i}"))
}

/// `n` declared number properties, all required, no others allowed.
fn wide_declared(n: u64) -> Case {
    let props: Map<String, Value> = names(n).map(|k| (k, json!({"type": "number"}))).collect();
    let required: Vec<String> = names(n).collect();
    let schema = json!({"type": "object", "properties": props, "required": required,
        "additionalProperties": false});
    let arguments: Map<String, Value> = names(n).zip(0u64..).map(|(k, i)| (k, json!(i))).collect();
    Case::new(schema, Value::Object(arguments))
}

/// `n` undeclared values `"i.5"` that pi's own coercion turns into numbers.
fn coerce_strings(n: u64) -> Case {
    let schema = json!({"type": "object", "properties": {"p": {"type": "string"}},
        "required": ["p"], "additionalProperties": {"type": "number"}});
    Case::new(schema, wide(n, |i| json!(format!("{i}.5"))))
}

/// `n` declared properties, by turns number, boolean and integer, each
/// given as a string.
fn coerce_declared(n: u64) -> Case {
    let types = ["number", "boolean", "integer"];
    let props: Map<String, Value> = names(n)
        .zip(types.iter().cycle())
        .map(|(k, t)| (k, json!({"type": t})))
        .collect();
    let required: Vec<String> = names(n).collect();
    let schema = json!({"type": "object", "properties": props, "required": required});
    let arguments: Map<String, Value> = names(n)
        .zip(0u64..)
        .map(|(k, i)| {
            let v = match i % 3 {
                0 => format!("{i}.5"),
                1 if i % 2 == 1 => "true".to_owned(),
                1 => "false".to_owned(),
                _ => i.to_string(),
            };
            (k, json!(v))
        })
        .collect();
    Case::new(schema, Value::Object(arguments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_sizes_answer_as_declared_and_parse_back() {
        // parsing recurses once per level: sizes a test thread's stack holds
        for family in families() {
            for &size in family.sizes.iter().filter(|&&s| s <= 1_000) {
                let case = (family.build)(size);
                assert_eq!(
                    case.answer(),
                    (family.answer)(size),
                    "{} {size}",
                    family.name
                );
                let parsed = parse(&case.text).unwrap_or(Value::Null);
                assert!(stringify(&parsed) == case.text, "{} {size}", family.name);
                dismantle(parsed);
                dismantle(case.arguments);
            }
        }
    }
}
