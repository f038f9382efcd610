//! Batches and the registry (CONTRACT.md, "Tool definitions and the registry"):
//! `registerMany` takes an array (per `Array.isArray`, proxies included) read
//! by index through own properties, without holes; entries are snapshotted in
//! index order and the first failure decides; names repeated inside the batch
//! or already registered are `DUPLICATE_TOOL_NAME`, compared by exact UTF-16
//! code units; every failure leaves the registry exactly as it was. `names`
//! keeps registration order, `size` counts, `get` finds, `snapshot` copies
//! membership. The same rules hold for the Rust API's `ToolRegistry`.

mod support;

use std::collections::BTreeMap;
use std::sync::Arc;
use support::{Run, World};
use toolgate_core::api::{Decision, FnTool, Output, Tool, ToolContext, ToolError, ToolRegistry};
use toolgate_core::bigint::BigIntValue;
use toolgate_core::model::*;
use toolgate_core::{AbortSignal, ContractCode, Error, JsString};

/// One registration attempt: a label, the attempt, and the contract code it
/// must fail with (`None`: it must succeed).
type Step<'a, R> = (String, Attempt<'a, R>, Option<ContractCode>);

/// A registration attempt on a registry of type `R`.
type Attempt<'a, R> = Box<dyn FnOnce(&mut R) -> Result<(), Error> + 'a>;

/// The tools of one Rust API batch.
type Tools = Vec<Arc<dyn Tool>>;

/// Runs `steps` in order on `registry`. A step expected to fail must fail
/// with its code and leave the names and the size exactly as they were (all
/// or nothing); the others must succeed. At the end the names must be
/// `expect`, in this order, and the size their count.
fn check<R>(
    registry: &mut R,
    observe: fn(&R) -> (Vec<String>, usize),
    steps: Vec<Step<'_, R>>,
    expect: &[&str],
) {
    for (label, step, code) in steps {
        let before = observe(registry);
        match (step(registry), code) {
            (Ok(()), None) => {}
            (Err(e), Some(code)) => {
                assert_eq!(e.contract_code(), Some(code), "{label}: {e}");
                assert_eq!(
                    observe(registry),
                    before,
                    "{label}: a failure changed the registry"
                );
            }
            (got, want) => panic!("{label}: expected {want:?}, got {got:?}"),
        }
    }
    let (names, size) = observe(registry);
    assert_eq!(names, expect, "names in registration order");
    assert_eq!(size, expect.len(), "size");
}

/// Names and size of a model registry.
const MODEL: fn(&ModelRegistry) -> (Vec<String>, usize) = |r| {
    let names = r.names().iter().map(JsString::to_string_lossy).collect();
    (names, r.size())
};

/// Names and size of a Rust API registry.
const API: fn(&ToolRegistry) -> (Vec<String>, usize) = |r| (r.names(), r.size());

const BATCH: Option<ContractCode> = Some(ContractCode::InvalidToolBatch);
const DEFINITION: Option<ContractCode> = Some(ContractCode::InvalidToolDefinition);
const DUPLICATE: Option<ContractCode> = Some(ContractCode::DuplicateToolName);

// ------------------------------------------------------------------ REG-array

#[test]
fn anything_but_an_array_is_an_invalid_batch() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let gn = w.b.returning("add");
    let def = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("name", Property::getter(gn)),
            ("description", Property::data("d")),
            ("validate", Property::data(v)),
            ("execute", Property::data(e)),
        ],
    );
    let array_like =
        w.b.object([("length", Value::from(1)), ("0", Value::Ref(def))]);
    let proxy_to_array_like = w.b.alloc(Node::Proxy(ProxyNode {
        target: array_like,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    // Object.create(Array.prototype) is not an array
    let fake_array = w.object_with(
        Proto::ArrayPrototype,
        vec![("length", Property::data(1)), ("0", Property::data(def))],
    );
    let promise =
        w.b.alloc(Node::Promise(PromiseNode::Fulfilled(Value::Undefined)));
    let table: Vec<(&str, Value, Option<ContractCode>)> = vec![
        ("undefined", Value::Undefined, BATCH),
        ("null", Value::Null, BATCH),
        ("boolean", Value::Bool(true), BATCH),
        ("number", Value::from(1), BATCH),
        ("string", Value::from("add"), BATCH),
        ("symbol", Value::Symbol(1), BATCH),
        ("bigint", Value::from(BigIntValue::from_i64(1)), BATCH),
        ("function", Value::Ref(gn), BATCH),
        ("a lone definition", Value::Ref(def), BATCH),
        ("array-like object", Value::Ref(array_like), BATCH),
        (
            "proxy to array-like",
            Value::Ref(proxy_to_array_like),
            BATCH,
        ),
        (
            "Object.create(Array.prototype)",
            Value::Ref(fake_array),
            BATCH,
        ),
        ("promise", Value::Ref(promise), BATCH),
    ];
    let heap = w.finish();
    let trace = Trace::default();
    let rt = &Runtime::new(&heap, AbortSignal::new(), trace.clone());
    let steps = table
        .into_iter()
        .map(|(label, batch, code)| -> Step<ModelRegistry> {
            let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &batch);
            (label.to_string(), Box::new(attempt), code)
        })
        .collect();
    check(&mut ModelRegistry::new(), MODEL, steps, &[]);
    let called = trace
        .lock()
        .unwrap()
        .iter()
        .any(|t| matches!(t, TraceEvent::Called { .. }));
    assert!(!called, "no entry of a non-array was read");
}

#[test]
fn arrays_and_proxies_to_arrays_are_batches() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let mut table: Vec<(&str, Value, Option<ContractCode>)> = Vec::new();
    let empty = w.b.array::<Value>([]);
    table.push(("empty", Value::Ref(empty), None));
    let d = w.definition("plain", v, e);
    let plain = w.b.array([d]);
    table.push(("plain", Value::Ref(plain), None));
    for (label, proto) in [
        ("null prototype", Proto::Null),
        ("other realm", Proto::OtherRealmArray),
        ("class prototype", Proto::Class(JsString::new("Tools"))),
    ] {
        let d = w.definition(label, v, e);
        let array = w.b.alloc(Node::Array(ArrayNode {
            proto,
            length: 1,
            slots: Slots::from([(0, Property::data(d))]),
        }));
        table.push((label, Value::Ref(array), None));
    }
    let d = w.definition("proxied", v, e);
    let target = w.b.array([d]);
    let proxy = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    table.push(("proxied", Value::Ref(proxy), None));
    let d = w.definition("proxied twice", v, e);
    let target = w.b.array([d]);
    let inner = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    let outer = w.b.alloc(Node::Proxy(ProxyNode {
        target: inner,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    table.push(("proxied twice", Value::Ref(outer), None));
    // read by index: `length` with [[Get]], then each index with
    // `Object.hasOwn` and [[Get]]; no iterator, no prototype, no ownKeys
    let d1 = w.definition("strict proxy 1", v, e);
    let d2 = w.definition("strict proxy 2", v, e);
    let target = w.b.array([d1, d2]);
    let boom = TrapBehavior::Throw(Value::from("not this trap"));
    let strict = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::from([
            (Trap::OwnKeys, boom.clone()),
            (Trap::GetPrototypeOf, boom.clone()),
        ]),
        revoked: false,
    }));
    table.push(("strict proxy", Value::Ref(strict), None));
    // so a throwing `get` trap makes the batch invalid at its `length`
    let d = w.definition("never", v, e);
    let target = w.b.array([d]);
    let no_get = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::from([(Trap::Get, boom)]),
        revoked: false,
    }));
    table.push((
        "get trap throws",
        Value::Ref(no_get),
        Some(ContractCode::InvalidToolBatch),
    ));
    let heap = w.finish();
    let trace = Trace::default();
    let rt = &Runtime::new(&heap, AbortSignal::new(), trace.clone());
    let steps = table
        .into_iter()
        .map(|(label, batch, code)| -> Step<ModelRegistry> {
            let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &batch);
            (label.to_string(), Box::new(attempt), code)
        })
        .collect();
    let expect = [
        "plain",
        "null prototype",
        "other realm",
        "class prototype",
        "proxied",
        "proxied twice",
        "strict proxy 1",
        "strict proxy 2",
    ];
    check(&mut ModelRegistry::new(), MODEL, steps, &expect);
    let traps: Vec<Trap> = trace
        .lock()
        .unwrap()
        .iter()
        .filter_map(|t| match t {
            TraceEvent::TrapRan { proxy, trap } if *proxy == strict => Some(*trap),
            _ => None,
        })
        .collect();
    assert_eq!(
        traps,
        [
            Trap::Get,
            Trap::GetOwnPropertyDescriptor,
            Trap::Get,
            Trap::GetOwnPropertyDescriptor,
            Trap::Get
        ]
    );
}

#[test]
fn a_batch_that_cannot_be_inspected_is_invalid() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let d = w.definition("never", v, e);
    let target = w.b.array([d]);
    let revoked = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: true,
    }));
    let over_revoked = w.b.alloc(Node::Proxy(ProxyNode {
        target: revoked,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    let throwing = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::from([(
            Trap::GetOwnPropertyDescriptor,
            TrapBehavior::Throw(Value::from("trap")),
        )]),
        revoked: false,
    }));
    // an index whose getter throws: the entry cannot be read
    let failing = w.b.throwing("index getter");
    let getter_slot = w.b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length: 1,
        slots: Slots::from([(0, Property::getter(failing))]),
    }));
    let table: Vec<(&str, Value, Option<ContractCode>)> = vec![
        ("revoked proxy", Value::Ref(revoked), BATCH),
        (
            "proxy over a revoked proxy",
            Value::Ref(over_revoked),
            BATCH,
        ),
        (
            "throwing getOwnPropertyDescriptor",
            Value::Ref(throwing),
            BATCH,
        ),
        ("throwing index getter", Value::Ref(getter_slot), BATCH),
    ];
    let heap = w.finish();
    let rt = &Runtime::new(&heap, AbortSignal::new(), Trace::default());
    let steps = table
        .into_iter()
        .map(|(label, batch, code)| -> Step<ModelRegistry> {
            let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &batch);
            (label.to_string(), Box::new(attempt), code)
        })
        .collect();
    check(&mut ModelRegistry::new(), MODEL, steps, &[]);
}

// ------------------------------------------------------ REG-holes-index-order

#[test]
fn holes_are_invalid_batches() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let d = w.definition("d", v, e);
    let sparse = |w: &mut World, length: u32, slots: &[u32], proto: Proto| {
        w.b.alloc(Node::Array(ArrayNode {
            proto,
            length,
            slots: slots.iter().map(|i| (*i, Property::data(d))).collect(),
        }))
    };
    let only_hole = sparse(&mut w, 1, &[], Proto::ArrayPrototype);
    let trailing = sparse(&mut w, 2, &[0], Proto::ArrayPrototype);
    let leading = sparse(&mut w, 2, &[1], Proto::ArrayPrototype);
    let middle = sparse(&mut w, 3, &[0, 2], Proto::ArrayPrototype);
    let million = sparse(&mut w, 1_000_000, &[0], Proto::ArrayPrototype);
    // an index inherited from the prototype is still a hole
    let parent = w.b.object([("0", d)]);
    let inherited = sparse(&mut w, 1, &[], Proto::Node(parent));
    let table: Vec<(&str, Value, Option<ContractCode>)> = vec![
        ("[<hole>]", Value::Ref(only_hole), BATCH),
        ("[d, <hole>]", Value::Ref(trailing), BATCH),
        ("[<hole>, d]", Value::Ref(leading), BATCH),
        ("[d, <hole>, d]", Value::Ref(middle), BATCH),
        ("[d, <999999 holes>]", Value::Ref(million), BATCH),
        ("[<inherited 0>]", Value::Ref(inherited), BATCH),
    ];
    let heap = w.finish();
    let rt = &Runtime::new(&heap, AbortSignal::new(), Trace::default());
    let steps = table
        .into_iter()
        .map(|(label, batch, code)| -> Step<ModelRegistry> {
            let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &batch);
            (label.to_string(), Box::new(attempt), code)
        })
        .collect();
    check(&mut ModelRegistry::new(), MODEL, steps, &[]);
}

#[test]
fn entries_are_read_once_in_index_order() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let mut getters = Vec::new();
    let mut defs = Vec::new();
    for name in ["c", "a", "b"] {
        let g = w.b.returning(name);
        getters.push(g);
        defs.push(w.object_with(
            Proto::ObjectPrototype,
            vec![
                ("name", Property::getter(g)),
                ("description", Property::data("d")),
                ("validate", Property::data(v)),
                ("execute", Property::data(e)),
            ],
        ));
    }
    // entry 1 sits behind an index getter, read once like the others
    let slot_getter = w.b.returning(defs[1]);
    let batch = w.b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length: 3,
        slots: Slots::from([
            (2, Property::data(defs[2])),
            (0, Property::data(defs[0])),
            (1, Property::getter(slot_getter)),
        ]),
    }));
    let heap = w.finish();
    let trace = Trace::default();
    let rt = &Runtime::new(&heap, AbortSignal::new(), trace.clone());
    let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &Value::Ref(batch));
    let steps: Vec<Step<ModelRegistry>> = vec![("c, a, b".into(), Box::new(attempt), None)];
    check(&mut ModelRegistry::new(), MODEL, steps, &["c", "a", "b"]);
    let called: Vec<NodeId> = trace
        .lock()
        .unwrap()
        .iter()
        .filter_map(|t| match t {
            TraceEvent::Called { function, .. } => Some(*function),
            _ => None,
        })
        .collect();
    assert_eq!(called, [getters[0], slot_getter, getters[1], getters[2]]);
}

#[test]
fn the_first_failure_in_index_order_decides() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let good = w.definition("good", v, e);
    let dup = w.definition("dup", v, e);
    let invalid = w.b.object([("name", "invalid")]);
    let late = w.b.returning("late");
    let watched = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("name", Property::getter(late)),
            ("description", Property::data("d")),
            ("validate", Property::data(v)),
            ("execute", Property::data(e)),
        ],
    );
    // `None` is a hole, `Some(Value)` a data slot; a slot holding a setter-only
    // accessor is an entry (undefined), not a hole
    let array = |w: &mut World, entries: Vec<Option<Property>>| {
        let length = entries.len() as u32;
        let slots = (0u32..)
            .zip(entries)
            .filter_map(|(i, p)| Some((i, p?)))
            .collect();
        w.b.alloc(Node::Array(ArrayNode {
            proto: Proto::ArrayPrototype,
            length,
            slots,
        }))
    };
    let data = Property::data;
    let setter_only = Property::Accessor {
        getter: None,
        enumerable: true,
    };
    let table: Vec<(&str, NodeId, Option<ContractCode>)> = vec![
        (
            "[invalid, <hole>]",
            array(&mut w, vec![Some(data(invalid.into())), None]),
            DEFINITION,
        ),
        (
            "[<hole>, invalid]",
            array(&mut w, vec![None, Some(data(invalid.into()))]),
            BATCH,
        ),
        (
            "[good, invalid, <hole>]",
            array(
                &mut w,
                vec![Some(data(good.into())), Some(data(invalid.into())), None],
            ),
            DEFINITION,
        ),
        (
            "[good, <hole>, invalid]",
            array(
                &mut w,
                vec![Some(data(good.into())), None, Some(data(invalid.into()))],
            ),
            BATCH,
        ),
        (
            "[invalid, watched]",
            array(
                &mut w,
                vec![Some(data(invalid.into())), Some(data(watched.into()))],
            ),
            DEFINITION,
        ),
        (
            "[<setter only>, <hole>]",
            array(&mut w, vec![Some(setter_only), None]),
            DEFINITION,
        ),
        (
            "[null, <hole>]",
            array(&mut w, vec![Some(data(Value::Null)), None]),
            DEFINITION,
        ),
        // every entry is snapshotted before duplicates are looked for
        (
            "[dup, dup, invalid]",
            array(
                &mut w,
                vec![
                    Some(data(dup.into())),
                    Some(data(dup.into())),
                    Some(data(invalid.into())),
                ],
            ),
            DEFINITION,
        ),
        (
            "[dup, dup, <hole>]",
            array(
                &mut w,
                vec![Some(data(dup.into())), Some(data(dup.into())), None],
            ),
            BATCH,
        ),
    ];
    let heap = w.finish();
    let trace = Trace::default();
    let rt = &Runtime::new(&heap, AbortSignal::new(), trace.clone());
    let steps = table
        .into_iter()
        .map(|(label, batch, code)| -> Step<ModelRegistry> {
            let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &Value::Ref(batch));
            (label.to_string(), Box::new(attempt), code)
        })
        .collect();
    check(&mut ModelRegistry::new(), MODEL, steps, &[]);
    let late_ran = trace
        .lock()
        .unwrap()
        .iter()
        .any(|t| matches!(t, TraceEvent::Called { function, .. } if *function == late));
    assert!(!late_ran, "an entry after the first failure is never read");
}

// ------------------------------------------------------------- REG-duplicates

#[test]
fn duplicates_inside_the_batch_or_against_the_registry() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let add = w.definition("add", v, e);
    let add_again = w.definition("add", e, v);
    let sub = w.definition("sub", v, e);
    let mul = w.definition("mul", v, e);
    let g = w.b.returning("last");
    let last = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("name", Property::getter(g)),
            ("description", Property::data("d")),
            ("validate", Property::data(v)),
            ("execute", Property::data(e)),
        ],
    );
    let table: Vec<(&str, Vec<NodeId>, Option<ContractCode>)> = vec![
        ("[add, add] (same object)", vec![add, add], DUPLICATE),
        ("[add, add] (two objects)", vec![add, add_again], DUPLICATE),
        (
            "[add, sub, add, last]",
            vec![add, sub, add_again, last],
            DUPLICATE,
        ),
        ("[add, sub]", vec![add, sub], None),
        ("[add]", vec![add_again], DUPLICATE),
        ("[mul, sub]", vec![mul, sub], DUPLICATE),
        ("[mul, mul]", vec![mul, mul], DUPLICATE),
        ("[mul]", vec![mul], None),
    ];
    let mut arrays = Vec::new();
    for (label, entries, code) in table {
        arrays.push((label, w.b.array(entries), code));
    }
    let heap = w.finish();
    let trace = Trace::default();
    let rt = &Runtime::new(&heap, AbortSignal::new(), trace.clone());
    let mut steps: Vec<Step<ModelRegistry>> = arrays
        .into_iter()
        .map(|(label, batch, code)| -> Step<ModelRegistry> {
            let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &Value::Ref(batch));
            (label.to_string(), Box::new(attempt), code)
        })
        .collect();
    let single = move |r: &mut ModelRegistry| register(rt, r, &Value::Ref(add_again));
    steps.push(("register(add)".into(), Box::new(single), DUPLICATE));
    check(
        &mut ModelRegistry::new(),
        MODEL,
        steps,
        &["add", "sub", "mul"],
    );
    // the whole batch was snapshotted before the duplicate was found
    let trace = trace.lock().unwrap();
    assert!(trace
        .iter()
        .any(|t| matches!(t, TraceEvent::Called { function, .. } if *function == g)));
}

#[test]
fn names_compare_by_exact_utf16_code_units() {
    let names = [
        "add",
        " add",
        "add ",
        "ADD",
        "\u{3000}add",
        "\u{FEFF}add",
        "add\u{200B}",
        "\u{E9}",
        "e\u{301}",
    ];
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let defs: Vec<NodeId> = names.iter().map(|n| w.definition(n, v, e)).collect();
    let all = w.b.array(defs);
    let again = w.definition("\u{E9}", v, e);
    let again = w.b.array([again]);
    let lone = |units: Vec<u16>, w: &mut World| {
        let d = w.definition("x", v, e);
        w.b.object_mut(d)
            .unwrap()
            .define("name", Property::data(JsString::from_units(units)));
        d
    };
    let high = lone(vec![0x61, 0xD800], &mut w);
    let low = lone(vec![0x61, 0xDC00], &mut w);
    let high_again = lone(vec![0x61, 0xD800], &mut w);
    let lone_pair = w.b.array([high, low]);
    let lone_again = w.b.array([high_again]);
    let heap = w.finish();
    let rt = &Runtime::new(&heap, AbortSignal::new(), Trace::default());
    let steps: Vec<Step<ModelRegistry>> = [
        ("nine distinct names", all, None),
        ("é again", again, DUPLICATE),
        ("two different lone surrogates", lone_pair, None),
        ("the same lone surrogate", lone_again, DUPLICATE),
    ]
    .into_iter()
    .map(|(label, batch, code)| -> Step<ModelRegistry> {
        let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &Value::Ref(batch));
        (label.to_string(), Box::new(attempt), code)
    })
    .collect();
    let mut registry = ModelRegistry::new();
    // both lone surrogates display as U+FFFD; the units tell them apart below
    let mut expect = names.to_vec();
    expect.extend(["a\u{FFFD}", "a\u{FFFD}"]);
    check(&mut registry, MODEL, steps, &expect);
    let units: Vec<Vec<u16>> = registry
        .names()
        .iter()
        .map(|n| n.units().to_vec())
        .collect();
    assert_eq!(units[9..], [vec![0x61, 0xD800], vec![0x61, 0xDC00]]);
    for name in names {
        let found = registry.get(&JsString::new(name)).unwrap();
        assert!(found.name == name, "get({name:?}) found {:?}", found.name);
    }
}

// ----------------------------------------------------------------- REG-atomic

#[test]
fn every_failure_leaves_names_and_size_unchanged() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let first = w.definition("first", v, e);
    let second = w.definition("second", v, e);
    let new = w.definition("new", v, e);
    let third = w.definition("third", v, e);
    let invalid = w.b.object([("name", "invalid")]);
    let thrower = w.b.throwing("getter");
    let throwing_def = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("name", Property::data("throwing")),
            ("description", Property::getter(thrower)),
            ("validate", Property::data(v)),
            ("execute", Property::data(e)),
        ],
    );
    let trapping_def = w.b.alloc(Node::Proxy(ProxyNode {
        target: third,
        traps: BTreeMap::from([(
            Trap::GetOwnPropertyDescriptor,
            TrapBehavior::Throw(Value::from("trap")),
        )]),
        revoked: false,
    }));
    let blank = w.definition("\u{3000}\u{FEFF}", v, e);
    let seed = w.b.array([first, second]);
    let target = w.b.array([new]);
    let revoked = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: true,
    }));
    let array_like =
        w.b.object([("length", Value::from(1)), ("0", Value::Ref(new))]);
    let with_hole = w.b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length: 2,
        slots: Slots::from([(0, Property::data(new))]),
    }));
    let throwing_slot = w.b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length: 2,
        slots: Slots::from([(0, Property::data(new)), (1, Property::getter(thrower))]),
    }));
    let mut table: Vec<(&str, Value, Option<ContractCode>)> = vec![
        ("seed [first, second]", Value::Ref(seed), None),
        ("not an array", Value::Ref(array_like), BATCH),
        ("undefined", Value::Undefined, BATCH),
        ("revoked proxy", Value::Ref(revoked), BATCH),
        ("[new, <hole>]", Value::Ref(with_hole), BATCH),
        ("[new, <throwing index>]", Value::Ref(throwing_slot), BATCH),
    ];
    for (label, entries, code) in [
        ("[new, invalid]", vec![new, invalid], DEFINITION),
        (
            "[new, throwing getter]",
            vec![new, throwing_def],
            DEFINITION,
        ),
        ("[new, throwing proxy]", vec![new, trapping_def], DEFINITION),
        ("[new, blank name]", vec![new, blank], DEFINITION),
        ("[new, first]", vec![new, first], DUPLICATE),
        ("[new, third, second]", vec![new, third, second], DUPLICATE),
        ("[new, new]", vec![new, new], DUPLICATE),
        ("[new, third]", vec![new, third], None),
    ] {
        table.push((label, Value::Ref(w.b.array(entries)), code));
    }
    let heap = w.finish();
    let rt = &Runtime::new(&heap, AbortSignal::new(), Trace::default());
    let steps = table
        .into_iter()
        .map(|(label, batch, code)| -> Step<ModelRegistry> {
            let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &batch);
            (label.to_string(), Box::new(attempt), code)
        })
        .collect();
    let mut registry = ModelRegistry::new();
    check(
        &mut registry,
        MODEL,
        steps,
        &["first", "second", "new", "third"],
    );
    assert!(registry.get(&JsString::new("throwing")).is_none());
}

// ---------------------------------------------------------- REG-initial-batch

#[test]
fn the_initial_batch_follows_register_many_rules() {
    let mut w = World::new();
    let v = w.accepting(1);
    let out = w.b.object([("ok", true)]);
    let e = w.b.returning(out);
    let a = w.definition("a", v, e);
    let b = w.definition("b", v, e);
    let invalid = w.b.object([("name", "invalid")]);
    let initial = w.b.array([a, b]);
    let dup = w.b.array([a, b, a]);
    let bad = w.b.array([a, invalid]);
    let call = w.call("c1", "b");
    let heap = w.finish();
    let rt = &Runtime::new(&heap, AbortSignal::new(), Trace::default());
    let table: Vec<(&str, Value, Option<ContractCode>)> = vec![
        ("repeated name", Value::Ref(dup), DUPLICATE),
        ("invalid entry", Value::Ref(bad), DEFINITION),
        ("not an array", Value::Ref(a), BATCH),
        ("valid", Value::Ref(initial), None),
    ];
    // each failing initial batch leaves a fresh, empty registry
    for (label, batch, code) in table {
        let expect: &[&str] = if code.is_some() { &[] } else { &["a", "b"] };
        let attempt = move |r: &mut ModelRegistry| register_many(rt, r, &batch);
        let steps: Vec<Step<ModelRegistry>> = vec![(label.into(), Box::new(attempt), code)];
        check(&mut ModelRegistry::new(), MODEL, steps, expect);
    }
    // support::Run builds its registry from an initial batch, then calls
    let seen = Run::new(&heap, Some(initial), call).go();
    assert_eq!(seen.names, ["a", "b"]);
    let result = seen.result();
    assert!(!result.is_error, "{result:?}");
    assert!(result.tool_name == "b");
    assert_eq!(result.content, r#"{"ok":true}"#);
}

// -------------------------------------------------------- REG-names-size-get

#[test]
fn names_size_and_get_follow_registration() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let alpha_v = w.accepting(3);
    let zeta = w.definition("zeta", v, e);
    let alpha = w.definition("alpha", alpha_v, e);
    let mid = w.definition("mid", v, e);
    let beta = w.definition("beta", v, e);
    let invalid = w.b.object([("name", "invalid")]);
    let first = w.b.array([zeta, alpha]);
    let second = w.b.array([mid]);
    let failed = w.b.array([beta, invalid]);
    let heap = w.finish();
    let rt = &Runtime::new(&heap, AbortSignal::new(), Trace::default());
    let steps: Vec<Step<ModelRegistry>> = vec![
        (
            "[zeta, alpha]".into(),
            Box::new(move |r: &mut ModelRegistry| register_many(rt, r, &Value::Ref(first))),
            None,
        ),
        (
            "[mid]".into(),
            Box::new(move |r: &mut ModelRegistry| register_many(rt, r, &Value::Ref(second))),
            None,
        ),
        (
            "[beta, invalid]".into(),
            Box::new(move |r: &mut ModelRegistry| register_many(rt, r, &Value::Ref(failed))),
            DEFINITION,
        ),
        (
            "register(beta)".into(),
            Box::new(move |r: &mut ModelRegistry| register(rt, r, &Value::Ref(beta))),
            None,
        ),
    ];
    let mut registry = ModelRegistry::new();
    check(
        &mut registry,
        MODEL,
        steps,
        &["zeta", "alpha", "mid", "beta"],
    );

    let found = registry.get(&JsString::new("alpha")).unwrap();
    assert!(found.name == "alpha" && found.description == "a tool");
    assert_eq!((found.validate, found.execute), (alpha_v, e));
    for absent in ["", " alpha", "alpha ", "ALPHA", "invalid", "gamma"] {
        assert!(registry.get(&JsString::new(absent)).is_none(), "{absent:?}");
    }
    // names() is a copy: changing it changes nothing
    let mut names = registry.names();
    names.clear();
    assert_eq!(
        MODEL(&registry),
        (
            vec!["zeta".into(), "alpha".into(), "mid".into(), "beta".into()],
            4
        )
    );
}

// -------------------------------------------------------------- REG-snapshot

#[test]
fn snapshots_copy_membership_in_both_directions() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let defs: Vec<NodeId> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|n| w.definition(n, v, e))
        .collect();
    let (a, b, c, d, shared) = (defs[0], defs[1], defs[2], defs[3], defs[4]);
    let initial = w.b.array([a, b]);
    let heap = w.finish();
    let rt = &Runtime::new(&heap, AbortSignal::new(), Trace::default());
    let many = |batch: NodeId| -> Attempt<'_, ModelRegistry> {
        Box::new(move |r: &mut ModelRegistry| register_many(rt, r, &Value::Ref(batch)))
    };
    let one = |def: NodeId| -> Attempt<'_, ModelRegistry> {
        Box::new(move |r: &mut ModelRegistry| register(rt, r, &Value::Ref(def)))
    };

    let mut original = ModelRegistry::new();
    check(
        &mut original,
        MODEL,
        vec![("initial".into(), many(initial), None)],
        &["a", "b"],
    );
    let mut copy = original.snapshot();
    assert_eq!(MODEL(&copy), MODEL(&original));

    // the original's later registrations do not reach the copy...
    check(
        &mut original,
        MODEL,
        vec![("c on the original".into(), one(c), None)],
        &["a", "b", "c"],
    );
    assert_eq!(MODEL(&copy), (vec!["a".into(), "b".into()], 2));
    // ...and the copy's do not reach the original
    let steps = vec![
        ("d on the copy".into(), one(d), None),
        ("a on the copy".into(), one(a), DUPLICATE),
    ];
    check(&mut copy, MODEL, steps, &["a", "b", "d"]);
    assert_eq!(
        MODEL(&original),
        (vec!["a".into(), "b".into(), "c".into()], 3)
    );
    // the same name may then be registered on each side independently
    check(
        &mut original,
        MODEL,
        vec![("e".into(), one(shared), None)],
        &["a", "b", "c", "e"],
    );
    check(
        &mut copy,
        MODEL,
        vec![("e".into(), one(shared), None)],
        &["a", "b", "d", "e"],
    );
    let (c_name, d_name) = (JsString::new("c"), JsString::new("d"));
    assert!(copy.get(&c_name).is_none() && original.get(&d_name).is_none());
    // membership is copied, the immutable definitions are reused
    let name = JsString::new("a");
    assert!(Arc::ptr_eq(
        original.get(&name).unwrap(),
        copy.get(&name).unwrap()
    ));
    // a snapshot of a snapshot is independent as well
    let mut copy_of_copy = copy.snapshot();
    check(
        &mut copy_of_copy,
        MODEL,
        vec![("c".into(), one(c), None)],
        &["a", "b", "d", "e", "c"],
    );
    assert_eq!(copy.size(), 4);
}

// -------------------------------------------------------------- API-registry

#[test]
fn api_with_tools_builds_from_an_initial_batch() {
    let tool = |name: &str, description: &str| -> Arc<dyn Tool> {
        let validate = |_: &serde_json::Value| Ok(Decision::Accept(serde_json::Value::Null));
        let execute = |_: serde_json::Value, _: ToolContext| async {
            Ok::<_, ToolError>(Output::Json(serde_json::Value::Null))
        };
        FnTool::new(name, description, validate, execute).into_tool()
    };
    // (label, initial batch, the code it fails with, the names it gives)
    let cases: Vec<(&str, Tools, Option<ContractCode>, &[&str])> = vec![
        ("empty", vec![], None, &[]),
        (
            "two",
            vec![tool("b", "d"), tool("a", "d")],
            None,
            &["b", "a"],
        ),
        (
            "not blank",
            vec![tool("\u{200B}", "\u{85}")],
            None,
            &["\u{200B}"],
        ),
        (
            "repeated",
            vec![tool("a", "d"), tool("b", "d"), tool("a", "d")],
            DUPLICATE,
            &[],
        ),
        (
            "empty name",
            vec![tool("a", "d"), tool("", "d")],
            DEFINITION,
            &[],
        ),
        (
            "blank name",
            vec![tool("a", "d"), tool("\u{3000}\t", "d")],
            DEFINITION,
            &[],
        ),
        (
            "blank description",
            vec![tool("a", "d"), tool("b", " \u{FEFF}\u{2028}")],
            DEFINITION,
            &[],
        ),
    ];
    for (label, tools, code, names) in cases {
        match (ToolRegistry::with_tools(tools), code) {
            (Ok(mut registry), None) => check(&mut registry, API, vec![], names),
            (Err(e), Some(code)) => assert_eq!(e.contract_code(), Some(code), "{label}: {e}"),
            (got, want) => panic!(
                "{label}: expected {want:?}, got {:?}",
                got.map(|r| r.names())
            ),
        }
    }
}

#[test]
fn api_register_many_is_all_or_nothing() {
    let tool = |name: &str, description: &str| -> Arc<dyn Tool> {
        let validate = |_: &serde_json::Value| Ok(Decision::Accept(serde_json::Value::Null));
        let execute = |_: serde_json::Value, _: ToolContext| async {
            Ok::<_, ToolError>(Output::Json(serde_json::Value::Null))
        };
        FnTool::new(name, description, validate, execute).into_tool()
    };
    let table: Vec<(&str, Tools, Option<ContractCode>)> = vec![
        ("[add, sub]", vec![tool("add", "d"), tool("sub", "d")], None),
        (
            "[mul, add]",
            vec![tool("mul", "d"), tool("add", "d")],
            DUPLICATE,
        ),
        (
            "[mul, mul]",
            vec![tool("mul", "d"), tool("mul", "d")],
            DUPLICATE,
        ),
        (
            "[mul, empty name]",
            vec![tool("mul", "d"), tool("", "d")],
            DEFINITION,
        ),
        (
            "[mul, blank name]",
            vec![tool("mul", "d"), tool(" \t\n", "d")],
            DEFINITION,
        ),
        (
            "[mul, blank description]",
            vec![tool("mul", "d"), tool("div", "\u{3000}")],
            DEFINITION,
        ),
        (
            "[mul, empty description]",
            vec![tool("mul", "d"), tool("div", "")],
            DEFINITION,
        ),
        // a blank entry is found even before a duplicate
        (
            "[add, blank]",
            vec![tool("add", "d"), tool("", "d")],
            DEFINITION,
        ),
        ("[]", vec![], None),
        (
            "[mul, \" add\"]",
            vec![tool("mul", "d"), tool(" add", "d")],
            None,
        ),
    ];
    let mut steps: Vec<Step<ToolRegistry>> = table
        .into_iter()
        .map(|(label, tools, code)| -> Step<ToolRegistry> {
            let attempt = move |r: &mut ToolRegistry| r.register_many(tools);
            (label.to_string(), Box::new(attempt), code)
        })
        .collect();
    let again = tool("sub", "again");
    steps.push((
        "register(sub)".into(),
        Box::new(move |r: &mut ToolRegistry| r.register(again)),
        DUPLICATE,
    ));
    let blank = tool("\u{FEFF}", "d");
    steps.push((
        "register(blank)".into(),
        Box::new(move |r: &mut ToolRegistry| r.register(blank)),
        DEFINITION,
    ));
    let div = tool("div", "d");
    steps.push((
        "register(div)".into(),
        Box::new(move |r: &mut ToolRegistry| r.register(div)),
        None,
    ));
    check(
        &mut ToolRegistry::new(),
        API,
        steps,
        &["add", "sub", "mul", " add", "div"],
    );
}

#[test]
fn api_names_size_get_and_snapshot() {
    let tool = |name: &str, description: &str| -> Arc<dyn Tool> {
        let validate = |_: &serde_json::Value| Ok(Decision::Accept(serde_json::Value::Null));
        let execute = |_: serde_json::Value, _: ToolContext| async {
            Ok::<_, ToolError>(Output::Json(serde_json::Value::Null))
        };
        FnTool::new(name, description, validate, execute).into_tool()
    };
    let add = tool("add", "adds");
    let mut original = ToolRegistry::with_tools(vec![add.clone(), tool("sub", "d")]).unwrap();
    check(&mut original, API, vec![], &["add", "sub"]);
    let found = original.get("add").unwrap();
    assert!(Arc::ptr_eq(&found, &add));
    assert_eq!((found.name(), found.description()), ("add", "adds"));
    for absent in ["", " add", "add ", "ADD", "mul"] {
        assert!(original.get(absent).is_none(), "{absent:?}");
    }

    let mut copy = original.snapshot();
    let mul = tool("mul", "d");
    let steps: Vec<Step<ToolRegistry>> = vec![(
        "mul on the original".into(),
        Box::new(move |r: &mut ToolRegistry| r.register(mul)),
        None,
    )];
    check(&mut original, API, steps, &["add", "sub", "mul"]);
    check(&mut copy, API, vec![], &["add", "sub"]);
    let div = tool("div", "d");
    let sub = tool("sub", "d");
    let steps: Vec<Step<ToolRegistry>> = vec![
        (
            "div on the copy".into(),
            Box::new(move |r: &mut ToolRegistry| r.register(div)),
            None,
        ),
        (
            "sub on the copy".into(),
            Box::new(move |r: &mut ToolRegistry| r.register(sub)),
            DUPLICATE,
        ),
    ];
    check(&mut copy, API, steps, &["add", "sub", "div"]);
    check(&mut original, API, vec![], &["add", "sub", "mul"]);
    assert!(original.get("div").is_none() && copy.get("mul").is_none());
    assert!(Arc::ptr_eq(&copy.get("add").unwrap(), &add));
}
