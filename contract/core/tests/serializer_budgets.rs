//! The budgets of CONTRACT.md's serializer, each exactly at its limit and one
//! past it: the 4096-code-point output cap, depth 32, 128 values, 256
//! collection entries, 4096 string characters and the 2^4096 BigInt bound;
//! the bounded cost of huge inputs (`Serialized::steps <= MAX_STEPS`); the
//! `{error:{code,message}}` payload; and the serde_json source writing the
//! same bytes as the equivalent model graph.
//!
//! Every expected string is built here from CONTRACT.md's rules. A truncated
//! content is "the first 4072 code points of what was written (or all of it,
//! if shorter) followed by the marker", so the tests write down what was
//! written and cut it at 4072 code points themselves.

mod support;

use num_bigint::BigUint;
use serde_json::json;
use support::{serialize_model, World};
use toolgate_core::bigint::BigIntValue;
use toolgate_core::constants::TRUNCATION_MARKER;
use toolgate_core::model::*;
use toolgate_core::serializer::{
    error_content, serialize, Failure, JsonSource, Serialized, MAX_STEPS,
};
use toolgate_core::JsString;

/// Code points kept before the marker of a truncated content.
const KEPT: usize = 4072;

/// Serializes `root` of `heap` and compares the content with `expect`
/// (reporting the first differing code point), then checks what holds for
/// every output: `truncated` iff the content ends with the marker, at most
/// 4096 code points, at most `MAX_STEPS` steps, and nothing ran in the host.
fn check(heap: &Heap, root: impl Into<Value>, expect: &str) -> Serialized {
    let (out, trace) = serialize_model(heap, &root.into());
    let out = out.unwrap_or_else(|e| panic!("serialization failed: {e:?}"));
    if out.content != expect {
        let got: Vec<char> = out.content.chars().collect();
        let want: Vec<char> = expect.chars().collect();
        let at = got.iter().zip(&want).take_while(|(a, b)| a == b).count();
        panic!(
            "content differs at code point {at}: got {} code points, expected {}\n got from there: {:?}\nwant from there: {:?}",
            got.len(),
            want.len(),
            got.iter().skip(at).take(60).collect::<String>(),
            want.iter().skip(at).take(60).collect::<String>(),
        );
    }
    assert_eq!(
        out.truncated,
        expect.ends_with(TRUNCATION_MARKER),
        "truncated flag"
    );
    assert!(out.content.chars().count() <= 4096, "over the cap");
    assert!(
        out.steps <= MAX_STEPS,
        "steps {} > MAX_STEPS {MAX_STEPS}",
        out.steps
    );
    assert!(trace.is_empty(), "the serializer ran something: {trace:?}");
    out
}

// ---------------------------------------------------------------- SER-cap

#[test]
fn cap_string_of_4094_two_byte_chars_fits_and_4095_truncates() {
    let heap = World::new().finish();
    // 4094 'é' plus two quotes: exactly 4096 code points (8190 bytes)
    let fits = "é".repeat(4094);
    let out = check(&heap, JsString::new(&fits), &format!("\"{fits}\""));
    assert_eq!(out.content.chars().count(), 4096);
    assert!(out.content.len() > 4096, "bytes are not code points");
    // one more: the closing quote is the 4097th code point
    let over = JsString::new(&"é".repeat(4095));
    let expect = format!("\"{}{TRUNCATION_MARKER}", "é".repeat(KEPT - 1));
    let out = check(&heap, over, &expect);
    assert_eq!(out.content.chars().count(), 4096);
}

#[test]
fn cap_closing_brace_as_the_4097th_code_point_truncates() {
    let mut w = World::new();
    // {"k":"<n emoji>"}: 8 + n code points; the emoji are 4 bytes each
    let fits = w.b.object([("k", "😀".repeat(4088).as_str())]);
    let over = w.b.object([("k", "😀".repeat(4089).as_str())]);
    let heap = w.finish();
    check(&heap, fits, &format!("{{\"k\":\"{}\"}}", "😀".repeat(4088)));
    // written: {"k":" then 4089 emoji and the closing quote; the brace does not fit
    let expect = format!("{{\"k\":\"{}{TRUNCATION_MARKER}", "😀".repeat(KEPT - 6));
    check(&heap, over, &expect);
}

#[test]
fn cap_cut_at_4072_code_points_may_fall_inside_an_escape() {
    let heap = World::new().finish();
    // 682 lone surrogates are written as 6 code points each (4092), then 'éé'
    // and two quotes: exactly 4096
    let units = |tail: &str| -> Vec<u16> {
        let mut u = vec![0xD800u16; 682];
        u.extend(tail.encode_utf16());
        u
    };
    let fits = format!("\"{}éé\"", "\\ud800".repeat(682));
    check(&heap, JsString::from_units(units("éé")), &fits);
    // one more 'é': truncated; the first 4072 code points are the quote, 678
    // escapes (4068) and the first three code points of the 679th
    let expect = format!("\"{}\\ud{TRUNCATION_MARKER}", "\\ud800".repeat(678));
    check(&heap, JsString::from_units(units("ééé")), &expect);
}

#[test]
fn cap_budget_truncation_after_4072_code_points_keeps_only_4072() {
    let mut w = World::new();
    // 4084 code points are written ("[", the quoted string, ",") before the
    // BigInt at the bound truncates: only the first 4072 are kept
    let big = BigIntValue::power_of_two(false, 4096, 0).unwrap();
    let root =
        w.b.array([Value::from("ÿ".repeat(4080).as_str()), Value::from(big)]);
    let heap = w.finish();
    check(
        &heap,
        root,
        &format!("[\"{}{TRUNCATION_MARKER}", "ÿ".repeat(KEPT - 2)),
    );
}

// -------------------------------------------------------------- SER-depth

#[test]
fn depth_array_nest_deepest_at_32_is_written_and_at_33_truncates() {
    let mut w = World::new();
    // 33 arrays: depths 0..=32
    let mut at_32 = w.b.array::<Value>([]);
    for _ in 0..32 {
        at_32 = w.b.array([at_32]);
    }
    let at_33 = w.b.array([at_32]);
    let heap = w.finish();
    check(
        &heap,
        at_32,
        &format!("{}{}", "[".repeat(33), "]".repeat(33)),
    );
    // the 34th array is a container at depth 33: truncate before its '['
    check(
        &heap,
        at_33,
        &format!("{}{TRUNCATION_MARKER}", "[".repeat(33)),
    );
}

#[test]
fn depth_object_nest_deepest_at_32_is_written_and_at_33_truncates() {
    let mut w = World::new();
    let mut at_32 = w.b.object::<&str, Value>([]);
    for _ in 0..32 {
        at_32 = w.b.object([("a", at_32)]);
    }
    let at_33 = w.b.object([("a", at_32)]);
    let heap = w.finish();
    let expect = format!("{}{{}}{}", r#"{"a":"#.repeat(32), "}".repeat(32));
    check(&heap, at_32, &expect);
    check(
        &heap,
        at_33,
        &format!("{}{TRUNCATION_MARKER}", r#"{"a":"#.repeat(33)),
    );
}

#[test]
fn depth_scalars_at_depth_33_are_written() {
    let mut w = World::new();
    // the innermost array is at depth 32; its values are at depth 33
    let mut root =
        w.b.array([Value::from(1), Value::from("s"), Value::Undefined]);
    for _ in 0..32 {
        root = w.b.array([root]);
    }
    let heap = w.finish();
    let expect = format!(
        "{}1,\"s\",\"[Undefined]\"{}",
        "[".repeat(33),
        "]".repeat(33)
    );
    check(&heap, root, &expect);
}

// -------------------------------------------------------------- SER-nodes

#[test]
fn nodes_array_and_127_numbers_fit_and_a_128th_number_truncates() {
    let mut w = World::new();
    let fits = w.b.array((0..127).map(Value::from));
    let over = w.b.array((0..128).map(Value::from));
    let heap = w.finish();
    let numbers: Vec<String> = (0..127).map(|i| i.to_string()).collect();
    check(&heap, fits, &format!("[{}]", numbers.join(",")));
    // the comma before the 129th value is written, then it truncates
    check(
        &heap,
        over,
        &format!("[{},{TRUNCATION_MARKER}", numbers.join(",")),
    );
}

#[test]
fn nodes_marker_values_count_as_values() {
    let mut w = World::new();
    let f = w.b.returning(1);
    let fits = w.b.array::<Value>([]);
    let over = w.b.array::<Value>([]);
    // undefined, symbol, function and a circular reference to the array
    // itself: each is a value even though it is written as a marker
    for (root, n) in [(fits, 127u32), (over, 128)] {
        let slots: Slots = (0..n)
            .map(|i| {
                let v = match i % 4 {
                    0 => Value::Undefined,
                    1 => Value::Symbol(i),
                    2 => Value::Ref(f),
                    _ => Value::Ref(root),
                };
                (i, Property::data(v))
            })
            .collect();
        if let Some(Node::Array(a)) = w.b.node_mut(root) {
            a.length = n;
            a.slots = slots;
        }
    }
    let heap = w.finish();
    let markers: Vec<&str> = (0..127)
        .map(|i| match i % 4 {
            0 => r#""[Undefined]""#,
            1 => r#""[Symbol]""#,
            2 => r#""[Function]""#,
            _ => r#""[Circular]""#,
        })
        .collect();
    check(&heap, fits, &format!("[{}]", markers.join(",")));
    check(
        &heap,
        over,
        &format!("[{},{TRUNCATION_MARKER}", markers.join(",")),
    );
}

#[test]
fn nodes_holes_and_accessor_slots_are_entries_not_values() {
    let mut w = World::new();
    let getter = w.b.throwing("never run");
    // 100 slots that are holes or accessors, then `numbers` data slots
    let mut build = |numbers: u32| {
        let slots: Slots = (0..100u32)
            .filter(|i| i % 2 == 1)
            .map(|i| (i, Property::getter(getter)))
            .chain((0..numbers).map(|n| (100 + n, Property::data(n as i32))))
            .collect();
        w.b.alloc(Node::Array(ArrayNode {
            proto: Proto::ArrayPrototype,
            length: 100 + numbers,
            slots,
        }))
    };
    // the array and 127 numbers are the 128 values; the 100 other slots are not
    let fits = build(127);
    let over = build(128);
    let heap = w.finish();
    let mut parts: Vec<String> = (0..100)
        .map(|i| {
            if i % 2 == 0 {
                r#""[Empty]""#
            } else {
                r#""[Accessor omitted]""#
            }
            .to_string()
        })
        .collect();
    parts.extend((0..127).map(|n| n.to_string()));
    check(&heap, fits, &format!("[{}]", parts.join(",")));
    check(
        &heap,
        over,
        &format!("[{},{TRUNCATION_MARKER}", parts.join(",")),
    );
}

#[test]
fn nodes_object_with_127_keys_fits_and_128_truncates_after_the_last_key() {
    let mut w = World::new();
    let getter = w.b.throwing("never run");
    // inserted in reverse, written sorted; accessors are entries, not values
    let mut build = |keys: i32| {
        let mut o = ObjectNode::new(Proto::ObjectPrototype);
        for i in (0..keys).rev() {
            o.define(format!("k{i:03}").as_str(), Property::data(i));
        }
        for i in 0..20 {
            o.define(format!("acc{i}").as_str(), Property::getter(getter));
        }
        w.b.alloc(Node::Object(o))
    };
    let fits = build(127);
    let over = build(128);
    let heap = w.finish();
    let pairs: Vec<String> = (0..127).map(|i| format!("\"k{i:03}\":{i}")).collect();
    check(&heap, fits, &format!("{{{}}}", pairs.join(",")));
    // the 128th key and its colon are written; its value is the 129th value
    let expect = format!("{{{},\"k127\":{TRUNCATION_MARKER}", pairs.join(","));
    check(&heap, over, &expect);
}

// ------------------------------------------------------------ SER-entries

#[test]
fn entries_object_of_256_accessor_keys_fits_and_257_truncates() {
    let mut w = World::new();
    let getter = w.b.throwing("never run");
    let mut build = |n: usize| {
        let mut o = ObjectNode::new(Proto::ObjectPrototype);
        for i in 0..n {
            o.define(format!("g{i}").as_str(), Property::getter(getter));
        }
        w.b.alloc(Node::Object(o))
    };
    let fits = build(256);
    let over = build(257);
    let heap = w.finish();
    // all entries are accessors: dropped, nothing is kept
    check(&heap, fits, "{}");
    // the 257th entry truncates while the keys are walked, before any is written
    check(&heap, over, &format!("{{{TRUNCATION_MARKER}"));
}

#[test]
fn entries_127_data_and_129_accessor_keys_fit_and_one_more_accessor_truncates() {
    let mut w = World::new();
    let getter = w.b.throwing("never run");
    let mut build = |accessors: i32| {
        let mut o = ObjectNode::new(Proto::ObjectPrototype);
        for i in 0..127 {
            o.define(format!("d{i:03}").as_str(), Property::data(i));
            if i < accessors {
                o.define(format!("g{i:03}").as_str(), Property::getter(getter));
            }
        }
        for i in 127..accessors {
            o.define(format!("g{i:03}").as_str(), Property::getter(getter));
        }
        w.b.alloc(Node::Object(o))
    };
    // 127 + 129 = 256 entries; the object and 127 numbers = 128 values
    let fits = build(129);
    let over = build(130);
    let heap = w.finish();
    let pairs: Vec<String> = (0..127).map(|i| format!("\"d{i:03}\":{i}")).collect();
    check(&heap, fits, &format!("{{{}}}", pairs.join(",")));
    check(&heap, over, &format!("{{{TRUNCATION_MARKER}"));
}

#[test]
fn entries_are_summed_over_two_arrays_of_128_and_129_slots() {
    let mut w = World::new();
    // an outer array of 128 slots whose last slot is an inner array of `n`
    // holes: 128 + n entries
    let mut build = |n: u32| {
        let inner = w.b.alloc(Node::Array(ArrayNode {
            proto: Proto::ArrayPrototype,
            length: n,
            slots: Slots::new(),
        }));
        w.b.alloc(Node::Array(ArrayNode {
            proto: Proto::ArrayPrototype,
            length: 128,
            slots: [(127, Property::data(inner))].into_iter().collect(),
        }))
    };
    let fits = build(128);
    let over = build(129);
    let heap = w.finish();
    let outer_holes = r#""[Empty]","#.repeat(127);
    let inner_holes = vec![r#""[Empty]""#; 128].join(",");
    check(&heap, fits, &format!("[{outer_holes}[{inner_holes}]]"));
    // the 257th entry truncates before its comma
    check(
        &heap,
        over,
        &format!("[{outer_holes}[{inner_holes}{TRUNCATION_MARKER}"),
    );
}

// ------------------------------------------------------------ SER-strings
//
// Every budgeted code point read is written as at least one code point, and
// each string adds two quotes, so the 4096 string characters can never run
// out before the 4096-code-point output cap: the content at the boundary is
// the same whichever budget fires first. These tests pin that content.

#[test]
fn strings_key_and_value_characters_are_summed() {
    let mut w = World::new();
    let key = "é".repeat(2000);
    // {"<key>":"<value>"}: 7 + 2000 + n code points; 2000 + n characters read
    let fits = w.b.object([(key.as_str(), "😀".repeat(2089).as_str())]);
    let over = w.b.object([(key.as_str(), "😀".repeat(2090).as_str())]);
    let heap = w.finish();
    check(
        &heap,
        fits,
        &format!("{{\"{key}\":\"{}\"}}", "😀".repeat(2089)),
    );
    let expect = format!(
        "{{\"{key}\":\"{}{TRUNCATION_MARKER}",
        "😀".repeat(KEPT - 2005)
    );
    check(&heap, over, &expect);
}

#[test]
fn strings_bigint_digits_and_its_n_are_string_characters() {
    let digits = ((BigUint::from(1u8) << 4096u32) - BigUint::from(1u8)).to_str_radix(10);
    assert_eq!(digits.len(), 1234);
    let big = BigIntValue::power_of_two(false, 4096, -1).unwrap();
    let mut w = World::new();
    // ["<1234 digits>n","<x * n>"]: 1 + 1237 + 1 + (n + 2) + 1 = n + 1242
    let fits = w.b.array([
        Value::from(big.clone()),
        Value::from("x".repeat(2854).as_str()),
    ]);
    let over =
        w.b.array([Value::from(big), Value::from("x".repeat(2855).as_str())]);
    let heap = w.finish();
    let written = format!("[\"{digits}n\",\"{}\"]", "x".repeat(2854));
    assert_eq!(written.chars().count(), 4096);
    check(&heap, fits, &written);
    let written_over = format!("[\"{digits}n\",\"{}", "x".repeat(2855));
    let kept: String = written_over.chars().take(KEPT).collect();
    check(&heap, over, &format!("{kept}{TRUNCATION_MARKER}"));
}

#[test]
fn strings_budget_is_summed_over_many_strings_and_markers_are_free() {
    let mut w = World::new();
    // 100 "[Undefined]" markers (13 code points each, unbudgeted) then a
    // string: 1 + 100 * 14 + (n + 2) + 1 = n + 1404 code points
    let build = |w: &mut World, n: usize| {
        let mut values = vec![Value::Undefined; 100];
        values.push(Value::from("ü".repeat(n).as_str()));
        w.b.array(values)
    };
    let fits = build(&mut w, 2692);
    let over = build(&mut w, 2693);
    // four strings of 1000 characters: 4000 characters read, 4013 written
    let four = w.b.array(vec![Value::from("z".repeat(1000).as_str()); 4]);
    let heap = w.finish();
    let markers = r#""[Undefined]","#.repeat(100);
    check(&heap, fits, &format!("[{markers}\"{}\"]", "ü".repeat(2692)));
    let expect = format!("[{markers}\"{}{TRUNCATION_MARKER}", "ü".repeat(KEPT - 1402));
    check(&heap, over, &expect);
    let z = format!("\"{}\"", "z".repeat(1000));
    check(&heap, four, &format!("[{}]", vec![z; 4].join(",")));
}

// ------------------------------------------------------------- SER-bigint

#[test]
fn bigint_magnitude_two_pow_4096_minus_one_is_written_in_full() {
    // 2^4096 by doubling a decimal digit string, independently of any bigint
    // library, then minus one (2^k never ends in 0)
    let mut little_endian = vec![1u8];
    for _ in 0..4096 {
        let mut carry = 0;
        for d in little_endian.iter_mut() {
            let x = *d * 2 + carry;
            *d = x % 10;
            carry = x / 10;
        }
        if carry > 0 {
            little_endian.push(carry);
        }
    }
    if let Some(units) = little_endian.first_mut() {
        *units -= 1;
    }
    let digits: String = little_endian
        .iter()
        .rev()
        .map(|d| char::from(b'0' + d))
        .collect();
    assert_eq!(digits.len(), 1234);
    assert_eq!(
        digits,
        ((BigUint::from(1u8) << 4096u32) - BigUint::from(1u8)).to_str_radix(10)
    );
    let heap = World::new().finish();
    let positive = format!("\"{digits}n\"");
    assert_eq!(positive.chars().count(), 1237);
    check(
        &heap,
        BigIntValue::power_of_two(false, 4096, -1).unwrap(),
        &positive,
    );
    check(
        &heap,
        BigIntValue::from_decimal(&digits).unwrap(),
        &positive,
    );
    let negative = format!("\"-{digits}n\"");
    check(
        &heap,
        BigIntValue::power_of_two(true, 4096, -1).unwrap(),
        &negative,
    );
    check(
        &heap,
        BigIntValue::from_decimal(&format!("-{digits}")).unwrap(),
        &negative,
    );
}

#[test]
fn bigint_magnitude_two_pow_4096_truncates_to_the_marker() {
    let power = (BigUint::from(1u8) << 4096u32).to_str_radix(10);
    let mut w = World::new();
    let in_array = w.b.array([
        Value::from(1),
        Value::from(BigIntValue::power_of_two(false, 4096, 0).unwrap()),
    ]);
    let heap = w.finish();
    for big in [
        BigIntValue::power_of_two(false, 4096, 0).unwrap(),
        BigIntValue::power_of_two(true, 4096, 0).unwrap(),
        BigIntValue::power_of_two(false, 4096, 1).unwrap(),
        BigIntValue::from_decimal(&power).unwrap(),
        BigIntValue::from_decimal(&format!("-{power}")).unwrap(),
    ] {
        check(&heap, big, TRUNCATION_MARKER);
    }
    // nothing of the BigInt is written, not even its opening quote
    check(&heap, in_array, &format!("[1,{TRUNCATION_MARKER}"));
}

// --------------------------------------------------------------- SER-cost
//
// `check` asserts `steps <= MAX_STEPS` for each of these.

#[test]
fn cost_million_key_object_stops_at_the_257th_entry() {
    let mut o = ObjectNode::new(Proto::ObjectPrototype);
    for i in 0..1_000_000 {
        o.define(format!("k{i}").as_str(), Property::data(i));
    }
    let mut w = World::new();
    let root = w.b.alloc(Node::Object(o));
    let heap = w.finish();
    check(&heap, root, &format!("{{{TRUNCATION_MARKER}"));
}

#[test]
fn cost_million_slot_sparse_array_reads_at_most_256_slots() {
    let mut w = World::new();
    let root = w.b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length: 1_000_000,
        slots: [(0, 0), (500_000, 1), (999_999, 2)]
            .into_iter()
            .map(|(i, v)| (i, Property::data(v)))
            .collect(),
    }));
    let heap = w.finish();
    let holes = vec![r#""[Empty]""#; 255].join(",");
    check(&heap, root, &format!("[0,{holes}{TRUNCATION_MARKER}"));
}

#[test]
fn cost_million_element_dense_array_stops_at_the_129th_value() {
    let mut w = World::new();
    let root = w.b.array((0..1_000_000).map(Value::from));
    let heap = w.finish();
    let numbers: Vec<String> = (0..127).map(|i| i.to_string()).collect();
    check(
        &heap,
        root,
        &format!("[{},{TRUNCATION_MARKER}", numbers.join(",")),
    );
}

#[test]
fn cost_million_deep_nest_stops_at_depth_33() {
    let mut w = World::new();
    let mut root = w.b.array::<Value>([]);
    for _ in 0..1_000_000 {
        root = w.b.array([root]);
    }
    let heap = w.finish();
    check(
        &heap,
        root,
        &format!("{}{TRUNCATION_MARKER}", "[".repeat(33)),
    );
}

#[test]
fn cost_eight_million_character_string_keeps_4071() {
    let heap = World::new().finish();
    let s = JsString::new(&"é".repeat(8_000_000));
    check(
        &heap,
        s,
        &format!("\"{}{TRUNCATION_MARKER}", "é".repeat(4071)),
    );
}

#[test]
fn cost_256_keys_of_100000_chars_sharing_a_prefix() {
    let prefix = "a".repeat(99_990);
    let mut o = ObjectNode::new(Proto::ObjectPrototype);
    for i in (0..256).rev() {
        o.define(
            JsString::new(&format!("{prefix}{i:010}")),
            Property::data(i),
        );
    }
    let mut w = World::new();
    let root = w.b.alloc(Node::Object(o));
    let heap = w.finish();
    // 256 entries fit; whichever key sorts first, its first 4070 code points
    // are 'a' and the cap stops the writing inside it
    check(
        &heap,
        root,
        &format!("{{\"{}{TRUNCATION_MARKER}", "a".repeat(KEPT - 2)),
    );
}

#[test]
fn cost_252_shuffled_keys_equal_over_8190_units_stay_under_max_steps() {
    // keys equal over 8190 units: the key sort must read their shared
    // prefix about once per key, not once per comparison, to stay under
    // MAX_STEPS (2,105,854: 255 keys' worth of 8194 units). This order of
    // 252 keys once made the standard library's stable sort use 19,776,614
    // steps, when MAX_STEPS allowed 18,893,568 for comparisons of whole keys
    let mut state: u64 = 0xBAD | 1;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut order: Vec<usize> = (0..252).collect();
    for i in (1..order.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let prefix = "x".repeat(8190);
    let mut o = ObjectNode::new(Proto::ObjectPrototype);
    for (value, i) in order.iter().enumerate() {
        let key = format!("{prefix}{i:04}");
        o.define(JsString::new(&key), Property::data(value as i32));
    }
    let mut w = World::new();
    let object = w.b.alloc(Node::Object(o));
    let big = |negative, offset| BigIntValue::power_of_two(negative, 4095, offset).unwrap();
    let root = w.b.array([
        Value::from(big(false, 1)),
        Value::from(big(true, -3)),
        Value::from(big(false, 12345)),
        Value::Ref(object),
    ]);
    let heap = w.finish();
    let digits = |b: BigIntValue| b.decimal().unwrap();
    let written = format!(
        "[\"{}n\",\"{}n\",\"{}n\",{{\"{}",
        digits(big(false, 1)),
        digits(big(true, -3)),
        digits(big(false, 12345)),
        prefix
    );
    // the cap falls inside the smallest key, whichever it is
    let kept: String = written.chars().take(KEPT).collect();
    check(&heap, root, &format!("{kept}{TRUNCATION_MARKER}"));
}

#[test]
fn cost_two_pow_two_million_gives_only_the_marker() {
    let heap = World::new().finish();
    let big = BigIntValue::power_of_two(false, 2_000_000, 0).unwrap();
    check(&heap, big, TRUNCATION_MARKER);
}

// ---------------------------------------------------- RES-error-payload

#[test]
fn error_payload_of_a_5000_char_message_is_exactly_4096_code_points() {
    let code = "TOOL_ARGUMENTS_INVALID";
    let message = "m".repeat(5000);
    let head = format!(r#"{{"error":{{"code":"{code}","message":""#);
    let expect = format!(
        "{head}{}{TRUNCATION_MARKER}",
        "m".repeat(KEPT - head.chars().count())
    );
    let out = error_content(code, JsString::new(&message).as_ref());
    assert_eq!(out.content, expect);
    assert!(out.truncated);
    assert_eq!(out.content.chars().count(), 4096);
    assert!(out
        .content
        .starts_with(r#"{"error":{"code":"TOOL_ARGUMENTS_INVALID","message":"mmm"#));
    assert!(out.steps <= MAX_STEPS);
    // the same bytes as the payload built as an ordinary graph
    let mut w = World::new();
    let inner = w.b.object([("code", code), ("message", message.as_str())]);
    let root = w.b.object([("error", inner)]);
    let heap = w.finish();
    check(&heap, root, &expect);
    // and a short message is written whole, code before message
    let short = error_content(code, JsString::new("left must be a number").as_ref());
    assert_eq!(
        short.content,
        r#"{"error":{"code":"TOOL_ARGUMENTS_INVALID","message":"left must be a number"}}"#
    );
    assert!(!short.truncated);
}

// ----------------------------------------------------- SER-json-source

#[test]
fn json_source_writes_the_same_bytes_as_the_model() {
    let mut w = World::new();
    // keys sorted by UTF-16 code units, numbers by Number::toString, -0 as 0
    let numbers = w.b.array([
        1e21,
        5e-7,
        0.1,
        -0.0,
        1.797_693_134_862_315_7e308,
        9_007_199_254_740_993u64 as f64,
    ]);
    let empty = w.b.object::<&str, Value>([]);
    let object = w.b.object([
        ("b", Value::from(1)),
        ("a", Value::Ref(numbers)),
        ("😀", Value::Null),
        ("\u{FFFF}", Value::Bool(true)),
        ("10", Value::from("x\ny\"")),
        ("9", Value::Ref(empty)),
    ]);
    let json_object = json!({
        "b": 1,
        "a": [1e21, 5e-7, 0.1, -0.0, 1.797_693_134_862_315_7e308, 9_007_199_254_740_993u64],
        "😀": null,
        "\u{FFFF}": true,
        "10": "x\ny\"",
        "9": {},
    });
    // the node budget, the depth budget and the output cap
    let long_array = w.b.array((0..200).map(Value::from));
    let json_long_array = json!((0..200).collect::<Vec<i32>>());
    let mut deep = w.b.array::<Value>([]);
    let mut json_deep = json!([]);
    for _ in 0..40 {
        deep = w.b.array([deep]);
        json_deep = json!([json_deep]);
    }
    let long_string = "é".repeat(5000);
    let heap = w.finish();
    let numbers_out: Vec<String> = (0..127).map(|i| i.to_string()).collect();
    let cases: Vec<(Value, serde_json::Value, String)> = vec![
        (
            Value::Ref(object),
            json_object,
            "{\"10\":\"x\\u000ay\\\"\",\"9\":{},\"a\":[1e+21,5e-7,0.1,0,1.7976931348623157e+308,9007199254740992],\"b\":1,\"😀\":null,\"\u{FFFF}\":true}".to_string(),
        ),
        (
            Value::Ref(long_array),
            json_long_array,
            format!("[{},{TRUNCATION_MARKER}", numbers_out.join(",")),
        ),
        (
            Value::Ref(deep),
            json_deep,
            format!("{}{TRUNCATION_MARKER}", "[".repeat(33)),
        ),
        (
            Value::from(long_string.as_str()),
            json!(long_string),
            format!("\"{}{TRUNCATION_MARKER}", "é".repeat(4071)),
        ),
        (Value::Number(-0.0), json!(-0.0), "0".to_string()),
        // integers beyond 2^53 are doubles, as JSON.parse makes them
        (
            Value::Number(u64::MAX as f64),
            json!(u64::MAX),
            "18446744073709552000".to_string(),
        ),
        (
            Value::Number(i64::MIN as f64),
            json!(i64::MIN),
            "-9223372036854776000".to_string(),
        ),
    ];
    for (model, json, expect) in cases {
        let from_model = check(&heap, model, &expect);
        let from_json = serialize(&JsonSource::new(), &&json).unwrap_or_else(|e| match e {
            Failure::Thrown(never) => match never {},
            Failure::Unsupported(_) => panic!("json unsupported"),
        });
        assert_eq!(from_json.content, from_model.content, "json {json}");
        assert_eq!(from_json.truncated, from_model.truncated);
        assert!(from_json.steps <= MAX_STEPS);
    }
}

// ---------------------------------------------------------------- SER-usage

#[test]
fn usage_counts_each_budget_as_core_md_defines_it() {
    // keys and string values and BigInt texts are string characters; markers
    // are not; every value is a node; every property is an entry
    let mut w = World::new();
    let big = toolgate_core::bigint::BigIntValue::from_i64(12);
    let f = w.b.returning(1);
    let o = w.b.object([
        ("é", Value::from("😀x")),
        ("m", Value::Undefined),
        ("b", big.into()),
        ("f", f.into()),
    ]);
    let heap = w.finish();
    let out = check(
        &heap,
        o,
        r#"{"b":"12n","f":"[Function]","m":"[Undefined]","é":"😀x"}"#,
    );
    let usage = out.usage;
    assert_eq!(
        (usage.nodes, usage.entries, usage.string_chars),
        (5, 4, 4 + 2 + 3)
    );
    // a string longer than the budget stops reading at the budget
    let heap = World::new().finish();
    let long = JsString::new(&"x".repeat(10_000));
    let out = check(
        &heap,
        long,
        &format!("\"{}{TRUNCATION_MARKER}", "x".repeat(4071)),
    );
    assert_eq!(out.usage.string_chars, 4096);
}
