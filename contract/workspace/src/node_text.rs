//! The texts Node 20 gives to the failures the workspace tools meet, so
//! that the reference's results equal a Node implementation's byte for
//! byte: filesystem errors (`<CODE>: <description>, <syscall> '<path>'`),
//! the `TypeError` of a path holding a NUL byte (which quotes the path as
//! `util.inspect` writes a string), and `child_process`' messages.

use toolgate_suite::fs_tree::Errno;
use toolgate_suite::js_string::JsString;

/// A failure of a Node API, as its `error.message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeError {
    /// A libuv filesystem error; `path` is absent for `read(2)` failures
    /// (`EISDIR: illegal operation on a directory, read`).
    Fs {
        errno: Errno,
        syscall: &'static str,
        path: Option<String>,
    },
    /// `ERR_INVALID_ARG_VALUE`: the argument's name, its value and why it
    /// is refused (`NodeError::nul_in_path`, `NodeError::nul_in_argument`).
    InvalidArgValue {
        name: String,
        value: String,
        reason: &'static str,
    },
    /// Any other message, as it is.
    Message(String),
    /// `ERR_FS_FILE_TOO_LARGE` (a `RangeError`) with the file's size:
    /// `File size (<size>) is greater than 2 GiB`. Node 20's
    /// `readFileHandle` (`lib/internal/fs/promises.js`, line 534 in
    /// 20.20.2) throws it after `fstat` when a regular file has more than
    /// `kIoMaxLength` (2 ** 31 - 1) bytes, before any read; the text is
    /// `E('ERR_FS_FILE_TOO_LARGE', 'File size (%s) is greater than 2 GiB')`
    /// of `lib/internal/errors.js`.
    FileTooLarge(u64),
    /// V8's `RangeError: Invalid string length`: `readFileHandle`'s
    /// `result += decoder.write(...)` (line 587 in 20.20.2; `decoder.end`
    /// at line 580 for the last read) when the decoded text would have
    /// more than `String::kMaxLength` (0x1fffffe8) UTF-16 code units.
    /// (`ERR_STRING_TOO_LONG`, `Cannot create a string longer than
    /// 0x1fffffe8 characters`, is what `readFileSync` and the callback
    /// `readFile` throw, on the byte count; `fs.promises` never does.)
    InvalidStringLength,
}

impl NodeError {
    pub fn fs(errno: Errno, syscall: &'static str, path: &str) -> NodeError {
        NodeError::Fs {
            errno,
            syscall,
            path: Some(path.to_owned()),
        }
    }

    /// `error.message`.
    pub fn message(&self) -> JsString {
        match self {
            NodeError::Fs {
                errno,
                syscall,
                path: Some(path),
            } => JsString::new(&format!(
                "{}: {}, {syscall} '{path}'",
                errno.name, errno.description
            )),
            NodeError::Fs {
                errno,
                syscall,
                path: None,
            } => JsString::new(&format!("{}: {}, {syscall}", errno.name, errno.description)),
            NodeError::InvalidArgValue {
                name,
                value,
                reason,
            } => invalid_arg_value(name, value, reason),
            NodeError::Message(text) => JsString::new(text),
            NodeError::FileTooLarge(size) => {
                JsString::new(&format!("File size ({size}) is greater than 2 GiB"))
            }
            NodeError::InvalidStringLength => JsString::new("Invalid string length"),
        }
    }

    /// A path with a NUL byte, as `fs` refuses it.
    pub fn nul_in_path(path: &str) -> NodeError {
        NodeError::InvalidArgValue {
            name: "path".to_owned(),
            value: path.to_owned(),
            reason: "must be a string, Uint8Array, or URL without null bytes",
        }
    }

    /// An argument of `spawn` with a NUL byte (`name` as Node names it,
    /// `args[1]`), as `child_process` refuses it.
    pub fn nul_in_argument(name: &str, value: &str) -> NodeError {
        NodeError::InvalidArgValue {
            name: name.to_owned(),
            value: value.to_owned(),
            reason: "must be a string without null bytes",
        }
    }

    /// The errno, for a filesystem error.
    pub fn errno(&self) -> Option<Errno> {
        match self {
            NodeError::Fs { errno, .. } => Some(*errno),
            _ => None,
        }
    }
}

/// `ERR_INVALID_ARG_VALUE`'s message: `The argument '<name>' <reason>.
/// Received <util.inspect(value)>`, the inspected value cut at 128 code
/// units (a surrogate pair may be cut) and then followed by `...`.
fn invalid_arg_value(name: &str, value: &str, reason: &str) -> JsString {
    let kind = if name.contains('.') {
        "property"
    } else {
        "argument"
    };
    let mut units: Vec<u16> = format!("The {kind} '{name}' {reason}. Received ")
        .encode_utf16()
        .collect();
    let inspected = inspect_string(&JsString::new(value));
    if inspected.len() > 128 {
        units.extend(inspected.iter().take(128));
        units.extend("...".encode_utf16());
    } else {
        units.extend(inspected);
    }
    JsString::from_units(units)
}

/// Checks a path as Node's fs functions do before any system call.
pub fn check_path(path: &str) -> Result<(), NodeError> {
    if path.contains('\0') {
        return Err(NodeError::nul_in_path(path));
    }
    Ok(())
}

/// `util.inspect(s)` with the default options, as UTF-16 code units: the
/// quote is `'`, else `"` when `s` has a `'`, else `` ` `` when it has both
/// (else `'` with `\'`); controls, DEL and C1 as `\xNN` (`\b \t \n \f \r`
/// by name), `\` doubled, lone surrogates as `\udXXX`; a string over
/// 10,000 code units is cut with `... N more characters`; one over 124
/// code units with line feeds is split after each into quoted pieces
/// joined by ` +\n`.
pub fn inspect_string(s: &JsString) -> Vec<u16> {
    const MAX_STRING_LENGTH: usize = 10_000;
    let all = s.units();
    let (value, trailer) = if all.len() > MAX_STRING_LENGTH {
        let remaining = all.len() - MAX_STRING_LENGTH;
        let plural = if remaining > 1 { "s" } else { "" };
        (
            all.get(..MAX_STRING_LENGTH).unwrap_or(all),
            format!("... {remaining} more character{plural}"),
        )
    } else {
        (all, String::new())
    };
    // kMinLineWidth 16, breakLength 128, indentation 0
    let split = value.len() > 16 && value.len() > 128 - 4;
    let mut out = Vec::new();
    if split {
        let mut first = true;
        for line in split_after_line_feeds(value) {
            if !first {
                out.extend(" +\n".encode_utf16());
            }
            first = false;
            out.extend(str_escape(line));
        }
    } else {
        out.extend(str_escape(value));
    }
    out.extend(trailer.encode_utf16());
    out
}

fn split_after_line_feeds(units: &[u16]) -> Vec<&[u16]> {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, &u) in units.iter().enumerate() {
        if u == u16::from(b'\n') {
            lines.push(units.get(start..=i).unwrap_or_default());
            start = i + 1;
        }
    }
    if start < units.len() || lines.is_empty() {
        lines.push(units.get(start..).unwrap_or_default());
    }
    lines
}

fn str_escape(units: &[u16]) -> Vec<u16> {
    let has = |c: char| units.contains(&(c as u16));
    // inspect's quote choice: 39 is ', -2 is ", -1 is `
    let quote: u16 = if !has('\'') {
        u16::from(b'\'')
    } else if !has('"') {
        u16::from(b'"')
    } else if !has('`') && !contains(units, "${") {
        u16::from(b'`')
    } else {
        u16::from(b'\'')
    };
    let escape_single = quote == u16::from(b'\'');
    let mut out = vec![quote];
    let mut i = 0;
    while let Some(&u) = units.get(i) {
        let next = units.get(i + 1).copied();
        let prev = i.checked_sub(1).and_then(|p| units.get(p)).copied();
        match u {
            0x27 if escape_single => out.extend("\\'".encode_utf16()),
            0x5c => out.extend("\\\\".encode_utf16()),
            0x08 => out.extend("\\b".encode_utf16()),
            0x09 => out.extend("\\t".encode_utf16()),
            0x0a => out.extend("\\n".encode_utf16()),
            0x0c => out.extend("\\f".encode_utf16()),
            0x0d => out.extend("\\r".encode_utf16()),
            0x00..=0x1f | 0x7f..=0x9f => out.extend(format!("\\x{u:02X}").encode_utf16()),
            0xd800..=0xdbff if !next.is_some_and(|n| (0xdc00..=0xdfff).contains(&n)) => {
                out.extend(format!("\\u{u:x}").encode_utf16())
            }
            0xdc00..=0xdfff if !prev.is_some_and(|p| (0xd800..=0xdbff).contains(&p)) => {
                out.extend(format!("\\u{u:x}").encode_utf16())
            }
            _ => out.push(u),
        }
        i += 1;
    }
    out.push(quote);
    out
}

fn contains(units: &[u16], needle: &str) -> bool {
    let needle: Vec<u16> = needle.encode_utf16().collect();
    units.windows(needle.len()).any(|w| w == needle.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inspect(s: &str) -> String {
        String::from_utf16_lossy(&inspect_string(&JsString::new(s)))
    }

    /// Written by `node -e 'console.log(util.inspect(s))'` on Node 20.20.2.
    #[test]
    fn inspect_quotes_and_escapes_as_node_does() {
        assert_eq!(inspect("/tmp/a\0b"), r"'/tmp/a\x00b'");
        assert_eq!(inspect("/tmp/it's\0"), r#""/tmp/it's\x00""#);
        assert_eq!(inspect("/tmp/q'\"\0"), r#"`/tmp/q'"\x00`"#);
        assert_eq!(
            inspect("/tmp/\u{1}\u{7f}\u{85}\u{2028}é\0\n\t\\"),
            "'/tmp/\\x01\\x7F\\x85\u{2028}é\\x00\\n\\t\\\\'"
        );
    }

    #[test]
    fn long_messages_are_cut_at_128_code_units() {
        let path = format!("/tmp/{}\0", "x".repeat(200));
        let message = NodeError::nul_in_path(&path).message().to_string_lossy();
        assert!(message.ends_with(&format!("Received '/tmp/{}...", "x".repeat(122))));
    }
}
