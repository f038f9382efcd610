//! The bounded serializer of core.md: one walk, written once, over any
//! [`OutputSource`] (the host model's graphs, `serde_json` values, and the
//! `{error:{code,message}}` payload of error results), so every kind of
//! output is bounded by the same budgets and written to the same bytes.
//!
//! The cost of a walk is bounded by the budgets, never by the input: every
//! loop stops at a budget, and sources answer each question (a slot, the next
//! entry) without scanning what the walk will not visit.

mod error_payload;
mod json;
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
    /// Its prototype is not one the serializer accepts.
    Unsupported,
    /// The host threw while it was inspected (a proxy trap, a revoked proxy).
    Thrown(T),
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

/// Serializes `root` within the budgets of core.md.
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

/// Comparisons a stable sort of the at most [`MAX_ENTRIES`] kept keys makes
/// (n log2 n for n = 256, summed over all objects, plus slack).
const MAX_SORT_COMPARISONS: usize = MAX_ENTRIES * 9;

/// What a [`Serialized::steps`] count can never exceed, whatever the input:
/// values and container opens, entries, number text, code points read by
/// quoted strings (each quoted string may read one code point it cannot
/// write), and key comparisons with the code units they examine.
pub const MAX_STEPS: u64 = (2 * MAX_NODES
    + MAX_ENTRIES
    + MAX_NODES * MAX_NUMBER_TEXT
    + OUTPUT_CAP
    + MAX_STRING_CHARS
    + MAX_NODES
    + MAX_ENTRIES
    + MAX_SORT_COMPARISONS * (1 + KEY_COMPARE_UNITS)) as u64;

/// Longest text `Number::toString` gives (`-1.2345678901234567e-308`).
const MAX_NUMBER_TEXT: usize = 25;

struct Walk<'s, S: OutputSource> {
    source: &'s S,
    w: Writer,
    nodes: usize,
    entries: usize,
    chars: usize,
    path: Vec<S::Handle>,
    steps: u64,
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
            Classified::Str(s) => self.quoted(s.code_points(), true),
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
        } else {
            let mut buf = ryu_js::Buffer::new();
            let text = buf.format_finite(n);
            self.raw(text);
        }
    }

    fn bigint(&mut self, b: &BigIntValue) {
        match b.decimal() {
            None => self.w.truncate(),
            Some(digits) => {
                let text = digits.chars().chain(std::iter::once('n'));
                self.quoted(text.map(CodePoint::Scalar), true);
            }
        }
    }

    fn marker(&mut self, text: &str) {
        self.quoted(text.chars().map(CodePoint::Scalar), false);
    }

    fn quoted(&mut self, code_points: impl Iterator<Item = CodePoint>, budgeted: bool) {
        self.w.push('"');
        for cp in code_points {
            if self.w.truncated() {
                return;
            }
            if budgeted {
                if self.chars >= MAX_STRING_CHARS {
                    self.w.truncate();
                    return;
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
        }
        self.w.push('"');
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
        let mut sorting = 0u64;
        kept.sort_by(|(a, _), (b, _)| {
            let (order, examined) = source
                .key_str(a)
                .cmp_utf16_prefix(source.key_str(b), KEY_COMPARE_UNITS);
            sorting += 1 + examined as u64;
            order
        });
        self.steps += sorting;
        for (i, (k, v)) in kept.iter().enumerate() {
            if self.w.truncated() {
                return Ok(());
            }
            if i > 0 {
                self.w.push(',');
            }
            self.quoted(source.key_str(k).code_points(), true);
            self.w.push(':');
            self.value(v, depth + 1)?;
        }
        self.w.push('}');
        Ok(())
    }
}
