//! Genuine `NonRecoverableToolError`s (the class, its subclasses, a second
//! copy of the module: anything carrying the constructor's brand) reject the
//! call from validate, decision getters, execute and output inspection;
//! look-alikes by fields or by prototype are ordinary failures.

mod support;

use support::{outcome_matches, Expect, Observed, Run, World};
use toolgate_core::model::*;
use toolgate_core::{ContractCode, JsString};

fn check(observed: &Observed, expect: Expect<'_>) {
    if let Err(diff) = outcome_matches(observed, &expect) {
        panic!("{diff}\ntrace: {:?}", observed.trace);
    }
}

/// The thrown values of these tests.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Genuine,
    Subclass,
    SecondCopy,
    FieldOnly,
    PrototypeOnly,
}

fn thrown(w: &mut World, kind: Kind) -> NodeId {
    let nre = Proto::Builtin(Builtin::NonRecoverableToolError);
    match kind {
        Kind::Genuine => w.b.non_recoverable(nre, "fatal"),
        Kind::Subclass => {
            let sub = w.object_with(nre, vec![]);
            w.b.non_recoverable(Proto::Node(sub), "fatal")
        }
        // the class of another loaded copy of the module: another prototype, same brand
        Kind::SecondCopy => w.b.non_recoverable(
            Proto::Class(JsString::new("NonRecoverableToolError")),
            "fatal",
        ),
        Kind::FieldOnly => w.b.object([
            ("code", Value::from("NON_RECOVERABLE_TOOL_ERROR")),
            ("nonRecoverable", true.into()),
            ("message", "fatal".into()),
        ]),
        Kind::PrototypeOnly => {
            let mut o = ObjectNode::new(nre);
            o.define("message", Property::data("fatal").hidden());
            w.b.alloc(Node::Object(o))
        }
    }
}

fn genuine(kind: Kind) -> bool {
    matches!(kind, Kind::Genuine | Kind::Subclass | Kind::SecondCopy)
}

const KINDS: [Kind; 5] = [
    Kind::Genuine,
    Kind::Subclass,
    Kind::SecondCopy,
    Kind::FieldOnly,
    Kind::PrototypeOnly,
];

/// Where the error is thrown, and the code an ordinary failure gets there.
#[derive(Clone, Copy, Debug)]
enum Place {
    Validate,
    DecisionGetter,
    ExecuteSync,
    ExecuteRejection,
    OutputTrap,
}

fn run(place: Place, kind: Kind) -> (Observed, NodeId) {
    let mut w = World::new();
    let error = thrown(&mut w, kind);
    let validate = match place {
        Place::Validate => w.b.throwing(error),
        Place::DecisionGetter => {
            let g = w.b.throwing(error);
            let d = w.object_with(Proto::ObjectPrototype, vec![("ok", Property::getter(g))]);
            w.b.returning(d)
        }
        _ => w.accepting(1),
    };
    let execute = match place {
        Place::ExecuteSync => w.b.throwing(error),
        Place::ExecuteRejection => {
            let p =
                w.b.alloc(Node::Promise(PromiseNode::Rejected(error.into())));
            w.b.returning(p)
        }
        Place::OutputTrap => {
            let target = w.b.object([("a", 1)]);
            let proxy = w.b.alloc(Node::Proxy(ProxyNode {
                target,
                traps: [(Trap::OwnKeys, TrapBehavior::Throw(error.into()))].into(),
                revoked: false,
            }));
            let output = w.b.array([proxy]);
            w.b.returning(output)
        }
        _ => w.b.returning(1),
    };
    let def = w.definition("t", validate, execute);
    let batch = w.b.array([def]);
    let call = w.call("c", "t");
    let heap = w.finish();
    (Run::new(&heap, Some(batch), call).go(), error)
}

#[test]
fn genuine_errors_propagate_and_look_alikes_are_ordinary_failures() {
    for (place, code) in [
        (Place::Validate, "TOOL_VALIDATION_FAILED"),
        (Place::DecisionGetter, "TOOL_VALIDATION_FAILED"),
        (Place::ExecuteSync, "TOOL_EXECUTION_FAILED"),
        (Place::ExecuteRejection, "TOOL_EXECUTION_FAILED"),
        (Place::OutputTrap, "TOOL_OUTPUT_SERIALIZATION_FAILED"),
    ] {
        for kind in KINDS {
            let (observed, error) = run(place, kind);
            let expect = if genuine(kind) {
                Expect::NonRecoverable(error)
            } else {
                Expect::Failure(code, "fatal")
            };
            if let Err(diff) = outcome_matches(&observed, &expect) {
                panic!("{place:?} {kind:?}: {diff}");
            }
        }
    }
}

#[test]
fn the_rejection_carries_the_thrown_error() {
    let (observed, error) = run(Place::Validate, Kind::Subclass);
    check(&observed, Expect::NonRecoverable(error));
    assert!(observed.error().to_string().contains("fatal"));
}

#[test]
fn a_genuine_error_thrown_while_the_call_is_snapshotted_is_invalid_call() {
    let mut w = World::new();
    let error = thrown(&mut w, Kind::Genuine);
    let getter = w.b.throwing(error);
    let call = w.object_with(
        Proto::ObjectPrototype,
        vec![("type", Property::getter(getter))],
    );
    let heap = w.finish();
    check(
        &Run::new(&heap, None, call).go(),
        Expect::Contract(ContractCode::InvalidToolCall),
    );
}

#[test]
fn a_genuine_error_kept_by_the_asynchrony_check_is_a_validation_failure() {
    // a `then` getter throwing a genuine error: asynchrony, not propagation
    let mut w = World::new();
    let error = thrown(&mut w, Kind::Genuine);
    let getter = w.b.throwing(error);
    let thenable = w.object_with(
        Proto::ObjectPrototype,
        vec![("then", Property::getter(getter))],
    );
    let validate = w.b.returning(thenable);
    let execute = w.b.returning(1);
    let def = w.definition("t", validate, execute);
    let batch = w.b.array([def]);
    let call = w.call("c", "t");
    let heap = w.finish();
    check(
        &Run::new(&heap, Some(batch), call).go(),
        Expect::Failure("TOOL_VALIDATION_FAILED", "fatal"),
    );
}

#[test]
fn a_genuine_error_during_registration_is_invalid_definition() {
    let mut w = World::new();
    let error = thrown(&mut w, Kind::Genuine);
    let getter = w.b.throwing(error);
    let def = w.object_with(
        Proto::ObjectPrototype,
        vec![("name", Property::getter(getter))],
    );
    let heap = w.finish();
    let rt = Runtime::new(&heap, Default::default(), Default::default());
    let err = snapshot_definition(&rt, &Value::Ref(def)).unwrap_err();
    assert_eq!(
        err.contract_code(),
        Some(ContractCode::InvalidToolDefinition)
    );
}
