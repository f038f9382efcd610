//! An in-memory model of a POSIX filesystem (directories, files, symlinks)
//! with the path walk of Linux and glibc's `realpath(3)`, so that the
//! boundary (`boundary::workspace_path`) can be computed without touching
//! a disk, and compared with the real one (the property tests build the
//! same tree in both and require the same answers).
//!
//! The walk: components are looked up one by one from `/`; `.` stays,
//! `..` goes to the physical parent (never above `/`); a name longer than
//! 255 bytes is `ENAMETOOLONG`, as is a path of 4,096 bytes or more (for
//! `realpath`, a prefix that long when it is looked up); a
//! lookup under a non-directory is `ENOTDIR`; a missing name is `ENOENT`;
//! a symlink met before the last component, or as the last one when it is
//! followed or the path ends in `/`, is replaced by its target (absolute:
//! from `/`; relative: from the link's directory), and the 41st symlink of
//! one walk is `ELOOP`.

use super::boundary::Fs;
use std::collections::BTreeMap;
use toolgate_suite::fs_tree::{node_resolve, Entry, EntryKind, Errno};

/// `NAME_MAX`.
pub const NAME_MAX: usize = 255;
/// `PATH_MAX` (with its NUL).
pub const PATH_MAX: usize = 4096;
/// Symlinks one walk may follow (`MAXSYMLINKS`, glibc's threshold too).
pub const MAX_SYMLINKS: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Dir,
    File,
    Symlink(String),
}

/// A filesystem of absolute paths; `/` always exists.
#[derive(Debug, Clone, Default)]
pub struct ModelFs {
    nodes: BTreeMap<String, Node>,
}

impl ModelFs {
    /// The directories down to `base` (which exists, empty).
    pub fn with_base(base: &str) -> ModelFs {
        let mut fs = ModelFs::default();
        let mut path = String::new();
        for part in base.split('/').filter(|p| !p.is_empty()) {
            path.push('/');
            path.push_str(part);
            fs.nodes.insert(path.clone(), Node::Dir);
        }
        fs
    }

    /// Makes `entry` under `base` as `fs_tree::Base::make` does on disk
    /// (`variable` in a target stands for `base`); `Err` when the real
    /// call would fail (a missing parent, an existing name).
    pub fn make(&mut self, base: &str, entry: &Entry, variable: &str) -> Result<(), Errno> {
        let path = node_resolve(base, &entry.path);
        match entry.kind {
            EntryKind::Dir => {
                // mkdir -p: every missing ancestor, through symlinks
                let mut at = String::new();
                for part in path.split('/').filter(|p| !p.is_empty()) {
                    at.push('/');
                    at.push_str(part);
                    match self.walk(&at, true) {
                        Ok(real) if self.nodes.get(&real) == Some(&Node::Dir) => {}
                        Ok(_) => return Err(Errno::EEXIST),
                        Err(e) if e == Errno::ENOENT => self.create(&at, Node::Dir)?,
                        Err(e) => return Err(e),
                    }
                }
                Ok(())
            }
            EntryKind::File => self.create(&path, Node::File),
            EntryKind::Symlink => {
                let target = entry.target.as_deref().unwrap_or_default();
                self.create(&path, Node::Symlink(target.replace(variable, base)))
            }
        }
    }

    /// Creates `path` (its parent resolved through symlinks, its last
    /// name not), as `open(O_CREAT|O_EXCL)`, `mkdir` and `symlink` do.
    fn create(&mut self, path: &str, node: Node) -> Result<(), Errno> {
        let (parent, name) = split_last(path);
        let parent = self.walk(parent, true)?;
        if self.nodes.get(&parent).is_some_and(|n| *n != Node::Dir) && parent != "/" {
            return Err(Errno::ENOTDIR);
        }
        let full = join(&parent, name);
        if self.nodes.contains_key(&full) {
            return Err(Errno::EEXIST);
        }
        self.nodes.insert(full, node);
        Ok(())
    }

    fn kind(&self, real: &str) -> Option<&Node> {
        if real == "/" {
            return Some(&Node::Dir);
        }
        self.nodes.get(real)
    }

    /// The physical path `path` names (the last component followed or
    /// not), or the walk's error.
    fn walk(&self, path: &str, follow_last: bool) -> Result<String, Errno> {
        self.walk_as(path, follow_last, Walker::Kernel)
    }

    /// The walk as the kernel does it (the whole path of `PATH_MAX` bytes
    /// or more is refused before any lookup), or as glibc's `realpath`
    /// does it in user space (component by component, each lookup of a
    /// prefix of `PATH_MAX` bytes or more refused: a long path whose first
    /// missing component comes early is `ENOENT`).
    fn walk_as(&self, path: &str, follow_last: bool, walker: Walker) -> Result<String, Errno> {
        if walker == Walker::Kernel && path.len() >= PATH_MAX {
            return Err(Errno::ENAMETOOLONG);
        }
        let mut links = 0usize;
        // components still to walk, in reverse (the next one last)
        let mut todo: Vec<String> = components(path);
        // a trailing slash: the last component must be a directory, and a
        // symlink there is followed
        let mut must_be_dir = path.len() > 1 && path.ends_with('/');
        let mut follow = follow_last || must_be_dir;
        let mut at = if path.starts_with('/') {
            "/".to_owned()
        } else {
            return Err(Errno::ENOENT);
        };
        while let Some(name) = todo.pop() {
            let last = todo.is_empty();
            match self.kind(&at) {
                Some(Node::Dir) => {}
                _ => return Err(Errno::ENOTDIR),
            }
            if name == "." {
                continue;
            }
            if name == ".." {
                at = split_last(&at).0.to_owned();
                continue;
            }
            if name.len() > NAME_MAX {
                return Err(Errno::ENAMETOOLONG);
            }
            let next = join(&at, &name);
            if walker == Walker::Realpath && next.len() >= PATH_MAX {
                return Err(Errno::ENAMETOOLONG);
            }
            match self.kind(&next) {
                None => return Err(Errno::ENOENT),
                Some(Node::Symlink(target)) if !last || follow => {
                    links += 1;
                    if links > MAX_SYMLINKS {
                        return Err(Errno::ELOOP);
                    }
                    if target.ends_with('/') && last {
                        must_be_dir = true;
                        follow = true;
                    }
                    todo.extend(components(target));
                    if target.starts_with('/') {
                        at = "/".to_owned();
                    }
                }
                Some(_) => at = next,
            }
        }
        if must_be_dir && self.kind(&at) != Some(&Node::Dir) {
            return Err(Errno::ENOTDIR);
        }
        Ok(at)
    }
}

/// Who walks a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walker {
    /// A system call (`lstat`, `open`, `mkdir`).
    Kernel,
    /// glibc's `realpath(3)`.
    Realpath,
}

impl Fs for ModelFs {
    fn realpath(&self, path: &str) -> Result<String, Errno> {
        self.walk_as(path, true, Walker::Realpath)
    }

    fn lstat(&self, path: &str) -> Result<(), Errno> {
        self.walk(path, false).map(|_| ())
    }
}

/// The components of `path` to walk, the first one last (so `pop` gives
/// them in order); empty components dropped.
fn components(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|c| !c.is_empty())
        .rev()
        .map(str::to_owned)
        .collect()
}

fn split_last(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(0) => ("/", path.get(1..).unwrap_or_default()),
        Some(i) => (
            path.get(..i).unwrap_or("/"),
            path.get(i + 1..).unwrap_or_default(),
        ),
        None => ("/", path),
    }
}

fn join(dir: &str, name: &str) -> String {
    if dir == "/" {
        format!("/{name}")
    } else {
        format!("{dir}/{name}")
    }
}
