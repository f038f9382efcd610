//! Generated file-queue scenarios from a stream of bytes
//! (`arbitrary::Unstructured`), for `toolgate run --suite pipeline
//! --generate` and the property tests: a tree drawn from a fixed
//! vocabulary (files, a symlinked directory, a file link, a dangling link,
//! a link loop), a cwd, up to two harness environments, and steps that
//! register operations under many spellings of the same few files, release
//! them in any order (some throwing), and make or remove files between
//! registrations. An exhausted stream answers every choice with its
//! minimum: one file, one operation.
//!
//! Every generated scenario is valid: a release names an operation
//! registered and not yet released, a make names a path that is absent
//! and whose parent exists.

use super::{
    Entry, EntryKind, FileQueue, FileQueueScenario, Make, Register, Release, Remove, Step,
};
use arbitrary::{Result, Unstructured};
use std::collections::{BTreeMap, BTreeSet};

/// The optional tree entries, each with what it needs: `(path, kind,
/// target)`. `d` and `d/a` are always there.
const OPTIONAL: &[(&str, EntryKind, Option<&str>)] = &[
    ("d/b", EntryKind::File, None),
    ("a", EntryKind::File, None),
    ("ln", EntryKind::Symlink, Some("d")),
    ("la", EntryKind::Symlink, Some("$ROOT/d/a")),
    ("dangling", EntryKind::Symlink, Some("d/missing")),
    ("loop", EntryKind::Symlink, Some("loop")),
    ("d/sub", EntryKind::Dir, None),
];

/// Spellings an operation may name: relative ones resolve against the cwd
/// (or the env's), `$ROOT/` ones are absolute.
const SPELLINGS: &[&str] = &[
    "$ROOT/d/a",
    "d/a",
    "a",
    "$ROOT/d/b",
    "$ROOT/a",
    "$ROOT/ln/a",
    "$ROOT/la",
    "$ROOT/d/../d/a",
    "$ROOT/d/a/",
    "$ROOT/D/A",
    "$ROOT/d/missing",
    "$ROOT/ln/missing",
    "$ROOT/dangling",
    "$ROOT/loop",
    "$ROOT/d/a/x",
    "./a",
    "$ROOT/d/sub/../a",
    "sub/../a",
    "file://$ROOT/d/a",
];

/// Files a `make` step may create and a `remove` step may delete.
const CHANGING: &[&str] = &["d/missing", "d/a", "a"];

/// Directories a cwd may be.
const CWDS: &[&str] = &["", "d", "ln", "d/sub"];

/// A generated scenario from `data`.
pub fn scenario_from_bytes(data: &[u8]) -> FileQueueScenario {
    let mut u = Unstructured::new(data);
    let file_queue = generate(&mut u).unwrap_or_else(|_| minimal());
    FileQueueScenario { file_queue }
}

fn minimal() -> FileQueue {
    FileQueue {
        tree: base(),
        cwd: String::new(),
        envs: BTreeMap::new(),
        steps: vec![register("op1", "$ROOT/d/a", "codingAgent")],
    }
}

fn base() -> Vec<Entry> {
    vec![
        entry("d", EntryKind::Dir, None),
        entry("d/a", EntryKind::File, None),
    ]
}

fn entry(path: &str, kind: EntryKind, target: Option<&str>) -> Entry {
    Entry {
        path: path.into(),
        kind,
        target: target.map(str::to_owned),
        content: None,
    }
}

fn register(op: &str, path: &str, queue: &str) -> Step {
    Step::Register(Register {
        register: op.into(),
        path: path.into(),
        queue: queue.into(),
    })
}

fn pick<'a>(u: &mut Unstructured<'_>, from: &[&'a str]) -> Result<&'a str> {
    u.choose(from).copied()
}

fn generate(u: &mut Unstructured<'_>) -> Result<FileQueue> {
    let mut tree = base();
    for (path, kind, target) in OPTIONAL {
        if u.arbitrary()? {
            tree.push(entry(path, *kind, *target));
        }
    }
    let present: BTreeSet<String> = tree.iter().map(|e| e.path.clone()).collect();
    let dirs: Vec<&str> = CWDS
        .iter()
        .copied()
        .filter(|c| c.is_empty() || *c == "d" || present.contains(*c))
        .collect();
    let cwd = pick(u, &dirs)?.to_owned();
    let mut envs = BTreeMap::new();
    for name in ["e1", "e2"] {
        if u.ratio(1, 3)? {
            envs.insert(name.to_owned(), pick(u, &dirs)?.to_owned());
        }
    }
    let mut queues = vec!["codingAgent".to_owned()];
    queues.extend(envs.keys().map(|e| format!("harness:{e}")));
    let mut files: BTreeSet<&str> = CHANGING
        .iter()
        .copied()
        .filter(|f| present.contains(*f))
        .collect();
    let (mut held, mut steps) = (Vec::<String>::new(), Vec::new());
    let count = u.int_in_range(1usize..=10)?;
    for n in 1..=count {
        match u.int_in_range(0u8..=9)? {
            // mostly registrations and releases, sometimes a change
            0..=4 => {
                let op = format!("op{n}");
                let path = pick(u, SPELLINGS)?;
                let queue = u.choose(&queues)?.clone();
                steps.push(register(&op, path, &queue));
                held.push(op);
            }
            5..=7 if !held.is_empty() => {
                let at = u.choose_index(held.len())?;
                let op = held.remove(at);
                steps.push(Step::Release(Release {
                    release: op,
                    throw: u.ratio(1, 4)?,
                }));
            }
            8 => {
                let absent: Vec<&str> = CHANGING
                    .iter()
                    .copied()
                    .filter(|f| !files.contains(f))
                    .collect();
                if let Ok(path) = pick(u, &absent) {
                    files.insert(path);
                    steps.push(Step::Make(Make {
                        make: entry(path, EntryKind::File, None),
                    }));
                }
            }
            _ => {
                let there: Vec<&str> = files.iter().copied().collect();
                if let Ok(path) = pick(u, &there) {
                    files.remove(path);
                    steps.push(Step::Remove(Remove {
                        remove: path.into(),
                    }));
                }
            }
        }
    }
    if steps.is_empty() {
        steps.push(register("op1", "$ROOT/d/a", "codingAgent"));
    }
    Ok(FileQueue {
        tree,
        cwd,
        envs,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file_queue::reference;

    #[test]
    fn generated_scenarios_are_valid_and_observed() {
        let mut seen_start_and_reject = (false, false);
        for seed in 0u32..200 {
            let bytes: Vec<u8> = (0..256u32)
                .map(|i| (seed.wrapping_mul(2_654_435_761) ^ i.wrapping_mul(40_503)) as u8)
                .collect();
            let s = scenario_from_bytes(&bytes);
            let o = reference::observe(&s).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            for h in &o.file_queue {
                seen_start_and_reject.0 |= h.start.is_some();
                seen_start_and_reject.1 |= h.reject.is_some();
            }
        }
        assert_eq!(seen_start_and_reject, (true, true));
        assert!(reference::observe(&scenario_from_bytes(&[])).is_ok());
    }
}
