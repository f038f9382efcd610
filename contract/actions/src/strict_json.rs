//! The strict JSON the structure layer reads an action from (FORMAT.md,
//! "Strict JSON"): RFC 8259 exactly, plus the refusals a model's text needs
//! (a size and a depth bound, duplicate member names, lone surrogates), and
//! numbers kept as what they were written as: an integer of any size or a
//! float, never converted into each other. Written by hand because it is
//! the product: `serde_json` takes the last of duplicate names and reads
//! `1e400` as an error where Python reads it as a float.

use super::spec::limits::{MAX_ACTION_BYTES, MAX_DEPTH};

/// A parsed JSON value. Objects keep their members in text order.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// An integer token (no fraction, no exponent); `None` when it does
    /// not fit an `i64` (it is then out of every range of the contract).
    Integer(Option<i64>),
    /// Any other number: its value is never needed.
    Float,
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

/// Why a text is not strict JSON; each falls under its own requirement,
/// but all are the one code `invalid_json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not RFC 8259 (or not UTF-8, or empty).
    Syntax,
    /// More than [`MAX_ACTION_BYTES`].
    TooLarge,
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// A member name twice in one object.
    DuplicateName,
    /// `NaN`, `Infinity` or `-Infinity` where a value goes.
    NonFinite,
    /// A `\u` escape that leaves a lone surrogate.
    LoneSurrogate,
}

impl Refusal {
    /// The requirement the refusal falls under.
    pub fn requirement(self) -> &'static str {
        match self {
            Refusal::Syntax | Refusal::TooLarge | Refusal::TooDeep => "ACT-JSON-01",
            Refusal::DuplicateName => "ACT-JSON-02",
            Refusal::NonFinite => "ACT-JSON-03",
            Refusal::LoneSurrogate => "ACT-JSON-04",
        }
    }

    /// The refusal in words.
    pub fn describe(self) -> &'static str {
        match self {
            Refusal::Syntax => "not JSON",
            Refusal::TooLarge => "more than 8192 bytes",
            Refusal::TooDeep => "nested deeper than 16",
            Refusal::DuplicateName => "a member name twice in one object",
            Refusal::NonFinite => "NaN or Infinity",
            Refusal::LoneSurrogate => "a lone surrogate escape",
        }
    }
}

/// `text` as one strict JSON value, or the first reason it is not.
pub fn parse(text: &[u8]) -> Result<Value, Refusal> {
    if text.len() > MAX_ACTION_BYTES {
        return Err(Refusal::TooLarge);
    }
    let text = std::str::from_utf8(text).map_err(|_| Refusal::Syntax)?;
    let mut parser = Parser {
        bytes: text.as_bytes(),
        at: 0,
    };
    parser.whitespace();
    let value = parser.value(1)?;
    parser.whitespace();
    if parser.at != parser.bytes.len() {
        return Err(Refusal::Syntax);
    }
    Ok(value)
}

/// Members an object's duplicate names are looked for by a scan; past
/// this, by a set.
const SCAN_UP_TO: usize = 16;

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Result<u8, Refusal> {
        let b = self.peek().ok_or(Refusal::Syntax)?;
        self.at += 1;
        Ok(b)
    }

    fn expect(&mut self, b: u8) -> Result<(), Refusal> {
        if self.next()? == b {
            Ok(())
        } else {
            Err(Refusal::Syntax)
        }
    }

    fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn literal(&mut self, word: &[u8]) -> bool {
        if self.bytes.get(self.at..self.at + word.len()) == Some(word) {
            self.at += word.len();
            true
        } else {
            false
        }
    }

    /// A value at nesting `depth` (an array or object here is that deep).
    fn value(&mut self, depth: usize) -> Result<Value, Refusal> {
        match self.peek().ok_or(Refusal::Syntax)? {
            b'{' => {
                if depth > MAX_DEPTH {
                    return Err(Refusal::TooDeep);
                }
                self.object(depth)
            }
            b'[' => {
                if depth > MAX_DEPTH {
                    return Err(Refusal::TooDeep);
                }
                self.array(depth)
            }
            b'"' => self.string().map(Value::String),
            b't' if self.literal(b"true") => Ok(Value::Bool(true)),
            b'f' if self.literal(b"false") => Ok(Value::Bool(false)),
            b'n' if self.literal(b"null") => Ok(Value::Null),
            // what Python's json.loads reads as floats: refused by name, so
            // the judge can say which rule an implementation broke
            b'N' if self.literal(b"NaN") => Err(Refusal::NonFinite),
            b'I' if self.literal(b"Infinity") => Err(Refusal::NonFinite),
            b'-' if self.bytes.get(self.at + 1) == Some(&b'I') => {
                self.at += 1;
                if self.literal(b"Infinity") {
                    Err(Refusal::NonFinite)
                } else {
                    Err(Refusal::Syntax)
                }
            }
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Refusal::Syntax),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, Refusal> {
        self.expect(b'{')?;
        let mut members: Vec<(String, Value)> = Vec::new();
        let mut names: Option<std::collections::HashSet<String>> = None;
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.whitespace();
            if self.peek() != Some(b'"') {
                return Err(Refusal::Syntax);
            }
            let name = self.string()?;
            self.whitespace();
            self.expect(b':')?;
            self.whitespace();
            let value = self.value(depth + 1)?;
            // an action's objects have a handful of members, where a scan
            // is cheapest; a forged one may have a thousand (8 KiB of
            // `"m1":0,`), where a scan would be quadratic
            let repeated = match &mut names {
                Some(set) => !set.insert(name.clone()),
                None => members.iter().any(|(n, _)| *n == name),
            };
            if repeated {
                return Err(Refusal::DuplicateName);
            }
            members.push((name, value));
            if names.is_none() && members.len() == SCAN_UP_TO {
                names = Some(members.iter().map(|(n, _)| n.clone()).collect());
            }
            self.whitespace();
            match self.next()? {
                b',' => continue,
                b'}' => return Ok(Value::Object(members)),
                _ => return Err(Refusal::Syntax),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, Refusal> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.whitespace();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.whitespace();
            items.push(self.value(depth + 1)?);
            self.whitespace();
            match self.next()? {
                b',' => continue,
                b']' => return Ok(Value::Array(items)),
                _ => return Err(Refusal::Syntax),
            }
        }
    }

    fn number(&mut self) -> Result<Value, Refusal> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.next()? {
            b'0' => {}
            b'1'..=b'9' => self.digits(),
            _ => return Err(Refusal::Syntax),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.one_or_more_digits()?;
            integer = false;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.one_or_more_digits()?;
            integer = false;
        }
        if !integer {
            return Ok(Value::Float);
        }
        let token = self.bytes.get(start..self.at).ok_or(Refusal::Syntax)?;
        // ASCII digits and a sign: always UTF-8; a value past i64 is out of
        // every range the contract has
        let text = std::str::from_utf8(token).map_err(|_| Refusal::Syntax)?;
        Ok(Value::Integer(text.parse::<i64>().ok()))
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
    }

    fn one_or_more_digits(&mut self) -> Result<(), Refusal> {
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return Err(Refusal::Syntax);
        }
        self.digits();
        Ok(())
    }

    fn string(&mut self) -> Result<String, Refusal> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let start = self.at;
            // the run of plain characters up to a quote, a backslash or a
            // control character (which JSON does not allow raw)
            while matches!(self.peek(), Some(b) if b != b'"' && b != b'\\' && b >= 0x20) {
                self.at += 1;
            }
            let run = self.bytes.get(start..self.at).ok_or(Refusal::Syntax)?;
            // the input is a &str and the run stops only at ASCII bytes
            out.push_str(std::str::from_utf8(run).map_err(|_| Refusal::Syntax)?);
            match self.next()? {
                b'"' => return Ok(out),
                b'\\' => self.escape(&mut out)?,
                _ => return Err(Refusal::Syntax),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), Refusal> {
        let c = match self.next()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let unit = self.hex4()?;
                match unit {
                    0xD800..=0xDBFF => {
                        // a high surrogate stands only before a low one
                        if !self.literal(b"\\u") {
                            return Err(Refusal::LoneSurrogate);
                        }
                        let low = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(Refusal::LoneSurrogate);
                        }
                        let cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        char::from_u32(cp).ok_or(Refusal::Syntax)?
                    }
                    0xDC00..=0xDFFF => return Err(Refusal::LoneSurrogate),
                    _ => char::from_u32(unit).ok_or(Refusal::Syntax)?,
                }
            }
            _ => return Err(Refusal::Syntax),
        };
        out.push(c);
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, Refusal> {
        let mut unit = 0u32;
        for _ in 0..4 {
            let digit = char::from(self.next()?)
                .to_digit(16)
                .ok_or(Refusal::Syntax)?;
            unit = unit * 16 + digit;
        }
        Ok(unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: Result<Value, Refusal>) {
        assert_eq!(parse(text.as_bytes()), expected, "{text:?}");
    }

    #[test]
    fn numbers_are_integers_or_floats_as_written() {
        check("1", Ok(Value::Integer(Some(1))));
        check("-0", Ok(Value::Integer(Some(0))));
        check("1.0", Ok(Value::Float));
        check("1e0", Ok(Value::Float));
        check("1e400", Ok(Value::Float));
        check(&"9".repeat(5000), Ok(Value::Integer(None)));
        check("01", Err(Refusal::Syntax));
        check("1.", Err(Refusal::Syntax));
        check("+1", Err(Refusal::Syntax));
    }

    #[test]
    fn the_refusals_are_told_apart() {
        check(r#"{"a":1,"a":2}"#, Err(Refusal::DuplicateName));
        check(r#"{"a":{"b":1,"b":1}}"#, Err(Refusal::DuplicateName));
        check(r#"{"a\u0062":1,"ab":2}"#, Err(Refusal::DuplicateName));
        // past the scan, in the set
        let many: Vec<String> = (0..40).map(|i| format!("\"m{i}\":0")).collect();
        assert!(parse(format!("{{{}}}", many.join(",")).as_bytes()).is_ok());
        check(
            &format!("{{{},\"m3\":1}}", many.join(",")),
            Err(Refusal::DuplicateName),
        );
        check(
            &format!("{{{},\"m39\":1}}", many.join(",")),
            Err(Refusal::DuplicateName),
        );
        check("NaN", Err(Refusal::NonFinite));
        check("[-Infinity]", Err(Refusal::NonFinite));
        check(r#""\ud800""#, Err(Refusal::LoneSurrogate));
        check(r#""\udc00x""#, Err(Refusal::LoneSurrogate));
        check(r#""\ud800\u0041""#, Err(Refusal::LoneSurrogate));
        check(r#""\ud83d\ude00""#, Ok(Value::String("😀".into())));
        check("\u{feff}{}", Err(Refusal::Syntax));
        check("", Err(Refusal::Syntax));
        check("{} {}", Err(Refusal::Syntax));
        check("[1,]", Err(Refusal::Syntax));
        check("\"a\u{1}\"", Err(Refusal::Syntax));
    }

    #[test]
    fn depth_and_size_are_bounded() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(deep(16).as_bytes()).is_ok());
        check(&deep(17), Err(Refusal::TooDeep));
        check(&deep(4000), Err(Refusal::TooDeep));
        let padded = |n: usize| format!("{}{}", "{}", " ".repeat(n - 2));
        assert!(parse(padded(8192).as_bytes()).is_ok());
        check(&padded(8193), Err(Refusal::TooLarge));
        assert_eq!(parse(&[b'"', 0xff, b'"']), Err(Refusal::Syntax));
    }
}
