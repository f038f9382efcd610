//! `read` and `write` of seed 004 on the real filesystem, and what the
//! three tools share: the runtime input check (`stringField`), read
//! truncation, UTF-8 decoding as Node decodes it.
//!
//! Each returns a [`CallResult`] and never fails: every failure is the
//! cause's message with `isError` (seed:L40, W7).

use super::boundary::{errno_of, workspace_path, RealFs};
use super::node_text::NodeError;
use super::read_stream;
use super::spec::CallResult;
use serde_json::Value as Json;
use toolgate_suite::fs_tree::{node_dirname, Errno};
use toolgate_suite::js_string::JsString;

/// The most UTF-16 code units `read` returns unchanged (seed:L161).
pub const MAX_READ_CHARS: usize = 16_000;
/// What a truncated read keeps of each end (seed:L152).
pub const READ_KEEP: usize = 8_000;

pub const INVALID_READ: &str = "invalid read input: path must be a string";
pub const INVALID_WRITE: &str = "invalid write input: path and content must be strings";
pub const INVALID_BASH: &str = "invalid bash input: command must be a string";

/// `stringField(input, field)`: the field when the input is a non-null,
/// non-array object and the field a string (an empty one included).
pub fn string_field<'a>(input: Option<&'a Json>, field: &str) -> Option<&'a str> {
    input?.as_object()?.get(field)?.as_str()
}

/// The `read` tool: `readFile(target, 'utf8')` then the truncation,
/// streamed in constant memory (`read_stream`). Every byte of the file is
/// read (the marker counts the code units left out) unless the text
/// passes V8's string limit first.
pub fn read(root: &str, input: Option<&Json>) -> CallResult {
    read_interfered(root, input, &mut || ())
}

/// [`read`], with `between` run after the boundary check and before the
/// open: where the seed's TOCTOU window is (W21, WS-RACE-01), for a
/// scenario's swap.
pub fn read_interfered(root: &str, input: Option<&Json>, between: &mut dyn FnMut()) -> CallResult {
    let Some(path) = string_field(input, "path") else {
        return CallResult::error(INVALID_READ);
    };
    match read_text(root, path, between) {
        Ok(text) => CallResult::ok(text),
        Err(e) => CallResult::error(e.message()),
    }
}

/// The read's truncated text, or its failure.
fn read_text(root: &str, path: &str, between: &mut dyn FnMut()) -> Result<JsString, NodeError> {
    let target = workspace_path(&RealFs, root, path, false)?;
    between();
    // readFile: open(2) names the path; fstat(2) and read(2) failures (a
    // directory's EISDIR) do not
    let file =
        std::fs::File::open(&target).map_err(|e| NodeError::fs(errno_of(&e), "open", &target))?;
    read_stream::read_file(file)
}

/// The read truncation (seed:L149-153): the text when it has at most
/// 16,000 code units, else 8,000 from each end around the marker. On a
/// whole text; `read` computes the same from a stream
/// (`read_stream::StreamTruncation`).
pub fn truncate(text: &JsString) -> JsString {
    let units = text.units();
    if units.len() <= MAX_READ_CHARS {
        return text.clone();
    }
    let head = units.get(..READ_KEEP).unwrap_or_default();
    let tail = units.get(units.len() - READ_KEEP..).unwrap_or_default();
    let marker = format!(
        "\n[truncated {} characters]\n",
        units.len() - MAX_READ_CHARS
    );
    let mut out = Vec::with_capacity(READ_KEEP * 2 + marker.len());
    out.extend_from_slice(head);
    out.extend(marker.encode_utf16());
    out.extend_from_slice(tail);
    JsString::from_units(out)
}

/// The `write` tool.
pub fn write(root: &str, input: Option<&Json>) -> CallResult {
    write_interfered(root, input, &mut || ())
}

/// [`write`], with `between` run after the boundary check and before the
/// directories are made and the file opened (W21, WS-RACE-01).
pub fn write_interfered(root: &str, input: Option<&Json>, between: &mut dyn FnMut()) -> CallResult {
    let (Some(path), Some(content)) = (string_field(input, "path"), string_field(input, "content"))
    else {
        return CallResult::error(INVALID_WRITE);
    };
    match write_text(root, path, content, between) {
        Ok(target) => CallResult::ok(format!(
            "wrote {} characters to {target}",
            content.encode_utf16().count()
        )),
        Err(e) => CallResult::error(e.message()),
    }
}

fn write_text(
    root: &str,
    path: &str,
    content: &str,
    between: &mut dyn FnMut(),
) -> Result<String, NodeError> {
    let target = workspace_path(&RealFs, root, path, true)?;
    between();
    mkdir_recursive(node_dirname(&target))?;
    std::fs::write(&target, content.as_bytes())
        .map_err(|e| NodeError::fs(errno_of(&e), "open", &target))?;
    Ok(target)
}

/// `fs.promises.mkdir(path, {recursive: true})` as Node 20 does it
/// (`MKDirpAsync`): `mkdir` the path; on `ENOENT` make its parent first
/// (a stack of the paths still to make), then it again; `EACCES`,
/// `ENOSPC`, `ENOTDIR` and `EPERM` fail at once; any other failure is
/// judged by `stat`: an existing directory is made, an intermediate path
/// that exists but is not a directory (a file, a dangling link) is
/// `ENOTDIR`, the last path existing as a non-directory is `EEXIST`, and a
/// `stat` failure is its own. The error names the path `mkdir` failed on.
pub fn mkdir_recursive(dir: &str) -> Result<(), NodeError> {
    let mut pending: Vec<String> = Vec::new();
    let mut path = dir.to_owned();
    loop {
        let failed = match std::fs::create_dir(&path) {
            Ok(()) => None,
            Err(e) => Some(errno_of(&e)),
        };
        match failed.map(|e| (e, e.name)) {
            None => {}
            Some((errno, "EACCES" | "ENOSPC" | "ENOTDIR" | "EPERM")) => {
                return Err(NodeError::fs(errno, "mkdir", &path));
            }
            Some((_, "ENOENT")) if node_dirname(&path) != path => {
                let parent = node_dirname(&path).to_owned();
                pending.push(std::mem::replace(&mut path, parent));
                continue;
            }
            Some((errno, _)) => {
                let stat = std::fs::metadata(&path);
                let is_dir = stat.as_ref().is_ok_and(|m| m.is_dir());
                if errno.name == "EEXIST" && !pending.is_empty() && !is_dir {
                    return Err(NodeError::fs(Errno::ENOTDIR, "mkdir", &path));
                }
                match stat {
                    Ok(_) if is_dir => {}
                    Ok(_) => return Err(NodeError::fs(Errno::EEXIST, "mkdir", &path)),
                    Err(e) => return Err(NodeError::fs(errno_of(&e), "mkdir", &path)),
                }
            }
        }
        match pending.pop() {
            Some(next) => path = next,
            None => return Ok(()),
        }
    }
}

/// Bytes a child wrote, as Node's `StringDecoder` gives them to
/// `execFile`: each invalid sequence becomes U+FFFD; an incomplete
/// sequence at the very end becomes U+FFFD too when the stream ended (the
/// decoder is ended with it), and is lost when the stream was destroyed (a
/// timeout or an overflow).
pub fn decode_stream(bytes: &[u8], ended: bool) -> String {
    if ended {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut out = String::new();
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) => {
                out.push_str(text);
                return out;
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                match e.error_len() {
                    Some(n) => {
                        out.push('\u{FFFD}');
                        rest = after.get(n..).unwrap_or_default();
                    }
                    None => return out,
                }
            }
        }
    }
}
