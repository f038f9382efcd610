//! The workspace suite's fuzz oracle: the fuzzer's bytes (or a scenario in
//! JSON) through the suite's generator and properties, panicking on a bug,
//! as `toolgate_suite::fuzzing` says. The fuzz target in `fuzz/` is one
//! call; `tests/fuzz_oracle.rs` replays it on seeded bytes, the seed corpus
//! and the committed regressions.

// An oracle reports a bug by panicking: that is the fuzzing protocol.
#![allow(clippy::panic)]

use crate::spec::WorkspaceScenario;
use serde_json::Value as Json;
use toolgate_suite::fuzzing::{suite_target, Size, Verdict};

/// The most `/`-separated segments a path of a fast input has, and the
/// most entries its tree has: a write creates every missing directory
/// of its path and the snapshot walks them all, so a mutated seed with a
/// 2,000-segment path took half a second, and thirty such inputs a fifth
/// of the target's time (measured 2026-12-05 over its working corpus).
const SMALL_PATH_SEGMENTS: usize = 24;
const SMALL_TREE_ENTRIES: usize = 64;

/// The workspace target: a workspace scenario (JSON, or built by
/// `workspace::generate` from the bytes) keeps every property of
/// `workspace::properties::check`: nothing outside the root is created,
/// changed or read, the in-memory model's boundary equals the disk's, and
/// the reference stays within its schema and its own judge. A JSON
/// scenario with a swap is skipped (the seed's check-then-use window,
/// where the reference is warned by design), and so is one with a `bash`
/// call (a fuzzer mutating shell
/// commands would run arbitrary ones on the machine), and so is one whose
/// tree cannot be made.
pub fn workspace(data: &[u8]) -> Verdict {
    target(data, Size::Hostile)
}

/// The workspace target on small scenarios only: the same properties, on
/// scenarios whose paths have at most 24 segments and whose tree has at
/// most 64 entries (every generated one; a mutated seed may grow past
/// them, and is then skipped: the `workspace` target keeps those).
pub fn workspace_fast(data: &[u8]) -> Verdict {
    target(data, Size::Small)
}

fn target(data: &[u8], size: Size) -> Verdict {
    use crate::spec::Tool;
    use crate::{generate, properties, reference};
    suite_target(
        data,
        "not a workspace scenario",
        |scenario: &WorkspaceScenario| {
            if scenario.calls.iter().any(|c| c.tool == Tool::Bash) {
                return Err("a workspace scenario that runs bash");
            }
            // a swap between a check and a use is the seed's known window
            // (WS-RACE-01, a SHOULD): the reference is warned on its own
            // observation by design, so the property does not hold there
            if scenario.calls.iter().any(|c| c.swap.is_some()) {
                return Err("a workspace scenario with a swap");
            }
            // the mark says a result came from outside the root only while
            // nothing else holds it: a call naming it (an error echoes the
            // path) or a file of the root holding it is outside the model
            if names_the_outside_mark(scenario) {
                return Err("a workspace scenario naming the outside mark");
            }
            if size == Size::Small && too_large_to_fuzz_quickly(scenario) {
                return Err("a workspace scenario too large to fuzz quickly");
            }
            reference::check(scenario).map_err(|_| "a workspace scenario the reference refuses")?;
            // a tree the OS refuses to make (an entry under a missing
            // parent) is a malformed scenario, not a bug
            let base = toolgate_suite::fs_tree::Base::new("toolgate-ws-fuzz-")
                .map_err(|_| "no temporary directory")?;
            reference::make_tree(&base, scenario).map_err(|_| "a tree that cannot be made")
        },
        generate::scenario_from_bytes,
        properties::check,
    )
}

/// Whether a scenario has a path (of a call, a tree entry or a symlink's
/// target) of more than [`SMALL_PATH_SEGMENTS`] segments, or a tree of
/// more than [`SMALL_TREE_ENTRIES`] entries.
fn too_large_to_fuzz_quickly(scenario: &WorkspaceScenario) -> bool {
    let long = |path: &str| path.split('/').nth(SMALL_PATH_SEGMENTS).is_some();
    let call_paths =
        (scenario.calls.iter()).filter_map(|c| c.input.as_ref()?.get("path")?.as_str());
    let tree_paths = (scenario.tree.iter())
        .flat_map(|e| std::iter::once(e.path.as_str()).chain(e.target.as_deref()));
    scenario.tree.len() > SMALL_TREE_ENTRIES || call_paths.chain(tree_paths).any(long)
}

/// Whether the text of [`crate::generate::OUTSIDE_MARK`] stands anywhere
/// but in the content of the files outside the root: in a call (its path
/// or content), in the root's name, in any entry's path or link target,
/// or in the content of an entry under one of the root's real paths. The
/// property reads the mark in a result as a leaked file only while
/// nothing else holds it, and an error quotes paths. Found by the fuzz
/// targets on 2026-12-05: a read of a path holding the mark (`workspace`),
/// then a root named `OUTSIDE-SECRETws` whose `realpath` error quoted it
/// (`workspace_fast`).
fn names_the_outside_mark(scenario: &WorkspaceScenario) -> bool {
    use crate::generate::OUTSIDE_MARK;
    let roots = scenario.real_roots();
    let under_a_root = |path: &str| {
        roots
            .iter()
            .any(|r| path == r || path.starts_with(&format!("{r}/")))
    };
    // the scenario without the contents of the files outside the root
    let mut rest = scenario.clone();
    for entry in &mut rest.tree {
        if !under_a_root(&entry.path) {
            entry.content = None;
        }
    }
    serde_json::to_string(&rest).is_ok_and(|t| t.contains(OUTSIDE_MARK))
}

/// The seed a workspace case's scenario gives the fuzz target: the
/// scenario itself, unless a call runs bash or swaps a path, which the
/// target skips (see [`workspace`]).
pub fn seed(scenario: &Json) -> Option<&Json> {
    let calls = scenario["calls"].as_array();
    let any = |what: fn(&Json) -> bool| calls.is_some_and(|calls| calls.iter().any(what));
    let runs_bash = any(|c| c["tool"] == "bash");
    let swaps = any(|c| c.get("swap").is_some());
    (!runs_bash && !swaps).then_some(scenario)
}
