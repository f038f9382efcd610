//! Hostile outputs for the bounded serializer, at growing sizes, shared by
//! the criterion bench (`benches/serializer.rs`), the peak-memory test
//! (`tests/peak_memory.rs`) and the table (`src/bin/bench-table.rs`).
//!
//! Every family is a function from a size to an [`Input`], built once and
//! outside any measured loop; [`Input::prepare`] makes the source (a model
//! [`Runtime`] over the heap, or the `serde_json` source) and
//! [`Prepared::run`] is the one thing measured: `serializer::serialize`.
//!
//! The hostile arguments of the validation bench (`benches/validation.rs`)
//! are in [`validation`].

pub mod calls;
pub mod heap_count;
pub mod validation;
pub mod workspace;

use serde_json::json;
use std::hint::black_box;
use toolgate_core::bigint::BigIntValue;
use toolgate_core::model::{
    ArrayNode, Heap, HeapBuilder, Node, ObjectNode, Property, Proto, Runtime, Slots, Trace, Value,
};
use toolgate_core::serializer::{serialize, Failure, JsonSource, Serialized};
use toolgate_core::{AbortSignal, JsString};

/// A built input: a model heap and its root, or a `serde_json` value.
pub enum Input {
    Model { heap: Heap, root: Value },
    Json(serde_json::Value),
}

/// An input with its source made, ready to be serialized any number of times.
pub enum Prepared<'a> {
    Model { rt: Runtime<'a>, root: &'a Value },
    Json(&'a serde_json::Value),
}

impl Input {
    fn model(b: HeapBuilder, root: impl Into<Value>) -> Input {
        match b.finish() {
            Ok(heap) => Input::Model {
                heap,
                root: root.into(),
            },
            Err(e) => panic!("bench heap refused: {e}"),
        }
    }

    /// The source over this input. Making it (a runtime, an abort signal, a
    /// trace) is not part of what is measured.
    pub fn prepare(&self) -> Prepared<'_> {
        match self {
            Input::Model { heap, root } => Prepared::Model {
                rt: Runtime::new(heap, AbortSignal::new(), Trace::default()),
                root,
            },
            Input::Json(v) => Prepared::Json(v),
        }
    }
}

impl Prepared<'_> {
    /// One serialization: what the benchmarks measure.
    pub fn run(&self) -> Serialized {
        let out = match self {
            Prepared::Model { rt, root } => serialize(rt, *root).map_err(|e| match e {
                Failure::Unsupported(_) => "unsupported".to_string(),
                Failure::Thrown(t) => format!("thrown {t:?}"),
            }),
            Prepared::Json(v) => serialize(&JsonSource::new(), v).map_err(|e| match e {
                Failure::Unsupported(_) => "unsupported".to_string(),
                Failure::Thrown(never) => match never {},
            }),
        };
        match out {
            Ok(s) => s,
            Err(e) => panic!("a bench input failed to serialize: {e}"),
        }
    }
}

/// Which budget stopped a serialization, read from its usage and content.
pub fn budget_hit(out: &Serialized) -> &'static str {
    use toolgate_core::constants::{MAX_ENTRIES, MAX_NODES, MAX_STRING_CHARS, OUTPUT_CAP};
    if !out.truncated {
        "none"
    } else if out.usage.string_chars >= MAX_STRING_CHARS {
        "string chars"
    } else if out.content.chars().count() >= OUTPUT_CAP {
        "output cap"
    } else if out.usage.nodes >= MAX_NODES {
        "nodes"
    } else if out.usage.entries >= MAX_ENTRIES {
        "entries"
    } else if out.usage.nodes == 1 && out.usage.entries == 0 {
        "BigInt bound"
    } else {
        "depth"
    }
}

/// A family of hostile outputs.
pub struct Family {
    pub name: &'static str,
    /// What a size counts.
    pub unit: &'static str,
    /// Sizes, ascending.
    pub sizes: &'static [u64],
    pub build: fn(u64) -> Input,
    /// One line on why this shape.
    pub about: &'static str,
    /// The long-key families' read floor, measured next to them.
    pub floor: Option<Floor>,
}

/// The read floor of a family: what any exact serializer must read of the
/// family's input at a size, and the size from which the family's work no
/// longer grows (its flatness is measured from there).
pub struct Floor {
    pub build: fn(u64) -> ReadFloor,
    /// The first size of the family whose keys reach the comparison window
    /// ([`KEY_WINDOW`] code points) where they start to differ, so that every
    /// larger size reads as much (checked by a test below). Before it, the
    /// work grows with the size because the keys are shorter than the window.
    pub saturates_from: u64,
}

/// Code points of a key that decide its place among the others: two keys
/// equal over this many both exhaust the string budget (4096 code points)
/// when written, so their order cannot change the output, and no exact
/// serializer need read further to sort them.
pub const KEY_WINDOW: usize = toolgate_core::constants::MAX_STRING_CHARS + 1;

/// The keys of a long-key input, each with the number of its own units
/// (UTF-16 code units, or UTF-8 bytes) that hold its first [`KEY_WINDOW`]
/// code points: the part of every key an exact serializer must read to
/// sort them, since keys agreeing over `d` code points are told apart only
/// after `d` of them are read. The keys are the same kind of strings the
/// family builds (model `JsString`s, or the `String`s of a `serde_json` map)
/// and the window ends are found when the floor is built, not when it is
/// measured.
pub enum ReadFloor {
    Utf16(Vec<(JsString, usize)>),
    Utf8(Vec<(String, usize)>),
}

impl ReadFloor {
    fn utf16(keys: impl IntoIterator<Item = Vec<u16>>) -> ReadFloor {
        ReadFloor::Utf16(
            keys.into_iter()
                .map(|units| {
                    let end = char::decode_utf16(units.iter().copied())
                        .take(KEY_WINDOW)
                        .map(|c| c.map_or(1, char::len_utf16))
                        .sum();
                    (JsString::from_units(units), end)
                })
                .collect(),
        )
    }

    fn utf8(keys: impl IntoIterator<Item = String>) -> ReadFloor {
        ReadFloor::Utf8(
            keys.into_iter()
                .map(|key| {
                    let end = key.chars().take(KEY_WINDOW).map(char::len_utf8).sum();
                    (key, end)
                })
                .collect(),
        )
    }

    /// Reads each key's window once (a sum of its units or bytes, so that no
    /// read can be left out) and returns the sum: what the `read_floor`
    /// benchmarks measure.
    pub fn scan(&self) -> u64 {
        // per key in u32 lanes (4097 units of at most 0xFFFF fit), which
        // vectorize; each key's slice passes through `black_box` so that the
        // reads are not hoisted out of the measured loop
        let mut total = 0u64;
        match self {
            ReadFloor::Utf16(keys) => {
                for (key, end) in keys {
                    let units = black_box(key.units());
                    let window = units.get(..*end).unwrap_or(units);
                    let sum = window
                        .iter()
                        .fold(0u32, |s, &u| s.wrapping_add(u32::from(u)));
                    total = total.wrapping_add(u64::from(sum));
                }
            }
            ReadFloor::Utf8(keys) => {
                for (key, end) in keys {
                    let bytes = black_box(key.as_bytes());
                    let window = bytes.get(..*end).unwrap_or(bytes);
                    let sum = window
                        .iter()
                        .fold(0u32, |s, &b| s.wrapping_add(u32::from(b)));
                    total = total.wrapping_add(u64::from(sum));
                }
            }
        }
        black_box(total)
    }

    /// Own units read by [`scan`](Self::scan), over all keys.
    pub fn units_read(&self) -> usize {
        match self {
            ReadFloor::Utf16(keys) => keys.iter().map(|(_, end)| end).sum(),
            ReadFloor::Utf8(keys) => keys.iter().map(|(_, end)| end).sum(),
        }
    }

    /// Bytes read by [`scan`](Self::scan), over all keys.
    pub fn bytes_read(&self) -> usize {
        match self {
            ReadFloor::Utf16(_) => 2 * self.units_read(),
            ReadFloor::Utf8(_) => self.units_read(),
        }
    }
}

const POWERS_6: &[u64] = &[100, 1_000, 10_000, 100_000, 1_000_000];
const POWERS_7: &[u64] = &[100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

/// The families, in table order.
pub fn families() -> Vec<Family> {
    vec![
        Family {
            name: "wide_object",
            unit: "keys",
            sizes: POWERS_6,
            build: wide_object,
            about: "{k0: 0, k1: 1, ...}: the entry budget stops the key walk",
            floor: None,
        },
        Family {
            name: "wide_array",
            unit: "slots",
            sizes: POWERS_6,
            build: wide_array,
            about: "[0, 1, 2, ...]: the node budget stops at the 129th value",
            floor: None,
        },
        Family {
            name: "sparse_array",
            unit: "length",
            sizes: &[100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 4_294_967_295],
            build: sparse_array,
            about: "length n, three slots: holes are \"[Empty]\", 256 slots read",
            floor: None,
        },
        Family {
            name: "deep_nest",
            unit: "depth",
            sizes: POWERS_6,
            build: deep_nest,
            about: "[[[...]]]: the depth budget stops at 33",
            floor: None,
        },
        Family {
            name: "cyclic",
            unit: "ring nodes",
            sizes: POWERS_6,
            build: cyclic,
            about: "ring of objects {a: self, b: root, c: prev, d: next}: three \"[Circular]\" per level",
            floor: None,
        },
        Family {
            name: "shared_paths",
            unit: "levels (2^n paths)",
            sizes: &[7, 10, 14, 17, 20, 24, 32],
            build: shared_paths,
            about: "level i is {a: level i+1, b: level i+1}: 2^n paths through n+1 nodes",
            floor: None,
        },
        Family {
            name: "string_ascii",
            unit: "units",
            sizes: POWERS_7,
            build: string_ascii,
            about: "printable ASCII: the string budget stops at 4096 characters",
            floor: None,
        },
        Family {
            name: "string_escapes",
            unit: "units",
            sizes: POWERS_7,
            build: string_escapes,
            about: "U+0000..U+001F: six code points written per character read",
            floor: None,
        },
        Family {
            name: "string_surrogates",
            unit: "units",
            sizes: POWERS_7,
            build: string_surrogates,
            about: "a surrogate pair then a lone high surrogate, repeated",
            floor: None,
        },
        Family {
            name: "bigint",
            unit: "bits (2^n)",
            sizes: POWERS_7,
            build: bigint,
            about: "2^n: written below 2^4096, truncated without conversion above",
            floor: None,
        },
        Family {
            name: "long_keys",
            unit: "prefix units",
            sizes: &[100, 1_000, 8_190, 10_000, 100_000, 1_000_000],
            build: long_keys,
            about: "256 keys (shuffled) sharing an n-unit prefix, told apart by their last 4 units",
            floor: Some(Floor {
                build: long_keys_floor,
                saturates_from: 8_190,
            }),
        },
        Family {
            name: "json_wide_object",
            unit: "keys",
            sizes: POWERS_6,
            build: json_wide_object,
            about: "serde_json: {k0: 0, k1: 1, ...}",
            floor: None,
        },
        Family {
            name: "json_long_keys",
            unit: "prefix units",
            sizes: &[100, 1_000, 8_190, 10_000, 100_000, 1_000_000],
            build: json_long_keys,
            about: "serde_json: 256 keys sharing an n-unit prefix of 1-, 2-, 3- and 4-byte characters",
            floor: Some(Floor {
                build: json_long_keys_floor,
                saturates_from: 8_190,
            }),
        },
        Family {
            name: "worst_mix",
            unit: "key tail units",
            sizes: &[100, 1_000, 10_000, 100_000, 1_000_000],
            build: worst_mix,
            about: "[3 BigInts near 2^4095, {252 shuffled keys equal over 8190 units + 4 + n-unit tail}]",
            floor: Some(Floor {
                build: worst_mix_floor,
                saturates_from: 100,
            }),
        },
    ]
}

/// The family called `name`.
pub fn family(name: &str) -> Option<Family> {
    families().into_iter().find(|f| f.name == name)
}

fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// A deterministic permutation of `0..n` (Fisher-Yates over xorshift64*).
pub fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

/// `{k0: 0, k1: 1, ...}`.
pub fn wide_object(n: u64) -> Input {
    let mut o = ObjectNode::new(Proto::ObjectPrototype);
    for i in 0..to_u32(n) {
        o.define(
            JsString::new(&format!("k{i}")),
            Property::data(f64::from(i)),
        );
    }
    let mut b = HeapBuilder::new();
    let root = b.alloc(Node::Object(o));
    Input::model(b, root)
}

/// `[0, 1, 2, ...]`.
pub fn wide_array(n: u64) -> Input {
    let mut b = HeapBuilder::new();
    let root = b.array((0..to_u32(n)).map(f64::from));
    Input::model(b, root)
}

/// An array of length `n` with data only at its first, middle and last slots.
pub fn sparse_array(n: u64) -> Input {
    let length = to_u32(n);
    let slots: Slots = [0, length / 2, length.saturating_sub(1)]
        .into_iter()
        .zip([1, 2, 3])
        .map(|(i, v)| (i, Property::data(v)))
        .collect();
    let mut b = HeapBuilder::new();
    let root = b.alloc(Node::Array(ArrayNode {
        proto: Proto::ArrayPrototype,
        length,
        slots,
    }));
    Input::model(b, root)
}

/// `n` arrays, each the only slot of the next.
pub fn deep_nest(n: u64) -> Input {
    let mut b = HeapBuilder::new();
    let mut root = b.array::<Value>([]);
    for _ in 1..n {
        root = b.array([root]);
    }
    Input::model(b, root)
}

/// A ring of `n` objects; object i is `{a: i, b: 0, c: i-1, d: i+1}` (the
/// root's `c` is itself, the last one's `d` the root), so each level writes
/// three `"[Circular]"` markers before going deeper.
pub fn cyclic(n: u64) -> Input {
    let mut b = HeapBuilder::new();
    let count = to_u32(n.max(1));
    let ids: Vec<_> = (0..count)
        .map(|_| b.alloc(Node::Object(ObjectNode::new(Proto::ObjectPrototype))))
        .collect();
    let at = |i: usize| ids.get(i % ids.len()).copied().unwrap_or(ids[0]);
    for i in 0..ids.len() {
        // the root's `c` is itself, so the walk goes down `d` and every
        // level's a, b and c are ancestors
        let prev = if i == 0 { at(0) } else { at(i - 1) };
        let (me, root, next) = (at(i), at(0), at(i + 1));
        if let Some(o) = b.object_mut(me) {
            o.define("a", Property::data(me))
                .define("b", Property::data(root))
                .define("c", Property::data(prev))
                .define("d", Property::data(next));
        }
    }
    Input::model(b, ids[0])
}

/// `levels` objects, each `{a: next, b: next}`, over a string leaf: 2^levels
/// paths from the root, the shape that per-node limits cannot stop.
pub fn shared_paths(levels: u64) -> Input {
    let mut b = HeapBuilder::new();
    let mut next = Value::from("leaf");
    for _ in 0..levels {
        next = Value::Ref(b.object([("a", next.clone()), ("b", next)]));
    }
    Input::model(b, next)
}

fn string_of(units: Vec<u16>) -> Input {
    Input::model(HeapBuilder::new(), JsString::from_units(units))
}

/// Printable ASCII, no character that needs escaping.
pub fn string_ascii(n: u64) -> Input {
    let pattern: Vec<u16> = (0x20u16..0x7F)
        .filter(|&c| c != 0x22 && c != 0x5C)
        .collect();
    string_of(pattern.iter().copied().cycle().take(to_usize(n)).collect())
}

/// Only U+0000..U+001F: each character read writes `\u00XX`.
pub fn string_escapes(n: u64) -> Input {
    string_of((0u16..0x20).cycle().take(to_usize(n)).collect())
}

/// A valid pair (U+1F600) then a lone high surrogate, repeated.
pub fn string_surrogates(n: u64) -> Input {
    let pattern = [0xD83Du16, 0xDE00, 0xDBFF];
    string_of(pattern.iter().copied().cycle().take(to_usize(n)).collect())
}

/// 2^n.
pub fn bigint(n: u64) -> Input {
    let value = BigIntValue::power_of_two(false, n, 0).unwrap_or_else(|| panic!("2^{n}"));
    Input::model(HeapBuilder::new(), value)
}

/// Units of 256 keys that share `prefix` units, then differ in their last
/// four (a shuffled index in decimal), then have `tail` more units.
fn long_key_units(prefix: &[u16], tail: usize, count: usize, seed: u64) -> Vec<Vec<u16>> {
    shuffled(count, seed)
        .into_iter()
        .map(|i| {
            let mut units = Vec::with_capacity(prefix.len() + 4 + tail);
            units.extend_from_slice(prefix);
            units.extend(format!("{i:04}").encode_utf16());
            units.extend(std::iter::repeat_n(u16::from(b'z'), tail));
            units
        })
        .collect()
}

/// 256 keys (every entry the budget allows, all kept and sorted) sharing an
/// `n`-unit prefix and told apart by their last four units, in shuffled
/// order: each comparison of the sort reads up to its limit.
pub fn long_keys(n: u64) -> Input {
    let mut o = ObjectNode::new(Proto::ObjectPrototype);
    for (i, units) in long_keys_units(n).into_iter().enumerate() {
        o.define(JsString::from_units(units), Property::data(i as f64));
    }
    let mut b = HeapBuilder::new();
    let root = b.alloc(Node::Object(o));
    Input::model(b, root)
}

/// The keys of [`long_keys`], in their order.
fn long_keys_units(n: u64) -> Vec<Vec<u16>> {
    let prefix = vec![u16::from(b'x'); to_usize(n)];
    long_key_units(&prefix, 0, 256, 0x5EED)
}

/// The read floor of [`long_keys`]: each key's first 4097 units.
pub fn long_keys_floor(n: u64) -> ReadFloor {
    ReadFloor::utf16(long_keys_units(n))
}

/// `{k0: 0, k1: 1, ...}` as a `serde_json` value.
pub fn json_wide_object(n: u64) -> Input {
    let map: serde_json::Map<String, serde_json::Value> =
        (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
    Input::Json(serde_json::Value::Object(map))
}

/// 256 `serde_json` keys sharing a prefix of `n` UTF-16 units made of 1-,
/// 2-, 3- and 4-byte characters, told apart by their last four.
pub fn json_long_keys(n: u64) -> Input {
    let map: serde_json::Map<String, serde_json::Value> = json_long_keys_text(n)
        .into_iter()
        .zip(shuffled(256, 0x5EED))
        .map(|(key, i)| (key, json!(i)))
        .collect();
    Input::Json(serde_json::Value::Object(map))
}

/// The keys of [`json_long_keys`], in the order they are inserted.
fn json_long_keys_text(n: u64) -> Vec<String> {
    let mut prefix = String::new();
    let mut units = 0;
    for c in ['a', 'é', '€', '😀'].into_iter().cycle() {
        if units >= to_usize(n) {
            break;
        }
        prefix.push(c);
        units += c.len_utf16();
    }
    shuffled(256, 0x5EED)
        .into_iter()
        .map(|i| format!("{prefix}{i:04}"))
        .collect()
}

/// The read floor of [`json_long_keys`]: the bytes of each key's first 4097
/// code points.
pub fn json_long_keys_floor(n: u64) -> ReadFloor {
    ReadFloor::utf8(json_long_keys_text(n))
}

/// The most work per budget: three BigInts just below 2^4095 (each a full
/// 4096-bit decimal conversion, 3705 of the 4096 string characters), then an
/// object with the 252 entries left, all kept, whose keys are equal over
/// 8190 units and differ in the next four (shuffled): every comparison of the
/// sort reads its whole 8194-unit limit. The `n`-unit tail of each key is
/// past the limit and never read.
pub fn worst_mix(n: u64) -> Input {
    let mut o = ObjectNode::new(Proto::ObjectPrototype);
    for (i, units) in worst_mix_keys(n).into_iter().enumerate() {
        o.define(JsString::from_units(units), Property::data(i as f64));
    }
    let mut b = HeapBuilder::new();
    let object = b.alloc(Node::Object(o));
    let big = |negative, offset| {
        Value::BigInt(BigIntValue::power_of_two(negative, 4095, offset).unwrap_or_else(|| panic!()))
    };
    let root = b.array([
        big(false, 1),
        big(true, -3),
        big(false, 12345),
        Value::Ref(object),
    ]);
    Input::model(b, root)
}

/// The keys of [`worst_mix`]'s object, in their order.
fn worst_mix_keys(n: u64) -> Vec<Vec<u16>> {
    let prefix = vec![u16::from(b'x'); 8190];
    long_key_units(&prefix, to_usize(n), 252, 0xBAD)
}

/// The read floor of [`worst_mix`]: each key's first 4097 units, all of
/// them equal (the BigInts' conversions, which no serializer can skip
/// either, are not part of it).
pub fn worst_mix_floor(n: u64) -> ReadFloor {
    ReadFloor::utf16(worst_mix_keys(n))
}

/// The plain value of the serde_json baseline: records whose JSON text is
/// about 4 KiB.
pub fn baseline_value() -> serde_json::Value {
    let records: Vec<serde_json::Value> = (0..54)
        .map(|i| {
            json!({
                "id": i,
                "name": format!("tool-{i}"),
                "ok": i % 3 != 0,
                "score": f64::from(i) * 0.37,
                "tags": ["alpha", "beta"],
            })
        })
        .collect();
    json!({ "results": records })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baseline_is_about_four_kib() {
        let len = serde_json::to_string(&baseline_value()).unwrap().len();
        assert!((3900..=4300).contains(&len), "{len} bytes");
    }

    #[test]
    fn read_floors_saturate_where_their_families_say() {
        for family in families() {
            let Some(floor) = family.floor else {
                continue;
            };
            // the floor reads less below the saturating size, as much above
            // it (the largest sizes are left out: 256 keys of 10^6 units)
            let read = |size| (floor.build)(size).units_read();
            let sizes: Vec<u64> = family
                .sizes
                .iter()
                .copied()
                .filter(|&s| s <= 10_000)
                .collect();
            let at = read(floor.saturates_from);
            for size in sizes {
                if size < floor.saturates_from {
                    assert!(read(size) < at, "{} {size}", family.name);
                } else {
                    assert_eq!(read(size), at, "{} {size}", family.name);
                }
            }
            assert_eq!(at, (floor.build)(floor.saturates_from).units_read());
        }
        // the window, in code points: 4097 units of ASCII keys
        assert_eq!(long_keys_floor(10_000).units_read(), 256 * KEY_WINDOW);
        assert_eq!(worst_mix_floor(100).units_read(), 252 * KEY_WINDOW);
        // a, é, €, 😀 repeated: 1 + 2 + 3 + 4 bytes per 4 code points
        assert_eq!(
            json_long_keys_floor(10_000).units_read(),
            256 * (4096 / 4 * 10 + 1)
        );
    }

    #[test]
    fn read_floor_keys_are_the_family_keys() {
        let Input::Json(serde_json::Value::Object(map)) = json_long_keys(100) else {
            panic!("json_long_keys is a serde_json object");
        };
        let ReadFloor::Utf8(keys) = json_long_keys_floor(100) else {
            panic!("json_long_keys_floor is UTF-8");
        };
        let mut floor: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
        floor.sort_unstable();
        let mut family: Vec<&str> = map.keys().map(String::as_str).collect();
        family.sort_unstable();
        assert_eq!(floor, family);
        assert!(long_keys_floor(100).scan() > 0);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut v = shuffled(256, 7);
        v.sort_unstable();
        assert_eq!(v, (0..256).collect::<Vec<_>>());
    }
}
