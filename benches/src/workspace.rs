//! Inputs of the workspace bench (`benches/workspace.rs`): trees for the
//! path boundary (`workspace_path`) on the in-memory model and on the
//! disk, files of text for `read`, and what is reported besides time:
//! bytes read (`/proc/self/io`'s `rchar`) and peak heap (a counting
//! allocator the bench installs).
//!
//! The file contents are the repetition of a short pattern cut at the
//! file's size, so that `adapters/node/workspace/read-bench.mjs` writes
//! the same bytes for the JavaScript tools and the two results can be
//! compared by [`fnv1a`].

use crate::heap_count::counted;
use std::io::{Read, Write};
use toolgate_suite::fs_tree::{Base, Entry, EntryKind};
use toolgate_suite::js_string::JsString;
use toolgate_workspace::model::ModelFs;
use toolgate_workspace::tools::truncate;

/// Path depths: components of the candidate path (the last a file).
pub const DEPTHS: &[usize] = &[1, 4, 16, 64, 256, 1024];
/// Symlink chain lengths: `l1 -> l2 -> ... -> ln -> target.txt` (40 is
/// the most one walk follows).
pub const CHAINS: &[usize] = &[1, 2, 4, 8, 16, 32, 40];
/// File sizes of the read bench: 1 KiB, 1 MiB, 64 MiB, 1 GiB.
pub const FILE_SIZES: &[u64] = &[1 << 10, 1 << 20, 64 << 20, 1 << 30];

/// What a read bench file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// A line of source code, ASCII: one code unit per byte (a file of
    /// more than 0x1fffffe8 bytes is over V8's string limit).
    Ascii,
    /// 33 bytes, 14 code units: 3-byte CJK, a 4-byte emoji, `é`, an
    /// invalid byte (one U+FFFD), a line feed; its length cuts sequences
    /// at every power-of-two chunk boundary. 1 GiB of it is 455 M units,
    /// under the string limit: read to the end and truncated.
    Mixed,
}

impl Text {
    pub const ALL: [Text; 2] = [Text::Ascii, Text::Mixed];

    pub fn name(self) -> &'static str {
        match self {
            Text::Ascii => "ascii",
            Text::Mixed => "mixed",
        }
    }

    /// The repeated pattern (the Node script has the same).
    pub fn pattern(self) -> &'static [u8] {
        match self {
            Text::Ascii => b"fn main() { let answer = compute(42); println!(\"{answer}\"); } // toolgate\n",
            Text::Mixed => b"\xe6\xbc\xa2\xe5\xad\x97\xe3\x81\x8b\xe3\x81\xaa\xe4\xba\xa4\xe3\x81\x98\xe3\x82\x8a\xe6\x96\x87\xf0\x9f\x98\x80 \xc3\xa9\xff\n",
        }
    }
}

/// A fresh temporary base holding `ws/` (the workspace root) with one
/// file `ws/<name>`, removed when dropped.
pub struct TextFile {
    base: Base,
    pub root: String,
    pub name: String,
    pub size: u64,
}

impl TextFile {
    /// Writes `size` bytes of `text`'s pattern repeated.
    pub fn new(text: Text, size: u64) -> std::io::Result<TextFile> {
        let base = Base::new("toolgate-bench-read-").map_err(std::io::Error::other)?;
        let root = format!("{}/ws", base.path());
        std::fs::create_dir(&root)?;
        let name = format!("{}-{size}.txt", text.name());
        let mut file = std::io::BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(format!("{root}/{name}"))?,
        );
        let pattern = text.pattern();
        let block: Vec<u8> = pattern
            .iter()
            .copied()
            .cycle()
            .take((1 << 20) + pattern.len())
            .collect();
        let mut written = 0u64;
        while written < size {
            let start = (written % pattern.len() as u64) as usize;
            let n = (size - written).min(1 << 20) as usize;
            file.write_all(&block[start..start + n])?;
            written += n as u64;
        }
        file.flush()?;
        Ok(TextFile {
            base,
            root,
            name,
            size,
        })
    }

    /// The read tool's input.
    pub fn input(&self) -> serde_json::Value {
        serde_json::json!({ "path": self.name })
    }

    pub fn path(&self) -> String {
        format!("{}/{}", self.root, self.name)
    }

    pub fn base(&self) -> &str {
        self.base.path()
    }
}

/// The reference's `read` before it streamed, kept as the same-run
/// baseline: the whole file in memory, decoded whole, then truncated (no
/// string limit: it truncates texts Node refuses).
pub fn read_whole(path: &str) -> JsString {
    match std::fs::read(path) {
        Ok(bytes) => truncate(&JsString::new(&String::from_utf8_lossy(&bytes))),
        Err(e) => JsString::new(&e.to_string()),
    }
}

/// The I/O floor: every byte read in 512 KiB reads, nothing decoded.
pub fn read_bytes_only(path: &str) -> u64 {
    let Ok(mut file) = std::fs::File::open(path) else {
        return 0;
    };
    let mut buf = vec![0u8; 512 * 1024];
    let mut total = 0u64;
    while let Ok(n) = file.read(&mut buf) {
        if n == 0 {
            break;
        }
        total += n as u64;
    }
    total
}

/// FNV-1a (32 bits) over the code units, each as two little-endian bytes:
/// the Node script computes the same on its result.
pub fn fnv1a(units: &[u16]) -> u32 {
    let mut hash = 0x811c_9dc5u32;
    for unit in units {
        for byte in unit.to_le_bytes() {
            hash ^= u32::from(byte);
            hash = hash.wrapping_mul(0x0100_0193);
        }
    }
    hash
}

/// This process's `rchar` (bytes read by read-like system calls), and
/// how many bytes reading it took (counted in the next value).
pub fn rchar() -> (u64, u64) {
    let Ok(io) = std::fs::read_to_string("/proc/self/io") else {
        return (0, 0);
    };
    let value = io
        .lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    (value, io.len() as u64)
}

/// A boundary tree: the same entries on the model and on the disk, and
/// the candidate path to check.
pub struct Tree {
    pub entries: Vec<Entry>,
    pub candidate: String,
}

fn entry(path: String, kind: EntryKind, target: Option<String>) -> Entry {
    Entry {
        path,
        kind,
        target,
        content: None,
    }
}

/// `ws/d/d/.../f`: a candidate of `depth` components, `depth - 1`
/// directories then a file.
pub fn depth_tree(depth: usize) -> Tree {
    let dirs = vec!["d"; depth.saturating_sub(1)].join("/");
    let candidate = if dirs.is_empty() {
        "f".to_owned()
    } else {
        format!("{dirs}/f")
    };
    let mut entries = vec![entry("ws".into(), EntryKind::Dir, None)];
    if !dirs.is_empty() {
        entries.push(entry(format!("ws/{dirs}"), EntryKind::Dir, None));
    }
    entries.push(entry(format!("ws/{candidate}"), EntryKind::File, None));
    Tree { entries, candidate }
}

/// `ws/l1 -> l2 -> ... -> ln -> target.txt`, the candidate `l1`.
pub fn chain_tree(links: usize) -> Tree {
    let mut entries = vec![
        entry("ws".into(), EntryKind::Dir, None),
        entry("ws/target.txt".into(), EntryKind::File, None),
    ];
    for i in 1..=links {
        let target = if i == links {
            "target.txt".to_owned()
        } else {
            format!("l{}", i + 1)
        };
        entries.push(entry(format!("ws/l{i}"), EntryKind::Symlink, Some(target)));
    }
    Tree {
        entries,
        candidate: "l1".into(),
    }
}

/// The model's base directory.
pub const MODEL_BASE: &str = "/bench/base";

impl Tree {
    /// The tree on the in-memory model, under [`MODEL_BASE`]; the root is
    /// `<MODEL_BASE>/ws`.
    pub fn model(&self) -> ModelFs {
        let mut fs = ModelFs::with_base(MODEL_BASE);
        for e in &self.entries {
            if let Err(errno) = fs.make(MODEL_BASE, e, "$BASE") {
                panic!("model tree {}: {}", e.path, errno.name);
            }
        }
        fs
    }

    /// The tree on the disk, in a fresh temporary base (removed when
    /// dropped); the root is `<base>/ws`.
    pub fn disk(&self) -> Base {
        let base = Base::new("toolgate-bench-path-").unwrap_or_else(|e| panic!("{e}"));
        for e in &self.entries {
            if let Err(err) = base.make(e, "$BASE") {
                panic!("disk tree {}: {err}", e.path);
            }
        }
        base
    }
}

/// Runs `f` once with counting on: its result, the peak heap bytes live
/// during it (above what was live before), and the bytes it read (the
/// `rchar` delta less the reading of `/proc/self/io` itself).
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, i64, u64) {
    let (before, own) = rchar();
    let (out, count) = counted(f);
    let (after, _) = rchar();
    (
        out,
        count.peak,
        after.saturating_sub(before).saturating_sub(own),
    )
}
