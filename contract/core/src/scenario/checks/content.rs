//! Reading two serialized contents side by side: error payloads, where they
//! first differ, what token the difference falls in, whether a marker was
//! written where a budget stopped the walk.

use super::*;

pub(super) struct ErrorPayload {
    pub(super) code: String,
    pub(super) message: Option<String>,
}

pub(super) fn error_payload(content: &str) -> Option<ErrorPayload> {
    if let Ok(j) = serde_json::from_str::<Json>(content) {
        let error = j.get("error")?;
        return Some(ErrorPayload {
            code: error.get("code")?.as_str()?.to_string(),
            message: error
                .get("message")
                .and_then(Json::as_str)
                .map(str::to_string),
        });
    }
    // a truncated payload is not JSON; its code still leads it
    let rest = content.strip_prefix("{\"error\":{\"code\":\"")?;
    let code: String = rest.chars().take_while(|c| *c != '"').collect();
    let well_formed = !code.is_empty() && code.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    well_formed.then_some(ErrorPayload {
        code,
        message: None,
    })
}

/// The code points before the marker, when `content` was truncated. A
/// serialized content holds no raw newline, so a trailing marker can only
/// be the truncation's.
pub(super) fn truncated(content: &[char]) -> Option<&[char]> {
    let marker: Vec<char> = TRUNCATION_MARKER.chars().collect();
    let cut = content.len().checked_sub(marker.len())?;
    match (content.get(..cut), content.get(cut..)) {
        (Some(prefix), Some(tail)) if tail == marker.as_slice() => Some(prefix),
        _ => None,
    }
}

pub(super) fn first_difference(e: &[char], a: &[char]) -> Option<usize> {
    match e.iter().zip(a).position(|(x, y)| x != y) {
        Some(p) => Some(p),
        None if e.len() != a.len() => Some(e.len().min(a.len())),
        None => None,
    }
}

/// "content differs at code point N: expected ..., got ...".
pub(super) fn content_difference(e: &str, a: &str) -> String {
    let (ec, ac): (Vec<char>, Vec<char>) = (e.chars().collect(), a.chars().collect());
    match first_difference(&ec, &ac) {
        Some(p) => format!(
            "content differs at code point {p}: expected {}, got {}",
            excerpt(&ec, p),
            excerpt(&ac, p)
        ),
        None => "content differs".to_string(),
    }
}

/// Up to 24 code points either side of `at`, quoted with escapes, with an
/// ellipsis where text was left out.
pub(super) fn excerpt(s: &[char], at: usize) -> String {
    const SIDE: usize = 24;
    let start = at.saturating_sub(SIDE);
    let end = at.saturating_add(SIDE).min(s.len());
    let text: String = s
        .iter()
        .skip(start)
        .take(end.saturating_sub(start))
        .collect();
    format!(
        "`{}{}{}`",
        if start > 0 { "…" } else { "" },
        visible(&text),
        if end < s.len() { "…" } else { "" }
    )
}

/// Text as is, but with control characters escaped so a newline (the
/// marker's) or a raw control code stays visible on one line.
pub(super) fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            c if c.is_control() => c.escape_unicode().to_string(),
            c => c.to_string(),
        })
        .collect()
}

pub(super) fn clip(s: &str) -> String {
    const MAX: usize = 120;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}…")
    }
}

pub(super) fn quote(s: &str) -> String {
    clip(&format!("{s:?}"))
}

/// A container open at the scan's position.
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame {
    pub(super) object: bool,
    /// The next string in this object is a key.
    pub(super) key_next: bool,
}

/// Whether `actual` writes a marker value (`"[Circular]"`...) exactly where
/// `expected` is cut by a budget: a check made in the wrong order.
pub(super) fn marker_where_truncated(expected: &str, actual: &str) -> bool {
    let (ec, ac): (Vec<char>, Vec<char>) = (expected.chars().collect(), actual.chars().collect());
    let Some(prefix) = truncated(&ec) else {
        return false;
    };
    if prefix.len() >= TRUNCATED_PREFIX || !ac.starts_with(prefix) {
        return false;
    }
    let rest: String = ac.iter().skip(prefix.len()).take(24).collect();
    [
        marker::CIRCULAR,
        marker::UNDEFINED,
        marker::SYMBOL,
        marker::FUNCTION,
    ]
    .iter()
    .any(|m| rest.starts_with(&format!("\"{m}\"")))
}

/// What a left-to-right scan of a (possibly cut) content saw.
#[derive(Debug, Default)]
pub(super) struct Scan {
    pub(super) stack: Vec<Frame>,
    pub(super) values: usize,
    pub(super) entries: usize,
    /// Start of the string being read, and whether it is a key.
    pub(super) string: Option<(usize, bool)>,
    pub(super) escape: bool,
    pub(super) scalar: bool,
}

impl Scan {
    fn value_starts(&mut self) {
        self.values += 1;
        if let Some(f) = self.stack.last() {
            if !f.object {
                self.entries += 1;
            }
        }
    }

    /// Whether a string starting now is a key.
    fn key_now(&self) -> bool {
        self.stack.last().is_some_and(|f| f.object && f.key_next)
    }
}

pub(super) fn is_scalar_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.')
}

/// Scans `chars` up to (not including) `end`.
pub(super) fn scan(chars: &[char], end: usize) -> Scan {
    let mut s = Scan::default();
    for (i, &c) in chars.iter().enumerate().take(end) {
        if s.string.is_some() {
            if s.escape {
                s.escape = false;
            } else if c == '\\' {
                s.escape = true;
            } else if c == '"' {
                if let Some((start, false)) = s.string {
                    // holes and accessor slots are entries, not values
                    let text: String = chars.iter().take(i).skip(start + 1).collect();
                    if text == marker::EMPTY || text == marker::ACCESSOR {
                        s.values = s.values.saturating_sub(1);
                    }
                }
                s.string = None;
            }
            continue;
        }
        if is_scalar_char(c) {
            if !s.scalar {
                s.scalar = true;
                s.value_starts();
            }
            continue;
        }
        s.scalar = false;
        match c {
            '"' => {
                let key = s.key_now();
                if key {
                    s.entries += 1;
                    if let Some(f) = s.stack.last_mut() {
                        f.key_next = false;
                    }
                } else {
                    s.value_starts();
                }
                s.string = Some((i, key));
            }
            '{' | '[' => {
                s.value_starts();
                s.stack.push(Frame {
                    object: c == '{',
                    key_next: c == '{',
                });
            }
            '}' | ']' => {
                s.stack.pop();
            }
            ',' => {
                if let Some(f) = s.stack.last_mut() {
                    f.key_next = f.object;
                }
            }
            _ => {}
        }
    }
    s
}

/// Where a position falls in a content.
pub(super) enum Spot {
    /// Inside a string (or on its opening quote): where it starts, whether
    /// it is a key.
    Str(usize, bool),
    Scalar,
    /// Between tokens: in an object (`Some(true)`), an array, or at the top.
    Structure(Option<bool>),
}

pub(super) fn spot(chars: &[char], pos: usize) -> Spot {
    let s = scan(chars, pos);
    if let Some((start, key)) = s.string {
        return Spot::Str(start, key);
    }
    let here = chars.get(pos).copied();
    if here == Some('"') {
        return Spot::Str(pos, s.key_now());
    }
    if s.scalar || here.is_some_and(is_scalar_char) {
        return Spot::Scalar;
    }
    Spot::Structure(s.stack.last().map(|f| f.object))
}

/// The raw text of the string token opening at `start`.
pub(super) fn string_token(chars: &[char], start: usize) -> String {
    let mut out = String::new();
    let mut escape = false;
    for &c in chars.iter().skip(start + 1) {
        if escape {
            escape = false;
        } else if c == '\\' {
            escape = true;
        } else if c == '"' {
            break;
        }
        out.push(c);
    }
    out
}

/// The CORE-SER requirement of a difference at `pos` of two untruncated
/// (or equally cut) contents, by the token it falls in.
pub(super) fn classify(e: &[char], a: &[char], pos: usize) -> &'static str {
    let spots = [(e, spot(e, pos)), (a, spot(a, pos))];
    for (chars, sp) in &spots {
        if let Spot::Str(start, false) = sp {
            let token = string_token(chars, *start);
            match token.as_str() {
                marker::UNDEFINED | marker::SYMBOL | marker::FUNCTION => return "CORE-SER-04",
                marker::CIRCULAR => return "CORE-SER-07",
                marker::EMPTY | marker::ACCESSOR => return "CORE-SER-06",
                _ => {}
            }
            let digits = token.strip_prefix('-').unwrap_or(&token);
            if let Some(digits) = digits.strip_suffix('n') {
                if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
                    return "CORE-SER-03";
                }
            }
        }
    }
    if spots.iter().any(|(_, sp)| matches!(sp, Spot::Str(_, true))) {
        return "CORE-SER-05";
    }
    if spots.iter().any(|(_, sp)| matches!(sp, Spot::Str(..))) {
        return "CORE-SER-02";
    }
    if spots.iter().any(|(_, sp)| matches!(sp, Spot::Scalar)) {
        return "CORE-SER-01";
    }
    let (es, as_): (String, String) = (e.iter().collect(), a.iter().collect());
    let same_value = matches!(
        (serde_json::from_str::<Json>(&es), serde_json::from_str::<Json>(&as_)),
        (Ok(x), Ok(y)) if x == y
    );
    if same_value {
        // same members, other order: the sort by UTF-16 code units
        return "CORE-SER-05";
    }
    match spots.first().map(|(_, sp)| sp) {
        Some(Spot::Structure(Some(true))) => "CORE-SER-05",
        Some(Spot::Structure(Some(false))) => "CORE-SER-06",
        _ => "CORE-SER-17",
    }
}
