//! Definition snapshots (CONTRACT.md, "Tool definitions and the registry"): a
//! definition is a non-null object (`typeof "object"`) whose four **own**
//! fields `name`, `description`, `validate`, `execute` are read in this order,
//! each exactly once and each checked right after it is read. Inherited fields
//! do not count and inherited getters never run; a throwing getter gives
//! `INVALID_TOOL_DEFINITION`; names and descriptions must be non-empty after
//! ECMAScript trimming; validate and execute must be functions; and the
//! snapshot keeps the values read.

mod support;

use std::collections::BTreeMap;
use support::{Run, World};
use toolgate_core::bigint::BigIntValue;
use toolgate_core::model::*;
use toolgate_core::{AbortSignal, ContractCode, JsString};

/// Snapshots `definition` of `heap` with a fresh trace and asserts the outcome
/// (`Ok(name)` of the snapshot, or the contract code of the rejection) and the
/// exact sequence of functions the snapshot called (getters, in call order).
/// Returns the snapshot, if any, and the whole trace.
fn check(
    label: &str,
    heap: &Heap,
    definition: impl Into<Value>,
    expect: Result<&str, ContractCode>,
    called: &[NodeId],
) -> (Option<ModelTool>, Vec<TraceEvent>) {
    let trace = Trace::default();
    let rt = Runtime::new(heap, AbortSignal::new(), trace.clone());
    let out = snapshot_definition(&rt, &definition.into());
    let events = trace.lock().unwrap().clone();
    let functions: Vec<NodeId> = events
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Called { function, .. } => Some(*function),
            _ => None,
        })
        .collect();
    assert_eq!(functions, called, "{label}: functions called, in order");
    match (&out, expect) {
        (Ok(tool), Ok(name)) => assert!(tool.name == name, "{label}: name {:?}", tool.name),
        (Err(e), Err(code)) => assert_eq!(e.contract_code(), Some(code), "{label}: {e}"),
        (got, want) => panic!("{label}: expected {want:?}, got {got:?}"),
    }
    (out.ok(), events)
}

const FIELDS: [&str; 4] = ["name", "description", "validate", "execute"];
const INVALID: Result<&str, ContractCode> = Err(ContractCode::InvalidToolDefinition);

// ---------------------------------------------------------------- DEF-object

#[test]
fn primitives_null_undefined_and_functions_are_not_definitions() {
    let mut w = World::new();
    let function = w.b.returning(1);
    let heap = w.finish();
    let cases: Vec<(&str, Value)> = vec![
        ("undefined", Value::Undefined),
        ("null", Value::Null),
        ("false", Value::Bool(false)),
        ("number", Value::from(1)),
        ("string", Value::from("add")),
        ("empty string", Value::from("")),
        ("symbol", Value::Symbol(1)),
        ("bigint", Value::from(BigIntValue::from_i64(1))),
        ("function", Value::Ref(function)),
    ];
    for (label, value) in cases {
        check(label, &heap, value, INVALID, &[]);
    }
}

#[test]
fn any_non_null_object_with_the_four_own_fields_is_a_definition() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let mut cases = Vec::new();
    for (label, proto) in [
        ("plain", Proto::ObjectPrototype),
        ("null prototype", Proto::Null),
        ("class instance", Proto::Class(JsString::new("Tool"))),
        ("other realm", Proto::OtherRealmObject),
    ] {
        let def = w.object_with(
            proto,
            vec![
                ("name", Property::data(label)),
                ("description", Property::data("d")),
                ("validate", Property::data(v)),
                ("execute", Property::data(e)),
            ],
        );
        cases.push((label, def));
    }
    let target = w.definition("proxied", v, e);
    let proxy = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    cases.push(("proxied", proxy));
    let twice = w.b.alloc(Node::Proxy(ProxyNode {
        target: proxy,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    cases.push(("proxied", twice));
    let heap = w.finish();
    for (label, def) in cases {
        let (tool, _) = check(label, &heap, def, Ok(label), &[]);
        let tool = tool.unwrap();
        assert_eq!((tool.validate, tool.execute), (v, e), "{label}");
        assert!(tool.description == "d" || tool.description == "a tool");
    }
}

// ------------------------------------------------------------ DEF-own-fields

#[test]
fn each_missing_own_field_is_invalid() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let values = [Value::from("add"), Value::from("d"), v.into(), e.into()];
    let mut cases = Vec::new();
    for missing in FIELDS {
        let props = FIELDS
            .iter()
            .zip(values.iter())
            .filter(|(f, _)| **f != missing)
            .map(|(f, value)| (*f, Property::data(value.clone())))
            .collect();
        cases.push((missing, w.object_with(Proto::ObjectPrototype, props)));
    }
    let empty = w.object_with(Proto::ObjectPrototype, vec![]);
    cases.push(("all four", empty));
    // typeof "object", but arrays and promises have none of the four fields
    let array = w.b.array([Value::from("add")]);
    cases.push(("array", array));
    let promise =
        w.b.alloc(Node::Promise(PromiseNode::Fulfilled(Value::Undefined)));
    cases.push(("promise", promise));
    let heap = w.finish();
    for (label, def) in cases {
        check(label, &heap, def, INVALID, &[]);
    }
}

#[test]
fn inherited_fields_do_not_count() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let values = [Value::from("add"), Value::from("d"), v.into(), e.into()];
    let mut cases = Vec::new();
    for inherited in FIELDS {
        let (own, parent): (Vec<_>, Vec<_>) = FIELDS
            .iter()
            .zip(values.iter())
            .map(|(f, value)| (*f, Property::data(value.clone())))
            .partition(|(f, _)| *f != inherited);
        let parent = w.object_with(Proto::ObjectPrototype, parent);
        cases.push((inherited, w.object_with(Proto::Node(parent), own)));
    }
    // every field inherited, two levels up
    let all: Vec<_> = FIELDS
        .iter()
        .zip(values.iter())
        .map(|(f, value)| (*f, Property::data(value.clone())))
        .collect();
    let grandparent = w.object_with(Proto::ObjectPrototype, all);
    let parent = w.object_with(Proto::Node(grandparent), vec![]);
    cases.push((
        "all, from a grandparent",
        w.object_with(Proto::Node(parent), vec![]),
    ));
    let heap = w.finish();
    for (label, def) in cases {
        check(label, &heap, def, INVALID, &[]);
    }
}

#[test]
fn inherited_getters_are_never_invoked() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let values = [Value::from("add"), Value::from("d"), v.into(), e.into()];
    let mut cases = Vec::new();
    for inherited in FIELDS {
        let mut own = Vec::new();
        let mut parent = Vec::new();
        for (f, value) in FIELDS.iter().zip(values.iter()) {
            if *f == inherited {
                let getter = w.b.returning(value.clone());
                parent.push((*f, Property::getter(getter)));
            } else {
                own.push((*f, Property::data(value.clone())));
            }
        }
        let parent = w.object_with(Proto::ObjectPrototype, parent);
        cases.push((inherited, w.object_with(Proto::Node(parent), own), INVALID));
    }
    // own fields shadow inherited getters, which still never run
    let shadowed: Vec<_> = FIELDS
        .iter()
        .zip(values.iter())
        .map(|(f, _)| {
            let getter = w.b.returning("inherited");
            (*f, Property::getter(getter))
        })
        .collect();
    let parent = w.object_with(Proto::ObjectPrototype, shadowed);
    let def = w.definition("own", v, e);
    w.b.object_mut(def).unwrap().proto = Proto::Node(parent);
    cases.push(("shadowed", def, Ok("own")));
    let heap = w.finish();
    for (label, def, expect) in cases {
        check(label, &heap, def, expect, &[]);
    }
}

#[test]
fn own_means_has_own_then_get_and_any_own_descriptor_counts() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    // non-enumerable own fields are own fields
    let hidden = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("name", Property::data("hidden").hidden()),
            ("description", Property::data("d").hidden()),
            ("validate", Property::data(v).hidden()),
            ("execute", Property::data(e).hidden()),
        ],
    );
    // a proxy is read field by field through `Object.hasOwn` (its
    // getOwnPropertyDescriptor trap) then `Reflect.get` (its get trap): its
    // `ownKeys` and `getPrototypeOf` traps never run
    let target = w.definition("proxied", v, e);
    let boom = TrapBehavior::Throw(Value::from("not this trap"));
    let proxy = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::from([
            (Trap::OwnKeys, boom.clone()),
            (Trap::GetPrototypeOf, boom.clone()),
        ]),
        revoked: false,
    }));
    // ... so a throwing `get` trap makes it invalid at the first field
    let strict = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::from([(Trap::Get, boom)]),
        revoked: false,
    }));
    // a setter-only accessor is an own field whose value is undefined
    let mut setter_only = Vec::new();
    for field in FIELDS {
        let props = FIELDS
            .iter()
            .map(|f| {
                let prop = match *f {
                    f if f == field => Property::Accessor {
                        getter: None,
                        enumerable: true,
                    },
                    "name" => Property::data("add"),
                    "description" => Property::data("d"),
                    "validate" => Property::data(v),
                    _ => Property::data(e),
                };
                (*f, prop)
            })
            .collect();
        setter_only.push((field, w.object_with(Proto::ObjectPrototype, props)));
    }
    let heap = w.finish();
    check("hidden", &heap, hidden, Ok("hidden"), &[]);
    let traps_of = |trace: &[TraceEvent], of: NodeId| -> Vec<Trap> {
        trace
            .iter()
            .filter_map(|t| match t {
                TraceEvent::TrapRan { proxy: p, trap } if *p == of => Some(*trap),
                _ => None,
            })
            .collect()
    };
    let (_, trace) = check("proxied", &heap, proxy, Ok("proxied"), &[]);
    assert_eq!(
        traps_of(&trace, proxy),
        [Trap::GetOwnPropertyDescriptor, Trap::Get].repeat(4)
    );
    let (_, trace) = check("strict", &heap, strict, INVALID, &[]);
    assert_eq!(
        traps_of(&trace, strict),
        [Trap::GetOwnPropertyDescriptor, Trap::Get]
    );
    for (field, def) in setter_only {
        check(field, &heap, def, INVALID, &[]);
    }
}

// ----------------------------------------------------------------- DEF-types

#[test]
fn name_and_description_must_be_strings() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let object = w.b.object([("toString", "add")]);
    let array = w.b.array(["add"]);
    let function = w.b.returning("add");
    let mut boxed = ObjectNode::new(Proto::Builtin(Builtin::StringBox));
    boxed.define("0", Property::data("a"));
    let boxed = w.b.alloc(Node::Object(boxed));
    let wrong: Vec<(&str, Value)> = vec![
        ("undefined", Value::Undefined),
        ("null", Value::Null),
        ("boolean", Value::Bool(true)),
        ("number", Value::from(1)),
        ("bigint", Value::from(BigIntValue::from_i64(1))),
        ("symbol", Value::Symbol(3)),
        ("object", Value::Ref(object)),
        ("array", Value::Ref(array)),
        ("function", Value::Ref(function)),
        ("boxed string", Value::Ref(boxed)),
    ];
    let mut cases = Vec::new();
    for field in ["name", "description"] {
        for (what, value) in &wrong {
            let def = w.definition("add", v, e);
            w.b.object_mut(def)
                .unwrap()
                .define(field, Property::data(value.clone()));
            cases.push((format!("{field} {what}"), def));
        }
    }
    let heap = w.finish();
    for (label, def) in cases {
        check(&label, &heap, def, INVALID, &[]);
    }
}

#[test]
fn blank_after_ecmascript_trim_is_invalid() {
    let blanks = [
        "",
        " ",
        "\t",
        "\n",
        "\u{B}",
        "\u{C}",
        "\r",
        "\u{A0}",
        "\u{1680}",
        "\u{2000}",
        "\u{2001}",
        "\u{2002}",
        "\u{2003}",
        "\u{2004}",
        "\u{2005}",
        "\u{2006}",
        "\u{2007}",
        "\u{2008}",
        "\u{2009}",
        "\u{200A}",
        "\u{2028}",
        "\u{2029}",
        "\u{202F}",
        "\u{205F}",
        "\u{3000}",
        "\u{FEFF}",
        " \t\r\n\u{3000}\u{FEFF}\u{2028}\u{A0} ",
    ];
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let mut cases = Vec::new();
    for field in ["name", "description"] {
        for blank in blanks {
            let def = w.definition("add", v, e);
            w.b.object_mut(def)
                .unwrap()
                .define(field, Property::data(blank));
            cases.push((format!("{field} {:?}", blank), def));
        }
    }
    let heap = w.finish();
    for (label, def) in cases {
        check(&label, &heap, def, INVALID, &[]);
    }
}

#[test]
fn only_ecmascript_whitespace_is_trimmed_and_names_are_kept_as_given() {
    // U+200B, U+0085, U+180E and U+2060 are not WhiteSpace or LineTerminator
    let kept = [
        "\u{200B}",
        "\u{85}",
        "\u{180E}",
        "\u{2060}",
        " add ",
        "\u{3000}add\u{FEFF}",
        "a",
    ];
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let mut cases = Vec::new();
    for name in kept {
        cases.push((name, w.definition(name, v, e)));
        let def = w.definition("add", v, e);
        w.b.object_mut(def)
            .unwrap()
            .define("description", Property::data(name));
        cases.push(("add", def));
    }
    // a lone surrogate is not whitespace either, and is kept unit for unit
    let lone = JsString::from_units(vec![0xD800]);
    let lone_def = w.definition("x", v, e);
    w.b.object_mut(lone_def)
        .unwrap()
        .define("name", Property::data(lone.clone()));
    let heap = w.finish();
    for (name, def) in cases {
        let (tool, _) = check(&format!("{name:?}"), &heap, def, Ok(name), &[]);
        assert!(tool.unwrap().name.units() == name.encode_utf16().collect::<Vec<_>>());
    }
    let trace = Trace::default();
    let rt = Runtime::new(&heap, AbortSignal::new(), trace);
    let tool = snapshot_definition(&rt, &Value::Ref(lone_def)).unwrap();
    assert_eq!(tool.name, lone);
}

#[test]
fn validate_and_execute_must_be_functions() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let object = w.b.object([("call", e)]);
    let array = w.b.array([e]);
    let promise =
        w.b.alloc(Node::Promise(PromiseNode::Fulfilled(Value::Ref(e))));
    let proxy = w.b.alloc(Node::Proxy(ProxyNode {
        target: object,
        traps: BTreeMap::new(),
        revoked: false,
    }));
    // an object whose prototype is Function.prototype is still not callable
    let fake = w.object_with(Proto::Builtin(Builtin::Function), vec![]);
    let wrong: Vec<(&str, Value)> = vec![
        ("undefined", Value::Undefined),
        ("null", Value::Null),
        ("boolean", Value::Bool(true)),
        ("number", Value::from(0)),
        ("string", Value::from("function () {}")),
        ("bigint", Value::from(BigIntValue::from_i64(1))),
        ("symbol", Value::Symbol(1)),
        ("object", Value::Ref(object)),
        ("array", Value::Ref(array)),
        ("promise", Value::Ref(promise)),
        ("proxy to an object", Value::Ref(proxy)),
        ("Function.prototype instance", Value::Ref(fake)),
    ];
    let mut cases = Vec::new();
    for field in ["validate", "execute"] {
        for (what, value) in &wrong {
            let def = w.definition("add", v, e);
            w.b.object_mut(def)
                .unwrap()
                .define(field, Property::data(value.clone()));
            cases.push((format!("{field} {what}"), def, INVALID));
        }
    }
    // the same function may serve as both
    let same = w.definition("same", e, e);
    cases.push(("both the same function".into(), same, Ok("same")));
    let heap = w.finish();
    for (label, def, expect) in cases {
        let (tool, _) = check(&label, &heap, def, expect, &[]);
        if let Some(tool) = tool {
            assert_eq!((tool.validate, tool.execute), (e, e));
        }
    }
}

// ------------------------------------------------------- DEF-read-once-order

#[test]
fn four_getters_run_once_each_in_field_order() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let gn = w.b.returning("add");
    let gd = w.b.returning("adds");
    let gv = w.b.returning(v);
    let ge = w.b.returning(e);
    // declared in reverse: the read order is the contract's, not the object's
    let def = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("execute", Property::getter(ge)),
            ("validate", Property::getter(gv)),
            ("description", Property::getter(gd)),
            ("name", Property::getter(gn)),
        ],
    );
    let heap = w.finish();
    let (tool, trace) = check("getters", &heap, def, Ok("add"), &[gn, gd, gv, ge]);
    let tool = tool.unwrap();
    assert!(tool.description == "adds");
    assert_eq!((tool.validate, tool.execute), (v, e));
    assert!(
        trace
            .iter()
            .all(|t| matches!(t, TraceEvent::Called { args, .. } if args.is_empty())),
        "getters only, called without arguments: {trace:?}"
    );
}

#[test]
fn all_four_fields_are_read_before_any_is_checked() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let getters = [
        w.b.returning("add"),
        w.b.returning("adds"),
        w.b.returning(v),
        w.b.returning(e),
    ];
    let bad: [Value; 4] = [
        Value::from(" "),
        Value::from(5),
        Value::from("validate"),
        Value::Null,
    ];
    let mut cases = Vec::new();
    for (i, field) in FIELDS.iter().enumerate() {
        // the getter of `field` returns a bad value: the later getters run
        // too, since the checks come after all four reads
        let wrong = w.b.returning(bad[i].clone());
        let props = FIELDS
            .iter()
            .zip(getters)
            .enumerate()
            .map(|(j, (f, g))| (*f, Property::getter(if j == i { wrong } else { g })))
            .collect();
        let def = w.object_with(Proto::ObjectPrototype, props);
        let mut called = getters.to_vec();
        called[i] = wrong;
        cases.push((format!("bad {field}"), def, called));
        // `field` is missing: the getters before it ran, none after it
        let props = FIELDS
            .iter()
            .zip(getters)
            .filter(|(f, _)| *f != field)
            .map(|(f, g)| (*f, Property::getter(g)))
            .collect();
        let def = w.object_with(Proto::ObjectPrototype, props);
        cases.push((format!("missing {field}"), def, getters[..i].to_vec()));
    }
    let heap = w.finish();
    for (label, def, called) in cases {
        check(&label, &heap, def, INVALID, &called);
    }
}

// ----------------------------------------------------- DEF-throwing-getter

#[test]
fn a_throwing_getter_is_an_invalid_definition_and_stops_the_reading() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let getters = [
        w.b.returning("add"),
        w.b.returning("adds"),
        w.b.returning(v),
        w.b.returning(e),
    ];
    let error =
        w.b.error(Proto::Builtin(Builtin::Error), Some("getter failed"));
    let fatal =
        w.b.non_recoverable(Proto::Builtin(Builtin::NonRecoverableToolError), "fatal");
    let thrown: Vec<(&str, Value)> = vec![
        ("a string", Value::from("boom")),
        ("an Error", Value::Ref(error)),
        ("undefined", Value::Undefined),
        ("a NonRecoverableToolError", Value::Ref(fatal)),
    ];
    let mut cases = Vec::new();
    for (i, field) in FIELDS.iter().enumerate() {
        for (what, value) in &thrown {
            let throwing = w.b.throwing(value.clone());
            let props = FIELDS
                .iter()
                .zip(getters)
                .enumerate()
                .map(|(j, (f, g))| (*f, Property::getter(if j == i { throwing } else { g })))
                .collect();
            let def = w.object_with(Proto::ObjectPrototype, props);
            let mut called = getters[..i].to_vec();
            called.push(throwing);
            cases.push((format!("{field} throws {what}"), def, called));
        }
    }
    let heap = w.finish();
    for (label, def, called) in cases {
        check(&label, &heap, def, INVALID, &called);
    }
}

#[test]
fn a_throwing_or_revoked_proxy_is_an_invalid_definition() {
    let mut w = World::new();
    let v = w.accepting(1);
    let e = w.b.returning(2);
    let gn = w.b.returning("add");
    let target = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("name", Property::getter(gn)),
            ("description", Property::data("d")),
            ("validate", Property::data(v)),
            ("execute", Property::data(e)),
        ],
    );
    let throwing = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::from([(
            Trap::GetOwnPropertyDescriptor,
            TrapBehavior::Throw(Value::from("trap")),
        )]),
        revoked: false,
    }));
    let revoked = w.b.alloc(Node::Proxy(ProxyNode {
        target,
        traps: BTreeMap::new(),
        revoked: true,
    }));
    let heap = w.finish();
    check("throwing trap", &heap, throwing, INVALID, &[]);
    check("revoked", &heap, revoked, INVALID, &[]);
}

// ----------------------------------------------------- DEF-snapshot-frozen

#[test]
fn the_snapshot_keeps_the_validator_read_at_registration() {
    let mut w = World::new();
    let validator = w.accepting(7);
    let stale = w.rejecting("an inherited validator must not be used");
    let output = w.b.object([("sum", 42)]);
    let executor = w.b.returning(output);
    let gn = w.b.returning("add");
    let gd = w.b.returning("adds");
    let gv = w.b.returning(validator);
    let ge = w.b.returning(executor);
    let parent = w.object_with(
        Proto::ObjectPrototype,
        vec![("validate", Property::data(stale))],
    );
    let def = w.object_with(
        Proto::Node(parent),
        vec![
            ("name", Property::getter(gn)),
            ("description", Property::getter(gd)),
            ("validate", Property::getter(gv)),
            ("execute", Property::getter(ge)),
        ],
    );
    let batch = w.b.array([def]);
    let call = w.call("c1", "add");
    let heap = w.finish();

    let (tool, _) = check("snapshot", &heap, def, Ok("add"), &[gn, gd, gv, ge]);
    let tool = tool.unwrap();
    assert_eq!((tool.validate, tool.execute), (validator, executor));

    let seen = Run::new(&heap, Some(batch), call).go();
    let result = seen.result();
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.content, r#"{"sum":42}"#);
    assert_eq!(seen.names, ["add"]);
    for getter in [gn, gd, gv, ge] {
        assert_eq!(seen.calls(getter), 1, "every getter ran once, in total");
    }
    assert_eq!(seen.calls(validator), 1);
    assert_eq!(seen.calls(stale), 0);
    assert_eq!(seen.calls(executor), 1);
    assert_eq!(seen.args(executor)[0][0], Arg::Value(Value::from(7)));
    let position = |f: NodeId| {
        seen.trace
            .iter()
            .position(|t| matches!(t, TraceEvent::Called { function, .. } if *function == f))
            .unwrap()
    };
    assert!(position(ge) < position(validator), "read at registration");
}

#[test]
fn one_registration_serves_every_later_call_without_reading_again() {
    let mut w = World::new();
    let validator = w.accepting(1);
    let executor = w.b.returning("done");
    let gn = w.b.returning("add");
    let gv = w.b.returning(validator);
    let ge = w.b.returning(executor);
    let def = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("name", Property::getter(gn)),
            ("description", Property::data("d")),
            ("validate", Property::getter(gv)),
            ("execute", Property::getter(ge)),
        ],
    );
    let calls = [
        w.call("c1", "add"),
        w.call("c2", "add"),
        w.call("c3", "add"),
    ];
    let heap = w.finish();

    let (snapshot, _) = check("snapshot", &heap, def, Ok("add"), &[gn, gv, ge]);
    let trace = Trace::default();
    let rt = Runtime::new(&heap, AbortSignal::new(), trace.clone());
    let mut registry = ModelRegistry::new();
    register(&rt, &mut registry, &Value::Ref(def)).unwrap();
    let registered = registry.get(&JsString::new("add")).unwrap();
    assert_eq!(Some(registered.as_ref()), snapshot.as_ref());
    for call in calls {
        match drive_call(&rt, RegistryArg::Real(&registry), &Value::Ref(call), None) {
            Driven::Done(Ok(result)) => assert_eq!(result.content, r#""done""#),
            other => panic!("{other:?}"),
        }
    }
    let trace = trace.lock().unwrap().clone();
    let count = |f: NodeId| {
        trace
            .iter()
            .filter(|t| matches!(t, TraceEvent::Called { function, .. } if *function == f))
            .count()
    };
    assert_eq!((count(gn), count(gv), count(ge)), (1, 1, 1));
    assert_eq!((count(validator), count(executor)), (3, 3));
}
