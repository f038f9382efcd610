//! The scenario grammar: malformed scenarios give errors that name the JSON
//! Pointer of the fault (never a panic), and the naming rules adapters rely
//! on (inline nodes by JSON Pointer, nest levels by `#k`, null reasons).

use serde_json::{json, Value as Json};
use toolgate_core::scenario::{observe, Scenario};

/// Runs `scenario` through the oracle; `Ok` compares the observation's JSON
/// at `pointer` with the value, `Err` requires an error containing the text.
fn check(scenario: Json, expect: Result<(&str, Json), &str>) {
    let parsed: Result<Scenario, _> = serde_json::from_value(scenario);
    let observed = parsed
        .map_err(|e| e.to_string())
        .and_then(|s| observe(&s).map_err(|e| e.to_string()));
    match (observed, expect) {
        (Ok(o), Ok((pointer, want))) => {
            let o = serde_json::to_value(&o).unwrap();
            assert_eq!(o.pointer(pointer), Some(&want), "{pointer} in {o:#}");
        }
        (Err(e), Err(text)) => assert!(e.contains(text), "error {e:?} lacks {text:?}"),
        (got, want) => panic!("expected {want:?}, got {got:?}"),
    }
}

/// A scenario with one tool `t` whose executor returns `output`, and a call
/// with the given arguments value.
fn one_call(output: Json, arguments: Json) -> Json {
    json!({
        "nodes": {
            "validate": {"$": "function", "returns": {"$": "object", "props": {"ok": true, "value": null}}},
            "execute": {"$": "function", "returns": output},
            "tool": {"$": "object", "props": {"name": "t", "description": "d", "validate": {"ref": "validate"}, "execute": {"ref": "execute"}}}
        },
        "registrations": [{"$": "array", "items": [{"ref": "tool"}]}],
        "calls": [{"call": {"$": "object", "props": {"type": "toolCall", "id": "c", "name": "t", "arguments": arguments}}}]
    })
}

#[test]
fn malformed_values_name_where_they_are() {
    let cases = [
        (
            one_call(json!({"$": "nothing"}), json!({"$": "object"})),
            "/nodes/execute/returns: unknown node kind `nothing`",
        ),
        (
            one_call(json!({"ref": "missing"}), json!({"$": "object"})),
            "/nodes/execute/returns: no node named `missing`",
        ),
        (
            one_call(json!([1, 2]), json!({"$": "object"})),
            "/nodes/execute/returns: a value cannot be a JSON array",
        ),
        (
            one_call(json!({"a": 1}), json!({"$": "object"})),
            "an object value needs `$` or `ref`",
        ),
        (
            one_call(json!({"$": "nest", "depth": 0}), json!({"$": "object"})),
            "`depth` must be at least 1",
        ),
        (
            one_call(
                json!({"$": "object", "repeat": {"count": 3_000_000}}),
                json!({"$": "object"}),
            ),
            "above the limit 2000000",
        ),
        (
            one_call(
                json!({"$": "string", "repeat": "ab", "times": 20_000_000}),
                json!({"$": "object"}),
            ),
            "above the limit 20000000",
        ),
        (
            one_call(
                json!({"$": "string", "units": [65536]}),
                json!({"$": "object"}),
            ),
            "`units` must hold integers 0..=65535",
        ),
        (
            one_call(
                json!({"$": "bigint", "pow2": 3, "offset": -8}),
                json!({"$": "object"}),
            ),
            "|offset| must be below 2^pow2",
        ),
        (
            one_call(
                json!({"$": "array", "items": [1, 2], "length": 1}),
                json!({"$": "object"}),
            ),
            "`length` is shorter than the items",
        ),
        (
            one_call(json!({"$": "proxy", "target": 5}), json!({"$": "object"})),
            "a proxy target must be an object or array node",
        ),
        (
            one_call(
                json!({"$": "object", "proto": {"builtin": "Nope"}}),
                json!({"$": "object"}),
            ),
            "unknown builtin prototype",
        ),
        (
            one_call(json!({"$": "object", "colour": 1}), json!({"$": "object"})),
            "unknown field `colour`",
        ),
        (
            one_call(
                json!(1),
                json!({"$": "proxy", "target": {"$": "object"}, "traps": {"apply": "passThrough"}}),
            ),
            "/calls/0/call/props/arguments: unknown trap `apply`",
        ),
    ];
    for (scenario, error) in cases {
        check(scenario, Err(error));
    }
    check(
        json!({"calls": [{"call": 1, "when": 2}]}),
        Err("unknown field `when`"),
    );
    check(
        json!({"nodes": {"/x": {"$": "object"}}}),
        Err("node names must not start with '/'"),
    );
    check(
        json!({"nodes": {"a": {"$": "object", "proto": {"ref": "b"}}, "b": {"$": "object", "proto": {"ref": "a"}}}}),
        Err("chain longer than 64"),
    );
}

#[test]
fn inline_nodes_are_named_by_json_pointer() {
    // a getter defined inline on the call is named by its place
    let mut scenario = one_call(json!(1), json!({"$": "object"}));
    scenario["calls"][0]["call"] = json!({"$": "object", "props": {"type": "toolCall", "id": "c", "name": "t"},
        "define": [{"key": "arguments", "get": {"$": "function", "returns": {"$": "object"}}}]});
    check(
        scenario,
        Ok(("/calls/0/trace/0/call", json!("/calls/0/call/define/0/get"))),
    );
    // a proxy inline in an output is named by its place too
    let output = json!({"$": "array", "items": [{"$": "proxy", "target": {"$": "object"}, "traps": {"ownKeys": {"throw": "x"}}}]});
    check(
        one_call(output, json!({"$": "object"})),
        Ok((
            "/calls/0/trace/2",
            json!({"trap": "ownKeys", "proxy": "/nodes/execute/returns/items/0"}),
        )),
    );
}

#[test]
fn abort_reasons_keep_null_and_missing_apart() {
    let mut scenario = one_call(json!(1), json!({"$": "object"}));
    scenario["calls"][0]["abort"] = json!({"before": {"reason": null}});
    check(
        scenario.clone(),
        Ok(("/calls/0/outcome", json!({"cancelled": {"reason": null}}))),
    );
    scenario["calls"][0]["abort"] = json!({"before": {}});
    check(scenario, Ok(("/calls/0/outcome", json!({"cancelled": {}}))));
}

#[test]
fn argument_copies_are_encoded_with_tags_for_what_json_lacks() {
    let arguments = json!({"$": "object", "props": {
        "z": {"$": "number", "value": "-0"},
        "s": {"$": "string", "units": [55296]},
        "o": {"$": "object", "props": {"$": 1}}
    }});
    check(
        one_call(json!(1), arguments),
        Ok((
            "/calls/0/trace/0/args/0",
            json!({"z": {"$": "number", "value": "-0"}, "s": {"$": "string", "units": [55296]}, "o": {"$": "object", "entries": [["$", 1]]}}),
        )),
    );
}
