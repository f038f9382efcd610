//! How the judge reads a scenario with a swap (WS-RACE-01): a symlink to
//! the outside put in place of a path between a tool's check and its use.
//!
//! The seed has this window and says so (W21), so the reference's
//! observation of a swap goes outside, and a faithful tool is warned, not
//! failed (a SHOULD). A tool that checks what it uses (opens beneath the
//! root, checks the opened file) does something else after the swap: it
//! refuses, or returns what it opened before. That is not a difference to
//! fail; so a swapped call is judged on what it did, not on the seed's
//! text: whether it went outside the root (the reference's result again,
//! an allowed read holding the outside file's text, the tree outside
//! changed, a change the watcher saw). Other calls of the scenario are
//! judged as usual.

use super::judge::{describe, holds, read_witness, tree_differences};
use super::requirements as r;
use super::spec::{in_roots, Call, CallResult, Tool, WorkspaceObservation, WorkspaceScenario};
use toolgate_suite::fs_tree::{snapshot_of_entries, Snapshot};
use toolgate_suite::Violation;

/// What the judge says of one part of a raced scenario.
#[derive(Debug, Default)]
pub struct Verdict {
    pub violations: Vec<Violation>,
    /// Differences taken as a safer tool's, each saying why.
    pub notes: Vec<String>,
}

/// Whether the scenario swaps under a call.
pub fn is_raced(scenario: &WorkspaceScenario) -> bool {
    scenario.calls.iter().any(|c| c.swap.is_some())
}

/// A swapped call's result: `want` is the reference's (the seed's, through
/// the swapped link), `got` the tool's; `named` names the call.
pub fn swapped_call(named: &str, call: &Call, want: &CallResult, got: &CallResult) -> Verdict {
    let mut verdict = Verdict::default();
    let (CallResult::Returned(want_returned), CallResult::Returned(got_returned)) = (want, got)
    else {
        if want != got {
            verdict.violations.push(Violation::named(
                r::RESULT_01,
                format!(
                    "{named}: expected {}, got {}",
                    describe(want),
                    describe(got)
                ),
            ));
        }
        return verdict;
    };
    let escaped = |how: &str| {
        Violation::named(
            r::RACE_01,
            format!(
                "{named}: {how} after the swap (the seed's check-then-use window, W21): {}",
                describe(got)
            ),
        )
    };
    if want == got {
        // the reference's use after the swap is outside by construction
        // (`reference::check_swap`): the same result is the same escape
        if !want_returned.is_error {
            verdict.violations.push(escaped(match call.tool {
                Tool::Read => "read the outside file through the swapped link",
                _ => "wrote through the swapped link",
            }));
        }
        return verdict;
    }
    let other = |what: &str| {
        format!(
            "{named}: {what} after the swap, where the reference (through the link) gave {}: {}",
            describe(want),
            describe(got)
        )
    };
    if got_returned.is_error {
        verdict.notes.push(other("refused"));
    } else if call.tool == Tool::Read
        && !want_returned.is_error
        && holds(
            &got_returned.content.0,
            &read_witness(&want_returned.content.0),
        )
    {
        verdict
            .violations
            .push(escaped("returned the outside file's text"));
    } else if call.tool == Tool::Read {
        verdict.notes.push(other("read another text"));
    } else {
        verdict
            .notes
            .push(other("allowed (its effect is judged on the tree)"));
    }
    verdict
}

/// The tree outside the root and the watcher's changes in a raced
/// scenario: outside as the scenario made it, or `WS-RACE-01`.
pub fn outside(
    scenario: &WorkspaceScenario,
    expected: &WorkspaceObservation,
    actual: &WorkspaceObservation,
) -> Vec<Violation> {
    let roots = scenario.real_roots();
    let outside_of = |tree: &[Snapshot]| -> Vec<Snapshot> {
        tree.iter()
            .filter(|e| !in_roots(&roots, &e.path))
            .cloned()
            .collect()
    };
    let got = outside_of(&actual.tree);
    let made = snapshot_of_entries(&scenario.tree).map(|tree| outside_of(&tree));
    let mut violations = Vec::new();
    // a swap never touches the outside itself (its path is below the root)
    let (against, how) = match &made {
        Some(made) if *made == got => (None, ""),
        Some(made) if outside_of(&expected.tree) == got => (Some(made), "as the seed's does"),
        Some(made) => (Some(made), "otherwise than the seed's"),
        // a content the scenario cannot decode: the reference's tree, then
        None => (Some(&expected.tree), "otherwise than the seed's"),
    };
    if let Some(against) = against {
        let changes: Vec<String> = tree_differences(&outside_of(against), &got)
            .into_iter()
            .map(|(_, what)| what)
            .collect();
        if !changes.is_empty() {
            violations.push(Violation::named(
                r::RACE_01,
                format!(
                    "the tree outside the root changed {how} after the swap: {}",
                    changes.join(", ")
                ),
            ));
        }
    }
    violations.extend(actual.outside.iter().map(|change| {
        Violation::named(
            r::RACE_01,
            format!("outside the root while read and write ran (a swap): {change}"),
        )
    }));
    violations
}
