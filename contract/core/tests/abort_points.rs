//! The reference's abort points: where, between the jobs of a call's
//! asynchronous tail, an abort from outside can land, and what each gives
//! (`scenario::oracle::abort_points`). The sweep of SPEC.md compares an
//! implementation's aborts after N job-queue turns with these.

use serde_json::{json, Value as Json};
use toolgate_core::scenario::observation::CallObserved;
use toolgate_core::scenario::oracle::abort_points;
use toolgate_core::scenario::Scenario;
use toolgate_core::AbortReason;

/// The points of a one-call scenario whose executor returns `returned`
/// (with `nodes` besides), as (outcome, trace) JSON.
fn check(nodes: Json, execute: Json, expected: &[(Json, Json)]) {
    let mut all = json!({
        "validate": {"$": "function", "returns": {"$": "object", "props": {"ok": true, "value": 1}}},
        "execute": execute,
        "tool": {"$": "object", "props": {"name": "t", "description": "d",
            "validate": {"ref": "validate"}, "execute": {"ref": "execute"}}}
    });
    if let (Some(all), Some(extra)) = (all.as_object_mut(), nodes.as_object()) {
        all.extend(extra.clone());
    }
    let scenario: Scenario = serde_json::from_value(json!({
        "nodes": all,
        "registrations": [{"$": "array", "items": [{"ref": "tool"}]}],
        "calls": [{"call": {"$": "object", "props": {
            "type": "toolCall", "id": "c", "name": "t", "arguments": {"$": "object"}}}}]
    }))
    .expect("a scenario");
    let points = abort_points(&scenario, 0, &AbortReason::Value(json!("stop"))).expect("points");
    let seen: Vec<(Json, Json)> = points
        .iter()
        .map(|p: &CallObserved| {
            let p = serde_json::to_value(p).expect("json");
            (p["outcome"].clone(), p["trace"].clone())
        })
        .collect();
    assert_eq!(seen.len(), expected.len(), "{seen:#?}");
    for (i, ((outcome, trace), (want_outcome, want_trace))) in seen.iter().zip(expected).enumerate()
    {
        let kind = outcome.as_object().and_then(|o| o.keys().next().cloned());
        let want = want_outcome.as_str().unwrap_or_default();
        assert_eq!(kind.as_deref(), Some(want), "point {i}: {outcome}");
        assert_eq!(trace, want_trace, "point {i}");
    }
}

fn ran(name: &str) -> Json {
    json!({"call": name, "args": []})
}

fn prologue() -> Vec<Json> {
    vec![
        json!({"call": "validate", "args": [{}]}),
        json!({"call": "execute", "args": [1, {"$": "context", "toolCallId": "c"}]}),
    ]
}

fn trace(tail: &[Json]) -> Json {
    let mut t = prologue();
    t.extend_from_slice(tail);
    Json::Array(t)
}

fn abort() -> Json {
    json!({"abort": {"reason": "stop"}})
}

#[test]
fn an_output_with_a_then_getter_has_three_points() {
    // the getter runs when Promise.resolve reads `then`, again when the
    // second promise resolves, then the resumption checks the signal: an
    // abort before the second read, one after it, and one after the result
    check(
        json!({"thenGetter": {"$": "function", "returns": 5}}),
        json!({"$": "function", "returns": {"$": "object", "props": {"x": 1},
            "define": [{"key": "then", "get": {"ref": "thenGetter"}}]}}),
        &[
            (json!("cancelled"), trace(&[ran("thenGetter"), abort()])),
            (
                json!("cancelled"),
                trace(&[ran("thenGetter"), ran("thenGetter"), abort()]),
            ),
            (
                json!("result"),
                trace(&[ran("thenGetter"), ran("thenGetter"), abort()]),
            ),
        ],
    );
}

#[test]
fn a_thenable_result_is_called_in_a_job_of_its_own() {
    let then = json!({"call": "then", "args": [{"$": "callback"}, {"$": "callback"}]});
    check(
        json!({"then": {"$": "function", "callsBack": {"index": 0, "value": 1}}}),
        json!({"$": "function", "returns": {"$": "object", "props": {"then": {"ref": "then"}}}}),
        &[
            // aborted before the `then` job: it still runs, after the abort
            (json!("cancelled"), trace(&[abort(), then.clone()])),
            (json!("cancelled"), trace(&[then.clone(), abort()])),
            (json!("result"), trace(&[then, abort()])),
        ],
    );
}

#[test]
fn a_plain_value_gives_a_cancellation_or_a_result_and_the_listener_fires_either_way() {
    let listener = json!({"abortListener": "execute"});
    check(
        json!({}),
        json!({"$": "function", "effects": ["listenForAbort"], "returns": 1}),
        &[
            (json!("cancelled"), trace(&[abort(), listener.clone()])),
            (json!("result"), trace(&[abort(), listener])),
        ],
    );
}

#[test]
fn a_pending_executor_has_one_point() {
    check(
        json!({}),
        json!({"$": "function", "returns": {"$": "promise", "pending": true}}),
        &[(json!("cancelled"), trace(&[abort()]))],
    );
}
