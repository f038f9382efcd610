//! Cancellation at every check point of the call, without sleeping: the
//! signal is aborted before the call, from getters on the call and on the
//! decision, from inside the validator, a `then`, the executor and a proxy
//! trap during output inspection, and from outside while the executor is
//! pending. Each case shows the call rejects with the exact reason, and
//! nothing after the abort point runs.

mod support;

use serde_json::json;
use support::{outcome_matches, Expect, Make, Observed, Run, World};
use toolgate_core::model::*;
use toolgate_core::AbortReason;

fn check(observed: &Observed, expect: Expect<'_>) {
    if let Err(diff) = outcome_matches(observed, &expect) {
        panic!("{diff}\ntrace: {:?}", observed.trace);
    }
}

fn reason() -> AbortReason {
    AbortReason::Value(json!({"why": "user pressed stop", "n": [1, 2]}))
}

fn aborting() -> Effect {
    Effect::Abort(Some(json!({"why": "user pressed stop", "n": [1, 2]})))
}

/// A function that aborts, then completes as given.
fn abort_then(w: &mut World, completion: Completion) -> NodeId {
    w.b.function(Script {
        effects: vec![aborting()],
        completion,
    })
}

/// The pieces of a one-tool world: validator, executor, call.
struct Tool {
    validate: NodeId,
    execute: NodeId,
    batch: NodeId,
    call: NodeId,
}

fn tool(w: &mut World, validate: NodeId, execute: NodeId) -> Tool {
    let def = w.definition("t", validate, execute);
    let batch = w.b.array([def]);
    let call = w.call("c", "t");
    Tool {
        validate,
        execute,
        batch,
        call,
    }
}

#[test]
fn an_aborted_signal_rejects_before_anything_is_read() {
    for (given, expect) in [(Some(reason()), reason()), (None, AbortReason::AbortError)] {
        let mut w = World::new();
        let validate = w.accepting(1);
        let execute = w.b.returning(1);
        let getter = w.b.returning("c");
        let t = tool(&mut w, validate, execute);
        let call = w.object_with(
            Proto::ObjectPrototype,
            vec![("type", Property::getter(getter))],
        );
        let heap = w.finish();
        let run = Run::new(&heap, Some(t.batch), call);
        run.signal
            .abort(given.clone().unwrap_or(AbortReason::AbortError));
        let observed = run.go();
        check(&observed, Expect::Cancelled(expect));
        assert!(observed.trace.is_empty(), "{:?}", observed.trace);
    }
}

#[test]
fn an_aborted_signal_wins_over_an_invalid_registry_or_call() {
    let w = World::new();
    let heap = w.finish();
    let mut run = Run::new(&heap, None, Value::Null);
    run.real_registry = false;
    run.signal.abort(reason());
    check(&run.go(), Expect::Cancelled(reason()));
}

#[test]
fn an_abort_while_the_call_is_snapshotted_wins() {
    // a getter on `id` aborts; the call is otherwise valid (caught at step 4,
    // before an unknown name could give TOOL_NOT_FOUND) or invalid (the
    // reason wins over INVALID_TOOL_CALL)
    for (valid, tool_name) in [(true, "t"), (true, "unknown"), (false, "t")] {
        let mut w = World::new();
        let validate = w.accepting(1);
        let execute = w.b.returning(1);
        let t = tool(&mut w, validate, execute);
        let id_getter = abort_then(&mut w, Completion::Return("c".into()));
        let args = w.b.object::<&str, Value>([]);
        // invalid in a field read after `id`, so the aborting getter runs
        let name = if valid { tool_name } else { " " };
        let call = w.object_with(
            Proto::ObjectPrototype,
            vec![
                ("type", Property::data("toolCall")),
                ("id", Property::getter(id_getter)),
                ("name", Property::data(name)),
                ("arguments", Property::data(args)),
            ],
        );
        let heap = w.finish();
        let observed = Run::new(&heap, Some(t.batch), call).go();
        check(&observed, Expect::Cancelled(reason()));
        assert_eq!(observed.calls(id_getter), 1);
        assert_eq!(observed.calls(t.validate), 0);
    }
}

#[test]
fn an_abort_inside_the_validator_rejects_whatever_it_returns() {
    let cases: Vec<Make<Completion>> = vec![
        Box::new(|w| {
            let d = w.b.object([("ok", Value::Bool(true)), ("value", 1.into())]);
            Completion::Return(d.into())
        }),
        Box::new(|w| {
            let d =
                w.b.object([("ok", Value::Bool(false)), ("error", "no".into())]);
            Completion::Return(d.into())
        }),
        Box::new(|_| Completion::Throw("thrown".into())),
        Box::new(|_| Completion::Return(5.into())),
        Box::new(|w| {
            let p = w.b.alloc(Node::Promise(PromiseNode::Rejected(1.into())));
            Completion::Return(p.into())
        }),
        Box::new(|w| {
            Completion::Throw(
                w.b.non_recoverable(Proto::Builtin(Builtin::NonRecoverableToolError), "fatal")
                    .into(),
            )
        }),
    ];
    for completion in cases {
        let mut w = World::new();
        let completion = completion(&mut w);
        let validate = abort_then(&mut w, completion);
        let execute = w.b.returning(1);
        let t = tool(&mut w, validate, execute);
        let heap = w.finish();
        let observed = Run::new(&heap, Some(t.batch), t.call).go();
        check(&observed, Expect::Cancelled(reason()));
        assert_eq!(observed.calls(t.execute), 0);
    }
}

#[test]
fn an_abort_from_a_then_is_seen_at_the_next_check() {
    let mut w = World::new();
    let then = abort_then(&mut w, Completion::ReturnUndefined);
    let thenable = w.b.object([("then", then)]);
    let validate = w.b.returning(thenable);
    let execute = w.b.returning(1);
    let t = tool(&mut w, validate, execute);
    let heap = w.finish();
    check(
        &Run::new(&heap, Some(t.batch), t.call).go(),
        Expect::Cancelled(reason()),
    );
}

#[test]
fn an_abort_from_a_decision_getter_rejects() {
    // which field's getter aborts, and what it then does
    for (field, completion) in [
        ("value", Completion::Return(1.into())),
        ("ok", Completion::Throw("after abort".into())),
        ("ok", Completion::Return(true.into())),
        ("error", Completion::Return("invalid args".into())),
    ] {
        let mut w = World::new();
        let getter = abort_then(&mut w, completion);
        let ok = field != "error";
        let mut fields = vec![("ok", Property::data(ok))];
        if field == "ok" {
            fields = vec![
                ("ok", Property::getter(getter)),
                ("value", Property::data(1)),
            ];
        } else {
            fields.push((field, Property::getter(getter)));
        }
        let decision = w.object_with(Proto::ObjectPrototype, fields);
        let validate = w.b.returning(decision);
        let execute = w.b.returning(1);
        let t = tool(&mut w, validate, execute);
        let heap = w.finish();
        let observed = Run::new(&heap, Some(t.batch), t.call).go();
        check(&observed, Expect::Cancelled(reason()));
        assert_eq!(observed.calls(getter), 1, "{field}");
        assert_eq!(observed.calls(t.execute), 0, "{field}");
    }
}

#[test]
fn an_abort_inside_the_executor_rejects_whatever_it_returns() {
    let cases: Vec<Make<Completion>> = vec![
        Box::new(|_| Completion::Return(1.into())),
        Box::new(|_| Completion::Throw("thrown".into())),
        Box::new(|w| {
            let p = w.b.alloc(Node::Promise(PromiseNode::Fulfilled(2.into())));
            Completion::Return(p.into())
        }),
        Box::new(|w| {
            let p = w.b.alloc(Node::Promise(PromiseNode::Rejected(2.into())));
            Completion::Return(p.into())
        }),
        Box::new(|w| {
            Completion::Throw(
                w.b.non_recoverable(Proto::Builtin(Builtin::NonRecoverableToolError), "fatal")
                    .into(),
            )
        }),
        Box::new(|w| {
            let map = w.object_with(Proto::Builtin(Builtin::Map), vec![]);
            Completion::Return(map.into())
        }),
    ];
    for completion in cases {
        let mut w = World::new();
        let validate = w.accepting(1);
        let completion = completion(&mut w);
        let execute = abort_then(&mut w, completion);
        let t = tool(&mut w, validate, execute);
        let heap = w.finish();
        let observed = Run::new(&heap, Some(t.batch), t.call).go();
        check(&observed, Expect::Cancelled(reason()));
        assert_eq!(observed.calls(t.execute), 1);
    }
}

#[test]
fn an_abort_from_a_thenable_result_rejects() {
    let mut w = World::new();
    let validate = w.accepting(1);
    let then = w.b.function(Script {
        effects: vec![aborting()],
        completion: Completion::CallArg {
            index: 0,
            value: 1.into(),
        },
    });
    let thenable = w.b.object([("then", then)]);
    let execute = w.b.returning(thenable);
    let t = tool(&mut w, validate, execute);
    let heap = w.finish();
    check(
        &Run::new(&heap, Some(t.batch), t.call).go(),
        Expect::Cancelled(reason()),
    );
}

#[test]
fn an_abort_while_pending_rejects_at_once_and_ignores_the_late_settlement() {
    for late in [
        None,
        Some(Settlement::Fulfill(1.into())),
        Some(Settlement::Reject("late".into())),
    ] {
        let mut w = World::new();
        let validate = w.accepting(1);
        let pending = w.b.alloc(Node::Promise(PromiseNode::Pending {
            after_abort: late.clone(),
        }));
        let execute = w.b.function(Script {
            effects: vec![Effect::ListenForAbort],
            completion: Completion::Return(pending.into()),
        });
        let t = tool(&mut w, validate, execute);
        let heap = w.finish();
        let mut run = Run::new(&heap, Some(t.batch), t.call);
        run.abort_when_pending = Some(reason());
        let observed = run.go();
        check(&observed, Expect::Cancelled(reason()));
        assert_eq!(observed.calls(t.execute), 1);
        assert!(
            observed.trace.contains(&TraceEvent::AbortListenerFired {
                function: t.execute
            }),
            "the executor saw the abort"
        );
        let settled = observed.trace.iter().any(
            |e| matches!(e, TraceEvent::LateSettlement { promise, .. } if *promise == pending),
        );
        assert_eq!(settled, late.is_some());
        // the context handed to the executor carries the call id
        assert_eq!(
            observed.args(t.execute)[0][1],
            Arg::Context {
                tool_call_id: toolgate_core::JsString::new("c")
            }
        );
    }
}

#[test]
fn without_an_abort_a_pending_executor_keeps_the_call_pending() {
    let mut w = World::new();
    let validate = w.accepting(1);
    let pending =
        w.b.alloc(Node::Promise(PromiseNode::Pending { after_abort: None }));
    let execute = w.b.returning(pending);
    let t = tool(&mut w, validate, execute);
    let heap = w.finish();
    check(
        &Run::new(&heap, Some(t.batch), t.call).go(),
        Expect::Pending,
    );
}

#[test]
fn an_abort_from_a_trap_during_output_inspection_rejects() {
    // the aborting trap, and whether a later trap then throws (step 16's check)
    for (trap, then_throw) in [
        (Trap::GetPrototypeOf, false),
        (Trap::OwnKeys, false),
        (Trap::GetOwnPropertyDescriptor, false),
        (Trap::GetPrototypeOf, true),
    ] {
        let mut w = World::new();
        let validate = w.accepting(1);
        let target = w.b.object([("a", 1)]);
        let mut traps = std::collections::BTreeMap::new();
        traps.insert(
            trap,
            TrapBehavior::Abort(Some(json!({"why": "user pressed stop", "n": [1, 2]}))),
        );
        if then_throw {
            traps.insert(Trap::OwnKeys, TrapBehavior::Throw("after".into()));
        }
        let proxy = w.b.alloc(Node::Proxy(ProxyNode {
            target,
            traps,
            revoked: false,
        }));
        let output = w.b.array([proxy]);
        let execute = w.b.returning(output);
        let t = tool(&mut w, validate, execute);
        let heap = w.finish();
        let observed = Run::new(&heap, Some(t.batch), t.call).go();
        check(&observed, Expect::Cancelled(reason()));
        assert!(observed
            .trace
            .contains(&TraceEvent::TrapRan { proxy, trap }));
    }
}

#[test]
fn an_abort_after_the_result_is_written_does_not_reach_it() {
    // the signal aborted after the call finished changes nothing
    let mut w = World::new();
    let validate = w.accepting(1);
    let execute = w.b.returning(3);
    let t = tool(&mut w, validate, execute);
    let heap = w.finish();
    let run = Run::new(&heap, Some(t.batch), t.call);
    let signal = run.signal.clone();
    let observed = run.go();
    signal.abort(reason());
    check(&observed, Expect::Success("3"));
}
