//! The steps of `executeToolCall` that do not involve cancellation or
//! non-recoverable errors: the registry check, the call snapshot and its
//! argument copy, lookup, validation and decisions, execution and awaiting,
//! output failures, and the exact result messages.

mod support;

use serde_json::json;
use support::{outcome_matches, Expect, Make, Observed, Run, World};
use toolgate_core::bigint::BigIntValue;
use toolgate_core::model::*;
use toolgate_core::{ContractCode, JsString};

fn check(observed: &Observed, expect: Expect<'_>) {
    if let Err(diff) = outcome_matches(observed, &expect) {
        panic!("{diff}\ntrace: {:?}", observed.trace);
    }
}

/// Registers one tool "t" with these functions and returns the batch.
fn one_tool(w: &mut World, validate: NodeId, execute: NodeId) -> NodeId {
    let def = w.definition("t", validate, execute);
    w.b.array([def])
}

/// A tool whose validator accepts `{}` and whose executor returns `output`.
fn returning_tool(w: &mut World, output: impl Into<Value>) -> (NodeId, NodeId, NodeId) {
    let validate = w.accepting(Value::Null);
    let execute = w.b.returning(output);
    (one_tool(w, validate, execute), validate, execute)
}

/// A call object with these fields as own data properties.
fn call_with(w: &mut World, fields: Vec<(&str, Property)>) -> NodeId {
    w.object_with(Proto::ObjectPrototype, fields)
}

const INVALID_CALL: Expect<'static> = Expect::Contract(ContractCode::InvalidToolCall);

#[test]
fn registry_must_be_real() {
    let mut w = World::new();
    let call = w.call("c", "t");
    let heap = w.finish();
    let mut run = Run::new(&heap, None, call);
    run.real_registry = false;
    check(&run.go(), INVALID_CALL);
}

#[test]
fn call_must_be_an_object_with_the_four_own_fields() {
    // each case: the call fields (None: the call is not an object)
    type Fields = Vec<(&'static str, Value)>;
    let base = |w: &mut World| -> Fields {
        let args = w.b.object::<&str, Value>([]);
        vec![
            ("type", "toolCall".into()),
            ("id", "c".into()),
            ("name", "t".into()),
            ("arguments", args.into()),
        ]
    };
    let cases: Vec<(&str, Make<Fields>)> = vec![
        (
            "no type",
            Box::new(move |w| base(w).into_iter().filter(|f| f.0 != "type").collect()),
        ),
        (
            "no id",
            Box::new(move |w| base(w).into_iter().filter(|f| f.0 != "id").collect()),
        ),
        (
            "no name",
            Box::new(move |w| base(w).into_iter().filter(|f| f.0 != "name").collect()),
        ),
        (
            "no arguments",
            Box::new(move |w| base(w).into_iter().filter(|f| f.0 != "arguments").collect()),
        ),
        (
            "type differs",
            Box::new(move |w| set(base(w), "type", "ToolCall".into())),
        ),
        (
            "type padded",
            Box::new(move |w| set(base(w), "type", " toolCall".into())),
        ),
        (
            "id blank",
            Box::new(move |w| set(base(w), "id", " \t\u{3000}".into())),
        ),
        ("id empty", Box::new(move |w| set(base(w), "id", "".into()))),
        ("id number", Box::new(move |w| set(base(w), "id", 1.into()))),
        (
            "name blank",
            Box::new(move |w| set(base(w), "name", "\u{FEFF}\n".into())),
        ),
        (
            "name null",
            Box::new(move |w| set(base(w), "name", Value::Null)),
        ),
        (
            "arguments null",
            Box::new(move |w| set(base(w), "arguments", Value::Null)),
        ),
        (
            "arguments string",
            Box::new(move |w| set(base(w), "arguments", "{}".into())),
        ),
        (
            "arguments array",
            Box::new(move |w| {
                let a = w.b.array::<Value>([]);
                set(base(w), "arguments", a.into())
            }),
        ),
        (
            "arguments function",
            Box::new(move |w| {
                let f = w.b.returning(1);
                set(base(w), "arguments", f.into())
            }),
        ),
    ];
    for (label, fields) in cases {
        let mut w = World::new();
        let (batch, validate, _) = returning_tool(&mut w, 1);
        let fields = fields(&mut w);
        let call = w.b.object(fields);
        let heap = w.finish();
        let observed = Run::new(&heap, Some(batch), call).go();
        assert!(
            outcome_matches(&observed, &INVALID_CALL).is_ok(),
            "{label}: {:?}",
            observed.outcome
        );
        assert_eq!(observed.calls(validate), 0, "{label}");
    }
    for not_object in [Value::Null, Value::Undefined, "call".into(), 3.into()] {
        let mut w = World::new();
        let (batch, _, _) = returning_tool(&mut w, 1);
        let heap = w.finish();
        check(&Run::new(&heap, Some(batch), not_object).go(), INVALID_CALL);
    }
}

fn set(
    mut fields: Vec<(&'static str, Value)>,
    key: &str,
    value: Value,
) -> Vec<(&'static str, Value)> {
    for f in &mut fields {
        if f.0 == key {
            f.1 = value.clone();
        }
    }
    fields
}

#[test]
fn inherited_call_fields_do_not_count_and_their_getters_never_run() {
    let mut w = World::new();
    let (batch, validate, _) = returning_tool(&mut w, 1);
    let getter = w.b.returning("t");
    let parent = call_with(&mut w, vec![("name", Property::getter(getter))]);
    let args = w.b.object::<&str, Value>([]);
    let call = w.object_with(
        Proto::Node(parent),
        vec![
            ("type", Property::data("toolCall")),
            ("id", Property::data("c")),
            ("arguments", Property::data(args)),
        ],
    );
    let heap = w.finish();
    let observed = Run::new(&heap, Some(batch), call).go();
    check(&observed, INVALID_CALL);
    assert_eq!(observed.calls(getter), 0);
    assert_eq!(observed.calls(validate), 0);
}

#[test]
fn call_fields_are_read_once_through_getters() {
    let mut w = World::new();
    let (batch, _, _) = returning_tool(&mut w, 7);
    let args = w.b.object::<&str, Value>([]);
    let getters: Vec<NodeId> = [Value::from("toolCall"), "c".into(), "t".into(), args.into()]
        .into_iter()
        .map(|v| w.b.returning(v))
        .collect();
    let fields = ["type", "id", "name", "arguments"]
        .into_iter()
        .zip(&getters)
        .map(|(k, g)| (k, Property::getter(*g)))
        .collect();
    let call = call_with(&mut w, fields);
    let heap = w.finish();
    let observed = Run::new(&heap, Some(batch), call).go();
    check(&observed, Expect::Success("7"));
    for g in &getters {
        assert_eq!(observed.calls(*g), 1);
    }
    // in order type, id, name, arguments
    let order: Vec<NodeId> = observed
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Called { function, .. } => Some(*function),
            _ => None,
        })
        .take(4)
        .collect();
    assert_eq!(order, getters);
}

#[test]
fn a_throwing_getter_or_trap_on_the_call_is_invalid() {
    let mut w = World::new();
    let (batch, _, _) = returning_tool(&mut w, 1);
    let thrower = w.b.throwing("boom");
    let call = call_with(&mut w, vec![("type", Property::getter(thrower))]);
    let heap = w.finish();
    check(&Run::new(&heap, Some(batch), call).go(), INVALID_CALL);

    let mut w = World::new();
    let (batch, _, _) = returning_tool(&mut w, 1);
    let target = w.call("c", "t");
    let proxy = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: [(
            Trap::GetOwnPropertyDescriptor,
            TrapBehavior::Throw("trap".into()),
        )]
        .into(),
        revoked: false,
    }));
    let revoked = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: Default::default(),
        revoked: true,
    }));
    let passing = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: Default::default(),
        revoked: false,
    }));
    let heap = w.finish();
    check(&Run::new(&heap, Some(batch), proxy).go(), INVALID_CALL);
    check(&Run::new(&heap, Some(batch), revoked).go(), INVALID_CALL);
    check(
        &Run::new(&heap, Some(batch), passing).go(),
        Expect::Success("1"),
    );
}

/// Builds arguments `{ v: <value> }` with `make` and runs a call with them.
fn run_with_argument(make: impl FnOnce(&mut World) -> Value) -> (Observed, NodeId) {
    let mut w = World::new();
    let (batch, validate, _) = returning_tool(&mut w, 1);
    let v = make(&mut w);
    let args = w.b.object([("v", v)]);
    let call = w.b.object([
        ("type", Value::from("toolCall")),
        ("id", "c".into()),
        ("name", "t".into()),
        ("arguments", args.into()),
    ]);
    let heap = w.finish();
    (Run::new(&heap, Some(batch), call).go(), validate)
}

#[test]
fn arguments_allow_only_plain_data() {
    let invalid: Vec<(&str, Make<Value>)> = vec![
        ("undefined", Box::new(|_| Value::Undefined)),
        ("NaN", Box::new(|_| f64::NAN.into())),
        ("Infinity", Box::new(|_| f64::INFINITY.into())),
        ("symbol", Box::new(|_| Value::Symbol(0))),
        ("bigint", Box::new(|_| BigIntValue::from_i64(1).into())),
        ("function", Box::new(|w| w.b.returning(1).into())),
        (
            "date",
            Box::new(|w| w.object_with(Proto::Builtin(Builtin::Date), vec![]).into()),
        ),
        (
            "class instance",
            Box::new(|w| {
                w.object_with(Proto::Class(JsString::new("P")), vec![])
                    .into()
            }),
        ),
        (
            "other realm object",
            Box::new(|w| w.object_with(Proto::OtherRealmObject, vec![]).into()),
        ),
        (
            "promise",
            Box::new(|w| {
                w.b.alloc(Node::Promise(PromiseNode::Fulfilled(1.into())))
                    .into()
            }),
        ),
        (
            "hole",
            Box::new(|w| {
                w.b.alloc(Node::Array(ArrayNode {
                    proto: Proto::ArrayPrototype,
                    length: 2,
                    slots: [(0, Property::data(1))].into(),
                }))
                .into()
            }),
        ),
        (
            "cycle",
            Box::new(|w| {
                let o = w.b.object::<&str, Value>([]);
                w.b.object_mut(o).unwrap().define("me", Property::data(o));
                o.into()
            }),
        ),
        (
            "throwing getter",
            Box::new(|w| {
                let g = w.b.throwing("no");
                w.object_with(Proto::ObjectPrototype, vec![("x", Property::getter(g))])
                    .into()
            }),
        ),
        (
            "throwing trap",
            Box::new(|w| {
                let target = w.b.object([("x", 1)]);
                w.b.alloc(Node::Proxy(ProxyNode {
                    target,
                    traps: [(Trap::OwnKeys, TrapBehavior::Throw(1.into()))].into(),
                    revoked: false,
                }))
                .into()
            }),
        ),
    ];
    for (label, make) in invalid {
        let (observed, validate) = run_with_argument(make);
        assert!(
            outcome_matches(&observed, &INVALID_CALL).is_ok(),
            "{label}: {:?}",
            observed.outcome
        );
        assert_eq!(observed.calls(validate), 0, "{label}");
    }
}

#[test]
fn arguments_are_copied_with_getters_run_once_and_shared_values_twice() {
    let (observed, validate) = run_with_argument(|w| {
        let shared = w.b.object([("k", -0.0)]);
        let getter = w.b.returning("got");
        let null_proto = w.object_with(
            Proto::Null,
            vec![
                ("g", Property::getter(getter)),
                ("hidden", Property::data(1).hidden()),
            ],
        );
        let list =
            w.b.array([Value::Null, true.into(), "s".into(), 2.5.into()]);
        w.b.object([("a", shared), ("b", shared), ("n", null_proto), ("l", list)])
            .into()
    });
    check(&observed, Expect::Success("1"));
    let args = observed.args(validate);
    let [Arg::Copy(copy)] = args[0].as_slice() else {
        panic!("{args:?}")
    };
    assert_eq!(
        copy.to_json(8),
        Some(
            json!({"v": {"a": {"k": -0.0}, "b": {"k": -0.0}, "n": {"g": "got"}, "l": [null, true, "s", 2.5]}})
        )
    );
    // shared values are copied twice: two distinct nodes
    assert_eq!(
        copy.nodes()
            .iter()
            .filter(|n| matches!(n, CopiedNode::Object(f) if f.len() == 1 && f[0].0 == "k"))
            .count(),
        2
    );
    // -0 survives the copy
    let copied = format!("{:?}", observed.args(validate));
    assert!(copied.contains("Number(-0.0)"), "{copied}");
}

#[test]
fn deep_arguments_are_copied_without_overflowing() {
    let (observed, _) = run_with_argument(|w| {
        let mut inner = w.b.object::<&str, Value>([]);
        for _ in 0..100_000 {
            inner = w.b.array([inner]);
        }
        inner.into()
    });
    check(&observed, Expect::Success("1"));
}

#[test]
fn unknown_tools_give_a_not_found_result_and_names_are_not_trimmed() {
    for name in ["nope", " t", "t ", "T"] {
        let mut w = World::new();
        let (batch, validate, _) = returning_tool(&mut w, 1);
        let call = w.call("c", name);
        let heap = w.finish();
        let observed = Run::new(&heap, Some(batch), call).go();
        let message = format!("Unknown Tool \"{name}\"");
        check(&observed, Expect::Failure("TOOL_NOT_FOUND", &message));
        assert_eq!(observed.calls(validate), 0);
        assert_eq!(observed.names, ["t"]);
    }
}

#[test]
fn not_found_content_is_exact() {
    let mut w = World::new();
    let call = w.call("c", "nope");
    let heap = w.finish();
    let observed = Run::new(&heap, None, call).go();
    assert_eq!(
        observed.result().content,
        r#"{"error":{"code":"TOOL_NOT_FOUND","message":"Unknown Tool \"nope\""}}"#
    );
}

/// Runs tool "t" whose validator is `validate` and whose executor returns 1.
fn run_validator(make: impl FnOnce(&mut World) -> NodeId) -> (Observed, NodeId) {
    let mut w = World::new();
    let validate = make(&mut w);
    let execute = w.b.returning(1);
    let batch = one_tool(&mut w, validate, execute);
    let call = w.call("c", "t");
    let heap = w.finish();
    (Run::new(&heap, Some(batch), call).go(), execute)
}

#[test]
fn failure_messages_of_thrown_values() {
    let cases: Vec<(&str, Make<Value>)> = vec![
        (
            "bad input",
            Box::new(|w| {
                w.b.error(Proto::Builtin(Builtin::Error), Some("bad input"))
                    .into()
            }),
        ),
        (
            "Tool validation failed",
            Box::new(|w| w.b.error(Proto::Builtin(Builtin::Error), None).into()),
        ),
        (
            "Tool validation failed",
            Box::new(|w| w.b.error(Proto::Builtin(Builtin::Error), Some("")).into()),
        ),
        ("plain string", Box::new(|_| "plain string".into())),
        ("  ", Box::new(|_| "  ".into())),
        ("Tool validation failed", Box::new(|_| "".into())),
        ("Tool validation failed", Box::new(|_| 42.into())),
        ("Tool validation failed", Box::new(|_| Value::Undefined)),
        (
            "from object",
            Box::new(|w| w.b.object([("message", "from object")]).into()),
        ),
        (
            "Tool validation failed",
            Box::new(|w| w.b.object([("message", 5)]).into()),
        ),
        (
            "Tool validation failed",
            Box::new(|w| {
                let g = w.b.returning("from getter");
                w.object_with(
                    Proto::ObjectPrototype,
                    vec![("message", Property::getter(g))],
                )
                .into()
            }),
        ),
        (
            "Tool validation failed",
            Box::new(|w| {
                let parent = w.b.object([("message", "inherited")]);
                w.object_with(Proto::Node(parent), vec![]).into()
            }),
        ),
        (
            // a thrown proxy answers the descriptor read for its target
            "behind a proxy",
            Box::new(|w| {
                let target = w.b.object([("message", "behind a proxy")]);
                w.b.alloc(Node::Proxy(ProxyNode {
                    target,
                    traps: Default::default(),
                    revoked: false,
                }))
                .into()
            }),
        ),
        (
            // a descriptor trap that throws leaves the fallback
            "Tool validation failed",
            Box::new(|w| {
                let target = w.b.object([("message", "behind a proxy")]);
                w.b.alloc(Node::Proxy(ProxyNode {
                    target,
                    traps: [(
                        Trap::GetOwnPropertyDescriptor,
                        TrapBehavior::Throw("no".into()),
                    )]
                    .into(),
                    revoked: false,
                }))
                .into()
            }),
        ),
    ];
    for (message, make) in cases {
        let (observed, execute) = run_validator(|w| {
            let thrown = make(w);
            w.b.throwing(thrown)
        });
        check(
            &observed,
            Expect::Failure("TOOL_VALIDATION_FAILED", message),
        );
        assert_eq!(observed.calls(execute), 0);
        let called = observed
            .trace
            .iter()
            .filter(|e| matches!(e, TraceEvent::Called { .. }))
            .count();
        assert_eq!(
            called, 1,
            "only the validator ran, no getter of the thrown value: {message}"
        );
    }
}

#[test]
fn a_contract_error_look_alike_thrown_by_a_tool_is_an_ordinary_failure() {
    let (observed, _) = run_validator(|w| {
        let mut o = ObjectNode::new(Proto::Builtin(Builtin::ToolContractError));
        o.define("code", Property::data("INVALID_TOOL_CALL"));
        o.define("message", Property::data("looks official").hidden());
        let e = w.b.alloc(Node::Object(o));
        w.b.throwing(e)
    });
    check(
        &observed,
        Expect::Failure("TOOL_VALIDATION_FAILED", "looks official"),
    );
}

#[test]
fn asynchronous_validators_are_refused_and_observed() {
    let promises = [
        PromiseNode::Fulfilled(1.into()),
        PromiseNode::Rejected("late".into()),
        PromiseNode::Pending { after_abort: None },
    ];
    for promise in promises {
        let mut id = None;
        let (observed, execute) = run_validator(|w| {
            let p = w.b.alloc(Node::Promise(promise.clone()));
            id = Some(p);
            w.b.returning(p)
        });
        check(
            &observed,
            Expect::Failure(
                "TOOL_VALIDATION_FAILED",
                "Tool validation must return synchronously",
            ),
        );
        assert!(observed.trace.contains(&TraceEvent::PromiseObserved {
            promise: id.unwrap()
        }));
        assert_eq!(observed.calls(execute), 0);
    }
}

#[test]
fn thenables_are_refused_keeping_their_error() {
    let cases: Vec<(&str, Make<NodeId>)> = vec![
        (
            "Tool validation must return synchronously",
            Box::new(|w| {
                let then = w.b.returning(Value::Undefined);
                let thenable = w.b.object([("then", then)]);
                w.b.returning(thenable)
            }),
        ),
        (
            "then getter",
            Box::new(|w| {
                let err =
                    w.b.error(Proto::Builtin(Builtin::Error), Some("then getter"));
                let getter = w.b.throwing(err);
                let thenable = w.object_with(
                    Proto::ObjectPrototype,
                    vec![("then", Property::getter(getter))],
                );
                w.b.returning(thenable)
            }),
        ),
        (
            "then method",
            Box::new(|w| {
                let then = w.b.throwing("then method");
                let thenable = w.b.object([("then", then)]);
                w.b.returning(thenable)
            }),
        ),
        (
            "Tool validation must return synchronously",
            Box::new(|w| {
                let then = w.b.returning(Value::Undefined);
                let parent = w.b.object([("then", then)]);
                let decision = w.object_with(
                    Proto::Node(parent),
                    vec![("ok", Property::data(true)), ("value", Property::data(1))],
                );
                w.b.returning(decision)
            }),
        ),
        (
            "Tool validation must return synchronously",
            Box::new(|w| {
                // a then method returning a rejected promise: observed, no unhandled rejection
                let p = w.b.alloc(Node::Promise(PromiseNode::Rejected("r".into())));
                let then = w.b.returning(p);
                let thenable = w.b.object([("then", then)]);
                w.b.returning(thenable)
            }),
        ),
    ];
    for (message, make) in cases {
        let (observed, execute) = run_validator(make);
        check(
            &observed,
            Expect::Failure("TOOL_VALIDATION_FAILED", message),
        );
        assert_eq!(observed.calls(execute), 0);
        for event in &observed.trace {
            if let TraceEvent::Called { args, .. } = event {
                if args.first() == Some(&Arg::Callback) {
                    assert_eq!(
                        args,
                        &[Arg::Callback, Arg::Callback],
                        "then gets two callbacks"
                    );
                }
            }
        }
    }
}

#[test]
fn a_then_that_is_not_a_function_is_not_asynchrony() {
    let (observed, execute) = run_validator(|w| {
        let decision = w.b.object([
            ("ok", Value::Bool(true)),
            ("value", 1.into()),
            ("then", 5.into()),
        ]);
        w.b.returning(decision)
    });
    check(&observed, Expect::Success("1"));
    assert_eq!(observed.calls(execute), 1);
}

#[test]
fn decisions_must_be_well_formed() {
    let cases: Vec<(&str, Make<Value>)> = vec![
        (
            "Tool validation must return a decision object",
            Box::new(|_| Value::Undefined),
        ),
        (
            "Tool validation must return a decision object",
            Box::new(|_| Value::Null),
        ),
        (
            "Tool validation must return a decision object",
            Box::new(|_| "ok".into()),
        ),
        (
            "Tool validation must return a decision object",
            Box::new(|_| true.into()),
        ),
        (
            // a function is object-like and has no own `ok`
            "Expected own property ok",
            Box::new(|w| w.b.returning(1).into()),
        ),
        (
            "Expected own property ok",
            Box::new(|w| w.b.object::<&str, Value>([]).into()),
        ),
        (
            "Expected own property ok",
            Box::new(|w| w.b.array([true]).into()),
        ),
        (
            "Expected own property ok",
            Box::new(|w| {
                let parent = w.b.object([("ok", Value::Bool(true)), ("value", 1.into())]);
                w.object_with(Proto::Node(parent), vec![]).into()
            }),
        ),
        (
            "Tool validation ok must be a boolean",
            Box::new(|w| w.b.object([("ok", "true")]).into()),
        ),
        (
            "Tool validation ok must be a boolean",
            Box::new(|w| w.b.object([("ok", 1)]).into()),
        ),
        (
            "Expected own property value",
            Box::new(|w| w.b.object([("ok", true)]).into()),
        ),
        (
            "Expected own property error",
            Box::new(|w| w.b.object([("ok", false)]).into()),
        ),
        (
            "A rejected Tool validation must include a non-empty error",
            Box::new(|w| {
                w.b.object([("ok", Value::Bool(false)), ("error", " \n".into())])
                    .into()
            }),
        ),
        (
            "A rejected Tool validation must include a non-empty error",
            Box::new(|w| {
                w.b.object([("ok", Value::Bool(false)), ("error", 5.into())])
                    .into()
            }),
        ),
        (
            "getter said no",
            Box::new(|w| {
                let err =
                    w.b.error(Proto::Builtin(Builtin::Error), Some("getter said no"));
                let g = w.b.throwing(err);
                w.object_with(Proto::ObjectPrototype, vec![("ok", Property::getter(g))])
                    .into()
            }),
        ),
        (
            "Tool validation returned an invalid decision",
            Box::new(|w| {
                let g = w.b.throwing(7);
                w.object_with(
                    Proto::ObjectPrototype,
                    vec![("ok", Property::data(true)), ("value", Property::getter(g))],
                )
                .into()
            }),
        ),
    ];
    for (message, make) in cases {
        let (observed, execute) = run_validator(|w| {
            let d = make(w);
            w.b.returning(d)
        });
        check(
            &observed,
            Expect::Failure("TOOL_VALIDATION_FAILED", message),
        );
        assert_eq!(observed.calls(execute), 0, "{message}");
    }
}

#[test]
fn a_rejecting_decision_gives_its_error_verbatim_and_never_executes() {
    for error in ["left must be a number", "  padded  ", "\u{1F600}"] {
        let (observed, execute) = run_validator(|w| w.rejecting(error));
        check(&observed, Expect::Failure("TOOL_ARGUMENTS_INVALID", error));
        assert_eq!(observed.calls(execute), 0);
    }
    let (observed, _) = run_validator(|w| w.rejecting("left must be a number"));
    assert_eq!(
        observed.result().content,
        r#"{"error":{"code":"TOOL_ARGUMENTS_INVALID","message":"left must be a number"}}"#
    );
}

#[test]
fn a_long_validator_error_is_truncated_like_any_output() {
    let long = "m".repeat(5000);
    let (observed, _) = run_validator(|w| w.rejecting(&long));
    let content = &observed.result().content;
    assert_eq!(content.chars().count(), 4096);
    assert!(content.starts_with(r#"{"error":{"code":"TOOL_ARGUMENTS_INVALID","message":"mmm"#));
    assert!(content.ends_with("\n[Tool output truncated]"));
    check(&observed, Expect::Failure("TOOL_ARGUMENTS_INVALID", &long));
}

#[test]
fn validate_then_execute_each_run_once_with_the_right_values() {
    let mut w = World::new();
    let getter = w.b.returning("from getter");
    let decision = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("ok", Property::data(true)),
            ("value", Property::getter(getter)),
        ],
    );
    let validate = w.b.returning(decision);
    let execute = w.b.returning(2);
    let batch = one_tool(&mut w, validate, execute);
    let call = w.call("call-9", "t");
    let heap = w.finish();
    let observed = Run::new(&heap, Some(batch), call).go();
    check(&observed, Expect::Success("2"));
    assert_eq!(observed.calls(validate), 1);
    assert_eq!(observed.calls(getter), 1);
    assert_eq!(
        observed.args(execute),
        vec![vec![
            Arg::Value("from getter".into()),
            Arg::Context {
                tool_call_id: JsString::new("call-9")
            }
        ]]
    );
    let order: Vec<NodeId> = observed
        .trace
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Called { function, .. } => Some(*function),
            _ => None,
        })
        .collect();
    assert_eq!(order, [validate, getter, execute]);
}

#[test]
fn execution_failures_and_awaiting() {
    let cases: Vec<(Expect<'static>, Make<NodeId>)> = vec![
        (
            Expect::Failure("TOOL_EXECUTION_FAILED", "sync"),
            Box::new(|w| w.b.throwing("sync")),
        ),
        (
            Expect::Failure(
                "TOOL_EXECUTION_FAILED",
                "Cannot perform 'get' on a proxy that has been revoked",
            ),
            Box::new(|w| {
                // `await` reads `then` of the output: a revoked proxy rejects
                let target = w.b.object([("a", 1)]);
                let revoked = w.b.alloc(Node::Proxy(ProxyNode {
                    target,
                    traps: Default::default(),
                    revoked: true,
                }));
                w.b.returning(revoked)
            }),
        ),
        (
            Expect::Failure("TOOL_EXECUTION_FAILED", "Tool execution failed"),
            Box::new(|w| w.b.throwing(Value::Null)),
        ),
        (
            Expect::Failure("TOOL_EXECUTION_FAILED", "rejected"),
            Box::new(|w| {
                let e =
                    w.b.error(Proto::Builtin(Builtin::TypeError), Some("rejected"));
                let p = w.b.alloc(Node::Promise(PromiseNode::Rejected(e.into())));
                w.b.returning(p)
            }),
        ),
        (
            Expect::Success(r#"{"x":1}"#),
            Box::new(|w| {
                let o = w.b.object([("x", 1)]);
                let p = w.b.alloc(Node::Promise(PromiseNode::Fulfilled(o.into())));
                w.b.returning(p)
            }),
        ),
        (
            Expect::Success(r#""[Undefined]""#),
            Box::new(|w| w.b.function(Script::default())),
        ),
        (
            Expect::Success("5"),
            Box::new(|w| {
                // a thenable resolving to a thenable resolving to 5
                let inner_then = w.b.function(Script {
                    effects: vec![],
                    completion: Completion::CallArg {
                        index: 0,
                        value: 5.into(),
                    },
                });
                let inner = w.b.object([("then", inner_then)]);
                let then = w.b.function(Script {
                    effects: vec![],
                    completion: Completion::CallArg {
                        index: 0,
                        value: inner.into(),
                    },
                });
                let thenable = w.b.object([("then", then)]);
                w.b.returning(thenable)
            }),
        ),
        (
            Expect::Failure("TOOL_EXECUTION_FAILED", "thenable said no"),
            Box::new(|w| {
                let then = w.b.function(Script {
                    effects: vec![],
                    completion: Completion::CallArg {
                        index: 1,
                        value: "thenable said no".into(),
                    },
                });
                let thenable = w.b.object([("then", then)]);
                w.b.returning(thenable)
            }),
        ),
        (
            Expect::Failure("TOOL_EXECUTION_FAILED", "then getter"),
            Box::new(|w| {
                let g = w.b.throwing("then getter");
                let thenable =
                    w.object_with(Proto::ObjectPrototype, vec![("then", Property::getter(g))]);
                w.b.returning(thenable)
            }),
        ),
        (
            Expect::Pending,
            Box::new(|w| {
                let then = w.b.returning(Value::Undefined);
                let thenable = w.b.object([("then", then)]);
                w.b.returning(thenable)
            }),
        ),
        (
            Expect::Pending,
            Box::new(|w| {
                let p =
                    w.b.alloc(Node::Promise(PromiseNode::Pending { after_abort: None }));
                w.b.returning(p)
            }),
        ),
    ];
    for (expect, make) in cases {
        let mut w = World::new();
        let validate = w.accepting(1);
        let execute = make(&mut w);
        let batch = one_tool(&mut w, validate, execute);
        let call = w.call("c", "t");
        let heap = w.finish();
        let observed = Run::new(&heap, Some(batch), call).go();
        check(&observed, expect);
        assert_eq!(observed.calls(execute), 1);
    }
}

#[test]
fn output_failures_give_serialization_failed_results() {
    let cases: Vec<(&str, Make<Value>)> = vec![
        (
            "Tool output objects must be plain or have a null prototype",
            Box::new(|w| w.object_with(Proto::Builtin(Builtin::Map), vec![]).into()),
        ),
        (
            "Tool output objects must be plain or have a null prototype",
            Box::new(|w| {
                let date = w.object_with(Proto::Builtin(Builtin::Date), vec![]);
                w.b.object([("when", date)]).into()
            }),
        ),
        (
            "Tool output arrays must use a plain prototype",
            Box::new(|w| {
                let list = w.b.alloc(Node::Array(ArrayNode {
                    proto: Proto::Class(JsString::new("List")),
                    length: 0,
                    slots: Default::default(),
                }));
                w.b.object([("list", list)]).into()
            }),
        ),
        (
            "trap threw",
            Box::new(|w| {
                let target = w.b.object([("a", 1)]);
                let e =
                    w.b.error(Proto::Builtin(Builtin::Error), Some("trap threw"));
                w.b.alloc(Node::Proxy(ProxyNode {
                    target,
                    traps: [(Trap::GetPrototypeOf, TrapBehavior::Throw(e.into()))].into(),
                    revoked: false,
                }))
                .into()
            }),
        ),
        (
            "Cannot perform 'IsArray' on a proxy that has been revoked",
            Box::new(|w| {
                // nested: awaiting the output itself reads `then`, which a revoked proxy refuses
                let target = w.b.array([1]);
                let revoked = w.b.alloc(Node::Proxy(ProxyNode {
                    target,
                    traps: Default::default(),
                    revoked: true,
                }));
                w.b.array([revoked]).into()
            }),
        ),
    ];
    for (message, make) in cases {
        let mut w = World::new();
        let output = make(&mut w);
        let (batch, _, _) = returning_tool(&mut w, output);
        let call = w.call("c", "t");
        let heap = w.finish();
        check(
            &Run::new(&heap, Some(batch), call).go(),
            Expect::Failure("TOOL_OUTPUT_SERIALIZATION_FAILED", message),
        );
    }
}

#[test]
fn results_carry_exactly_six_linked_fields() {
    let mut w = World::new();
    let output =
        w.b.object([("sum", Value::from(42)), ("exact", true.into())]);
    let (batch, _, _) = returning_tool(&mut w, output);
    let call = w.call("call_\u{1F600}", "t");
    let heap = w.finish();
    let observed = Run::new(&heap, Some(batch), call).go();
    let result = observed.result();
    assert_eq!(
        result.to_json(),
        json!({
            "id": "tool-result-call_\u{1F600}",
            "role": "toolResult",
            "toolCallId": "call_\u{1F600}",
            "toolName": "t",
            "content": "{\"exact\":true,\"sum\":42}",
            "isError": false,
        })
    );
    assert_eq!(result.role(), "toolResult");
    // error results link the same way
    let mut w = World::new();
    let call = w.call("x", "missing");
    let heap = w.finish();
    let observed = Run::new(&heap, None, call).go();
    let json = observed.result().to_json();
    assert_eq!(json.as_object().unwrap().len(), 6);
    assert_eq!(
        (json["id"].as_str(), json["isError"].as_bool()),
        (Some("tool-result-x"), Some(true))
    );
}

#[test]
fn calls_never_change_the_registry() {
    let mut w = World::new();
    let (batch, _, _) = returning_tool(&mut w, 1);
    let unknown = w.call("c", "other");
    let heap = w.finish();
    for call in [unknown.into(), Value::Null] {
        let observed = Run::new(&heap, Some(batch), call).go();
        assert_eq!(observed.names, ["t"]);
    }
}
