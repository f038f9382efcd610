//! Strings as a JavaScript host holds them: sequences of UTF-16 code units,
//! lone surrogates allowed. Everything the contract says about strings
//! (trimming, code point budgets, key order) is defined on code units, so the
//! model keeps them and never round-trips through Rust's `str`.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// An immutable JavaScript string. Cloning is cheap.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct JsString(Arc<[u16]>);

/// One item of a string read code point by code point: a scalar value, or a
/// surrogate that has no partner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodePoint {
    Scalar(char),
    LoneSurrogate(u16),
}

impl JsString {
    /// The code units of `s` encoded as UTF-16.
    pub fn new(s: &str) -> JsString {
        JsString(s.encode_utf16().collect())
    }
    /// A string made of exactly these code units.
    pub fn from_units(units: impl Into<Arc<[u16]>>) -> JsString {
        JsString(units.into())
    }
    #[inline]
    pub fn units(&self) -> &[u16] {
        &self.0
    }
    pub fn len_units(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Whether the string is empty after `String.prototype.trim`.
    pub fn is_blank(&self) -> bool {
        self.0.iter().all(|&u| is_js_whitespace(u))
    }
    /// The string as Rust text, lone surrogates replaced by U+FFFD. For
    /// messages and display only, never for comparison.
    pub fn to_string_lossy(&self) -> String {
        String::from_utf16_lossy(&self.0)
    }
    /// The string as Rust text when it holds no lone surrogate.
    pub fn to_rust_string(&self) -> Option<String> {
        String::from_utf16(&self.0).ok()
    }
    /// The string as observations and scenarios write it: a JSON string
    /// when it is well-formed UTF-16, else `{"$": "string", "units": [...]}`
    /// (a lone surrogate has no JSON text of its own).
    pub fn to_json(&self) -> serde_json::Value {
        match self.to_rust_string() {
            Some(text) => serde_json::Value::String(text),
            None => serde_json::json!({"$": "string", "units": self.units()}),
        }
    }
    #[inline]
    pub fn as_ref(&self) -> StrRef<'_> {
        StrRef::Utf16(&self.0)
    }
}

impl From<&str> for JsString {
    fn from(s: &str) -> JsString {
        JsString::new(s)
    }
}

impl From<String> for JsString {
    fn from(s: String) -> JsString {
        JsString::new(&s)
    }
}

impl PartialEq<&str> for JsString {
    fn eq(&self, other: &&str) -> bool {
        self.0.iter().copied().eq(other.encode_utf16())
    }
}

impl fmt::Debug for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string_lossy())
    }
}

impl fmt::Display for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

/// The characters `String.prototype.trim` removes: WhiteSpace and
/// LineTerminator of ECMA-262.
pub fn is_js_whitespace(unit: u16) -> bool {
    matches!(
        unit,
        0x0009..=0x000D
            | 0x0020
            | 0x00A0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
            | 0xFEFF
    )
}

/// A borrowed string of either host: the model's UTF-16 or Rust's UTF-8.
#[derive(Debug, Clone, Copy)]
pub enum StrRef<'a> {
    Utf8(&'a str),
    Utf16(&'a [u16]),
}

/// 1 for the bytes a JSON string holds as themselves: printable ASCII
/// other than `"` and `\`.
// `b` stays under 0x7F: the index cannot panic (and `get_mut` is no const fn)
#[allow(clippy::indexing_slicing)]
static PLAIN_ASCII: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0x20;
    while b < 0x7F {
        if b != b'"' as usize && b != b'\\' as usize {
            table[b] = 1;
        }
        b += 1;
    }
    table
};

/// Length of the leading run of `units` whose `plain` is 1.
#[inline]
fn plain_run<T: Copy>(units: &[T], plain: impl Fn(T) -> u8) -> usize {
    let mut n = 0;
    let mut chunks = units.chunks_exact(8);
    for chunk in &mut chunks {
        if chunk.iter().fold(1, |all, &u| all & plain(u)) == 0 {
            break;
        }
        n += 8;
    }
    n + units
        .get(n..)
        .unwrap_or_default()
        .iter()
        .take_while(|&&u| plain(u) == 1)
        .count()
}

impl<'a> StrRef<'a> {
    /// The string code point by code point, lone surrogates kept apart.
    #[inline]
    pub fn code_points(self) -> CodePoints<'a> {
        match self {
            StrRef::Utf8(s) => CodePoints::Utf8(s.chars()),
            StrRef::Utf16(u) => CodePoints::Utf16(char::decode_utf16(u.iter().copied())),
        }
    }

    /// Length of the leading run of printable ASCII other than `"` and `\`
    /// (what a quoted string writes as is: one code unit, one byte, one code
    /// point each), looking at no more than `limit` of them.
    ///
    /// Eight units at a time through a table and bitwise AND, one branch per
    /// eight: the serializer spends most of its time here, and under a
    /// fuzzer's compare tracing a compare per unit cost more than half of an
    /// execution (perf, 2026-12-05).
    #[inline]
    pub fn plain_ascii_run(self, limit: usize) -> usize {
        match self {
            StrRef::Utf8(s) => {
                let bytes = s.as_bytes();
                plain_run(bytes.get(..limit).unwrap_or(bytes), |b| {
                    // a u8 index of a 256-entry table: no bounds check remains
                    PLAIN_ASCII.get(usize::from(b)).copied().unwrap_or(0)
                })
            }
            StrRef::Utf16(u) => plain_run(u.get(..limit).unwrap_or(u), |unit| {
                // 1 for a unit under 0x80 (the borrow of `unit - 0x80`), without a compare
                let ascii = (u32::from(unit).wrapping_sub(0x80) >> 31) as u8;
                PLAIN_ASCII
                    .get(usize::from(unit & 0x7F))
                    .copied()
                    .unwrap_or(0)
                    & ascii
            }),
        }
    }

    /// The first code point, as [`code_points`](Self::code_points) reads it,
    /// and its length in the string's own units (bytes of UTF-8, code units
    /// of UTF-16).
    #[inline]
    pub fn first_code_point(self) -> Option<(CodePoint, usize)> {
        match self {
            StrRef::Utf8(s) => s
                .chars()
                .next()
                .map(|c| (CodePoint::Scalar(c), c.len_utf8())),
            StrRef::Utf16(u) => {
                let first = *u.first()?;
                // as `char::decode_utf16` reads: a high surrogate followed by
                // a low one is a pair, any other surrogate stands alone
                let scalar = match (first, u.get(1)) {
                    (0xD800..=0xDBFF, Some(&low @ 0xDC00..=0xDFFF)) => char::from_u32(
                        0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(low) - 0xDC00),
                    )
                    .map(|c| (c, 2)),
                    (0xD800..=0xDFFF, _) => None,
                    _ => char::from_u32(u32::from(first)).map(|c| (c, 1)),
                };
                Some(match scalar {
                    Some((c, used)) => (CodePoint::Scalar(c), used),
                    None => (CodePoint::LoneSurrogate(first), 1),
                })
            }
        }
    }

    /// The string without its first `n` own units (bytes of UTF-8, code
    /// units of UTF-16); `n` ends a character.
    #[inline]
    pub fn skip(self, n: usize) -> StrRef<'a> {
        match self {
            StrRef::Utf8(s) => StrRef::Utf8(s.get(n..).unwrap_or_default()),
            StrRef::Utf16(u) => StrRef::Utf16(u.get(n..).unwrap_or_default()),
        }
    }

    /// Compares by UTF-16 code units, as JavaScript's default sort does,
    /// looking at no more than `limit` code units of each side. Returns the
    /// order and how many code unit pairs were examined.
    ///
    /// The serializer sorts keys with a limit larger than any key it can
    /// write: two keys equal over that prefix both exhaust the string budget
    /// inside it, so their order cannot change the output, and a sort of
    /// long keys costs the budget, not the keys' length.
    pub fn cmp_utf16_prefix(self, other: StrRef<'_>, limit: usize) -> (Ordering, usize) {
        // same answer as the unit-by-unit walk below, with the common prefix
        // found by slice comparison (keys sharing long prefixes are the
        // serializer's most expensive input)
        match (self, other) {
            (StrRef::Utf16(a), StrRef::Utf16(b)) => cmp_units_prefix(a, b, limit),
            (StrRef::Utf8(a), StrRef::Utf8(b)) => cmp_utf8_as_utf16_prefix(a, b, limit),
            _ => self.cmp_utf16_prefix_walk(other, limit),
        }
    }

    /// [`cmp_utf16_prefix`](Self::cmp_utf16_prefix), one code unit at a time.
    fn cmp_utf16_prefix_walk(self, other: StrRef<'_>, limit: usize) -> (Ordering, usize) {
        let mut a = self.units().take(limit);
        let mut b = other.units().take(limit);
        let mut examined = 0;
        loop {
            match (a.next(), b.next()) {
                (None, None) => return (Ordering::Equal, examined),
                (None, Some(_)) => return (Ordering::Less, examined),
                (Some(_), None) => return (Ordering::Greater, examined),
                (Some(x), Some(y)) => {
                    examined += 1;
                    if x != y {
                        return (x.cmp(&y), examined);
                    }
                }
            }
        }
    }

    fn units(self) -> Units<'a> {
        match self {
            StrRef::Utf8(s) => Units::Utf8(s.encode_utf16()),
            StrRef::Utf16(u) => Units::Utf16(u.iter()),
        }
    }

    /// [`cmp_utf16_prefix`](Self::cmp_utf16_prefix) resumed where `self`
    /// and `other` are known to agree: `at` and `other_at` are the same
    /// number of UTF-16 code units into each, and their units before it are
    /// equal. Examines only the units from there on (at most `limit` in all,
    /// as before), and returns where the two first differ in each, so that a
    /// sort can resume from there later (see [`UnitCursor`]).
    ///
    /// Same order as `cmp_utf16_prefix(other, limit)` when the precondition
    /// holds; `examined` counts the code unit pairs looked at from `at` on.
    #[inline]
    pub fn cmp_utf16_from(
        self,
        at: UnitCursor,
        other: StrRef<'_>,
        other_at: UnitCursor,
        limit: usize,
    ) -> Resumed {
        match (self, other) {
            (StrRef::Utf16(a), StrRef::Utf16(b)) => cmp_units_from(a, b, at.units, limit),
            (StrRef::Utf8(a), StrRef::Utf8(b)) if at == other_at => {
                cmp_utf8_as_utf16_from(a, b, at, limit)
            }
            _ => self.cmp_utf16_walk_from(at, other, other_at, limit, 0),
        }
    }

    /// [`cmp_utf16_from`](Self::cmp_utf16_from), one code unit at a time,
    /// `examined` already counted.
    fn cmp_utf16_walk_from(
        self,
        mut at: UnitCursor,
        other: StrRef<'_>,
        mut other_at: UnitCursor,
        limit: usize,
        mut examined: usize,
    ) -> Resumed {
        loop {
            let order = if at.units >= limit {
                Ordering::Equal
            } else {
                match (self.unit_at(at), other.unit_at(other_at)) {
                    (None, None) => Ordering::Equal,
                    (None, Some(_)) => Ordering::Less,
                    (Some(_), None) => Ordering::Greater,
                    (Some((x, next)), Some((y, other_next))) => {
                        examined += 1;
                        if x == y {
                            at = next;
                            other_at = other_next;
                            continue;
                        }
                        x.cmp(&y)
                    }
                }
            };
            return Resumed {
                order,
                common: at,
                other_common: other_at,
                examined,
            };
        }
    }

    /// The code unit at `at` and the cursor just past it.
    #[inline]
    fn unit_at(self, at: UnitCursor) -> Option<(u16, UnitCursor)> {
        match self {
            StrRef::Utf16(u) => {
                let unit = *u.get(at.units)?;
                let next = at.units + 1;
                Some((
                    unit,
                    UnitCursor {
                        units: next,
                        own: next,
                    },
                ))
            }
            StrRef::Utf8(s) => {
                // a four-byte character is read in two steps: its high half,
                // leaving the cursor in its middle, then its low half
                let low = !s.is_char_boundary(at.own);
                let start = if low {
                    at.own.checked_sub(HALF_PAIR)?
                } else {
                    at.own
                };
                let c = s.get(start..)?.chars().next()?;
                let mut pair = [0u16; 2];
                let unit = match (low, &*c.encode_utf16(&mut pair)) {
                    (false, [only]) => *only,
                    (false, [high, _]) => *high,
                    (true, [_, low]) => *low,
                    // the middle of anything but a four-byte character is
                    // never a cursor
                    _ => return None,
                };
                let own = if c.len_utf8() == 4 {
                    at.own + HALF_PAIR
                } else {
                    at.own + c.len_utf8()
                };
                Some((
                    unit,
                    UnitCursor {
                        units: at.units + 1,
                        own,
                    },
                ))
            }
        }
    }
}

/// Bytes of UTF-8 from the start of a four-byte character to the cursor
/// between its two UTF-16 halves.
const HALF_PAIR: usize = 2;

/// A position in a string, in UTF-16 code units from its start, and the
/// same position in the string's own units (bytes of UTF-8, code units of
/// UTF-16). In UTF-8, the position between the two halves of a surrogate
/// pair is the middle of its four-byte character (two bytes in).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UnitCursor {
    pub units: usize,
    pub own: usize,
}

/// What [`StrRef::cmp_utf16_from`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resumed {
    pub order: Ordering,
    /// Where the two strings first differ (or end, or reach the limit), in
    /// the first string and in the second: the same number of units.
    pub common: UnitCursor,
    pub other_common: UnitCursor,
    /// Code unit pairs examined.
    pub examined: usize,
}

/// Index of the first position where `a` and `b` differ, within their common
/// length. Chunks are compared as slices first (`memcmp` for integers), so
/// a long equal prefix is skipped at memory speed.
fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> Option<usize> {
    const STEP: usize = 16;
    const CHUNK: usize = 256;
    // short keys and early differences: one by one
    let head = a.iter().zip(b).take(STEP).position(|(p, q)| p != q);
    if head.is_some() || a.len().min(b.len()) <= STEP {
        return head;
    }
    let (a, b) = (
        a.get(STEP..).unwrap_or_default(),
        b.get(STEP..).unwrap_or_default(),
    );
    let mut offset = STEP;
    for (x, y) in a.chunks(CHUNK).zip(b.chunks(CHUNK)) {
        if x != y {
            // narrow down by steps, then one by one
            for (xs, ys) in x.chunks(STEP).zip(y.chunks(STEP)) {
                if xs != ys {
                    return xs
                        .iter()
                        .zip(ys)
                        .position(|(p, q)| p != q)
                        .map(|i| offset + i);
                }
                offset += xs.len().min(ys.len());
            }
            return None;
        }
        offset += x.len().min(y.len());
    }
    None
}

/// `cmp_utf16_prefix` of two UTF-16 strings.
fn cmp_units_prefix(a: &[u16], b: &[u16], limit: usize) -> (Ordering, usize) {
    let a = a.get(..limit).unwrap_or(a);
    let b = b.get(..limit).unwrap_or(b);
    match first_difference(a, b) {
        Some(i) => {
            let order = a.get(i).cmp(&b.get(i));
            (order, i + 1)
        }
        None => (a.len().cmp(&b.len()), a.len().min(b.len())),
    }
}

/// `cmp_utf16_from` of two UTF-16 strings, from unit `from`.
#[inline]
fn cmp_units_from(a: &[u16], b: &[u16], from: usize, limit: usize) -> Resumed {
    let a = a.get(..limit).unwrap_or(a);
    let b = b.get(..limit).unwrap_or(b);
    let a = a.get(from..).unwrap_or_default();
    let b = b.get(from..).unwrap_or_default();
    let (order, common, examined) = match first_difference(a, b) {
        Some(i) => (a.get(i).cmp(&b.get(i)), i, i + 1),
        None => {
            let common = a.len().min(b.len());
            (a.len().cmp(&b.len()), common, common)
        }
    };
    let at = UnitCursor {
        units: from + common,
        own: from + common,
    };
    Resumed {
        order,
        common: at,
        other_common: at,
        examined,
    }
}

/// `cmp_utf16_from` of two UTF-8 strings at the same cursor. They agree on
/// every byte before it, so their equal bytes from there are found by slice
/// comparison a block at a time, and the code units of those bytes counted;
/// a block is never longer than the units left before the limit (a byte
/// holds at most one unit), so it cannot pass the limit. The differing
/// character, the ends and the last units before the limit are left to the
/// unit walk.
fn cmp_utf8_as_utf16_from(a: &str, b: &str, start: UnitCursor, limit: usize) -> Resumed {
    const BLOCK: usize = 4096;
    let mut at = start;
    let mut examined = 0;
    while a.is_char_boundary(at.own) {
        let (Some(x), Some(y)) = (a.as_bytes().get(at.own..), b.as_bytes().get(at.own..)) else {
            break;
        };
        let n = x
            .len()
            .min(y.len())
            .min(BLOCK)
            .min(limit.saturating_sub(at.units));
        let (Some(x), Some(y)) = (x.get(..n), y.get(..n)) else {
            break;
        };
        let differ = first_difference(x, y);
        // whole characters before the first difference (or the block's
        // end): the same characters in both
        let mut equal = differ.unwrap_or(n);
        while equal > 0 && !a.is_char_boundary(at.own + equal) {
            equal -= 1;
        }
        let Some(head) = x.get(..equal) else {
            break;
        };
        let units = utf16_len_of_utf8(head);
        at.units += units;
        at.own += equal;
        examined += units;
        if differ.is_some() || equal == 0 {
            break;
        }
    }
    StrRef::Utf8(a).cmp_utf16_walk_from(at, StrRef::Utf8(b), at, limit, examined)
}

/// UTF-16 code units of a valid UTF-8 text: one per character, two for
/// characters of four bytes.
fn utf16_len_of_utf8(bytes: &[u8]) -> usize {
    let units = |b: u8| u8::from((b as i8) >= -0x40) + u8::from(b >= 0xF0);
    // blocks of 64 bytes (at most 128 units) counted in u8 lanes vectorize
    let mut blocks = bytes.chunks_exact(64);
    let mut total = 0;
    for block in &mut blocks {
        total += usize::from(block.iter().fold(0u8, |n, &b| n.wrapping_add(units(b))));
    }
    total
        + blocks
            .remainder()
            .iter()
            .map(|&b| usize::from(units(b)))
            .sum::<usize>()
}

/// `cmp_utf16_prefix` of two UTF-8 strings. Byte order is code point order,
/// not UTF-16 order, so only the equal prefix is found by bytes: it ends at
/// a character boundary of both, its length in code units is counted, and
/// the walk finishes from there (within two code units).
fn cmp_utf8_as_utf16_prefix(a: &str, b: &str, limit: usize) -> (Ordering, usize) {
    // `limit` code units span at most 3 * limit bytes (a 3-byte character is
    // one unit); past that the common prefix already holds `limit` units
    let window = limit.saturating_mul(3).saturating_add(4);
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let ab = ab.get(..window).unwrap_or(ab);
    let bb = bb.get(..window).unwrap_or(bb);
    let mut equal = first_difference(ab, bb).unwrap_or(ab.len().min(bb.len()));
    // back to the start of the character holding the first difference: the
    // same position in both, since they agree on every byte before it
    while equal > 0 && !a.is_char_boundary(equal) {
        equal -= 1;
    }
    let (Some(head), Some(a_rest), Some(b_rest)) = (a.get(..equal), a.get(equal..), b.get(equal..))
    else {
        return StrRef::Utf8(a).cmp_utf16_prefix_walk(StrRef::Utf8(b), limit);
    };
    let units = utf16_len_of_utf8(head.as_bytes());
    if units >= limit {
        // both have at least `limit` units and agree on all of them
        return (Ordering::Equal, limit);
    }
    let (order, examined) =
        StrRef::Utf8(a_rest).cmp_utf16_prefix_walk(StrRef::Utf8(b_rest), limit - units);
    (order, units + examined)
}

enum Units<'a> {
    Utf8(std::str::EncodeUtf16<'a>),
    Utf16(std::slice::Iter<'a, u16>),
}

impl Iterator for Units<'_> {
    type Item = u16;
    fn next(&mut self) -> Option<u16> {
        match self {
            Units::Utf8(it) => it.next(),
            Units::Utf16(it) => it.next().copied(),
        }
    }
}

/// Iterator of [`CodePoint`]s.
pub enum CodePoints<'a> {
    Utf8(std::str::Chars<'a>),
    Utf16(std::char::DecodeUtf16<std::iter::Copied<std::slice::Iter<'a, u16>>>),
}

impl Iterator for CodePoints<'_> {
    type Item = CodePoint;
    #[inline]
    fn next(&mut self) -> Option<CodePoint> {
        match self {
            CodePoints::Utf8(it) => it.next().map(CodePoint::Scalar),
            CodePoints::Utf16(it) => it.next().map(|r| match r {
                Ok(c) => CodePoint::Scalar(c),
                Err(e) => CodePoint::LoneSurrogate(e.unpaired_surrogate()),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::rng;

    fn check(a: &str, b: &str, expect: Ordering) {
        assert_eq!(
            StrRef::Utf8(a)
                .cmp_utf16_prefix(StrRef::Utf8(b), usize::MAX)
                .0,
            expect,
            "{a:?} vs {b:?}"
        );
    }

    #[test]
    fn utf16_order_puts_astral_before_high_bmp() {
        check("\u{1F600}", "\u{FFFF}", Ordering::Less);
        check("10", "9", Ordering::Less);
        check("a", "b", Ordering::Less);
        check("é", "é", Ordering::Equal);
    }

    /// Pairs sharing a prefix of random length, then random tails.
    fn pairs<T: Clone>(alphabet: &[T], seed: u64) -> Vec<(Vec<T>, Vec<T>)> {
        let mut r = rng(seed);
        let mut pick = |n: usize| -> Vec<T> {
            (0..n)
                .map(|_| alphabet[r(alphabet.len())].clone())
                .collect()
        };
        (0..3000)
            .map(|i| {
                let shared = [0, 1, 3, 15, 16, 17, 200, 300][i % 8];
                let prefix = pick(shared);
                let mut a = prefix.clone();
                a.extend(pick(i / 8 % 4));
                let mut b = prefix;
                b.extend(pick(i / 32 % 4));
                (a, b)
            })
            .collect()
    }

    const LIMITS: [usize; 10] = [0, 1, 2, 3, 16, 17, 150, 301, 8194, usize::MAX];

    #[test]
    fn utf16_slice_comparison_is_the_unit_walk() {
        let units = [0x61u16, 0x62, 0xE9, 0xFFFF, 0xD83D, 0xDE00, 0xDBFF, 0xDC00];
        for (a, b) in pairs(&units, 7) {
            for limit in LIMITS {
                let (x, y) = (StrRef::Utf16(&a), StrRef::Utf16(&b));
                assert_eq!(
                    x.cmp_utf16_prefix(y, limit),
                    x.cmp_utf16_prefix_walk(y, limit),
                    "{a:x?} {b:x?} {limit}"
                );
            }
        }
    }

    #[test]
    fn utf8_byte_comparison_is_the_unit_walk() {
        // U+1F600 sorts before U+FFFF and U+E000 in UTF-16, after them in UTF-8
        let chars = crate::testing::ORDER_CHARS;
        for (a, b) in pairs(&chars, 11) {
            let (a, b): (String, String) = (a.into_iter().collect(), b.into_iter().collect());
            for limit in LIMITS {
                let (x, y) = (StrRef::Utf8(&a), StrRef::Utf8(&b));
                assert_eq!(
                    x.cmp_utf16_prefix(y, limit),
                    x.cmp_utf16_prefix_walk(y, limit),
                    "{a:?} {b:?} {limit}"
                );
            }
        }
    }

    /// The cursor `units` code units into `s`, found one unit at a time.
    fn cursor_at(s: StrRef<'_>, units: usize) -> UnitCursor {
        let mut at = UnitCursor::default();
        while at.units < units {
            match s.unit_at(at) {
                Some((_, next)) => at = next,
                None => break,
            }
        }
        at
    }

    /// `cmp_utf16_from` from every point where the two agree is
    /// `cmp_utf16_prefix` from the start, less the pairs before that point,
    /// and its cursors are where the two stop agreeing.
    fn check_resumed(x: StrRef<'_>, y: StrRef<'_>, limit: usize, label: &str) {
        let (order, examined) = x.cmp_utf16_prefix(y, limit);
        let whole = x.cmp_utf16_from(UnitCursor::default(), y, UnitCursor::default(), limit);
        let common = whole.common.units;
        assert_eq!(whole.common, cursor_at(x, common), "{label}");
        assert_eq!(whole.other_common, cursor_at(y, common), "{label}");
        for from in [0, 1, common / 2, common.saturating_sub(1), common] {
            let from = from.min(common);
            let resumed = x.cmp_utf16_from(cursor_at(x, from), y, cursor_at(y, from), limit);
            assert_eq!(resumed.order, order, "{label} from {from}");
            assert_eq!(resumed.examined, examined - from, "{label} from {from}");
            assert_eq!(resumed.common, whole.common, "{label} from {from}");
            assert_eq!(
                resumed.other_common, whole.other_common,
                "{label} from {from}"
            );
        }
    }

    #[test]
    fn resumed_comparison_is_the_prefix_comparison() {
        let units = [0x61u16, 0x62, 0xE9, 0xFFFF, 0xD83D, 0xDE00, 0xDBFF, 0xDC00];
        for (a, b) in pairs(&units, 17) {
            for limit in LIMITS {
                let (x, y) = (StrRef::Utf16(&a), StrRef::Utf16(&b));
                check_resumed(x, y, limit, &format!("{a:x?} {b:x?} {limit}"));
            }
        }
        let chars = [
            'a',
            'é',
            '€',
            '\u{E000}',
            '\u{FFFF}',
            '😀',
            '😁',
            '\u{10FFFF}',
        ];
        let mut long = pairs(&chars, 19);
        // shared prefixes longer than a block of the UTF-8 fast path
        let mut r = rng(23);
        for i in 0..80 {
            let prefix: Vec<char> = (0..[1023, 1700, 4100, 9000][i % 4])
                .map(|_| chars[r(chars.len())])
                .collect();
            let (mut a, mut b) = (prefix.clone(), prefix);
            a.extend((0..r(3)).map(|_| chars[r(chars.len())]));
            b.extend((0..r(3)).map(|_| chars[r(chars.len())]));
            long.push((a, b));
        }
        for (a, b) in long {
            let (a, b): (String, String) = (a.into_iter().collect(), b.into_iter().collect());
            let (au, bu): (Vec<u16>, Vec<u16>) =
                (a.encode_utf16().collect(), b.encode_utf16().collect());
            let units = au.len().min(bu.len());
            for limit in LIMITS
                .into_iter()
                .chain([units, units + 1, units.saturating_sub(1)])
            {
                let label = format!("{limit}: {a:?} {b:?}");
                check_resumed(StrRef::Utf8(&a), StrRef::Utf8(&b), limit, &label);
                check_resumed(StrRef::Utf8(&a), StrRef::Utf16(&bu), limit, &label);
                check_resumed(StrRef::Utf16(&au), StrRef::Utf8(&b), limit, &label);
            }
        }
    }

    #[test]
    fn first_code_point_reads_as_decode_utf16() {
        let units = [0x61u16, 0xD83D, 0xDE00, 0xDBFF, 0xDC00, 0xD800, 0xE000];
        let mut r = rng(3);
        for _ in 0..2000 {
            let s: Vec<u16> = (0..r(8)).map(|_| units[r(units.len())]).collect();
            let mut rest = StrRef::Utf16(&s);
            let mut read = Vec::new();
            while let Some((cp, len)) = rest.first_code_point() {
                read.push(cp);
                rest = rest.skip(len);
            }
            let expect: Vec<CodePoint> = StrRef::Utf16(&s).code_points().collect();
            assert_eq!(read, expect, "{s:x?}");
        }
        let text = "a😀é€";
        let mut rest = StrRef::Utf8(text);
        let mut read = String::new();
        while let Some((CodePoint::Scalar(c), len)) = rest.first_code_point() {
            read.push(c);
            rest = rest.skip(len);
        }
        assert_eq!(read, text);
    }

    #[test]
    fn plain_ascii_run_stops_at_quotes_backslashes_controls_and_the_limit() {
        assert_eq!(StrRef::Utf8("ab c~\"x").plain_ascii_run(100), 5);
        assert_eq!(StrRef::Utf8("abc\"").plain_ascii_run(100), 3);
        assert_eq!(StrRef::Utf8("ab\\c").plain_ascii_run(100), 2);
        assert_eq!(StrRef::Utf8("abcé").plain_ascii_run(2), 2);
        assert_eq!(StrRef::Utf8("\u{7F}").plain_ascii_run(9), 0);
        let units: Vec<u16> = "ab\ncd".encode_utf16().collect();
        assert_eq!(StrRef::Utf16(&units).plain_ascii_run(9), 2);
    }

    #[test]
    fn plain_ascii_run_agrees_with_the_unit_by_unit_predicate() {
        fn plain(unit: u16) -> bool {
            (0x20..0x7F).contains(&unit) && unit != 0x22 && unit != 0x5C
        }
        // units drawn mostly plain, so that runs cross the eight-unit chunks
        let odd: [u16; 9] = [0x22, 0x5C, 0x1F, 0x7F, 0x80, 0xE9, 0x120, 0xD83D, 0x0A];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % n
        };
        let mut checked = 0;
        for _ in 0..3000 {
            let len = next(40) as usize;
            let units: Vec<u16> = (0..len)
                .map(|_| match next(12) {
                    0 => odd[next(9) as usize],
                    _ => 0x20 + next(0x5F) as u16,
                })
                .collect();
            let limit = [usize::MAX, 0, 7, 8, 9, 16, next(40) as usize][next(7) as usize];
            let expected = units.iter().take(limit).take_while(|&&u| plain(u)).count();
            assert_eq!(
                StrRef::Utf16(&units).plain_ascii_run(limit),
                expected,
                "{units:?} {limit}"
            );
            if let Ok(text) = String::from_utf16(&units) {
                let bytes = text
                    .bytes()
                    .take(limit)
                    .take_while(|&b| plain(u16::from(b)))
                    .count();
                assert_eq!(
                    StrRef::Utf8(&text).plain_ascii_run(limit),
                    bytes,
                    "{text:?} {limit}"
                );
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn blank_follows_the_ecmascript_trim_set() {
        assert!(JsString::new(" \t\n\u{3000}\u{FEFF}\u{2028}").is_blank());
        assert!(!JsString::new("\u{200B}").is_blank());
        assert!(!JsString::new("\u{85}").is_blank());
        assert!(JsString::default().is_blank());
    }
}
