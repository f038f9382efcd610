//! pi-ai 0.85.0's `validateToolArguments`, replayed: every case of
//! `tests/data/pipeline-validation-0.85.json` (written by
//! `adapters/node/pipeline/typebox-golden.mjs` from the real package) must
//! come out of the Rust reference byte for byte: the converted arguments as
//! `JSON.stringify` text, or the exact error text. Then the subset's edges:
//! refusals and malformed schemas, never a panic.

use serde_json::{json, Value};
use toolgate_contract::pipeline::validation::{stringify, validate_tool_arguments, Rejection};
use toolgate_contract::ErrorKind;

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
        Err(Rejection::Unsupported(e)) => match e.kind() {
            ErrorKind::Model(what) => what.clone(),
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

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let mut deep = json!("x");
    for _ in 0..10_000 {
        // built by hand: `json!` would serialize (recursively) what it wraps
        let mut map = serde_json::Map::new();
        map.insert("a".to_owned(), deep);
        deep = Value::Object(map);
    }
    let schema = json!({"type": "object"});
    let r = validate_tool_arguments("probe", &schema, &deep);
    assert!(matches!(r, Err(Rejection::Unsupported(_))), "{r:?}");
    let r = validate_tool_arguments("probe", &deep, &json!({}));
    assert!(matches!(r, Err(Rejection::Unsupported(_))), "{r:?}");
    std::mem::forget(deep); // dropping 10,000 levels recurses too
}
