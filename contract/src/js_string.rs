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

impl<'a> StrRef<'a> {
    /// The string code point by code point, lone surrogates kept apart.
    pub fn code_points(self) -> CodePoints<'a> {
        match self {
            StrRef::Utf8(s) => CodePoints::Utf8(s.chars()),
            StrRef::Utf16(u) => CodePoints::Utf16(char::decode_utf16(u.iter().copied())),
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

    #[test]
    fn blank_follows_the_ecmascript_trim_set() {
        assert!(JsString::new(" \t\n\u{3000}\u{FEFF}\u{2028}").is_blank());
        assert!(!JsString::new("\u{200B}").is_blank());
        assert!(!JsString::new("\u{85}").is_blank());
        assert!(JsString::default().is_blank());
    }
}
