//! Every worked example of CONTRACT.md's serializer section, compared byte for
//! byte, plus the number and escape tables it implies.

mod support;

use support::{serialize_model, World};
use toolgate_core::bigint::BigIntValue;
use toolgate_core::constants::TRUNCATION_MARKER;
use toolgate_core::model::*;
use toolgate_core::JsString;

/// Serializes `root` and compares the content with `expect`.
fn check(world: World, root: impl Into<Value>, expect: &str) {
    let heap = world.finish();
    let (out, _) = serialize_model(&heap, &root.into());
    let out = out.unwrap_or_else(|e| panic!("serialization failed: {e:?}"));
    assert_eq!(out.content, expect);
    assert_eq!(out.truncated, expect.ends_with(TRUNCATION_MARKER));
}

#[test]
fn sum_and_exact_sort_by_key() {
    let mut w = World::new();
    let o =
        w.b.object([("sum", Value::from(42)), ("exact", Value::Bool(true))]);
    check(w, o, r#"{"exact":true,"sum":42}"#);
}

#[test]
fn markers_bigint_cycle_getter_and_to_json() {
    let mut w = World::new();
    let getter = w.b.returning("never read");
    let to_json = w.b.returning("never called");
    let cycle = w.b.object::<&str, Value>([]);
    w.b.object_mut(cycle)
        .unwrap()
        .define("self", Property::data(cycle));
    let big = BigIntValue::from_decimal("9007199254740993").unwrap();
    let o = w.object_with(
        Proto::ObjectPrototype,
        vec![
            ("zUndefined", Property::data(Value::Undefined)),
            ("aBigInt", Property::data(big)),
            ("cycle", Property::data(cycle)),
            ("getter", Property::getter(getter)),
            ("toJSON", Property::data(to_json)),
        ],
    );
    let heap = w.finish();
    let (out, trace) = serialize_model(&heap, &Value::Ref(o));
    assert_eq!(
        out.unwrap().content,
        r#"{"aBigInt":"9007199254740993n","cycle":{"self":"[Circular]"},"toJSON":"[Function]","zUndefined":"[Undefined]"}"#
    );
    assert!(trace.is_empty(), "no getter or toJSON ran: {trace:?}");
}

#[test]
fn huge_bigint_gives_only_the_marker() {
    let big = BigIntValue::power_of_two(false, 2_000_000, 0).unwrap();
    check(World::new(), big, TRUNCATION_MARKER);
}

#[test]
fn eight_million_characters_keep_4071() {
    let s = JsString::new(&"x".repeat(8_000_000));
    let expect = format!("\"{}{TRUNCATION_MARKER}", "x".repeat(4071));
    assert_eq!(expect.chars().count(), 4096);
    check(World::new(), s, &expect);
}

#[test]
fn hundred_thousand_deep_nest_truncates() {
    let mut w = World::new();
    let mut inner = w.b.object::<&str, Value>([]);
    for _ in 0..100_000 {
        inner = w.b.object([("a", inner)]);
    }
    let expect = format!("{}{TRUNCATION_MARKER}", r#"{"a":"#.repeat(33));
    check(w, inner, &expect);
}

#[test]
fn array_of_228_numbers_stops_after_127() {
    let mut w = World::new();
    let a = w.b.array((0..228).map(Value::from));
    let numbers: Vec<String> = (0..127).map(|i| i.to_string()).collect();
    let expect = format!("[{},{TRUNCATION_MARKER}", numbers.join(","));
    check(w, a, &expect);
}

#[test]
fn string_of_4094_fits_and_4095_truncates() {
    let fits = "y".repeat(4094);
    check(World::new(), JsString::new(&fits), &format!("\"{fits}\""));
    let over = "y".repeat(4095);
    check(
        World::new(),
        JsString::new(&over),
        &format!("\"{}{TRUNCATION_MARKER}", "y".repeat(4071)),
    );
}

#[test]
fn numbers_follow_ecmascript_to_string() {
    let mut w = World::new();
    let a = w.b.array([
        1e21,
        5e-7,
        0.1,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        1.797_693_134_862_315_7e308,
    ]);
    check(w, a, "[1e+21,5e-7,0.1,0,null,null,1.7976931348623157e+308]");
    let mut w = World::new();
    let a = w.b.array([
        f64::NEG_INFINITY,
        123.0,
        -1.5e-7,
        1e20,
        2f64.powi(53) + 2.0,
        0.000001,
    ]);
    check(
        w,
        a,
        "[null,123,-1.5e-7,100000000000000000000,9007199254740994,0.000001]",
    );
}

#[test]
fn keys_sort_by_utf16_code_units() {
    let mut w = World::new();
    let keys = ["b", "a", "10", "9", "é", "😀", "\u{FFFF}"];
    let o = w.b.object(keys.iter().map(|k| (*k, Value::from(1))));
    check(
        w,
        o,
        "{\"10\":1,\"9\":1,\"a\":1,\"b\":1,\"é\":1,\"😀\":1,\"\u{FFFF}\":1}",
    );
}

#[test]
fn escapes_of_controls_quotes_and_lone_surrogates() {
    let mut units: Vec<u16> = "a\n\u{1}\"\\\u{7F}\u{2028}".encode_utf16().collect();
    units.push(0xD800);
    units.extend("x😀".encode_utf16());
    check(
        World::new(),
        JsString::from_units(units),
        "\"a\\u000a\\u0001\\\"\\\\\u{7F}\u{2028}\\ud800x😀\"",
    );
    // a lone low surrogate, a reversed pair, and U+001F
    let units = vec![0xDC00, 0xDC00, 0xD800, 0x1F];
    check(
        World::new(),
        JsString::from_units(units),
        "\"\\udc00\\udc00\\ud800\\u001f\"",
    );
}

#[test]
fn holes_top_level_undefined_and_shared_references() {
    let mut w = World::new();
    let a = w.b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length: 3,
        slots: [(0, Property::data(1)), (2, Property::data(3))]
            .into_iter()
            .collect(),
    }));
    check(w, a, r#"[1,"[Empty]",3]"#);
    check(World::new(), Value::Undefined, r#""[Undefined]""#);
    let mut w = World::new();
    let s = w.b.object([("v", 1)]);
    let o = w.b.object([("a", s), ("b", s)]);
    check(w, o, r#"{"a":{"v":1},"b":{"v":1}}"#);
}

#[test]
fn scalars_and_markers() {
    check(World::new(), Value::Null, "null");
    check(World::new(), Value::Bool(false), "false");
    check(World::new(), Value::Symbol(1), r#""[Symbol]""#);
    let mut w = World::new();
    let f = w.b.returning(1);
    check(w, f, r#""[Function]""#);
    check(World::new(), BigIntValue::from_i64(-12), r#""-12n""#);
}
