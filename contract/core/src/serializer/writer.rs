//! The output writer: holds at most [`OUTPUT_CAP`] code points and turns a
//! truncated output into its first [`TRUNCATED_PREFIX`] code points plus the
//! marker.

use crate::constants::{OUTPUT_CAP, TRUNCATED_PREFIX, TRUNCATION_MARKER};
use crate::js_string::StrRef;

#[derive(Debug, Default)]
pub(crate) struct Writer {
    out: String,
    code_points: usize,
    /// Byte length of `out` when it held [`TRUNCATED_PREFIX`] code points.
    prefix_bytes: Option<usize>,
    truncated: bool,
    /// A run of UTF-16 ASCII as bytes, on its way into `out`.
    ascii: Vec<u8>,
}

impl Writer {
    #[inline]
    pub(crate) fn truncated(&self) -> bool {
        self.truncated
    }

    /// Stops all further writing.
    #[inline]
    pub(crate) fn truncate(&mut self) {
        self.truncated = true;
    }

    /// Writes one code point; the first that does not fit truncates.
    #[inline]
    pub(crate) fn push(&mut self, c: char) {
        // before the prefix mark nothing but the push itself can happen
        if self.code_points < TRUNCATED_PREFIX && !self.truncated {
            self.out.push(c);
            self.code_points += 1;
        } else {
            self.push_near_the_cap(c);
        }
    }

    fn push_near_the_cap(&mut self, c: char) {
        if self.truncated {
            return;
        }
        if self.code_points >= OUTPUT_CAP {
            self.truncated = true;
            return;
        }
        if self.code_points == TRUNCATED_PREFIX {
            self.prefix_bytes = Some(self.out.len());
        }
        self.out.push(c);
        self.code_points += 1;
    }

    #[inline]
    pub(crate) fn push_str(&mut self, s: &str) {
        // ASCII that ends before the prefix mark: one code point per byte
        if s.is_ascii() && self.code_points + s.len() < TRUNCATED_PREFIX && !self.truncated {
            self.out.push_str(s);
            self.code_points += s.len();
            return;
        }
        for c in s.chars() {
            if self.truncated {
                return;
            }
            self.push(c);
        }
    }

    /// Code points that can be written before the prefix mark (none once
    /// truncated): writing that many needs none of [`push`](Self::push)'s checks.
    #[inline]
    pub(crate) fn room_before_prefix(&self) -> usize {
        if self.truncated {
            0
        } else {
            TRUNCATED_PREFIX.saturating_sub(self.code_points)
        }
    }

    /// Writes the first `n` code units of `s`, which are ASCII, and at most
    /// [`room_before_prefix`](Self::room_before_prefix).
    #[inline]
    pub(crate) fn push_plain_ascii(&mut self, s: StrRef<'_>, n: usize) {
        match s {
            StrRef::Utf8(text) => self.out.push_str(text.get(..n).unwrap_or_default()),
            StrRef::Utf16(units) => {
                // narrowed into bytes and appended as one `str`: a char
                // at a time costs a compare per unit (under a fuzzer's
                // tracing, a call per unit)
                let run = units.get(..n).unwrap_or_default();
                self.ascii.clear();
                self.ascii.extend(run.iter().map(|&u| u as u8));
                self.out
                    .push_str(std::str::from_utf8(&self.ascii).unwrap_or_default());
            }
        }
        self.code_points += n;
    }

    /// The final content and whether it was truncated.
    pub(crate) fn finish(mut self) -> (String, bool) {
        if self.truncated {
            if let Some(end) = self.prefix_bytes {
                self.out.truncate(end);
            }
            self.out.push_str(TRUNCATION_MARKER);
        }
        (self.out, self.truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, truncate_after: bool, expect_len: usize, expect_truncated: bool) {
        let mut w = Writer::default();
        w.push_str(input);
        if truncate_after {
            w.truncate();
        }
        let (out, truncated) = w.finish();
        assert_eq!(out.chars().count(), expect_len);
        assert_eq!(truncated, expect_truncated);
        if truncated {
            assert!(out.ends_with(TRUNCATION_MARKER));
        }
    }

    #[test]
    fn exactly_the_cap_fits_and_one_more_truncates() {
        check(&"é".repeat(4096), false, 4096, false);
        check(&"é".repeat(4097), false, 4096, true);
        check(&"x".repeat(4072), true, 4096, true);
        check("ab", true, 26, true);
    }
}
