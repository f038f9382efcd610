//! The path boundary of seed 004, `workspacePath(root, candidate,
//! creating)`, written once over [`Fs`] so that it runs on the real
//! filesystem ([`RealFs`], the reference) and on the in-memory model
//! (`model::ModelFs`, for checks that touch no disk); the property tests
//! require both to answer alike.
//!
//! The seed's order (seed:L69-79): `rootReal = realpath(root)`;
//! `requested = resolve(rootReal, candidate)` (lexical: `..` before any
//! symlink); when creating and `lstat(requested)` fails with `ENOENT`, the
//! nearest existing ancestor of `dirname(requested)` is checked instead
//! (any other error is reported as it is); `realpath` of what is checked;
//! `isInside` by `relative`, else `path escapes workspace`. The result is
//! `requested`: the tools open the path as resolved lexically, not its
//! real path, as the seed's code does (which leaves the check-then-open
//! window the seed names, W21).

use super::node_text::{check_path, NodeError};
use toolgate_suite::fs_tree::{canonical_text, node_dirname, node_resolve, Errno};

/// The escape message (seed:L77).
pub const ESCAPE: &str = "path escapes workspace";

/// The ancestor walk's message when even `/` is missing (seed:L95).
pub const NO_ANCESTOR: &str = "no existing ancestor";

/// What the boundary asks of a filesystem. Paths are absolute and free of
/// NUL bytes (Node refuses those before any system call).
pub trait Fs {
    /// `realpath(3)`.
    fn realpath(&self, path: &str) -> Result<String, Errno>;
    /// Whether `lstat(2)` succeeds.
    fn lstat(&self, path: &str) -> Result<(), Errno>;
}

/// The real filesystem.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealFs;

impl Fs for RealFs {
    fn realpath(&self, path: &str) -> Result<String, Errno> {
        canonical_text(path).map_err(|e| errno_of(&e))
    }

    fn lstat(&self, path: &str) -> Result<(), Errno> {
        std::fs::symlink_metadata(path)
            .map(|_| ())
            .map_err(|e| errno_of(&e))
    }
}

/// An OS error's errno; one the suite does not name is libuv's `UNKNOWN`.
pub fn errno_of(e: &std::io::Error) -> Errno {
    Errno::of(e).unwrap_or(Errno {
        name: "UNKNOWN",
        description: "unknown error",
    })
}

/// `fs.promises.realpath(path)`.
pub fn realpath(fs: &impl Fs, path: &str) -> Result<String, NodeError> {
    check_path(path)?;
    fs.realpath(path)
        .map_err(|errno| NodeError::fs(errno, "realpath", path))
}

/// `fs.promises.lstat(path)`, for its failure only.
pub fn lstat(fs: &impl Fs, path: &str) -> Result<(), NodeError> {
    check_path(path)?;
    fs.lstat(path)
        .map_err(|errno| NodeError::fs(errno, "lstat", path))
}

/// `workspacePath(root, candidate, creating)`: the path the tool then
/// opens, or the failure the tool reports.
pub fn workspace_path(
    fs: &impl Fs,
    root: &str,
    candidate: &str,
    creating: bool,
) -> Result<String, NodeError> {
    let root_real = realpath(fs, root)?;
    let requested = node_resolve(&root_real, candidate);
    let mut checked = requested.clone();
    if creating {
        match lstat(fs, &requested) {
            Ok(()) => {}
            Err(e) if e.errno() == Some(Errno::ENOENT) => {
                checked = nearest_existing_ancestor(fs, node_dirname(&requested))?;
            }
            Err(e) => return Err(e),
        }
    }
    let checked_real = realpath(fs, &checked)?;
    if !is_inside(&root_real, &checked_real) {
        return Err(NodeError::Message(ESCAPE.into()));
    }
    Ok(requested)
}

/// `nearestExistingAncestor(path)` (seed:L86-99).
pub fn nearest_existing_ancestor(fs: &impl Fs, path: &str) -> Result<String, NodeError> {
    let mut current = path.to_owned();
    loop {
        match lstat(fs, &current) {
            Ok(()) => return Ok(current),
            Err(e) if e.errno() == Some(Errno::ENOENT) => {
                let parent = node_dirname(&current).to_owned();
                if parent == current {
                    return Err(NodeError::Message(NO_ANCESTOR.into()));
                }
                current = parent;
            }
            Err(e) => return Err(e),
        }
    }
}

/// `isInside(root, path)` on POSIX: `relative(root, path)` is `""`, or
/// neither `..` nor starts with `../` (it is never absolute on POSIX). For
/// two normalized absolute paths that is: equal, or `path` continues
/// `root` after a `/` (so `<root>-evil` and `<root>..x` siblings are out,
/// and a name starting with `..` inside is in).
pub fn is_inside(root: &str, path: &str) -> bool {
    if root == "/" {
        return true;
    }
    path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::is_inside;

    #[test]
    fn inside_is_relative_without_leading_dot_dot() {
        assert!(is_inside("/b/ws", "/b/ws"));
        assert!(is_inside("/b/ws", "/b/ws/..foo"));
        assert!(is_inside("/", "/etc"));
        assert!(!is_inside("/b/ws", "/b/ws-evil/x"));
        assert!(!is_inside("/b/ws", "/b"));
        assert!(!is_inside("/b/ws", "/b/w"));
    }
}
