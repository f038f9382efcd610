//! Generated workspace scenarios from a stream of bytes
//! (`arbitrary::Unstructured`), for the fuzz target `workspace`, the
//! property tests and `toolgate run --suite workspace --generate`: a fixed
//! core tree (the root `ws`, a file and a directory inside; `outside` and
//! the look-alike sibling `ws-evil` beside it, every file there holding
//! [`OUTSIDE_MARK`]), hostile symlinks drawn from a vocabulary (out, in,
//! up, absolute, dangling, loops, chains, a link to a file through a
//! trailing slash), the root itself possibly through a symlink, and
//! `read`/`write` calls on hostile paths built from segments (`..` chains,
//! `.`, empty segments, trailing slashes, absolute spellings through
//! `$BASE`, a 256-byte name, NUL, look-alike and case variants, NFC and
//! NFD forms). An exhausted stream answers every choice with its minimum:
//! the core tree and one read of `a.txt`.
//!
//! No generated path resolves lexically above the base (so a real lookup
//! there cannot meet what another program left in the temporary
//! directory), apart from a few fixed absolute paths that only `read`
//! takes (`/etc/passwd`); generated calls never run `bash`, whose commands
//! are not confined by contract.

use super::spec::{Call, Tool, WorkspaceScenario, BASE_VARIABLE};
use arbitrary::{Result, Unstructured};
use serde_json::json;
use toolgate_suite::fs_tree::{resolve_in_tree, Content, Entry, EntryKind};

/// What every file outside the root holds: a read result holding it came
/// from outside the root.
pub const OUTSIDE_MARK: &str = "OUTSIDE-SECRET";
/// What every generated write writes.
pub const WRITTEN: &str = "WRITTEN-BY-A-CALL";

/// The core tree, always made.
const CORE: &[(&str, EntryKind, Option<&str>)] = &[
    ("ws", EntryKind::Dir, None),
    ("ws/a.txt", EntryKind::File, Some("inside a")),
    ("ws/sub", EntryKind::Dir, None),
    ("ws/sub/b.txt", EntryKind::File, Some("inside b")),
    ("outside", EntryKind::Dir, None),
    ("outside/secret.txt", EntryKind::File, Some(OUTSIDE_MARK)),
    ("ws-evil", EntryKind::Dir, None),
    ("ws-evil/x.txt", EntryKind::File, Some(OUTSIDE_MARK)),
];

/// The optional symlinks: `(path, target)`.
const LINKS: &[(&str, &str)] = &[
    ("ws/escape", "../outside"),
    ("ws/write-link", "../outside/secret.txt"),
    ("ws/dangling", "../outside/new.txt"),
    ("ws/up", ".."),
    ("ws/inlink", "sub"),
    ("ws/abs-in", "$BASE/ws/sub"),
    ("ws/abs-out", "$BASE/outside"),
    ("ws/loop", "loop"),
    ("ws/chain1", "chain2"),
    ("ws/chain2", "chain3"),
    ("ws/chain3", "../outside"),
    ("ws/self", "."),
    ("ws/sub/back", "../.."),
    ("ws/sub/home", ".."),
    ("ws/rootlink", "$BASE/ws"),
    ("ws/evil-link", "../ws-evil"),
    ("ws/file-slash", "a.txt/"),
    ("ws/dangling-in", "missing-inside"),
    ("ws/ping", "pong"),
    ("ws/pong", "ping"),
    ("wslink", "ws"),
];

/// Path segments.
const SEGMENTS: &[&str] = &[
    "a.txt",
    "sub",
    "b.txt",
    "..",
    ".",
    "",
    "escape",
    "write-link",
    "dangling",
    "up",
    "inlink",
    "abs-in",
    "abs-out",
    "loop",
    "chain1",
    "self",
    "back",
    "home",
    "rootlink",
    "evil-link",
    "file-slash",
    "dangling-in",
    "ping",
    "ws",
    "ws-evil",
    "outside",
    "secret.txt",
    "x.txt",
    "new.txt",
    "new",
    "WS",
    "A.TXT",
    "w\u{0455}",
    "..foo",
    "caf\u{e9}",
    "cafe\u{301}",
    "a\0b",
    "\\..",
    "~",
];

/// Absolute paths outside the base only `read` takes.
const FOREIGN: &[&str] = &["/etc/passwd", "/", "/no-such-top-xyz/a.txt"];

/// A generated scenario from `data`.
pub fn scenario_from_bytes(data: &[u8]) -> WorkspaceScenario {
    let mut u = Unstructured::new(data);
    generate(&mut u).unwrap_or_else(|_| minimal())
}

fn entry(path: &str, kind: EntryKind, text: Option<&str>, target: Option<&str>) -> Entry {
    Entry {
        path: path.into(),
        kind,
        target: target.map(str::to_owned),
        content: text.map(|t| Content::Text(t.to_owned())),
    }
}

fn core() -> Vec<Entry> {
    CORE.iter()
        .map(|(path, kind, text)| entry(path, *kind, *text, None))
        .collect()
}

fn minimal() -> WorkspaceScenario {
    WorkspaceScenario {
        tree: core(),
        root: None,
        shell: None,
        approval: Default::default(),
        calls: vec![Call {
            tool: Tool::Read,
            input: Some(json!({"path": "a.txt"})),
            abort: None,
            swap: None,
        }],
    }
}

fn generate(u: &mut Unstructured<'_>) -> Result<WorkspaceScenario> {
    let mut tree = core();
    let mut with_root_link = false;
    for (path, target) in LINKS {
        if u.ratio(1, 3)? {
            with_root_link |= *path == "wslink";
            tree.push(entry(path, EntryKind::Symlink, None, Some(target)));
        }
    }
    let root = (with_root_link && u.arbitrary()?).then(|| "wslink".to_owned());
    let count = u.int_in_range(1usize..=4)?;
    let mut calls = Vec::with_capacity(count);
    for _ in 0..count {
        let tool = if u.arbitrary()? {
            Tool::Read
        } else {
            Tool::Write
        };
        let path = if tool == Tool::Read && u.ratio(1, 16)? {
            u.choose(FOREIGN)?.to_string()
        } else {
            path(u)?
        };
        let input = match tool {
            Tool::Read => json!({"path": path}),
            _ => json!({"path": path, "content": WRITTEN}),
        };
        calls.push(Call {
            tool,
            input: Some(input),
            abort: None,
            swap: None,
        });
    }
    Ok(WorkspaceScenario {
        tree,
        root,
        shell: None,
        approval: Default::default(),
        calls,
    })
}

/// A path of 1 to 5 segments, possibly absolute through `$BASE`, with a
/// trailing slash or a long name; never above the base lexically.
fn path(u: &mut Unstructured<'_>) -> Result<String> {
    let n = u.int_in_range(1usize..=5)?;
    let mut segments: Vec<String> = Vec::with_capacity(n);
    for _ in 0..n {
        segments.push(if u.ratio(1, 40)? {
            "n".repeat(u.int_in_range(255usize..=256)?)
        } else {
            u.choose(SEGMENTS)?.to_string()
        });
    }
    let absolute = u.ratio(1, 5)?;
    let mut text = segments.join("/");
    if absolute {
        let from = if u.arbitrary()? {
            "$BASE/ws/"
        } else {
            "$BASE/"
        };
        text = format!("{from}{text}");
    }
    if u.ratio(1, 8)? {
        text.push('/');
    }
    // lexically above the base: drop leading segments until it is not
    while above_base(&text) && !segments.is_empty() {
        segments.remove(0);
        text = segments.join("/");
    }
    Ok(text)
}

/// Whether `path` resolves, from the root `$BASE/ws`, above the base.
fn above_base(path: &str) -> bool {
    resolve_in_tree("ws", path, BASE_VARIABLE).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;

    #[test]
    fn generated_scenarios_are_valid_and_observed() {
        let mut outcomes = (false, false);
        for seed in 0u32..60 {
            let bytes: Vec<u8> = (0..200u32)
                .map(|i| (seed.wrapping_mul(2_654_435_761) ^ i.wrapping_mul(40_503)) as u8)
                .collect();
            let s = scenario_from_bytes(&bytes);
            let o = reference::observe(&s).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            for r in &o.results {
                let text = r.text().to_string_lossy();
                outcomes.0 |= text == super::super::boundary::ESCAPE;
                outcomes.1 |= text.starts_with("wrote ");
            }
        }
        assert_eq!(outcomes, (true, true), "escapes and writes both generated");
        assert!(reference::observe(&scenario_from_bytes(&[])).is_ok());
    }

    #[test]
    fn no_generated_path_is_above_the_base() {
        for seed in 0u32..500 {
            let bytes: Vec<u8> = (0..64u32)
                .map(|i| (seed ^ i.wrapping_mul(131)) as u8)
                .collect();
            let mut u = Unstructured::new(&bytes);
            if let Ok(p) = path(&mut u) {
                assert!(!above_base(&p), "{p:?}");
            }
        }
    }
}
