//! Real trees of files, directories and symlinks for the suites whose
//! scenarios run on a filesystem (the pipeline suite's file queue, the
//! workspace suite): the tree entries of their scenarios, made under a fresh
//! temporary base; the tree read back after a run, in the observation's
//! form; Node's POSIX `path.resolve`; and filesystem failures named as Node
//! names them (`error.code`, and libuv's description in `error.message`).
//!
//! The Node side is `adapters/node/fs-tree.mjs`; both follow the formats in
//! `adapters/node/workspace/FORMAT.md` ("tree").

use crate::Error;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

/// A directory, file or symlink at `path` (relative to the base).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Entry {
    pub path: String,
    pub kind: EntryKind,
    /// A symlink's target, given to symlink(2) as written (after the
    /// base's variable is replaced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// A file's bytes (absent: empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EntryKind {
    /// `mkdir -p`.
    Dir,
    /// A regular file (its parent must exist).
    File,
    /// A symbolic link (its parent must exist).
    Symlink,
}

/// A file's content: text (UTF-8), a repeated text, raw bytes in hex, or a
/// list of those, concatenated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Repeat { repeat: String, times: u64 },
    Hex { hex: String },
    Concat(Vec<Content>),
}

/// Contents larger than this are refused (a scenario is not a way to fill
/// the disk).
pub const MAX_CONTENT_BYTES: u64 = 64 << 20;

impl Content {
    /// The bytes of the content.
    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        self.append(&mut out)?;
        Ok(out)
    }

    fn append(&self, out: &mut Vec<u8>) -> Result<(), String> {
        match self {
            Content::Text(text) => out.extend_from_slice(text.as_bytes()),
            Content::Repeat { repeat, times } => {
                let size = (repeat.len() as u64).saturating_mul(*times);
                if size.saturating_add(out.len() as u64) > MAX_CONTENT_BYTES {
                    return Err(format!("a content of more than {MAX_CONTENT_BYTES} bytes"));
                }
                out.reserve(usize::try_from(size).unwrap_or(0));
                for _ in 0..*times {
                    out.extend_from_slice(repeat.as_bytes());
                }
            }
            Content::Hex { hex } => {
                let digits = hex.as_bytes();
                if digits.len() % 2 != 0 {
                    return Err(format!("hex content {hex:?} has an odd number of digits"));
                }
                for pair in digits.chunks(2) {
                    let text = std::str::from_utf8(pair).unwrap_or("??");
                    let byte = u8::from_str_radix(text, 16)
                        .map_err(|_| format!("hex content {hex:?} is not hex"))?;
                    out.push(byte);
                }
            }
            Content::Concat(parts) => {
                for part in parts {
                    part.append(out)?;
                }
            }
        }
        if out.len() as u64 > MAX_CONTENT_BYTES {
            return Err(format!("a content of more than {MAX_CONTENT_BYTES} bytes"));
        }
        Ok(())
    }
}

/// A fresh, empty base directory, removed when dropped; `path` is its real
/// path (no symlink above it, so that `realpath` answers in its spelling).
#[derive(Debug)]
pub struct Base {
    dir: tempfile::TempDir,
    path: String,
}

impl Base {
    /// A new base named `<prefix>XXXXXX` in the temporary directory.
    pub fn new(prefix: &str) -> Result<Base, Error> {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .map_err(|e| Error::model(format!("a temporary base: {e}")))?;
        let real = std::fs::canonicalize(dir.path())
            .map_err(|e| Error::model(format!("the temporary base: {e}")))?;
        let path = real
            .into_os_string()
            .into_string()
            .map_err(|_| Error::model("the temporary base's path is not UTF-8"))?;
        Ok(Base { dir, path })
    }

    /// A new base `<prefix>XXXXXX/base` in the temporary directory: alone
    /// in a directory of its own, as the workspace harness makes it
    /// (`adapters/node/workspace/observe.mjs`), so that what appears beside
    /// it was made by the tools, and its path has the harness's length
    /// (Node cuts a path it shows in a message at 128 code units).
    pub fn alone(prefix: &str) -> Result<Base, Error> {
        let outer = Base::new(prefix)?;
        let path = format!("{}/base", outer.path);
        std::fs::create_dir(&path)
            .map_err(|e| Error::model(format!("the temporary base {path}: {e}")))?;
        Ok(Base {
            dir: outer.dir,
            path,
        })
    }

    /// Its absolute real path, without a trailing slash.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// `relative` under the base.
    pub fn join(&self, relative: &str) -> PathBuf {
        Path::new(&self.path).join(relative)
    }

    /// Makes `entry`; `variable` in a symlink's target stands for the
    /// base's path.
    pub fn make(&self, entry: &Entry, variable: &str) -> io::Result<()> {
        let path = self.join(&entry.path);
        match entry.kind {
            EntryKind::Dir => std::fs::create_dir_all(&path),
            EntryKind::File => {
                let bytes = match &entry.content {
                    Some(content) => content
                        .bytes()
                        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?,
                    None => Vec::new(),
                };
                // exclusively, as the Node harness does: a path listed twice,
                // or a file where a link is, is refused
                use std::io::Write;
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)?
                    .write_all(&bytes)
            }
            EntryKind::Symlink => {
                let target = entry.target.as_deref().ok_or_else(|| {
                    io::Error::new(io::ErrorKind::InvalidInput, "a symlink needs a target")
                })?;
                symlink(&target.replace(variable, &self.path), &path)
            }
        }
    }

    /// The whole tree under the base, as observations hold it; the base's
    /// path in symlink targets is written `variable`.
    pub fn snapshot(&self, variable: &str) -> Result<Vec<Snapshot>, Error> {
        let mut out = Vec::new();
        walk(Path::new(&self.path), "", &self.path, variable, &mut out)
            .map_err(|e| Error::model(format!("reading the tree back: {e}")))?;
        out.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        Ok(out)
    }

    /// Keeps the base on disk (for a failure's reproduction).
    pub fn keep(self) -> PathBuf {
        self.dir.keep()
    }
}

/// Checks a tree entry's path: relative to the base, `/`-separated, no
/// `.`, `..` or empty segment.
pub fn check_relative(path: &str) -> Result<(), String> {
    if path.is_empty()
        || path.contains('\0')
        || path
            .split('/')
            .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err(format!(
            "{path:?}: tree paths are relative to the base, without '.', '..' or empty segments"
        ));
    }
    Ok(())
}

/// One entry of a tree read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Snapshot {
    pub path: String,
    pub kind: EntryKind,
    /// A file's text, when valid UTF-8 of at most [`SNAPSHOT_TEXT_BYTES`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A larger or non-UTF-8 file's size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// ... and its SHA-256, lower-case hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// A symlink's `readlink`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// Files up to this size that are valid UTF-8 are shown as text.
pub const SNAPSHOT_TEXT_BYTES: usize = 4096;

impl Snapshot {
    /// A file's entry from its bytes.
    pub fn file(path: String, bytes: &[u8]) -> Snapshot {
        let text = (bytes.len() <= SNAPSHOT_TEXT_BYTES)
            .then(|| std::str::from_utf8(bytes).ok())
            .flatten();
        let (content, size, sha256) = match text {
            Some(text) => (Some(text.to_owned()), None, None),
            None => (None, Some(bytes.len() as u64), Some(sha256_hex(bytes))),
        };
        Snapshot {
            path,
            kind: EntryKind::File,
            content,
            size,
            sha256,
            target: None,
        }
    }
}

/// The tree `entries` make under a base, as [`Base::snapshot`] reads it
/// back, without touching a disk: each entry, and every directory above it
/// (`mkdir -p`), sorted by path. Exact when no entry is made through a
/// symlink of the list and none is made twice; `None` when a content does
/// not decode.
pub fn snapshot_of_entries(entries: &[Entry]) -> Option<Vec<Snapshot>> {
    let mut out: std::collections::BTreeMap<Vec<u8>, Snapshot> = Default::default();
    let dir = |path: &str| Snapshot {
        path: path.to_owned(),
        kind: EntryKind::Dir,
        content: None,
        size: None,
        sha256: None,
        target: None,
    };
    for entry in entries {
        let mut above = entry.path.as_str();
        while let Some(i) = above.rfind('/') {
            above = above.get(..i).unwrap_or_default();
            out.entry(above.as_bytes().to_vec())
                .or_insert_with(|| dir(above));
        }
        let snapshot = match entry.kind {
            EntryKind::Dir => dir(&entry.path),
            EntryKind::File => {
                let bytes = match &entry.content {
                    Some(content) => content.bytes().ok()?,
                    None => Vec::new(),
                };
                Snapshot::file(entry.path.clone(), &bytes)
            }
            EntryKind::Symlink => Snapshot {
                kind: EntryKind::Symlink,
                target: entry.target.clone(),
                ..dir(&entry.path)
            },
        };
        out.insert(entry.path.as_bytes().to_vec(), snapshot);
    }
    Some(out.into_values().collect())
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn walk(
    dir: &Path,
    prefix: &str,
    base: &str,
    variable: &str,
    out: &mut Vec<Snapshot>,
) -> io::Result<()> {
    for item in std::fs::read_dir(dir)? {
        let item = item?;
        let name = item.file_name().into_string().map_err(|name| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("a name that is not UTF-8: {name:?}"),
            )
        })?;
        let path = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let meta = std::fs::symlink_metadata(item.path())?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(item.path())?
                .into_os_string()
                .into_string()
                .map_err(|t| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("a link target that is not UTF-8: {t:?}"),
                    )
                })?;
            out.push(Snapshot {
                path,
                kind: EntryKind::Symlink,
                content: None,
                size: None,
                sha256: None,
                target: Some(target.replace(base, variable)),
            });
        } else if meta.is_dir() {
            walk(&item.path(), &path, base, variable, out)?;
            out.push(Snapshot {
                path,
                kind: EntryKind::Dir,
                content: None,
                size: None,
                sha256: None,
                target: None,
            });
        } else if meta.is_file() {
            out.push(Snapshot::file(path, &std::fs::read(item.path())?));
        } else {
            // a FIFO or a socket a command made: reading it could block
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("{path} is neither a directory, a regular file nor a symlink"),
            ));
        }
    }
    Ok(())
}

#[cfg(unix)]
fn symlink(target: &str, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_target: &str, _link: &Path) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "trees with symlinks need POSIX symlinks",
    ))
}

/// `realpath(3)` of `path`, as text.
pub fn canonical_text(path: &str) -> io::Result<String> {
    let real = std::fs::canonicalize(path)?;
    real.into_os_string()
        .into_string()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a path that is not UTF-8"))
}

/// An errno Node reports, with its name (`error.code`) and libuv's
/// description (the middle of `error.message`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Errno {
    pub name: &'static str,
    pub description: &'static str,
}

const fn errno(name: &'static str, description: &'static str) -> Errno {
    Errno { name, description }
}

impl Errno {
    pub const ENOENT: Errno = errno("ENOENT", "no such file or directory");
    pub const ENOTDIR: Errno = errno("ENOTDIR", "not a directory");
    pub const EISDIR: Errno = errno("EISDIR", "illegal operation on a directory");
    pub const ELOOP: Errno = errno("ELOOP", "too many symbolic links encountered");
    pub const EACCES: Errno = errno("EACCES", "permission denied");
    pub const EPERM: Errno = errno("EPERM", "operation not permitted");
    pub const EINVAL: Errno = errno("EINVAL", "invalid argument");
    pub const ENAMETOOLONG: Errno = errno("ENAMETOOLONG", "name too long");
    pub const EEXIST: Errno = errno("EEXIST", "file already exists");

    /// The errnos the filesystem suites meet, as libuv describes them
    /// (`uv_strerror`, which Node's messages quote; glibc's `strerror` words
    /// them differently).
    const ALL: &'static [(i32, Errno)] = &[
        (libc::ENOENT, Errno::ENOENT),
        (libc::ENOTDIR, Errno::ENOTDIR),
        (libc::EISDIR, Errno::EISDIR),
        (libc::ELOOP, Errno::ELOOP),
        (libc::EACCES, Errno::EACCES),
        (libc::EPERM, Errno::EPERM),
        (libc::EINVAL, Errno::EINVAL),
        (libc::ENAMETOOLONG, Errno::ENAMETOOLONG),
        (libc::EEXIST, Errno::EEXIST),
        (libc::ENOTEMPTY, errno("ENOTEMPTY", "directory not empty")),
        (libc::ENOSPC, errno("ENOSPC", "no space left on device")),
        (libc::EROFS, errno("EROFS", "read-only file system")),
        (libc::EBUSY, errno("EBUSY", "resource busy or locked")),
        (libc::ETXTBSY, errno("ETXTBSY", "text file is busy")),
    ];

    /// The errno of an OS error, if it is one the suites name.
    pub fn of(e: &io::Error) -> Option<Errno> {
        let raw = e.raw_os_error()?;
        Errno::ALL.iter().find(|(n, _)| *n == raw).map(|(_, e)| *e)
    }

    /// The errno of an OS error, or an error saying it is not modelled.
    pub fn named(e: &io::Error, what: &str) -> Result<Errno, Error> {
        Errno::of(e)
            .ok_or_else(|| Error::model(format!("{what} failed in a way not modelled: {e}")))
    }
}

/// Node's POSIX `path.resolve(cwd, p)` (`cwd` absolute): `p` if absolute,
/// else `cwd/p`, normalized (`.` and empty segments dropped, `..` pops,
/// never above `/`), without a trailing slash.
pub fn node_resolve(cwd: &str, p: &str) -> String {
    let joined = if p.starts_with('/') {
        p.to_owned()
    } else {
        format!("{cwd}/{p}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The tree path (relative to the base; `""` is the base itself) that
/// `path` names when Node resolves it lexically (`path.resolve`) from the
/// tree directory `from`, with every `variable` in it standing for the
/// base's absolute path (as the harnesses substitute it); `None` when it
/// leads above the base or to an absolute path elsewhere. Symlinks are not
/// followed: this is where a path or a link's target points on paper.
pub fn resolve_in_tree(from: &str, path: &str, variable: &str) -> Option<String> {
    // a stand-in for the base no tree path can spell (a NUL byte)
    const BASE: &str = "/\0base";
    let cwd = if from.is_empty() {
        BASE.to_owned()
    } else {
        format!("{BASE}/{from}")
    };
    let resolved = node_resolve(&cwd, &path.replace(variable, BASE));
    if resolved == BASE {
        return Some(String::new());
    }
    resolved
        .strip_prefix(BASE)
        .and_then(|rest| rest.strip_prefix('/'))
        .map(str::to_owned)
}

/// The tree directory a tree path is in: `ws` for `ws/a.txt`, `""` (the
/// base) for `ws`.
pub fn tree_dirname(path: &str) -> &str {
    path.rfind('/').and_then(|i| path.get(..i)).unwrap_or("")
}

/// Node's POSIX `path.dirname(p)` for an absolute, normalized `p`.
pub fn node_dirname(p: &str) -> &str {
    match p.rfind('/') {
        Some(0) | None => "/",
        Some(i) => p.get(..i).unwrap_or("/"),
    }
}

#[cfg(test)]
mod tests {
    use super::{resolve_in_tree, tree_dirname};

    #[test]
    fn paths_resolve_in_the_tree_lexically_or_not_at_all() {
        let cases = [
            ("ws", "a.txt", Some("ws/a.txt")),
            ("ws", "escape/../a.txt", Some("ws/a.txt")),
            ("ws", "..", Some("")),
            ("ws", "../outside/x", Some("outside/x")),
            ("ws", "../..", None),
            ("ws", "/etc/passwd", None),
            ("ws", "$BASE/ws/sub", Some("ws/sub")),
            ("ws", "$BASE/../x", None),
            ("", "ws//a/./b/", Some("ws/a/b")),
            ("ws/sub", "../../ws-evil", Some("ws-evil")),
        ];
        for (from, path, want) in cases {
            assert_eq!(
                resolve_in_tree(from, path, "$BASE").as_deref(),
                want,
                "{from} {path}"
            );
        }
        assert_eq!(tree_dirname("ws/a.txt"), "ws");
        assert_eq!(tree_dirname("ws"), "");
    }
}
