//! The checks that judge an implementation's observation against the
//! reference's: real scenarios (the worked examples of the corpus, edited)
//! are observed by the oracle, then each observation is mutated the way a
//! faulty implementation would differ, and the checks must name the
//! requirement that mutation breaks.

use serde_json::{json, Value as Json};
use toolgate_core::scenario::checks::{check_core, same_as_written, Violation};
use toolgate_core::scenario::observation::{
    CallEvent, Event, ListenerEvent, Outcome, ReasonObserved, Registered,
};
use toolgate_core::scenario::{observe, Observation, Scenario};
use toolgate_core::ContractCode;

type Checker = fn(&Scenario, &Observation, &Observation) -> Vec<Violation>;
type Mutation<'a> = (&'a str, &'a dyn Fn(&mut Observation), &'a str);

/// Takes the worked example `case` (or the core case `group/name`), applies `edit` to its scenario (as
/// JSON), observes it on the reference, and checks that `checker` finds
/// nothing in the identical observation, then for each mutation of a copy
/// that it finds `want`: a requirement id among the violations,
/// `"reference"` for an unnamed difference, `"none"` for no violation.
fn check(case: &str, edit: &dyn Fn(&mut Json), checker: Checker, mutations: &[Mutation<'_>]) {
    // `name` is a worked example, `group/name` any core case
    let (group, case) = case.split_once('/').unwrap_or(("worked-examples", case));
    let files = toolgate_corpus::of_suite(&toolgate_core::CORE).unwrap();
    let (_, file) = files
        .iter()
        .find(|(path, _)| *path == format!("core/{group}.json"))
        .unwrap_or_else(|| panic!("no core case file {group}"));
    let mut scenario = file
        .cases
        .iter()
        .find(|c| c.name == case)
        .unwrap()
        .scenario
        .clone();
    edit(&mut scenario);
    let scenario: Scenario = serde_json::from_value(scenario).unwrap();
    let expected = observe(&scenario).unwrap();
    let found = check_core(&scenario, &expected, &expected.clone());
    assert!(found.is_empty(), "identical observations: {found:#?}");
    for (label, mutate, want) in mutations {
        let mut actual = expected.clone();
        mutate(&mut actual);
        assert!(
            !same_as_written(&actual, &expected),
            "{label}: the mutation changes nothing"
        );
        let found = checker(&scenario, &expected, &actual);
        let shown: Vec<String> = found.iter().map(Violation::to_string).collect();
        for (v, text) in found.iter().zip(&shown) {
            let prefix = v
                .requirement
                .clone()
                .unwrap_or("differs from the reference".into());
            assert!(text.starts_with(&format!("{prefix}: ")), "{label}: {text}");
        }
        match *want {
            "none" => assert!(found.is_empty(), "{label}: expected none, got {shown:#?}"),
            "reference" => assert!(
                found.iter().any(|v| v.requirement.is_none()),
                "{label}: expected an unnamed difference, got {shown:#?}"
            ),
            id => assert!(
                found.iter().any(|v| v.requirement.as_deref() == Some(id)),
                "{label}: expected {id}, got {shown:#?}"
            ),
        }
    }
}

#[test]
fn success_results_name_the_requirement_of_each_difference() {
    let set = |o: &mut Observation, content: &str| {
        if let Outcome::Result(r) = &mut o.calls[0].outcome {
            r.content = content.to_string();
        }
    };
    let result = |o: &mut Observation| match &mut o.calls[0].outcome {
        Outcome::Result(r) => r.clone(),
        other => panic!("{other:?}"),
    };
    let event = |name: &str| {
        Event::Call(CallEvent {
            call: name.to_string(),
            args: vec![],
        })
    };
    check(
        "sum-and-exact",
        &|_| {},
        check_core,
        &[
            (
                "keys in insertion order",
                &|o| set(o, r#"{"sum":42,"exact":true}"#),
                "CORE-SER-05",
            ),
            (
                "a number as 42.0",
                &|o| set(o, r#"{"exact":true,"sum":42.0}"#),
                "CORE-SER-01",
            ),
            (
                "truncated though it fits",
                &|o| set(o, "{\"exact\":true,\"sum\":42}\n[Tool output truncated]"),
                "CORE-SER-10",
            ),
            (
                "isError flipped",
                &|o| {
                    let mut r = result(o);
                    r.is_error = true;
                    o.calls[0].outcome = Outcome::Result(r);
                },
                "CORE-RES-01",
            ),
            (
                "another toolCallId",
                &|o| {
                    let mut r = result(o);
                    r.tool_call_id = json!("x");
                    o.calls[0].outcome = Outcome::Result(r);
                },
                "CORE-RES-01",
            ),
            (
                "another id",
                &|o| {
                    let mut r = result(o);
                    r.id = json!("c1");
                    o.calls[0].outcome = Outcome::Result(r);
                },
                "CORE-RES-01",
            ),
            (
                "another toolName",
                &|o| {
                    let mut r = result(o);
                    r.tool_name = json!("T");
                    o.calls[0].outcome = Outcome::Result(r);
                },
                "CORE-RES-01",
            ),
            (
                "a serialization failure instead",
                &|o| {
                    let mut r = result(o);
                    r.is_error = true;
                    r.content = r#"{"error":{"code":"TOOL_OUTPUT_SERIALIZATION_FAILED","message":"Tool output could not be serialized safely"}}"#.into();
                    o.calls[0].outcome = Outcome::Result(r);
                },
                "CORE-SER-08",
            ),
            (
                "execute ran twice",
                &|o| o.calls[0].trace.push(event("execute")),
                "CORE-EXE-01",
            ),
            (
                "validate never ran",
                &|o| drop(o.calls[0].trace.remove(0)),
                "CORE-VAL-01",
            ),
            (
                "execute ran first",
                &|o| o.calls[0].trace.swap(0, 1),
                "CORE-VAL-01",
            ),
            (
                "validate got another copy",
                &|o| {
                    if let Event::Call(c) = &mut o.calls[0].trace[0] {
                        c.args = vec![json!({"x": 1})];
                    }
                },
                "CORE-CALL-06",
            ),
            (
                "execute got another context",
                &|o| {
                    if let Event::Call(c) = &mut o.calls[0].trace[1] {
                        c.args[1] = json!({"$": "context", "toolCallId": "x"});
                    }
                },
                "CORE-EXE-01",
            ),
            (
                "cancelled though nothing aborted",
                &|o| o.calls[0].outcome = Outcome::Cancelled(ReasonObserved::default()),
                "CORE-CAN-08",
            ),
            (
                "left pending",
                &|o| o.calls[0].outcome = Outcome::Pending,
                "CORE-EXE-03",
            ),
            (
                "a valid call refused",
                &|o| o.calls[0].outcome = Outcome::ContractError(ContractCode::InvalidToolCall),
                "CORE-CALL-02",
            ),
            (
                "a rejection as non-recoverable",
                &|o| o.calls[0].outcome = Outcome::NonRecoverable("execute".into()),
                "CORE-NRE-02",
            ),
            (
                "an unhandled rejection",
                &|o| o.calls[0].unhandled_rejections = 1,
                "CORE-VAL-03",
            ),
            ("other names", &|o| o.names.push(json!("u")), "CORE-REG-07"),
            (
                "a valid definition refused",
                &|o| {
                    o.registrations[0].outcome =
                        Registered::ContractError(ContractCode::InvalidToolDefinition)
                },
                "CORE-DEF-01",
            ),
            (
                "an abort listener fired",
                &|o| {
                    o.calls[0].trace.push(Event::AbortListener(ListenerEvent {
                        abort_listener: "execute".into(),
                    }))
                },
                "CORE-CAN-06",
            ),
            (
                "a function no predicate knows",
                &|o| o.calls[0].trace.push(event("mystery")),
                "reference",
            ),
            ("the call is missing", &|o| o.calls.clear(), "reference"),
            (
                "an extra call",
                &|o| o.calls.push(o.calls[0].clone()),
                "reference",
            ),
            (
                "an extra registration",
                &|o| o.registrations.push(o.registrations[0].clone()),
                "reference",
            ),
        ],
    );
}

#[test]
fn success_contents_name_the_serializer_rule_that_differs() {
    let replace = |o: &mut Observation, from: &str, to: &str| {
        if let Outcome::Result(r) = &mut o.calls[0].outcome {
            r.content = r.content.replace(from, to);
        }
    };
    let event = |name: &str| {
        Event::Call(CallEvent {
            call: name.to_string(),
            args: vec![json!({"ref": "output"})],
        })
    };
    check(
        "markers-bigint-cycle-getter-tojson",
        &|_| {},
        check_core,
        &[
            (
                "a cycle written out",
                &|o| replace(o, r#""[Circular]""#, r#"{"self":"[Circular]"}"#),
                "CORE-SER-07",
            ),
            (
                "a BigInt without its n",
                &|o| replace(o, "993n", "993"),
                "CORE-SER-03",
            ),
            (
                "a function as null",
                &|o| replace(o, r#""[Function]""#, "null"),
                "CORE-SER-04",
            ),
            (
                "undefined as null",
                &|o| replace(o, r#""[Undefined]""#, "null"),
                "CORE-SER-04",
            ),
            (
                "an accessor's getter ran",
                &|o| o.calls[0].trace.push(event("getter")),
                "CORE-SER-05",
            ),
            (
                "toJSON was called",
                &|o| o.calls[0].trace.push(event("toJSON")),
                "CORE-SER-05",
            ),
        ],
    );
    // a newline inside a string, escaped as \u000a
    check(
        "sum-and-exact",
        &|s| s["nodes"]["execute"]["returns"] = json!({"$": "object", "props": {"s": "a\nb"}}),
        check_core,
        &[(
            "a newline escaped as \\n",
            &|o| replace(o, "\\u000a", "\\n"),
            "CORE-SER-02",
        )],
    );
    // each budget, by the truncation it makes
    let untruncated = |o: &mut Observation| replace(o, "\n[Tool output truncated]", "null]");
    for (output, want) in [
        (
            json!({"$": "string", "repeat": "x", "times": 5000}),
            "CORE-SER-10",
        ),
        (json!({"$": "nest", "depth": 40}), "CORE-SER-11"),
        (
            json!({"$": "array", "fill": {"count": 228, "value": 7}}),
            "CORE-SER-12",
        ),
    ] {
        check(
            "sum-and-exact",
            &|s| s["nodes"]["execute"]["returns"] = output.clone(),
            check_core,
            &[("not truncated", &untruncated, want)],
        );
    }
    // an array slot accessor whose getter ran
    check(
        "sum-and-exact",
        &|s| {
            s["nodes"]["slot"] = json!({"$": "function", "returns": 1});
            s["nodes"]["execute"]["returns"] =
                json!({"$": "array", "items": [{"$": "getter", "get": {"ref": "slot"}}]});
        },
        check_core,
        &[(
            "the slot getter ran",
            &|o| o.calls[0].trace.push(event("slot")),
            "CORE-SER-06",
        )],
    );
}

#[test]
fn error_results_name_the_step_that_should_have_decided() {
    let replace = |o: &mut Observation, from: &str, to: &str| {
        if let Outcome::Result(r) = &mut o.calls[0].outcome {
            r.content = r.content.replace(from, to);
        }
    };
    let execute = |o: &mut Observation| {
        o.calls[0].trace.push(Event::Call(CallEvent {
            call: "execute".into(),
            args: vec![Json::Null],
        }))
    };
    let reject = json!({"$": "object", "props": {"ok": false, "error": "left must be a number"}});
    check(
        "sum-and-exact",
        &|s| s["nodes"]["validate"]["returns"] = reject.clone(),
        check_core,
        &[
            ("execute ran after a rejection", &execute, "CORE-VAL-09"),
            (
                "another code",
                &|o| replace(o, "TOOL_ARGUMENTS_INVALID", "TOOL_VALIDATION_FAILED"),
                "CORE-VAL-09",
            ),
            (
                "the error trimmed",
                &|o| replace(o, "left must be a number", "left must be"),
                "CORE-VAL-09",
            ),
            (
                "cancelled instead",
                &|o| o.calls[0].outcome = Outcome::Cancelled(ReasonObserved::default()),
                "CORE-VAL-09",
            ),
            (
                "a success result instead",
                &|o| {
                    if let Outcome::Result(r) = &mut o.calls[0].outcome {
                        r.is_error = false;
                        r.content = "1".into();
                    }
                },
                "CORE-VAL-09",
            ),
        ],
    );
    check(
        "sum-and-exact",
        &|s| {
            s["nodes"]["validate"] =
                json!({"$": "function", "throws": {"$": "error", "message": "bad input"}})
        },
        check_core,
        &[
            (
                "the fallback instead of the message",
                &|o| replace(o, "bad input", "Tool validation failed"),
                "CORE-RES-03",
            ),
            (
                "another code",
                &|o| replace(o, "TOOL_VALIDATION_FAILED", "TOOL_EXECUTION_FAILED"),
                "CORE-VAL-02",
            ),
            (
                "execute ran after a throwing validator",
                &execute,
                "CORE-VAL-02",
            ),
        ],
    );
    // fixed messages of the decision and asynchrony checks
    for (returns, message, want) in [
        (
            json!({"$": "object"}),
            "Expected own property ok",
            "CORE-VAL-05",
        ),
        (
            json!({"$": "object", "props": {"ok": true}}),
            "Expected own property value",
            "CORE-VAL-06",
        ),
        (
            json!({"$": "object", "props": {"ok": false, "error": " "}}),
            "A rejected Tool validation must include a non-empty error",
            "CORE-VAL-07",
        ),
        (
            json!({"$": "promise", "rejected": "no"}),
            "Tool validation must return synchronously",
            "CORE-VAL-03",
        ),
        (
            json!({"$": "object", "props": {"ok": true, "value": null, "then": {"$": "function"}}}),
            "Tool validation must return synchronously",
            "CORE-VAL-04",
        ),
    ] {
        check(
            "sum-and-exact",
            &|s| s["nodes"]["validate"]["returns"] = returns.clone(),
            check_core,
            &[("another message", &|o| replace(o, message, "nope"), want)],
        );
    }
    // a decision getter that throws
    check(
        "sum-and-exact",
        &|s| {
            s["nodes"]["ok"] = json!({"$": "function", "throws": "bad ok"});
            s["nodes"]["validate"]["returns"] =
                json!({"$": "object", "define": [{"key": "ok", "get": {"ref": "ok"}}]});
        },
        check_core,
        &[
            (
                "the getter never ran",
                &|o| drop(o.calls[0].trace.pop()),
                "CORE-VAL-08",
            ),
            (
                "another code",
                &|o| replace(o, "TOOL_VALIDATION_FAILED", "TOOL_EXECUTION_FAILED"),
                "CORE-VAL-08",
            ),
        ],
    );
    check(
        "sum-and-exact",
        &|s| s["nodes"]["execute"] = json!({"$": "function", "throws": "boom"}),
        check_core,
        &[
            (
                "another code",
                &|o| replace(o, "TOOL_EXECUTION_FAILED", "TOOL_VALIDATION_FAILED"),
                "CORE-EXE-02",
            ),
            (
                "the fallback instead of the message",
                &|o| replace(o, "boom", "Tool execution failed"),
                "CORE-RES-03",
            ),
            (
                "a look-alike propagated",
                &|o| o.calls[0].outcome = Outcome::NonRecoverable("execute".into()),
                "CORE-NRE-02",
            ),
        ],
    );
    check(
        "sum-and-exact",
        &|s| s["nodes"]["execute"]["returns"] = json!({"$": "promise", "rejected": "late boom"}),
        check_core,
        &[(
            "another code",
            &|o| replace(o, "TOOL_EXECUTION_FAILED", "TOOL_NOT_FOUND"),
            "CORE-EXE-04",
        )],
    );
    check(
        "sum-and-exact",
        &|s| s["calls"][0]["call"]["props"]["name"] = json!("nope"),
        check_core,
        &[
            (
                "another message",
                &|o| replace(o, "Unknown Tool", "Unknown tool"),
                "CORE-CALL-07",
            ),
            (
                "validate ran for an unknown tool",
                &|o| {
                    o.calls[0].trace.push(Event::Call(CallEvent {
                        call: "validate".into(),
                        args: vec![json!({})],
                    }))
                },
                "CORE-CALL-07",
            ),
        ],
    );
    check(
        "sum-and-exact",
        &|s| {
            s["nodes"]["fatal"] = json!({"$": "nonRecoverable", "message": "fatal"});
            s["nodes"]["execute"] = json!({"$": "function", "throws": {"ref": "fatal"}});
        },
        check_core,
        &[(
            "a genuine error as a result",
            &|o| {
                o.calls[0].outcome = serde_json::from_value(json!({"result": {
                    "id": "tool-result-c1", "role": "toolResult", "toolCallId": "c1",
                    "toolName": "t", "isError": true,
                    "content": "{\"error\":{\"code\":\"TOOL_EXECUTION_FAILED\",\"message\":\"fatal\"}}"
                }}))
                .unwrap()
            },
            "CORE-NRE-01",
        )],
    );
}

#[test]
fn cancellations_name_where_the_abort_comes_from() {
    let to_failure = |o: &mut Observation| {
        o.calls[0].outcome = serde_json::from_value(json!({"result": {
            "id": "tool-result-c1", "role": "toolResult", "toolCallId": "c1",
            "toolName": "t", "isError": true,
            "content": "{\"error\":{\"code\":\"TOOL_VALIDATION_FAILED\",\"message\":\"x\"}}"
        }}))
        .unwrap()
    };
    let other_reason = |o: &mut Observation| {
        o.calls[0].outcome = Outcome::Cancelled(ReasonObserved {
            reason: Some(json!("other")),
        })
    };
    let execute = |o: &mut Observation| {
        o.calls[0].trace.push(Event::Call(CallEvent {
            call: "execute".into(),
            args: vec![Json::Null],
        }))
    };
    let aborting = |returns: Json| json!({"$": "function", "effects": [{"abort": {"reason": "stop"}}], "returns": returns});
    let accept = json!({"$": "object", "props": {"ok": true, "value": null}});
    // already aborted
    check(
        "sum-and-exact",
        &|s| s["calls"][0]["abort"] = json!({"before": {"reason": "stop"}}),
        check_core,
        &[
            ("a result instead", &to_failure, "CORE-CAN-01"),
            ("another reason", &other_reason, "CORE-CAN-01"),
            (
                "validate ran",
                &|o| {
                    o.calls[0].trace.push(Event::Call(CallEvent {
                        call: "validate".into(),
                        args: vec![json!({})],
                    }))
                },
                "CORE-CAN-01",
            ),
        ],
    );
    // a getter of the call
    check(
        "sum-and-exact",
        &|s| {
            s["nodes"]["id"] = aborting(json!("c1"));
            s["calls"][0]["call"] = json!({"$": "object",
                "props": {"type": "toolCall", "name": "t", "arguments": {"$": "object"}},
                "define": [{"key": "id", "get": {"ref": "id"}}]});
        },
        check_core,
        &[
            ("a result instead", &to_failure, "CORE-CAN-02"),
            (
                "the getter ran twice",
                &|o| {
                    let first = o.calls[0].trace[0].clone();
                    o.calls[0].trace.insert(0, first)
                },
                "CORE-CALL-03",
            ),
        ],
    );
    // the validator
    check(
        "sum-and-exact",
        &|s| s["nodes"]["validate"] = aborting(accept.clone()),
        check_core,
        &[
            ("a result instead", &to_failure, "CORE-CAN-03"),
            ("another reason", &other_reason, "CORE-CAN-03"),
            ("execute ran after the abort", &execute, "CORE-CAN-03"),
        ],
    );
    // a decision getter
    check(
        "sum-and-exact",
        &|s| {
            s["nodes"]["ok"] = aborting(json!(false));
            s["nodes"]["validate"]["returns"] = json!({"$": "object",
                "props": {"error": "no"}, "define": [{"key": "ok", "get": {"ref": "ok"}}]});
        },
        check_core,
        &[("a result instead", &to_failure, "CORE-CAN-04")],
    );
    // the executor
    check(
        "sum-and-exact",
        &|s| s["nodes"]["execute"] = aborting(json!(1)),
        check_core,
        &[
            ("a result instead", &to_failure, "CORE-CAN-05"),
            (
                "a genuine error before the abort",
                &|o| o.calls[0].outcome = Outcome::NonRecoverable("fatal".into()),
                "CORE-CAN-05",
            ),
        ],
    );
    // a trap of the output
    check(
        "sum-and-exact",
        &|s| {
            s["nodes"]["execute"]["returns"] = json!({"$": "proxy",
                "target": {"$": "object", "props": {"a": 1}},
                "traps": {"ownKeys": {"abort": {"reason": "trap"}}}});
        },
        check_core,
        &[
            ("a result instead", &to_failure, "CORE-CAN-07"),
            (
                "the trap never ran",
                &|o| o.calls[0].trace.retain(|e| !matches!(e, Event::Trap(_))),
                "CORE-SER-09",
            ),
        ],
    );
    // an abort while the executor is pending
    check(
        "sum-and-exact",
        &|s| {
            s["nodes"]["execute"] = json!({"$": "function", "effects": ["listenForAbort"],
                "returns": {"$": "promise", "pending": true, "afterAbort": {"reject": "late"}}});
            s["calls"][0]["abort"] = json!({"whenPending": {"reason": "timeout"}});
        },
        check_core,
        &[
            (
                "left pending",
                &|o| o.calls[0].outcome = Outcome::Pending,
                "CORE-CAN-06",
            ),
            (
                "the listener never fired",
                &|o| {
                    o.calls[0]
                        .trace
                        .retain(|e| !matches!(e, Event::AbortListener(_)))
                },
                "CORE-CAN-06",
            ),
            (
                "the late rejection went unhandled",
                &|o| o.calls[0].unhandled_rejections = 1,
                "CORE-CAN-06",
            ),
        ],
    );
    // without an abort the call stays pending
    check(
        "sum-and-exact",
        &|s| s["nodes"]["execute"]["returns"] = json!({"$": "promise", "pending": true}),
        check_core,
        &[("settled anyway", &to_failure, "CORE-CAN-06")],
    );
}

#[test]
fn invalid_calls_name_what_in_the_call_is_wrong() {
    let not_found = |o: &mut Observation| {
        o.calls[0].outcome = serde_json::from_value(json!({"result": {
            "id": "tool-result-c1", "role": "toolResult", "toolCallId": "c1",
            "toolName": "t", "isError": true,
            "content": "{\"error\":{\"code\":\"TOOL_NOT_FOUND\",\"message\":\"Unknown Tool \\\"t\\\"\"}}"
        }}))
        .unwrap()
    };
    for (edit, want) in [
        (json!({"type": "wrong"}), "CORE-CALL-04"),
        (
            json!({"arguments": {"$": "object", "props": {"u": {"$": "undefined"}}}}),
            "CORE-CALL-06",
        ),
        (json!({"id": "  "}), "CORE-CALL-04"),
    ] {
        check(
            "sum-and-exact",
            &|s| {
                for (k, v) in edit.as_object().unwrap() {
                    s["calls"][0]["call"]["props"][k] = v.clone();
                }
            },
            check_core,
            &[("a result instead", &not_found, want)],
        );
    }
    check(
        "sum-and-exact",
        &|s| {
            drop(
                s["calls"][0]["call"]["props"]
                    .as_object_mut()
                    .unwrap()
                    .remove("arguments"),
            )
        },
        check_core,
        &[("a result instead", &not_found, "CORE-CALL-02")],
    );
    check(
        "sum-and-exact",
        &|s| s["calls"][0]["registry"] = json!("notARegistry"),
        check_core,
        &[("a result instead", &not_found, "CORE-CALL-01")],
    );
}

/// A copy whose keys come in another order is another copy: `==` on JSON
/// values ignores the order of an object's keys, and the checks must not.
#[test]
fn argument_keys_in_another_order_name_the_copy_rule() {
    let reversed = |o: &mut Observation| {
        for event in &mut o.calls[0].trace {
            if let Event::Call(CallEvent { call, args }) = event {
                if call == "validate" {
                    let copy = args[0].as_object().unwrap();
                    let keys = copy.iter().rev().map(|(k, v)| (k.clone(), v.clone()));
                    args[0] = Json::Object(keys.collect());
                }
            }
        }
    };
    check(
        "calls/argument-keys-are-copied-in-own-key-order",
        &|_| {},
        check_core,
        &[("the copy's keys reversed", &reversed, "CORE-CALL-06")],
    );
}

#[test]
fn registrations_name_the_definition_or_batch_rule() {
    let outcome = |code: Option<ContractCode>| {
        move |o: &mut Observation| {
            o.registrations[0].outcome = code.map_or(Registered::Ok, Registered::ContractError)
        }
    };
    let ok = outcome(None);
    let definition = outcome(Some(ContractCode::InvalidToolDefinition));
    let batch = outcome(Some(ContractCode::InvalidToolBatch));
    check(
        "sum-and-exact",
        &|s| s["nodes"]["tool"]["props"]["name"] = json!(" \u{feff}"),
        check_core,
        &[
            ("a blank name accepted", &ok, "CORE-DEF-03"),
            (
                "the registry changed",
                &|o| o.names.push(json!(" \u{feff}")),
                "CORE-REG-05",
            ),
        ],
    );
    check(
        "sum-and-exact",
        &|s| s["nodes"]["tool"]["props"]["execute"] = json!("not a function"),
        check_core,
        &[("accepted", &ok, "CORE-DEF-04")],
    );
    check(
        "sum-and-exact",
        &|s| {
            drop(
                s["nodes"]["tool"]["props"]
                    .as_object_mut()
                    .unwrap()
                    .remove("description"),
            )
        },
        check_core,
        &[("accepted", &ok, "CORE-DEF-02")],
    );
    check(
        "sum-and-exact",
        &|s| {
            s["registrations"][0] =
                json!({"$": "array", "items": [{"ref": "tool"}, {"$": "hole"}, {"ref": "tool"}]})
        },
        check_core,
        &[("a definition fault instead", &definition, "CORE-REG-02")],
    );
    check(
        "sum-and-exact",
        &|s| {
            s["registrations"][0] =
                json!({"$": "array", "items": [{"ref": "tool"}, 7, {"$": "hole"}]})
        },
        check_core,
        &[("the hole decides instead", &batch, "CORE-REG-03")],
    );
    check(
        "sum-and-exact",
        &|s| {
            s["registrations"][0] =
                json!({"$": "object", "props": {"0": {"ref": "tool"}, "length": 1}})
        },
        check_core,
        &[("an array-like accepted", &ok, "CORE-REG-01")],
    );
    check(
        "sum-and-exact",
        &|s| {
            let batch = s["registrations"][0].clone();
            s["registrations"] = json!([batch.clone(), batch]);
        },
        check_core,
        &[(
            "a duplicate accepted",
            &|o| o.registrations[1].outcome = Registered::Ok,
            "CORE-REG-04",
        )],
    );
    // a definition read through a getter
    let getter = |o: &mut Observation, at_call: bool| {
        let event = Event::Call(CallEvent {
            call: "name".into(),
            args: vec![json!({"ref": "tool"})],
        });
        match at_call {
            true => o.calls[0].trace.insert(0, event),
            false => o.registrations[0].trace.push(event),
        }
    };
    check(
        "sum-and-exact",
        &|s| {
            s["nodes"]["name"] = json!({"$": "function", "returns": "t"});
            s["nodes"]["tool"] = json!({"$": "object",
                "props": {"description": "a tool", "validate": {"ref": "validate"}, "execute": {"ref": "execute"}},
                "define": [{"key": "name", "get": {"ref": "name"}}]});
        },
        check_core,
        &[
            (
                "the name getter ran twice",
                &|o| getter(o, false),
                "CORE-DEF-05",
            ),
            (
                "the definition read again by a call",
                &|o| getter(o, true),
                "CORE-DEF-07",
            ),
        ],
    );
}

#[test]
fn propagation_construction_and_malformed_results_name_their_rules() {
    let none = |_: &mut Json| {};
    let outcome =
        |i: usize, o: Outcome| move |obs: &mut Observation| obs.calls[i].outcome = o.clone();
    check(
        "registry/a-failing-initial-batch-throws-and-leaves-the-registry-empty",
        &none,
        check_core,
        &[(
            "a swallowed construction failure",
            &|o: &mut Observation| o.initial.as_mut().unwrap().outcome = Registered::Ok,
            "CORE-REG-06",
        )],
    );
    check(
        "non-recoverable/a-genuine-error-during-registration-is-an-invalid-definition",
        &none,
        check_core,
        &[(
            "a genuine error propagating from registerMany",
            &|o: &mut Observation| {
                o.registrations[0].outcome = Registered::Rejected(json!({"node": "fatal"}))
            },
            "CORE-NRE-04",
        )],
    );
    check(
        "cancellation/an-abort-inside-the-executor-rejects-whatever-it-returns",
        &none,
        check_core,
        &[(
            "a genuine error propagating before the abort check",
            &outcome(4, Outcome::NonRecoverable("fatal".into())),
            "CORE-NRE-03",
        )],
    );
    check(
        "non-recoverable/a-genuine-error-from-a-then-method-is-a-validation-failure",
        &none,
        check_core,
        &[(
            "a genuine error kept by the asynchrony check propagating",
            &outcome(0, Outcome::NonRecoverable("fatal".into())),
            "CORE-VAL-04",
        )],
    );
    check(
        "non-recoverable/look-alikes-thrown-by-the-executor-are-ordinary-failures",
        &none,
        check_core,
        &[
            (
                "a field-only look-alike rejecting the call",
                &outcome(0, Outcome::Rejected(json!({"node": "fieldOnly"}))),
                "CORE-NRE-02",
            ),
            (
                "a result that is not a frozen six-field message",
                &outcome(
                    1,
                    Outcome::Rejected(
                        json!({"malformedResult": {"problems": ["the result is not frozen"]}}),
                    ),
                ),
                "CORE-RES-01",
            ),
        ],
    );
}

#[test]
fn thrown_messages_name_their_step_and_the_failure_message_rule() {
    let none = |_: &mut Json| {};
    let message = |m: &'static str| {
        move |o: &mut Observation| {
            if let Outcome::Result(r) = &mut o.calls[0].outcome {
                let mut payload: Json = serde_json::from_str(&r.content).unwrap();
                payload["error"]["message"] = json!(m);
                r.content = payload.to_string();
            }
        }
    };
    check(
        "execution/a-synchronous-throw-gives-its-message",
        &none,
        check_core,
        &[
            (
                "the thrown message dropped",
                &message("Tool execution failed"),
                "CORE-RES-03",
            ),
            (
                "the thrown message dropped",
                &message("Tool execution failed"),
                "CORE-EXE-02",
            ),
        ],
    );
    check(
        "execution/a-rejected-promise-gives-its-message",
        &none,
        check_core,
        &[("another message", &message("changed"), "CORE-EXE-04")],
    );
}

/// Any single trace event of any core case that an implementation leaves
/// out, or runs twice, is named: no difference of that kind falls back to
/// an unnamed diff.
#[test]
fn a_missing_or_repeated_trace_event_always_names_a_requirement() {
    let files = toolgate_corpus::of_suite(&toolgate_core::CORE).unwrap();
    let mut unnamed = Vec::new();
    for (path, file) in &files {
        for case in &file.cases {
            let Some(expected) = &case.expect else {
                continue;
            };
            let expected: Observation = serde_json::from_value(expected.clone()).unwrap();
            let expected = &expected;
            let scenario: Scenario = serde_json::from_value(case.scenario.clone()).unwrap();
            for (i, call) in expected.calls.iter().enumerate() {
                for k in 0..call.trace.len() {
                    for repeat in [false, true] {
                        let mut actual = expected.clone();
                        let trace = &mut actual.calls[i].trace;
                        if repeat {
                            let event = trace[k].clone();
                            trace.insert(k, event);
                        } else {
                            trace.remove(k);
                        }
                        let found = check_core(&scenario, expected, &actual);
                        assert!(!found.is_empty(), "{}: a changed trace passes", case.name);
                        if found.iter().any(|v| v.requirement.is_none()) {
                            unnamed.push(format!(
                                "{} {}/{}: call {i}, event {k} {}",
                                path,
                                file.group,
                                case.name,
                                if repeat { "repeated" } else { "left out" }
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        unnamed.is_empty(),
        "{} unnamed difference(s), first: {:#?}",
        unnamed.len(),
        &unnamed[..unnamed.len().min(15)]
    );
}
