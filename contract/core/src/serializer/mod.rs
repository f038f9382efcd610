//! The bounded serializer of CONTRACT.md: one walk, written once, over any
//! [`OutputSource`] (the host model's graphs, `serde_json` values, and the
//! `{error:{code,message}}` payload of error results), so every kind of
//! output is bounded by the same budgets and written to the same bytes.
//!
//! The cost of a walk is bounded by the budgets, never by the input: every
//! loop stops at a budget, and sources answer each question (a slot, the next
//! entry) without scanning what the walk will not visit.

mod error_payload;
mod json;
mod key_order;
mod writer;

pub use error_payload::{error_content, ErrorPayload, PayloadPart};
pub use json::{JsonHandle, JsonSource};

use crate::bigint::BigIntValue;
use crate::constants::{marker, MAX_DEPTH, MAX_ENTRIES, MAX_NODES, MAX_STRING_CHARS, OUTPUT_CAP};
use crate::js_string::{CodePoint, StrRef};
use std::ops::ControlFlow;
use writer::Writer;

/// What a value is, as far as the serializer cares.
#[derive(Debug)]
pub enum Classified<'v, H> {
    Null,
    Bool(bool),
    Number(f64),
    Str(StrRef<'v>),
    BigInt(&'v BigIntValue),
    Undefined,
    Symbol,
    Function,
    /// An object or array (possibly a proxy), identified for cycle detection.
    Container(H),
}

/// A container whose prototype is supported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// An array and its own `length`.
    Array {
        length: u32,
    },
    Object,
}

/// An array slot.
#[derive(Debug, Clone)]
pub enum Slot<V> {
    Hole,
    /// An accessor; its getter is never run.
    Accessor,
    Data(V),
}

/// An own enumerable string-keyed property.
#[derive(Debug, Clone)]
pub enum Entry<K, V> {
    Data(K, V),
    /// An accessor: visited (it costs an entry) but dropped, getter not run.
    Accessor,
}

/// Why a container could not be serialized.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure<T> {
    /// Its prototype is not one the serializer accepts: the walk throws a
    /// `TypeError` whose message depends on the kind of container.
    Unsupported(Refused),
    /// The host threw while it was inspected (a proxy trap, a revoked proxy).
    Thrown(T),
}

/// Which kind of container the serializer refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Array,
    Object,
}

impl Refused {
    /// The message of the `TypeError` the walk throws.
    pub fn message(self) -> &'static str {
        match self {
            Refused::Array => crate::constants::message::OUTPUT_ARRAY_PROTOTYPE,
            Refused::Object => crate::constants::message::OUTPUT_OBJECT_PROTOTYPE,
        }
    }
}

/// A host whose values the serializer can walk.
pub trait OutputSource {
    /// A value; cloned only for the at most [`MAX_ENTRIES`] entries kept.
    type Value: Clone;
    /// An object key.
    type Key: Clone;
    /// Identity of a container, for cycle detection.
    type Handle: Copy + PartialEq;
    /// What the host throws.
    type Thrown;

    fn classify<'v>(&'v self, value: &'v Self::Value) -> Classified<'v, Self::Handle>;
    fn key_str<'k>(&'k self, key: &'k Self::Key) -> StrRef<'k>;
    /// `Array.isArray`, then the prototype check, then (arrays) the own `length`.
    fn open(&self, container: Self::Handle) -> Result<Opened, Failure<Self::Thrown>>;
    /// The own slot at `index` of an opened array.
    fn slot(&self, array: Self::Handle, index: u32) -> Result<Slot<Self::Value>, Self::Thrown>;
    /// Walks the own enumerable string-keyed properties of an opened object
    /// in own-key order until `visit` breaks. Symbol keys and non-enumerable
    /// properties must be skipped at no cost proportional to their number.
    fn entries(
        &self,
        object: Self::Handle,
        visit: &mut dyn FnMut(Entry<Self::Key, Self::Value>) -> ControlFlow<()>,
    ) -> Result<(), Self::Thrown>;
}

/// A finished serialization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Serialized {
    /// At most 4096 code points.
    pub content: String,
    pub truncated: bool,
    /// How much of each budget the walk used.
    pub usage: Usage,
    /// Units of work done: values, entries, code points read or written and
    /// key comparisons. Bounded by the budgets whatever the input.
    pub steps: u64,
}

/// The budgets a walk used. The string budget cannot show in a content (every
/// code point read is written, and the output cap is the same size), so this
/// is how its accounting is checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Values visited (at most [`MAX_NODES`]).
    pub nodes: usize,
    /// Own properties and array slots visited (at most [`MAX_ENTRIES`]).
    pub entries: usize,
    /// Code points read from keys, strings and BigInt texts (at most [`MAX_STRING_CHARS`]).
    pub string_chars: usize,
}

/// Code units of a key compared when sorting: two keys equal over this many
/// both exhaust the string budget inside it (4097 code points need at most
/// 8194 units), so their order cannot change the output.
const KEY_COMPARE_UNITS: usize = 2 * (MAX_STRING_CHARS + 1);

/// Serializes `root` within the budgets of CONTRACT.md.
pub fn serialize<S: OutputSource>(
    source: &S,
    root: &S::Value,
) -> Result<Serialized, Failure<S::Thrown>> {
    let mut walk = Walk {
        source,
        w: Writer::default(),
        nodes: 0,
        entries: 0,
        chars: 0,
        path: Vec::new(),
        steps: 0,
        sort: key_order::SortScratch::default(),
    };
    walk.value(root, 0)?;
    let steps = walk.steps;
    let usage = Usage {
        nodes: walk.nodes,
        entries: walk.entries,
        string_chars: walk.chars,
    };
    let (content, truncated) = walk.w.finish();
    Ok(Serialized {
        content,
        truncated,
        usage,
        steps,
    })
}

/// Merge decisions the sort of the at most [`MAX_ENTRIES`] kept keys makes,
/// summed over all objects: [`key_order::sorted_order`] makes at most
/// `n * ceil(log2 n)` for `n` keys, 2048 for 256 (and no more for the same
/// number of keys split between objects).
const MAX_SORT_DECISIONS: usize =
    MAX_ENTRIES * MAX_ENTRIES.next_power_of_two().trailing_zeros() as usize;

/// What a [`Serialized::steps`] count can never exceed, whatever the input:
/// values and container opens, entries, number text, code points read by
/// quoted strings (each quoted string may read one code point it cannot
/// write), and the key sort: its merge decisions, at most one unequal code
/// unit pair per decision, and the equal pairs, at most the common prefix
/// of each key with the one before it in sorted order (see
/// [`key_order::sorted_order`]), at most [`KEY_COMPARE_UNITS`] for each of
/// the at most 255 keys that follow another in their object.
pub const MAX_STEPS: u64 = (2 * MAX_NODES
    + MAX_ENTRIES
    + MAX_NODES * MAX_NUMBER_TEXT
    + OUTPUT_CAP
    + MAX_STRING_CHARS
    + MAX_NODES
    + MAX_ENTRIES
    + 2 * MAX_SORT_DECISIONS
    + (MAX_ENTRIES - 1) * KEY_COMPARE_UNITS) as u64;

/// Longest text `Number::toString` gives (`-1.2345678901234567e-308`).
const MAX_NUMBER_TEXT: usize = 25;

/// 2^53: every integer of smaller magnitude is a double exactly.
const MAX_SAFE_INTEGER_BOUND: f64 = 9_007_199_254_740_992.0;

/// The decimal text of `i`, written at the end of `buf`.
fn integer_text(i: i64, buf: &mut [u8; 20]) -> &str {
    let mut start = buf.len();
    let mut rest = i.unsigned_abs();
    loop {
        start -= 1;
        if let Some(b) = buf.get_mut(start) {
            *b = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if i < 0 {
        start -= 1;
        if let Some(b) = buf.get_mut(start) {
            *b = b'-';
        }
    }
    buf.get(start..)
        .and_then(|digits| std::str::from_utf8(digits).ok())
        .unwrap_or("0")
}

struct Walk<'s, S: OutputSource> {
    source: &'s S,
    w: Writer,
    nodes: usize,
    entries: usize,
    chars: usize,
    path: Vec<S::Handle>,
    steps: u64,
    /// The key sort's arrays, reused by every object.
    sort: key_order::SortScratch,
}

impl<S: OutputSource> Walk<'_, S> {
    fn value(&mut self, value: &S::Value, depth: usize) -> Result<(), Failure<S::Thrown>> {
        if self.w.truncated() {
            return Ok(());
        }
        if self.nodes >= MAX_NODES {
            self.w.truncate();
            return Ok(());
        }
        self.nodes += 1;
        self.steps += 1;
        match self.source.classify(value) {
            Classified::Null => self.raw("null"),
            Classified::Bool(true) => self.raw("true"),
            Classified::Bool(false) => self.raw("false"),
            Classified::Number(n) => self.number(n),
            Classified::Str(s) => self.quoted(s, true),
            Classified::BigInt(b) => self.bigint(b),
            Classified::Undefined => self.marker(marker::UNDEFINED),
            Classified::Symbol => self.marker(marker::SYMBOL),
            Classified::Function => self.marker(marker::FUNCTION),
            Classified::Container(h) => return self.container(h, depth),
        }
        Ok(())
    }

    fn raw(&mut self, s: &str) {
        self.steps += s.len() as u64;
        self.w.push_str(s);
    }

    fn number(&mut self, n: f64) {
        if !n.is_finite() {
            self.raw("null");
        } else if n == 0.0 {
            // -0 is written 0, as Number::toString does
            self.raw("0");
        } else if n.fract() == 0.0 && n.abs() < MAX_SAFE_INTEGER_BOUND {
            // an integer below 2^53 is exact: its shortest round-trip text
            // is its decimal digits (the same text as below, without ryu)
            let mut buf = [0u8; 20];
            self.raw(integer_text(n as i64, &mut buf));
        } else {
            let mut buf = ryu_js::Buffer::new();
            let text = buf.format_finite(n);
            self.raw(text);
        }
    }

    fn bigint(&mut self, b: &BigIntValue) {
        match b.decimal() {
            None => self.w.truncate(),
            Some(mut text) => {
                text.push('n');
                self.quoted(StrRef::Utf8(&text), true);
            }
        }
    }

    fn marker(&mut self, text: &str) {
        self.quoted(StrRef::Utf8(text), false);
    }

    /// A quoted string: `"`, each code point through
    /// [`quoted_code_point`](Self::quoted_code_point), `"`. Runs of plain
    /// ASCII are written in bulk, cut where a code point would meet the
    /// string budget (when `budgeted`) or the writer's prefix mark, so that
    /// every code point of a run passes each of its checks and is written as
    /// itself: the same output, usage and steps, without the per-character
    /// work.
    fn quoted(&mut self, s: StrRef<'_>, budgeted: bool) {
        self.w.push('"');
        let mut rest = s;
        loop {
            let budget = if budgeted {
                MAX_STRING_CHARS.saturating_sub(self.chars)
            } else {
                usize::MAX
            };
            let run = rest.plain_ascii_run(budget.min(self.w.room_before_prefix()));
            if run > 0 {
                self.w.push_plain_ascii(rest, run);
                if budgeted {
                    self.chars += run;
                }
                self.steps += run as u64;
                rest = rest.skip(run);
            }
            let Some((cp, len)) = rest.first_code_point() else {
                break;
            };
            if !self.quoted_code_point(cp, budgeted) {
                return;
            }
            rest = rest.skip(len);
        }
        self.w.push('"');
    }

    /// Reads and writes one code point of a quoted string; `false` when the
    /// writing has stopped.
    #[inline]
    fn quoted_code_point(&mut self, cp: CodePoint, budgeted: bool) -> bool {
        if self.w.truncated() {
            return false;
        }
        if budgeted {
            if self.chars >= MAX_STRING_CHARS {
                self.w.truncate();
                return false;
            }
            self.chars += 1;
        }
        self.steps += 1;
        match cp {
            CodePoint::Scalar('"') => self.w.push_str("\\\""),
            CodePoint::Scalar('\\') => self.w.push_str("\\\\"),
            CodePoint::Scalar(c) if u32::from(c) < 0x20 => self.escape(u32::from(c)),
            CodePoint::Scalar(c) => self.w.push(c),
            CodePoint::LoneSurrogate(u) => self.escape(u32::from(u)),
        }
        true
    }

    fn escape(&mut self, unit: u32) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.w.push_str("\\u");
        for shift in [12u32, 8, 4, 0] {
            let digit = HEX
                .get(((unit >> shift) & 0xF) as usize)
                .copied()
                .unwrap_or(b'0');
            self.w.push(char::from(digit));
        }
    }

    fn container(&mut self, h: S::Handle, depth: usize) -> Result<(), Failure<S::Thrown>> {
        if depth > MAX_DEPTH {
            self.w.truncate();
            return Ok(());
        }
        if self.path.contains(&h) {
            self.marker(marker::CIRCULAR);
            return Ok(());
        }
        self.steps += 1;
        let opened = self.source.open(h)?;
        self.path.push(h);
        let written = match opened {
            Opened::Array { length } => self.array(h, length, depth),
            Opened::Object => self.object(h, depth),
        };
        self.path.pop();
        written
    }

    /// Counts one collection entry; `false` (and truncated) when none is left.
    fn take_entry(&mut self) -> bool {
        if self.entries >= MAX_ENTRIES {
            self.w.truncate();
            return false;
        }
        self.entries += 1;
        self.steps += 1;
        true
    }

    fn array(&mut self, h: S::Handle, length: u32, depth: usize) -> Result<(), Failure<S::Thrown>> {
        self.w.push('[');
        for index in 0..length {
            if self.w.truncated() || !self.take_entry() {
                return Ok(());
            }
            if index > 0 {
                self.w.push(',');
                if self.w.truncated() {
                    // a comma that does not fit ends the walk before the
                    // slot is inspected (no trap runs for it)
                    return Ok(());
                }
            }
            match self.source.slot(h, index).map_err(Failure::Thrown)? {
                Slot::Hole => self.marker(marker::EMPTY),
                Slot::Accessor => self.marker(marker::ACCESSOR),
                Slot::Data(v) => self.value(&v, depth + 1)?,
            }
        }
        self.w.push(']');
        Ok(())
    }

    fn object(&mut self, h: S::Handle, depth: usize) -> Result<(), Failure<S::Thrown>> {
        self.w.push('{');
        if self.w.truncated() {
            // an opening brace that does not fit ends the walk before the
            // keys are enumerated (no trap runs)
            return Ok(());
        }
        let mut kept: Vec<(S::Key, S::Value)> = Vec::new();
        let source = self.source;
        source
            .entries(h, &mut |entry| {
                if !self.take_entry() {
                    return ControlFlow::Break(());
                }
                if let Entry::Data(k, v) = entry {
                    kept.push((k, v));
                }
                ControlFlow::Continue(())
            })
            .map_err(Failure::Thrown)?;
        if self.w.truncated() {
            return Ok(());
        }
        let (order, work) =
            key_order::sorted_order(&mut self.sort, kept.len(), KEY_COMPARE_UNITS, |i| {
                kept.get(i)
                    .map_or(StrRef::Utf8(""), |(k, _)| source.key_str(k))
            });
        self.steps += work.decisions + work.examined;
        let sorted = order.iter().filter_map(|&i| kept.get(i));
        for (i, (k, v)) in sorted.enumerate() {
            if self.w.truncated() {
                return Ok(());
            }
            if i > 0 {
                self.w.push(',');
            }
            self.quoted(source.key_str(k), true);
            self.w.push(':');
            self.value(v, depth + 1)?;
        }
        self.w.push('}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constants::{TRUNCATED_PREFIX, TRUNCATION_MARKER};
    use crate::js_string::JsString;
    use crate::model::{HeapBuilder, Runtime, Trace, Value};
    use crate::AbortSignal;
    use toolgate_suite::testing::rng;

    #[test]
    fn integer_text_is_ryu_js_below_two_to_the_53() {
        let mut values: Vec<f64> =
            vec![1.0, -1.0, 7.0, 10.0, 100.0, 1e15, 1e15 + 1.0, -123456789.0];
        values.extend([MAX_SAFE_INTEGER_BOUND - 1.0, 1.0 - MAX_SAFE_INTEGER_BOUND]);
        let mut r = rng(9);
        values.extend((0..2000).map(|_| (r(1 << 30) as f64) * (r(1 << 22) as f64) - 1e15));
        for n in values {
            assert!(n.fract() == 0.0 && n.abs() < MAX_SAFE_INTEGER_BOUND && n != 0.0);
            let mut buf = [0u8; 20];
            let mut ryu = ryu_js::Buffer::new();
            assert_eq!(
                integer_text(n as i64, &mut buf),
                ryu.format_finite(n),
                "{n}"
            );
        }
    }

    /// The writer and quoted strings of CONTRACT.md written the plain way: one
    /// code point at a time, every check every time.
    #[derive(Default)]
    struct Reference {
        out: Vec<char>,
        mark: Option<usize>,
        truncated: bool,
        chars: usize,
        steps: u64,
    }

    impl Reference {
        fn push(&mut self, c: char) {
            if self.truncated {
            } else if self.out.len() >= OUTPUT_CAP {
                self.truncated = true;
            } else {
                if self.out.len() == TRUNCATED_PREFIX {
                    self.mark = Some(self.out.len());
                }
                self.out.push(c);
            }
        }
        fn push_str(&mut self, s: &str) {
            s.chars().for_each(|c| self.push(c));
        }
        fn quoted(&mut self, s: &[u16]) {
            self.push('"');
            for cp in StrRef::Utf16(s).code_points() {
                if self.truncated {
                    return;
                }
                if self.chars >= MAX_STRING_CHARS {
                    self.truncated = true;
                    return;
                }
                self.chars += 1;
                self.steps += 1;
                match cp {
                    CodePoint::Scalar('"') => self.push_str("\\\""),
                    CodePoint::Scalar('\\') => self.push_str("\\\\"),
                    CodePoint::Scalar(c) if u32::from(c) < 0x20 => {
                        self.push_str(&format!("\\u{:04x}", u32::from(c)))
                    }
                    CodePoint::Scalar(c) => self.push(c),
                    CodePoint::LoneSurrogate(u) => self.push_str(&format!("\\u{u:04x}")),
                }
            }
            self.push('"');
        }
        /// `[s0,s1,...]` for at most 100 strings (no node or entry budget).
        fn array(strings: &[Vec<u16>]) -> (String, bool, usize, u64) {
            let mut r = Reference {
                steps: 2,
                ..Reference::default()
            };
            r.push('[');
            for (i, s) in strings.iter().enumerate() {
                if r.truncated {
                    break;
                }
                r.steps += 2;
                if i > 0 {
                    r.push(',');
                }
                r.quoted(s);
            }
            r.push(']');
            let mut out: String = r.out.iter().collect();
            if r.truncated {
                if let Some(end) = r.mark {
                    out = r.out.iter().take(end).collect();
                }
                out.push_str(TRUNCATION_MARKER);
            }
            (out, r.truncated, r.chars, r.steps)
        }
    }

    #[test]
    fn quoted_strings_with_bulk_runs_match_the_code_point_walk() {
        // runs of plain ASCII of every length, cut by escapes, quotes,
        // surrogates (paired and lone) and wide characters, placed so that
        // the string budget, the prefix mark and the cap fall everywhere
        let pieces: [&[u16]; 9] = [
            &[0x61],
            &[0x61; 37],
            &[0x7E; 500],
            &[0x0A],
            &[0x22, 0x5C],
            &[0xD83D, 0xDE00],
            &[0xDBFF],
            &[0xE9, 0x20AC],
            &[0x7F, 0x2028],
        ];
        let mut r = rng(13);
        let (mut truncated_rounds, mut json_rounds) = (0, 0);
        for round in 0..600 {
            let count = 1 + r(6);
            let strings: Vec<Vec<u16>> = (0..count)
                .map(|_| {
                    let mut s = Vec::new();
                    let target = [0, 10, 700, 2100, 4090, 5000][r(6)];
                    while s.len() < target {
                        s.extend_from_slice(pieces[r(pieces.len())]);
                    }
                    s
                })
                .collect();
            let mut b = HeapBuilder::new();
            let root = b.array(
                strings
                    .iter()
                    .map(|s| Value::String(JsString::from_units(s.clone()))),
            );
            let heap = b.finish().unwrap();
            let rt = Runtime::new(&heap, AbortSignal::new(), Trace::default());
            let out = serialize(&rt, &Value::Ref(root)).unwrap();
            let (content, truncated, chars, steps) = Reference::array(&strings);
            assert_eq!(out.content, content, "round {round}");
            assert_eq!(out.truncated, truncated, "round {round}");
            assert_eq!(out.usage.string_chars, chars, "round {round}");
            assert_eq!(out.steps, steps, "round {round}");
            truncated_rounds += usize::from(truncated);
            // the same text as UTF-8 through the serde_json source
            if let Some(texts) = strings
                .iter()
                .map(|s| String::from_utf16(s).ok())
                .collect::<Option<Vec<String>>>()
            {
                let json = serde_json::json!(texts);
                let from_json = serialize(&JsonSource::new(), &&json).unwrap();
                assert_eq!(from_json.content, content, "round {round} (json)");
                assert_eq!(from_json.steps, steps, "round {round} (json)");
                json_rounds += 1;
            }
        }
        assert!((100..500).contains(&truncated_rounds), "{truncated_rounds}");
        assert!(json_rounds >= 50, "{json_rounds}");
    }
}
