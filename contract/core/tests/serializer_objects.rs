//! How CONTRACT.md's serializer treats containers: own enumerable string keys
//! only, accessors, `toJSON`, inherited fields, holes and accessor slots,
//! circular references (ancestors only), supported and unsupported
//! prototypes, proxies (traps run, throwing, revoked, aborting), the order of
//! the checks per container (depth, then circular, then prototype; nothing
//! after truncation), and determinism.

mod support;

use serde_json::json;
use std::collections::BTreeMap;
use support::World;
use toolgate_core::constants::TRUNCATION_MARKER;
use toolgate_core::model::*;
use toolgate_core::serializer::{serialize, Failure, Refused, Serialized, MAX_STEPS};
use toolgate_core::{AbortReason, AbortSignal, JsString};

/// What one serialization produced besides the checked outcome.
struct Seen {
    out: Option<Serialized>,
    trace: Vec<TraceEvent>,
    signal: AbortSignal,
}

/// Serializes `root` of `heap` through a runtime built here (fresh signal and
/// trace), compares the outcome with `expect` (a content, or the failure),
/// and returns the result, the trace and the signal for further checks.
fn check(heap: &Heap, root: impl Into<Value>, expect: Result<&str, Failure<Thrown>>) -> Seen {
    let signal = AbortSignal::new();
    let trace = Trace::default();
    let rt = Runtime::new(heap, signal.clone(), trace.clone());
    let out = serialize(&rt, &root.into());
    let events = trace.lock().unwrap().clone();
    match (&out, &expect) {
        (Ok(got), Ok(want)) => {
            assert_eq!(got.content, *want);
            assert_eq!(
                got.truncated,
                want.ends_with(TRUNCATION_MARKER),
                "truncated flag"
            );
            assert!(got.content.chars().count() <= 4096, "over the cap");
            assert!(got.steps <= MAX_STEPS, "steps {} > MAX_STEPS", got.steps);
        }
        (Err(got), Err(want)) => assert_eq!(got, want),
        _ => panic!("got {out:?}, expected {expect:?}"),
    }
    Seen {
        out: out.ok(),
        trace: events,
        signal,
    }
}

// ------------------------------------------------------------ SER-objects

#[test]
fn objects_write_own_enumerable_string_keys_only() {
    let mut w = World::new();
    let getter = w.b.throwing("never run");
    let mut o = ObjectNode::new(Proto::ObjectPrototype);
    o.define("b", Property::data(2));
    o.define(PropKey::Symbol(1), Property::data("symbol-keyed"));
    o.define(PropKey::Symbol(2), Property::getter(getter));
    o.define("hidden", Property::data("not enumerable").hidden());
    o.define("hiddenGetter", Property::getter(getter).hidden());
    o.define("a", Property::data(1));
    let root = w.b.alloc(Node::Object(o));
    let empty = w.object_with(
        Proto::ObjectPrototype,
        vec![("h", Property::data(1).hidden())],
    );
    let heap = w.finish();
    let seen = check(&heap, root, Ok(r#"{"a":1,"b":2}"#));
    assert!(seen.trace.is_empty(), "{:?}", seen.trace);
    check(&heap, empty, Ok("{}"));
}

#[test]
fn objects_100000_hidden_and_symbol_props_cost_nothing() {
    let mut w = World::new();
    let getter = w.b.throwing("never run");
    // one visible key `v` holding an array of `holes` holes, beside 100,000
    // non-enumerable properties and 1,000 symbol keys
    let mut build = |holes: u32| {
        let v = w.b.alloc(Node::Array(ArrayNode {
            proto: Proto::ArrayPrototype,
            length: holes,
            slots: Slots::new(),
        }));
        let mut o = ObjectNode::new(Proto::ObjectPrototype);
        for i in 0..100_000 {
            let p = if i % 10 == 0 {
                Property::getter(getter)
            } else {
                Property::data(i)
            };
            o.define(format!("h{i}").as_str(), p.hidden());
        }
        for i in 0..1000 {
            o.define(PropKey::Symbol(i), Property::data(1));
        }
        o.define("v", Property::data(v));
        w.b.alloc(Node::Object(o))
    };
    // `v` is 1 entry: 255 holes more make exactly 256
    let fits = build(255);
    let over = build(256);
    let heap = w.finish();
    let holes = vec![r#""[Empty]""#; 255].join(",");
    let seen = check(&heap, fits, Ok(&format!(r#"{{"v":[{holes}]}}"#)));
    let steps = seen.out.map(|o| o.steps).unwrap_or(u64::MAX);
    assert!(steps < 10_000, "hidden properties cost steps: {steps}");
    let expect = format!(r#"{{"v":[{holes}{TRUNCATION_MARKER}"#);
    let seen = check(&heap, over, Ok(&expect));
    assert!(seen.trace.is_empty());
}

#[test]
fn objects_accessors_are_dropped_unrun_but_cost_an_entry() {
    let mut w = World::new();
    let getter = w.b.function(Script {
        effects: vec![Effect::Abort(Some(json!("getter ran")))],
        completion: Completion::Throw(Value::from("getter ran")),
    });
    // a, g, s, v are 4 entries; `v` holds `holes` holes
    let mut build = |holes: u32| {
        let v = w.b.alloc(Node::Array(ArrayNode {
            proto: Proto::ArrayPrototype,
            length: holes,
            slots: Slots::new(),
        }));
        w.object_with(
            Proto::ObjectPrototype,
            vec![
                ("v", Property::data(v)),
                ("g", Property::getter(getter)),
                (
                    "s",
                    Property::Accessor {
                        getter: None,
                        enumerable: true,
                    },
                ),
                ("a", Property::data(1)),
            ],
        )
    };
    let fits = build(252);
    let over = build(253);
    let heap = w.finish();
    let holes = vec![r#""[Empty]""#; 252].join(",");
    for (root, expect) in [
        (fits, format!(r#"{{"a":1,"v":[{holes}]}}"#)),
        (over, format!(r#"{{"a":1,"v":[{holes}{TRUNCATION_MARKER}"#)),
    ] {
        let seen = check(&heap, root, Ok(&expect));
        assert!(seen.trace.is_empty(), "a getter ran: {:?}", seen.trace);
        assert!(!seen.signal.is_aborted());
    }
}

#[test]
fn objects_to_json_is_an_ordinary_property() {
    let mut w = World::new();
    let to_json = w.b.function(Script {
        effects: vec![Effect::Abort(None)],
        completion: Completion::Return(Value::from("replacement")),
    });
    let data = w.b.object([("toJSON", 5)]);
    let root = w.b.object([
        ("toJSON", Value::Ref(to_json)),
        ("a", Value::from(1)),
        ("x", Value::Ref(data)),
    ]);
    let heap = w.finish();
    let seen = check(
        &heap,
        root,
        Ok(r#"{"a":1,"toJSON":"[Function]","x":{"toJSON":5}}"#),
    );
    assert!(seen.trace.is_empty(), "toJSON was called: {:?}", seen.trace);
    assert!(!seen.signal.is_aborted());
}

#[test]
fn objects_inherited_fields_are_never_read() {
    let mut w = World::new();
    let getter = w.b.throwing("inherited getter ran");
    let parent = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("inherited", Property::data(1)),
            ("inheritedGetter", Property::getter(getter)),
        ],
    );
    // an object inheriting from another object has an unsupported prototype
    let child = w.object_with(Proto::Node(parent), vec![("own", Property::data(1))]);
    let null_proto = w.object_with(
        Proto::Null,
        vec![("b", Property::data(2)), ("a", Property::data(1))],
    );
    let heap = w.finish();
    let seen = check(&heap, child, Err(Failure::Unsupported(Refused::Object)));
    assert!(seen.trace.is_empty(), "{:?}", seen.trace);
    check(&heap, null_proto, Ok(r#"{"a":1,"b":2}"#));
}

// ------------------------------------------------------------- SER-arrays

#[test]
fn arrays_write_holes_and_accessor_slots_as_markers() {
    let mut w = World::new();
    let getter = w.b.function(Script {
        effects: vec![Effect::Abort(None)],
        completion: Completion::Return(Value::from("getter ran")),
    });
    let root = w.b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length: 6,
        slots: [
            (0, Property::data(1)),
            (1, Property::getter(getter)),
            (
                2,
                Property::Accessor {
                    getter: None,
                    enumerable: true,
                },
            ),
            (4, Property::data(Value::Undefined)),
        ]
        .into_iter()
        .collect(),
    }));
    let empty = w.b.array::<Value>([]);
    let holes_only = w.b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length: 2,
        slots: Slots::new(),
    }));
    let heap = w.finish();
    let seen = check(
        &heap,
        root,
        Ok(r#"[1,"[Accessor omitted]","[Accessor omitted]","[Empty]","[Undefined]","[Empty]"]"#),
    );
    assert!(seen.trace.is_empty(), "a getter ran: {:?}", seen.trace);
    assert!(!seen.signal.is_aborted());
    check(&heap, empty, Ok("[]"));
    check(&heap, holes_only, Ok(r#"["[Empty]","[Empty]"]"#));
}

// ----------------------------------------------------------- SER-circular

#[test]
fn circular_array_containing_itself() {
    let mut w = World::new();
    let a = w.b.array::<Value>([]);
    if let Some(Node::Array(node)) = w.b.node_mut(a) {
        node.length = 1;
        node.slots.insert(0, Property::data(a));
    }
    let heap = w.finish();
    check(&heap, a, Ok(r#"["[Circular]"]"#));
}

#[test]
fn circular_marks_any_ancestor_on_the_path() {
    let mut w = World::new();
    let a = w.b.object::<&str, Value>([]);
    let b = w.b.object::<&str, Value>([]);
    let c = w.b.object([("back", a), ("up", b)]);
    w.b.object_mut(b).unwrap().define("c", Property::data(c));
    w.b.object_mut(a).unwrap().define("b", Property::data(b));
    let heap = w.finish();
    check(
        &heap,
        a,
        Ok(r#"{"b":{"c":{"back":"[Circular]","up":"[Circular]"}}}"#),
    );
    // from b, a is not an ancestor: it is written, and b inside it is circular
    check(
        &heap,
        b,
        Ok(r#"{"c":{"back":{"b":"[Circular]"},"up":"[Circular]"}}"#),
    );
}

#[test]
fn circular_shared_references_are_written_each_time() {
    let mut w = World::new();
    let s = w.b.object([("v", 1)]);
    let holder = w.b.object([("t", s)]);
    let root = w.b.array([s, holder, s]);
    let looped = w.b.object::<&str, Value>([]);
    w.b.object_mut(looped)
        .unwrap()
        .define("self", Property::data(looped));
    let both = w.b.object([("a", looped), ("b", looped)]);
    let heap = w.finish();
    check(&heap, root, Ok(r#"[{"v":1},{"t":{"v":1}},{"v":1}]"#));
    check(
        &heap,
        both,
        Ok(r#"{"a":{"self":"[Circular]"},"b":{"self":"[Circular]"}}"#),
    );
}

// --------------------------------------------------------- SER-prototypes

#[test]
fn prototypes_plain_null_and_other_realm_are_supported() {
    let mut w = World::new();
    let mut roots = Vec::new();
    for proto in [Proto::ArrayPrototype, Proto::Null, Proto::OtherRealmArray] {
        let a = w.b.alloc(Node::Array(ArrayNode {
            proto,
            length: 1,
            slots: [(0, Property::data(1))].into_iter().collect(),
        }));
        roots.push((a, "[1]"));
    }
    for proto in [Proto::ObjectPrototype, Proto::Null, Proto::OtherRealmObject] {
        let o = w.object_with(proto, vec![("a", Property::data(1))]);
        roots.push((o, r#"{"a":1}"#));
    }
    let heap = w.finish();
    for (root, expect) in roots {
        check(&heap, root, Ok(expect));
    }
}

#[test]
fn prototypes_builtins_classes_crossed_kinds_and_promises_fail() {
    let mut w = World::new();
    let parent = w.b.object([("x", 1)]);
    // each root with the kind of container the TypeError names
    let mut roots: Vec<(NodeId, Refused)> = Vec::new();
    for proto in [
        Proto::Builtin(Builtin::Date),
        Proto::Builtin(Builtin::Map),
        Proto::Builtin(Builtin::Set),
        Proto::Builtin(Builtin::RegExp),
        Proto::Builtin(Builtin::BooleanBox),
        Proto::Builtin(Builtin::NumberBox),
        Proto::Builtin(Builtin::StringBox),
        Proto::Builtin(Builtin::Error),
        Proto::Builtin(Builtin::TypeError),
        Proto::Builtin(Builtin::Function),
        Proto::Class(JsString::new("Point")),
        Proto::ArrayPrototype,
        Proto::OtherRealmArray,
        Proto::Node(parent),
    ] {
        roots.push((
            w.object_with(proto, vec![("a", Property::data(1))]),
            Refused::Object,
        ));
    }
    for proto in [
        Proto::ObjectPrototype,
        Proto::OtherRealmObject,
        Proto::Builtin(Builtin::Set),
        Proto::Class(JsString::new("List")),
    ] {
        roots.push((
            w.b.alloc(Node::Array(ArrayNode {
                proto,
                length: 1,
                slots: [(0, Property::data(1))].into_iter().collect(),
            })),
            Refused::Array,
        ));
    }
    roots.push((
        w.b.alloc(Node::Promise(PromiseNode::Fulfilled(Value::from(1)))),
        Refused::Object,
    ));
    // a proxy does not hide its target's prototype
    let date = w.object_with(Proto::Builtin(Builtin::Date), vec![]);
    roots.push((
        w.b.alloc(Node::Proxy(ProxyNode {
            target: date,
            traps: BTreeMap::new(),
            revoked: false,
        })),
        Refused::Object,
    ));
    let heap = w.finish();
    for (root, refused) in roots {
        check(&heap, root, Err(Failure::Unsupported(refused)));
    }
}

#[test]
fn prototypes_unsupported_value_nested_deep_fails_the_whole_output() {
    let mut w = World::new();
    let date = w.object_with(Proto::Builtin(Builtin::Date), vec![]);
    let plain = w.object_with(Proto::ObjectPrototype, vec![]);
    // 60 numbers then the Date (or a plain object), inside 20 levels of
    // plain containers: 92 values, well within every budget
    let mut roots = Vec::new();
    for last in [date, plain] {
        let mut values: Vec<Value> = (0..60).map(Value::from).collect();
        values.push(Value::Ref(last));
        let mut root = w.b.array(values);
        for i in 0..20 {
            root = if i % 2 == 0 {
                w.b.object([("k", root)])
            } else {
                w.b.array([Value::from("before"), Value::Ref(root)])
            };
        }
        roots.push(root);
    }
    let heap = w.finish();
    check(&heap, roots[0], Err(Failure::Unsupported(Refused::Object)));
    // the same graph with a plain object in place of the Date is written whole
    let numbers: Vec<String> = (0..60).map(|i| i.to_string()).collect();
    let mut expect = format!("[{},{{}}]", numbers.join(","));
    for i in 0..20 {
        expect = if i % 2 == 0 {
            format!(r#"{{"k":{expect}}}"#)
        } else {
            format!(r#"["before",{expect}]"#)
        };
    }
    check(&heap, roots[1], Ok(&expect));
}

// ------------------------------------------------------------ SER-proxies

#[test]
fn proxies_pass_through_over_an_object_serializes_like_it() {
    let mut w = World::new();
    let target = w.b.object([("b", 2), ("a", 1)]);
    let p = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    let heap = w.finish();
    let seen = check(&heap, p, Ok(r#"{"a":1,"b":2}"#));
    let ran = |trap| TraceEvent::TrapRan { proxy: p, trap };
    // Object.getPrototypeOf; then for...in: the own keys and the prototype,
    // and per key the enumerability descriptor, then Object.hasOwn's and
    // the descriptor read
    let mut expected = vec![
        ran(Trap::GetPrototypeOf),
        ran(Trap::OwnKeys),
        ran(Trap::GetPrototypeOf),
    ];
    expected.extend(std::iter::repeat_n(
        ran(Trap::GetOwnPropertyDescriptor),
        2 * 3,
    ));
    assert_eq!(seen.trace, expected);
    check(&heap, target, Ok(r#"{"a":1,"b":2}"#));
}

#[test]
fn proxies_pass_through_over_an_array_serializes_like_it() {
    let mut w = World::new();
    let target = w.b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length: 3,
        slots: [(0, Property::data(1)), (2, Property::data(3))]
            .into_iter()
            .collect(),
    }));
    let p = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    let heap = w.finish();
    let seen = check(&heap, p, Ok(r#"[1,"[Empty]",3]"#));
    let ran = |trap| TraceEvent::TrapRan { proxy: p, trap };
    // the prototype, the own `length`, then one descriptor per slot
    assert_eq!(
        seen.trace,
        [
            ran(Trap::GetPrototypeOf),
            ran(Trap::GetOwnPropertyDescriptor),
            ran(Trap::GetOwnPropertyDescriptor),
            ran(Trap::GetOwnPropertyDescriptor),
            ran(Trap::GetOwnPropertyDescriptor),
        ]
    );
    check(&heap, target, Ok(r#"[1,"[Empty]",3]"#));
}

#[test]
fn proxies_a_throwing_trap_fails_with_the_thrown_value() {
    let mut w = World::new();
    let error =
        w.b.error(Proto::Builtin(Builtin::Error), Some("trap failed"));
    let object = w.b.object([("a", 1)]);
    let array = w.b.array([1]);
    let mut cases = Vec::new();
    for (target, trap) in [
        (object, Trap::GetPrototypeOf),
        (object, Trap::OwnKeys),
        (object, Trap::GetOwnPropertyDescriptor),
        (array, Trap::GetPrototypeOf),
        (array, Trap::GetOwnPropertyDescriptor),
    ] {
        for thrown in [Value::from("no"), Value::Ref(error), Value::Undefined] {
            let p = w.b.alloc(Node::Proxy(ProxyNode {
                target,
                traps: [(trap, TrapBehavior::Throw(thrown.clone()))]
                    .into_iter()
                    .collect(),
                revoked: false,
            }));
            // nested under plain containers, the throw still fails everything
            let holder =
                w.b.object([("before", Value::from(1)), ("p", Value::Ref(p))]);
            cases.push((p, thrown.clone()));
            cases.push((holder, thrown));
        }
    }
    let heap = w.finish();
    for (root, thrown) in cases {
        check(&heap, root, Err(Failure::Thrown(Thrown::Value(thrown))));
    }
}

#[test]
fn proxies_revoked_fail_with_the_is_array_type_error() {
    let mut w = World::new();
    let object = w.b.object([("a", 1)]);
    let array = w.b.array([1]);
    let mut roots = Vec::new();
    for target in [object, array] {
        let revoked = w.b.alloc(Node::Proxy(ProxyNode {
            target,
            traps: BTreeMap::new(),
            revoked: true,
        }));
        // a live proxy over a revoked one fails the same way
        let over = w.b.alloc(Node::Proxy(ProxyNode {
            target: revoked,
            traps: BTreeMap::new(),
            revoked: false,
        }));
        let holder = w.b.array([Value::from(0), Value::Ref(revoked)]);
        roots.extend([revoked, over, holder]);
    }
    let heap = w.finish();
    let expect =
        Thrown::TypeError("Cannot perform 'IsArray' on a proxy that has been revoked".to_string());
    for root in roots {
        check(&heap, root, Err(Failure::Thrown(expect.clone())));
    }
}

#[test]
fn proxies_an_aborting_trap_aborts_the_signal_and_serialization_completes() {
    let mut w = World::new();
    let object = w.b.object([("a", 1)]);
    let array = w.b.array([1, 2]);
    let on_object = w.b.alloc(Node::Proxy(ProxyNode {
        target: object,
        traps: [(Trap::GetPrototypeOf, TrapBehavior::Abort(Some(json!("x"))))]
            .into_iter()
            .collect(),
        revoked: false,
    }));
    let on_array = w.b.alloc(Node::Proxy(ProxyNode {
        target: array,
        traps: [(Trap::GetOwnPropertyDescriptor, TrapBehavior::Abort(None))]
            .into_iter()
            .collect(),
        revoked: false,
    }));
    let heap = w.finish();
    let seen = check(&heap, on_object, Ok(r#"{"a":1}"#));
    assert_eq!(seen.signal.reason(), Some(AbortReason::Value(json!("x"))));
    let aborted = TraceEvent::Aborted {
        reason: AbortReason::Value(json!("x")),
    };
    assert_eq!(
        seen.trace
            .iter()
            .filter(|e| matches!(e, TraceEvent::Aborted { .. }))
            .collect::<Vec<_>>(),
        [&aborted]
    );
    // aborted on the first slot descriptor (the length); every slot is still written
    let seen = check(&heap, on_array, Ok("[1,2]"));
    assert_eq!(seen.signal.reason(), Some(AbortReason::AbortError));
    let descriptors = seen
        .trace
        .iter()
        .filter(|e| {
            matches!(
                e,
                TraceEvent::TrapRan {
                    trap: Trap::GetOwnPropertyDescriptor,
                    ..
                }
            )
        })
        .count();
    assert_eq!(descriptors, 3, "{:?}", seen.trace);
}

// -------------------------------------------------------------- SER-order

#[test]
fn order_depth_check_comes_before_the_circular_check() {
    let mut w = World::new();
    // a chain of `n` arrays (depths 0..n-1) whose last one holds the first
    let mut chain = |n: usize| {
        let ids: Vec<NodeId> = (0..n).map(|_| w.b.array::<Value>([])).collect();
        for (i, id) in ids.iter().enumerate() {
            let next = ids.get(i + 1).or(ids.first()).copied();
            if let (Some(Node::Array(a)), Some(next)) = (w.b.node_mut(*id), next) {
                a.length = 1;
                a.slots.insert(0, Property::data(next));
            }
        }
        ids.first().copied()
    };
    let circular_at_32 = chain(32).unwrap();
    let circular_at_33 = chain(33).unwrap();
    let heap = w.finish();
    let expect = format!("{}\"[Circular]\"{}", "[".repeat(32), "]".repeat(32));
    check(&heap, circular_at_32, Ok(&expect));
    // the ancestor met again at depth 33 truncates instead of being circular
    let expect = format!("{}{TRUNCATION_MARKER}", "[".repeat(33));
    check(&heap, circular_at_33, Ok(&expect));
}

#[test]
fn order_unsupported_or_revoked_beyond_depth_32_truncates() {
    let mut w = World::new();
    let target = w.b.object([("a", 1)]);
    let date = w.object_with(Proto::Builtin(Builtin::Date), vec![]);
    let promise =
        w.b.alloc(Node::Promise(PromiseNode::Fulfilled(Value::Null)));
    let revoked = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: true,
    }));
    let throwing = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: [(Trap::GetPrototypeOf, TrapBehavior::Throw(Value::from("t")))]
            .into_iter()
            .collect(),
        revoked: false,
    }));
    let mut cases = Vec::new();
    let revoked_error =
        Thrown::TypeError("Cannot perform 'IsArray' on a proxy that has been revoked".into());
    for (bad, failure) in [
        (date, Failure::Unsupported(Refused::Object)),
        (promise, Failure::Unsupported(Refused::Object)),
        (revoked, Failure::Thrown(revoked_error)),
        (throwing, Failure::Thrown(Thrown::Value(Value::from("t")))),
    ] {
        // `bad` inside 32 arrays is at depth 32 and fails; inside 33 at depth
        // 33 and truncates before it is inspected
        let mut at_32 = w.b.array([bad]);
        for _ in 0..31 {
            at_32 = w.b.array([at_32]);
        }
        let at_33 = w.b.array([at_32]);
        cases.push((at_32, Err(failure)));
        cases.push((at_33, Ok(format!("{}{TRUNCATION_MARKER}", "[".repeat(33)))));
    }
    let heap = w.finish();
    for (root, expect) in cases {
        let seen = check(&heap, root, expect.as_deref().map_err(Clone::clone));
        if seen.out.is_some() {
            assert!(seen.trace.is_empty(), "inspected: {:?}", seen.trace);
        }
    }
}

#[test]
fn order_circular_check_comes_before_the_prototype_check() {
    let mut w = World::new();
    let target = w.b.object::<&str, Value>([]);
    let p = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    // the proxy's target refers to the proxy: met again, it is circular
    // without its prototype being asked a second time
    w.b.object_mut(target)
        .unwrap()
        .define("self", Property::data(p));
    let heap = w.finish();
    let seen = check(&heap, p, Ok(r#"{"self":"[Circular]"}"#));
    let ran = |trap| TraceEvent::TrapRan { proxy: p, trap };
    assert_eq!(
        seen.trace,
        [
            ran(Trap::GetPrototypeOf),
            ran(Trap::OwnKeys),
            ran(Trap::GetPrototypeOf),
            ran(Trap::GetOwnPropertyDescriptor),
            ran(Trap::GetOwnPropertyDescriptor),
            ran(Trap::GetOwnPropertyDescriptor),
        ]
    );
}

/// A bracket or a comma that does not fit ends the walk at once: the next
/// container is not enumerated, the next slot's descriptor is not read.
#[test]
fn order_a_bracket_or_comma_that_does_not_fit_ends_the_walk_before_any_trap() {
    let mut w = World::new();
    let inner = w.b.object([("a", 1)]);
    let traced = |w: &mut World, target| {
        w.b.alloc(Node::Proxy(ProxyNode {
            target,
            traps: Trap::ALL
                .into_iter()
                .map(|t| (t, TrapBehavior::Abort(None)))
                .collect(),
            revoked: false,
        }))
    };
    let object = traced(&mut w, inner);
    // `["` + 4092 characters + `",` is 4096 code points: the object's `{`
    // is the 4097th, so only its prototype is asked
    let s = "x".repeat(4092);
    let root = w.b.array([Value::from(s.as_str()), Value::Ref(object)]);
    // a proxy array whose first slot fills the output to the cap: the comma
    // before slot 1 does not fit, so slot 1's descriptor is never read
    let t = "y".repeat(4093);
    let target = w.b.array([Value::from(t.as_str()), Value::from(1)]);
    let array = traced(&mut w, target);
    let heap = w.finish();
    let cut = |text: &str| {
        let kept: String = format!("[\"{text}").chars().take(4072).collect();
        format!("{kept}{TRUNCATION_MARKER}")
    };
    let traps = |seen: Seen| -> Vec<TraceEvent> {
        seen.trace
            .into_iter()
            .filter(|e| matches!(e, TraceEvent::TrapRan { .. }))
            .collect()
    };
    let ran = |proxy, trap| TraceEvent::TrapRan { proxy, trap };
    assert_eq!(
        traps(check(&heap, root, Ok(&cut(&s)))),
        [ran(object, Trap::GetPrototypeOf)]
    );
    assert_eq!(
        traps(check(&heap, array, Ok(&cut(&t)))),
        [
            ran(array, Trap::GetPrototypeOf),
            ran(array, Trap::GetOwnPropertyDescriptor),
            ran(array, Trap::GetOwnPropertyDescriptor),
        ],
        "the prototype, `length` and slot 0"
    );
}

#[test]
fn order_nothing_is_inspected_after_truncation() {
    let mut w = World::new();
    let target = w.b.object([("a", 1)]);
    let throwing = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: Trap::ALL
            .into_iter()
            .map(|t| (t, TrapBehavior::Throw(Value::from("inspected"))))
            .collect(),
        revoked: false,
    }));
    let revoked = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: true,
    }));
    let date = w.object_with(Proto::Builtin(Builtin::Date), vec![]);
    let numbers: Vec<String> = (0..127).map(|i| i.to_string()).collect();
    let after_127 = format!("[{},{TRUNCATION_MARKER}", numbers.join(","));
    let mut cases = Vec::new();
    // the 129th value: after the array and 127 numbers
    for bad in [throwing, revoked, date] {
        let mut values: Vec<Value> = (0..127).map(Value::from).collect();
        values.push(Value::Ref(bad));
        cases.push((w.b.array(values), after_127.clone()));
    }
    // the value of the last key (sorted) of an object of 128 keys
    let mut o = ObjectNode::new(Proto::ObjectPrototype);
    o.define("k127", Property::data(throwing));
    for i in 0..127 {
        o.define(format!("k{i:03}").as_str(), Property::data(i));
    }
    let pairs: Vec<String> = (0..127).map(|i| format!("\"k{i:03}\":{i}")).collect();
    cases.push((
        w.b.alloc(Node::Object(o)),
        format!("{{{},\"k127\":{TRUNCATION_MARKER}", pairs.join(",")),
    ));
    // the 257th slot of an array
    cases.push((
        w.b.alloc(Node::Array(ArrayNode {
            proto: Proto::ArrayPrototype,
            length: 300,
            slots: [(256, Property::data(revoked))].into_iter().collect(),
        })),
        format!(
            "[{}{TRUNCATION_MARKER}",
            vec![r#""[Empty]""#; 256].join(",")
        ),
    ));
    // after the output cap is reached inside a long string
    cases.push((
        w.b.array([Value::from("x".repeat(5000).as_str()), Value::Ref(throwing)]),
        format!("[\"{}{TRUNCATION_MARKER}", "x".repeat(4070)),
    ));
    let heap = w.finish();
    for (root, expect) in cases {
        let seen = check(&heap, root, Ok(&expect));
        assert!(seen.trace.is_empty(), "inspected: {:?}", seen.trace);
    }
}

// ------------------------------------------------------ SER-determinism

#[test]
fn determinism_same_graph_twice_gives_identical_output() {
    // a graph with shuffled keys, shared objects, a proxy, a cycle and a BigInt
    let build = || {
        let mut w = World::new();
        let inner = w.b.array([Value::Bool(true), Value::Null]);
        let s =
            w.b.object([("w", Value::Ref(inner)), ("v", Value::from(1))]);
        let p = w.b.alloc(Node::Proxy(ProxyNode {
            target: s,
            traps: BTreeMap::new(),
            revoked: false,
        }));
        let root = w.b.object::<&str, Value>([]);
        let big = toolgate_core::bigint::BigIntValue::from_decimal("12345678901234567890");
        let o = w.b.object_mut(root).unwrap();
        for n in 0..40 {
            let i = (n * 17) % 40;
            let v = match i % 4 {
                0 => Value::from(f64::from(i) + 0.5),
                1 => Value::from(format!("é{i}").as_str()),
                2 => Value::Ref(s),
                _ => Value::Ref(p),
            };
            o.define(format!("k{i:02}").as_str(), Property::data(v));
        }
        o.define("self", Property::data(root));
        o.define("big", Property::data(big.unwrap()));
        (w.finish(), root)
    };
    let shared = r#"{"v":1,"w":[true,null]}"#;
    let pairs: Vec<String> = (0..40)
        .map(|i| {
            let v = match i % 4 {
                0 => format!("{}.5", i),
                1 => format!("\"é{i}\""),
                _ => shared.to_string(),
            };
            format!("\"k{i:02}\":{v}")
        })
        .collect();
    let expect = format!(
        r#"{{"big":"12345678901234567890n",{},"self":"[Circular]"}}"#,
        pairs.join(",")
    );
    let (heap, root) = build();
    let first = check(&heap, root, Ok(&expect));
    let second = check(&heap, root, Ok(&expect));
    let (rebuilt, rebuilt_root) = build();
    let third = check(&rebuilt, rebuilt_root, Ok(&expect));
    assert!(first.out.is_some());
    assert_eq!(first.out, second.out);
    assert_eq!(first.out, third.out);
    assert_eq!(first.trace, second.trace);
    assert_eq!(first.trace, third.trace);
    // ten visits of the proxy over two keys: the prototype, then for...in's
    // own keys and prototype, then three descriptors per key
    assert_eq!(first.trace.len(), 10 * (3 + 2 * 3), "{:?}", first.trace);
}
