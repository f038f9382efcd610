//! pi-ai 0.85.0's `validateToolArguments`, replayed: every case of
//! `tests/data/pipeline-validation-0.85.json` (written by
//! `adapters/node/pipeline/typebox-golden.mjs` from the real package) must
//! come out of the Rust reference byte for byte: the converted arguments as
//! `JSON.stringify` text, or the exact error text. Then the subset's edges:
//! refusals and malformed schemas, never a panic.

use serde_json::{json, Value};
use toolgate_pipeline::validation::{stringify, validate_tool_arguments, Rejection};
use toolgate_suite::Error;

const GOLDEN: &str = include_str!("data/pipeline-validation-0.85.json");

/// What the reference says, in the golden file's terms.
fn outcome(tool: &str, schema: &Value, arguments: &Value) -> Result<String, String> {
    match validate_tool_arguments(tool, schema, arguments) {
        Ok(value) => Ok(stringify(&value)),
        Err(Rejection::Invalid(text)) => Err(text),
        Err(Rejection::Unsupported(e)) => Err(format!("UNSUPPORTED: {e:?}")),
    }
}

/// One comparison: `None` when the reference agrees with `expected`.
fn check(
    name: &str,
    tool: &str,
    schema: &Value,
    arguments: &Value,
    expected: &Result<String, String>,
) -> Option<String> {
    let actual = outcome(tool, schema, arguments);
    (actual != *expected)
        .then(|| format!("{name}:\n  expected {expected:?}\n  actual   {actual:?}"))
}

#[test]
fn every_golden_case_matches_pi_byte_for_byte() {
    let entries: Vec<Value> = serde_json::from_str(GOLDEN).expect("the golden file is JSON");
    assert!(entries.len() >= 150, "only {} golden cases", entries.len());
    let mut mismatches = Vec::new();
    for entry in &entries {
        let name = entry["name"].as_str().expect("a name");
        let result = &entry["result"];
        let expected = match (result.get("json"), result.get("error")) {
            (Some(Value::String(text)), None) => Ok(text.clone()),
            (None, Some(Value::String(text))) => Err(text.clone()),
            _ => panic!("{name}: a result is {{ok, json}} or {{error}}"),
        };
        let tool = entry["tool"].as_str().unwrap_or("probe");
        mismatches.extend(check(
            name,
            tool,
            &entry["schema"],
            &entry["arguments"],
            &expected,
        ));
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} golden cases differ:\n{}",
        mismatches.len(),
        entries.len(),
        mismatches.join("\n")
    );
}

fn unsupported(schema: Value, arguments: Value) -> String {
    match validate_tool_arguments("probe", &schema, &arguments) {
        Err(Rejection::Unsupported(e)) => match e {
            Error::Model(what) => what,
            other => panic!("unsupported as {other:?}"),
        },
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn keywords_outside_the_subset_are_refused_by_name() {
    for (schema, keyword) in [
        (
            json!({"type": "object", "properties": {"p": {"type": "string", "pattern": "^x"}}}),
            "pattern",
        ),
        (
            json!({"type": "object", "properties": {"p": {"oneOf": [{"type": "string"}]}}}),
            "oneOf",
        ),
        (json!({"type": "object", "allOf": []}), "allOf"),
        (
            json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/x"}}}),
            "$ref",
        ),
        (
            json!({"type": "object", "patternProperties": {}}),
            "patternProperties",
        ),
        (
            json!({"type": "object", "properties": {"p": {"type": "number", "multipleOf": 2}}}),
            "multipleOf",
        ),
        (
            json!({"type": "object", "properties": {"p": {"type": "string", "format": "uri"}}}),
            "format",
        ),
    ] {
        assert_eq!(
            unsupported(schema, json!({})),
            format!("unsupported schema keyword {keyword}")
        );
    }
    // a kind TypeBox has but the subset does not
    assert!(unsupported(json!({"~kind": "Record", "type": "object"}), json!({})).contains("~kind"));
    // names that are regular expressions to Value.Convert, or inherited
    assert!(unsupported(
        json!({"~kind": "Object", "type": "object", "properties": {"a.b": {}}}),
        json!({})
    )
    .contains("regular expression"));
    assert!(unsupported(
        json!({"type": "object", "properties": {"toString": {}}}),
        json!({})
    )
    .contains("toString"));
    assert!(
        unsupported(json!({"type": "object"}), json!({"a": {"__proto__": 1}}))
            .contains("__proto__")
    );
}

#[test]
fn malformed_schemas_are_refused_without_panicking() {
    for schema in [
        json!(null),
        json!(true),
        json!("object"),
        json!([]),
        json!({"type": 5}),
        json!({"type": []}),
        json!({"type": "bigint"}),
        json!({"properties": []}),
        json!({"properties": {"a": 5}}),
        json!({"properties": {"a": true}}),
        json!({"required": "a"}),
        json!({"required": [1]}),
        json!({"items": [{}]}),
        json!({"items": 3}),
        json!({"anyOf": {}}),
        json!({"anyOf": [5]}),
        json!({"const": {"a": 1}}),
        json!({"enum": "a"}),
        json!({"minLength": "3"}),
        json!({"additionalProperties": 1}),
        json!({"~kind": "Object", "type": "object"}),
        json!({"~kind": "Union"}),
        json!({"~kind": "Literal", "const": null}),
        json!({"~kind": "Enum", "enum": [true]}),
        json!({"~kind": 7}),
    ] {
        for arguments in [json!({}), json!(null), json!([1, {"a": null}]), json!("x")] {
            let r = validate_tool_arguments("probe", &schema, &arguments);
            assert!(
                matches!(r, Err(Rejection::Unsupported(_))),
                "{schema} with {arguments}: {r:?}"
            );
        }
    }
}

#[test]
fn arguments_keep_javascript_key_order() {
    // JSON.parse puts array-index keys first, ascending, in the dump too
    let arguments: Value = serde_json::from_str(r#"{"b":"x","10":1,"a":2,"2":3}"#).expect("JSON");
    let schema =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["zz"]});
    let text = outcome("t", &schema, &arguments).expect_err("zz is missing");
    assert!(
        text.ends_with("{\n  \"2\": 3,\n  \"10\": 1,\n  \"b\": \"x\",\n  \"a\": 2\n}"),
        "{text}"
    );
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    assert_eq!(
        outcome("t", &schema, &arguments),
        Ok(r#"{"2":3,"10":1,"b":"x","a":"2"}"#.to_owned())
    );
}

// ---------------------------------------------------------------------------
// hostile sizes: 10^6 keys, 10^5 levels. Texts and lengths below are those
// pi-ai 0.85.0 gave on the same inputs (Node 20.20.2); where pi throws
// RangeError (Maximum call stack size exceeded) the reference refuses.
// ---------------------------------------------------------------------------

/// `{first..., k0: value(0), k1: value(1), ...}`.
fn wide(n: usize, first: &[(&str, Value)], value: impl Fn(usize) -> Value) -> Value {
    let mut map = serde_json::Map::with_capacity(n + first.len());
    for (k, v) in first {
        map.insert((*k).to_owned(), v.clone());
    }
    for i in 0..n {
        map.insert(format!("k{i}"), value(i));
    }
    Value::Object(map)
}

/// `{"p": ...}` over `depth - 1` objects `{"a": ...}` (or arrays) around
/// `"x"`: `depth` containers, the root counting one. Built by hand: `json!`
/// recurses.
fn deep(depth: usize, objects: bool) -> Value {
    let mut v = json!("x");
    for _ in 1..depth {
        v = if objects {
            let mut map = serde_json::Map::new();
            map.insert("a".to_owned(), v);
            Value::Object(map)
        } else {
            Value::Array(vec![v])
        };
    }
    let mut root = serde_json::Map::new();
    root.insert("p".to_owned(), v);
    Value::Object(root)
}

/// Drops a value of any depth without recursion (`Value`'s own drop
/// recurses once per level).
fn dismantle(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// `{p: String}` as TypeBox builds it, with `additionalProperties`.
fn typebox_p(additional: Option<Value>) -> Value {
    let mut schema = json!({"type": "object", "required": ["p"],
        "properties": {"p": {"type": "string", "~kind": "String"}}, "~kind": "Object"});
    if let (Some(a), Some(map)) = (additional, schema.as_object_mut()) {
        map.insert("additionalProperties".to_owned(), a);
    }
    schema
}

fn refusal(schema: &Value, arguments: &Value) -> String {
    match validate_tool_arguments("probe", schema, arguments) {
        Err(Rejection::Unsupported(e)) => match e {
            Error::Model(what) => what,
            other => panic!("unsupported as {other:?}"),
        },
        Ok(_) => panic!("expected a refusal, got arguments"),
        Err(other) => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_million_extra_keys_fail_with_pis_text() {
    let n = 1_000_000;
    let mut arguments = wide(n, &[("p", json!("x"))], |i| json!(i));
    let body: Vec<String> = (0..n).map(|i| format!("  \"k{i}\": {i}")).collect();
    let body = body.join(",\n");
    let schema = typebox_p(Some(json!(false)));
    let text = outcome("probe", &schema, &arguments).expect_err("extra keys");
    let expected = format!(
        "Validation failed for tool \"probe\":\n  - root: must not have additional properties\n\nReceived arguments:\n{{\n  \"p\": \"x\",\n{body}\n}}"
    );
    assert_eq!(text.len(), 20_777_897);
    assert!(text == expected, "{}", &text[..200]);
    // without `p`: pi's two lines, the missing name appended to its path
    if let Some(map) = arguments.as_object_mut() {
        map.shift_remove("p");
    }
    let text = outcome("probe", &schema, &arguments).expect_err("extra keys, p missing");
    let expected = format!(
        "Validation failed for tool \"probe\":\n  - p: must have required properties p\n  - root: must not have additional properties\n\nReceived arguments:\n{{\n{body}\n}}"
    );
    assert_eq!(text.len(), 20_777_924);
    assert!(text == expected, "{}", &text[..200]);
}

#[test]
fn a_million_keys_pass_and_coerce_as_pi_does() {
    let n = 1_000_000;
    // no additionalProperties: every key kept, in order
    let arguments = wide(n, &[("p", json!("x"))], |i| json!(i));
    let text = outcome("probe", &typebox_p(None), &arguments).expect("passes");
    assert_eq!(text.len(), 16_777_789);
    assert!(text == stringify(&arguments));
    drop(arguments);
    // pi's own coercion of every undeclared value, as a plain schema asks
    for (kind, len) in [("number", 18_777_789), ("boolean", 15_388_899)] {
        let number = kind == "number";
        let schema = json!({"type": "object", "properties": {"p": {"type": "string"}},
            "required": ["p"], "additionalProperties": {"type": kind}});
        let arguments = wide(n, &[("p", json!("x"))], |i| match (number, i % 2) {
            (true, _) => json!(format!("{i}.5")),
            (false, 1) => json!("true"),
            (false, _) => json!("false"),
        });
        let text = outcome("probe", &schema, &arguments).expect("coerced");
        let body: Vec<String> = (0..n)
            .map(|i| match number {
                true => format!("\"k{i}\":{i}.5"),
                false => format!("\"k{i}\":{}", i % 2 == 1),
            })
            .collect();
        assert_eq!(text.len(), len, "{kind}");
        assert!(
            text == format!("{{\"p\":\"x\",{}}}", body.join(",")),
            "{kind}"
        );
    }
}

#[test]
fn deep_arguments_are_answered_to_a_thousand_levels() {
    // 1,000 containers: pi answers (and up to 1,927 objects, see below)
    let objects = deep(1_000, true);
    let any = json!({"type": "object", "required": ["p"], "properties": {"p": {"~kind": "Any"}}, "~kind": "Object"});
    let text = outcome("probe", &any, &objects).expect("Any takes anything");
    assert_eq!(text.len(), 6_003);
    assert_eq!(
        text,
        format!(
            "{{\"p\":{}\"x\"{}}}",
            "{\"a\":".repeat(999),
            "}".repeat(999)
        )
    );
    let text = outcome("probe", &typebox_p(None), &objects).expect_err("not a string");
    // JSON.stringify(arguments, null, 2), 1,000 levels of two spaces
    let mut dump = String::from("{\n  \"p\": {\n");
    for level in 2..=1_000 {
        dump.push_str(&" ".repeat(2 * level));
        dump.push_str(if level == 1_000 {
            "\"a\": \"x\"\n"
        } else {
            "\"a\": {\n"
        });
    }
    for level in (1..1_000).rev() {
        dump.push_str(&" ".repeat(2 * level));
        dump.push_str("}\n");
    }
    dump.push('}');
    assert_eq!(text.len(), 2_009_082);
    assert!(
        text == format!("Validation failed for tool \"probe\":\n  - p: must be string\n\nReceived arguments:\n{dump}"),
        "{}",
        &text[..300]
    );
    let arrays = deep(1_000, false);
    let text = outcome(
        "probe",
        &json!({"type": "object", "properties": {"p": {}}, "required": ["p"]}),
        &arrays,
    )
    .expect("{} takes anything");
    assert_eq!(text.len(), 2_007);
    dismantle(objects);
    dismantle(arrays);
}

#[test]
fn deeper_arguments_are_refused_where_pi_throws_range_error() {
    // pi's structuredClone throws RangeError (Maximum call stack size
    // exceeded) from 1,928 nested objects on Node 20.20.2's default stack,
    // at 10^5 levels under every schema; the reference refuses past 1,000
    // levels, on this test thread's own stack, without recursing
    let schemas = [
        json!({"type": "object", "required": ["p"], "properties": {"p": {"~kind": "Any"}}, "~kind": "Object"}),
        json!({"type": "object", "properties": {"p": {}}}),
        json!({"type": "object", "properties": {"p": {"type": "object"}}, "additionalProperties": false}),
        typebox_p(None),
    ];
    for depth in [1_001, 100_000] {
        for objects in [true, false] {
            let arguments = deep(depth, objects);
            for schema in &schemas {
                let why = refusal(schema, &arguments);
                assert!(
                    why.contains("arguments nested more than 1000 levels deep")
                        && why.contains("RangeError: Maximum call stack size exceeded"),
                    "{why}"
                );
            }
            dismantle(arguments);
        }
    }
}

#[test]
fn schemas_whose_compiled_check_overflows_v8_are_refused() {
    // TypeBox's Compile nests one parenthesis per property; V8 throws
    // RangeError from 1,604 properties in one object (Node 20.20.2). At
    // 1,020 pi answers; the reference's limit is between the two.
    let object = |n: usize| {
        let props: serde_json::Map<String, Value> = (0..n)
            .map(|i| (format!("k{i}"), json!({"type": "number"})))
            .collect();
        let required: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
        json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
    };
    let arguments = wide(1_020, &[], |i| json!(i));
    assert_eq!(
        outcome("probe", &object(1_020), &arguments),
        Ok(stringify(&arguments))
    );
    for n in [1_021, 10_000, 100_000] {
        let why = refusal(&object(n), &json!({}));
        assert!(
            why.contains(&format!("compiled check nests {} levels", n + 4))
                && why.contains("RangeError: Maximum call stack size exceeded"),
            "{why}"
        );
    }
    // nesting adds up along a path: ten levels of 98 properties (and the
    // next level first) pass in pi, ten levels of 157 throw
    let levels = |n: usize| {
        let mut schema = json!({"type": "string"});
        for _ in 0..10 {
            let mut props = serde_json::Map::new();
            props.insert("first".to_owned(), schema);
            for i in 0..n {
                props.insert(format!("k{i}"), json!({"type": "number"}));
            }
            schema = json!({"type": "object", "properties": props});
        }
        schema
    };
    assert!(validate_tool_arguments("probe", &levels(98), &json!({})).is_ok());
    assert!(refusal(&levels(157), &json!({})).contains("compiled check nests"));
}

#[test]
fn a_thousand_declared_strings_coerce_as_pi_coerces_them() {
    let types = ["number", "boolean", "integer"];
    let props: serde_json::Map<String, Value> = (0..1_000)
        .map(|i| (format!("k{i}"), json!({"type": types[i % 3]})))
        .collect();
    let required: Vec<String> = (0..1_000).map(|i| format!("k{i}")).collect();
    let schema = json!({"type": "object", "properties": props, "required": required});
    let given = |i: usize| match i % 3 {
        0 => json!(format!("{i}.5")),
        1 => json!(if i % 2 == 1 { "true" } else { "false" }),
        _ => json!(i.to_string()),
    };
    let made = |i: usize| match i % 3 {
        0 => format!("{i}.5"),
        1 => (i % 2 == 1).to_string(),
        _ => i.to_string(),
    };
    let text = outcome("probe", &schema, &wide(1_000, &[], given)).expect("coerced");
    let body: Vec<String> = (0..1_000)
        .map(|i| format!("\"k{i}\":{}", made(i)))
        .collect();
    assert_eq!(text.len(), 11_984);
    assert_eq!(text, format!("{{{}}}", body.join(",")));
}

#[test]
fn deep_schemas_are_refused_not_overflowed() {
    let mut deep = json!("x");
    for _ in 0..10_000 {
        // built by hand: `json!` would serialize (recursively) what it wraps
        let mut map = serde_json::Map::new();
        map.insert("a".to_owned(), deep);
        deep = Value::Object(map);
    }
    let r = validate_tool_arguments("probe", &deep, &json!({}));
    assert!(matches!(r, Err(Rejection::Unsupported(_))), "{r:?}");
    dismantle(deep);
}
