//! The workspace suite's judge: an implementation's observation against
//! the reference's, result by result and then the tree, each difference
//! named by the requirement that decided the expected outcome (from the
//! call, its input and the expected text), and every difference in the
//! tree outside the root named `WS-PATH-06`.
//!
//! An observation graded `portable` (a real tool, whose messages are its
//! own) is compared on the projection instead: each call's outcome,
//! allowed or refused; that an allowed read holds the text the reference
//! read; the tree; and the changes a watcher saw outside the root.

use super::bash::ABORTED;
use super::boundary::ESCAPE;
use super::race;
use super::reference::BASH_DENIED;
use super::requirements as r;
use super::spec::in_roots;
use super::spec::BASE_VARIABLE;
use super::spec::{
    Approval, Call, CallResult, Grading, Tool, WorkspaceObservation, WorkspaceScenario,
};
use super::tools::{INVALID_BASH, INVALID_READ, INVALID_WRITE};
use std::collections::BTreeMap;
use toolgate_suite::fs_tree::{resolve_in_tree, EntryKind, Snapshot};
use toolgate_suite::js_string::JsString;
use toolgate_suite::{Judgement, Violation};

/// `actual` against `expected` for `scenario`: exactly, or on the
/// portable projection when `actual` asks for it. Either way the results
/// call by call, then the tree, then the changes seen outside the root.
pub fn judge(
    scenario: &WorkspaceScenario,
    expected: &WorkspaceObservation,
    actual: &WorkspaceObservation,
) -> Judgement {
    let mut violations = Vec::new();
    if expected.results.len() != actual.results.len() {
        violations.push(Violation::unnamed(format!(
            "{} results where the reference has {}",
            actual.results.len(),
            expected.results.len()
        )));
    }
    let mut notes = Vec::new();
    let mut inside_compared = true;
    for (i, (call, (want, got))) in scenario
        .calls
        .iter()
        .zip(expected.results.iter().zip(&actual.results))
        .enumerate()
    {
        if call.swap.is_some() {
            let verdict = race::swapped_call(&call_text(i, call), call, want, got);
            inside_compared &= want == got;
            violations.extend(verdict.violations);
            notes.extend(verdict.notes);
            continue;
        }
        let difference = match actual.grading {
            Grading::Exact => (want != got).then(|| (classify(scenario, call, want, got), None)),
            Grading::Portable => portable_difference(scenario, &expected.tree, call, want, got)
                .map(|(requirement, what)| (requirement, Some(what))),
        };
        let Some((requirement, what)) = difference else {
            continue;
        };
        let (call_text, want_text, got_text) = (call_text(i, call), describe(want), describe(got));
        violations.push(Violation::named(
            requirement,
            match what {
                None => format!("{call_text}: expected {want_text}, got {got_text}"),
                Some(what) => {
                    format!("{call_text}: {what}; the reference: {want_text}, the tool: {got_text}")
                }
            },
        ));
    }
    violations.extend(tree_violations(scenario, expected, actual, inside_compared));
    if race::is_raced(scenario) {
        violations.extend(race::outside(scenario, expected, actual));
    } else {
        violations.extend(outside_violations(actual));
    }
    if !inside_compared {
        notes.push(
            "the tree inside the root is not compared: after the swap the tool did not do what \
             the seed does"
                .to_owned(),
        );
    }
    Judgement {
        violations,
        notes,
        ..Judgement::default()
    }
}

/// How a message names call `i`.
fn call_text(i: usize, call: &Call) -> String {
    format!("call {i} ({} {})", call.tool.name(), input_text(call))
}

/// How one call's result differs on the projection, and the requirement
/// that difference breaks.
fn portable_difference(
    scenario: &WorkspaceScenario,
    expected_tree: &[Snapshot],
    call: &Call,
    want: &CallResult,
    got: &CallResult,
) -> Option<(&'static str, &'static str)> {
    let CallResult::Returned(want_returned) = want else {
        return Some((r::RESULT_01, "the reference threw"));
    };
    let CallResult::Returned(got_returned) = got else {
        return Some((r::RESULT_01, "a failure thrown instead of returned"));
    };
    match (want_returned.is_error, got_returned.is_error) {
        (true, true) => None,
        (true, false) => Some((
            classify(scenario, call, want, got),
            "allowed where the reference refused",
        )),
        (false, true) => {
            // a refused route through a link is the check's fault, unless
            // the write had directories to make (a tool that makes none
            // refuses it whatever the route)
            let requirement = if through_a_symlink(scenario, call)
                && !(call.tool == Tool::Write && makes_directories(scenario, expected_tree))
            {
                r::PATH_02
            } else {
                classify(scenario, call, want, got)
            };
            Some((requirement, "refused where the reference allowed"))
        }
        (false, false) if call.tool == Tool::Read => {
            let read = &want_returned.content.0;
            let shown = read_witness(read);
            (!holds(&got_returned.content.0, &shown)).then(|| {
                let requirement = if shown.len_units() < read.len_units() {
                    r::READ_02
                } else {
                    r::READ_01
                };
                (requirement, "the content does not hold the file's text")
            })
        }
        (false, false) => None,
    }
}

/// What an allowed read must hold of the reference's text: all of it, or
/// of a truncated text its first [`PORTABLE_HEAD`] code units (a tool may
/// truncate otherwise, with its own notice, and must still return the
/// file's beginning).
pub fn read_witness(read: &JsString) -> JsString {
    let units = read.units();
    let marker: Vec<u16> = "\n[truncated ".encode_utf16().collect();
    let truncated = units.windows(marker.len()).any(|w| w == marker.as_slice());
    if truncated {
        JsString::from_units(
            units
                .iter()
                .take(PORTABLE_HEAD)
                .copied()
                .collect::<Vec<u16>>(),
        )
    } else {
        read.clone()
    }
}

/// Whether `text` has `part` in it (code unit for code unit).
pub fn holds(text: &JsString, part: &JsString) -> bool {
    part.units().is_empty()
        || text
            .units()
            .windows(part.len_units())
            .any(|w| w == part.units())
}

/// The head of a truncated read a portable tool must return.
pub const PORTABLE_HEAD: usize = 1_000;

/// Whether the call's path, resolved lexically from the root, goes
/// through a symlink of the tree (a route the check follows; a tool that
/// refuses it refuses a path whose real location may be inside).
fn through_a_symlink(scenario: &WorkspaceScenario, call: &Call) -> bool {
    let Some(resolved) = call
        .input
        .as_ref()
        .and_then(|i| i.get("path"))
        .and_then(|p| p.as_str())
        .and_then(|path| resolve_in_tree(scenario.root(), path, BASE_VARIABLE))
    else {
        return false;
    };
    let mut prefix = String::new();
    resolved.split('/').any(|name| {
        if !prefix.is_empty() {
            prefix.push('/');
        }
        prefix.push_str(name);
        names_a_symlink(scenario, &format!("$BASE/{prefix}"))
    })
}

/// Whether the reference's tree afterwards has a directory the scenario's
/// tree has not (a write of the case made parents).
fn makes_directories(scenario: &WorkspaceScenario, expected_tree: &[Snapshot]) -> bool {
    expected_tree
        .iter()
        .any(|e| e.kind == EntryKind::Dir && !scenario.tree.iter().any(|t| t.path == e.path))
}

/// Each change the watcher saw outside the root is `WS-PATH-06`.
fn outside_violations(actual: &WorkspaceObservation) -> Vec<Violation> {
    actual
        .outside
        .iter()
        .map(|change| {
            Violation::named(
                r::PATH_06,
                format!("outside the root while read and write ran: {change}"),
            )
        })
        .collect()
}

fn input_text(call: &Call) -> String {
    call.input
        .as_ref()
        .map_or_else(|| "undefined".to_owned(), |i| i.to_string())
}

pub fn describe(result: &CallResult) -> String {
    const SHOWN: usize = 200;
    let (what, text) = match result {
        CallResult::Returned(r) if r.is_error => ("error", r.content.0.to_string_lossy()),
        CallResult::Returned(r) => ("result", r.content.0.to_string_lossy()),
        CallResult::Thrown(t) => ("a thrown error", t.thrown.0.to_string_lossy()),
    };
    let units = result.text().len_units();
    if text.chars().count() > SHOWN {
        let head: String = text.chars().take(SHOWN).collect();
        format!("{what} {head:?}... ({units} code units)")
    } else {
        format!("{what} {text:?}")
    }
}

/// The requirement a differing result breaks.
fn classify(
    scenario: &WorkspaceScenario,
    call: &Call,
    want: &CallResult,
    got: &CallResult,
) -> &'static str {
    let (CallResult::Returned(want), CallResult::Returned(got)) = (want, got) else {
        return r::RESULT_01;
    };
    let want_text = want.content.0.to_string_lossy();
    let got_text = got.content.0.to_string_lossy();
    let invalid = [INVALID_READ, INVALID_WRITE, INVALID_BASH];
    if call.tool == Tool::Bash && scenario.approval == Approval::DenyBashByDefault
        || want_text == BASH_DENIED
        || got_text == BASH_DENIED
    {
        return r::APPROVAL_01;
    }
    if invalid.contains(&want_text.as_str()) {
        return r::INPUT_01;
    }
    if invalid.contains(&got_text.as_str()) {
        return refused_input(call);
    }
    if want_text == ESCAPE {
        return r::PATH_03;
    }
    let path = call
        .input
        .as_ref()
        .and_then(|i| i.get("path"))
        .and_then(|p| p.as_str())
        .unwrap_or_default();
    if got_text == ESCAPE {
        if call.tool == Tool::Read && want_text.starts_with("ENOENT") {
            return r::PATH_07;
        }
        if path.starts_with('/') || path.split('/').any(|c| c == "..") {
            return r::PATH_01;
        }
        return r::PATH_02;
    }
    if let Some(failed) = want_text.strip_prefix("ENOENT: no such file or directory, realpath '") {
        let failed = failed.trim_end_matches('\'');
        let root = format!("$BASE/{}", scenario.root());
        if failed == root {
            return r::ROOT_01;
        }
        if names_a_symlink(scenario, failed) {
            return r::PATH_05;
        }
        return if call.tool == Tool::Read {
            r::PATH_07
        } else {
            r::PATH_04
        };
    }
    if want.is_error && want_text.contains(", lstat '") && call.tool == Tool::Write {
        return r::PATH_04;
    }
    match call.tool {
        Tool::Read if !want.is_error => {
            // a text the reference truncated was truncated wrongly; one it
            // returned whole should have come back unchanged
            if want_text.contains("\n[truncated ") {
                r::READ_02
            } else {
                r::READ_01
            }
        }
        Tool::Write if !want.is_error => r::WRITE_01,
        Tool::Bash => bash_requirement(call, &want_text, want.is_error, &got_text),
        _ => r::ERR_01,
    }
}

/// The requirement an implementation broke by refusing a valid input.
fn refused_input(call: &Call) -> &'static str {
    let Some(fields) = call.input.as_ref().and_then(|i| i.as_object()) else {
        return r::INPUT_01;
    };
    let known: &[&str] = match call.tool {
        Tool::Read => &["path"],
        Tool::Write => &["path", "content"],
        Tool::Bash => &["command"],
    };
    if known
        .iter()
        .any(|k| fields.get(*k).and_then(|v| v.as_str()) == Some(""))
    {
        return r::INPUT_02;
    }
    if fields.keys().any(|k| !known.contains(&k.as_str())) {
        return r::INPUT_03;
    }
    r::INPUT_01
}

fn bash_requirement(call: &Call, want: &str, want_error: bool, got: &str) -> &'static str {
    if want == ABORTED || got == ABORTED {
        return r::BASH_06;
    }
    if want.ends_with("maxBuffer length exceeded") || got.ends_with("maxBuffer length exceeded") {
        return r::BASH_04;
    }
    if want.starts_with("spawn ") {
        return r::ERR_01;
    }
    if want.starts_with("Command failed: ") {
        return if sleeps_past_the_timeout(call) {
            r::BASH_05
        } else {
            r::BASH_03
        };
    }
    if !want_error && (got.starts_with("spawn ") || want.contains("$BASE")) {
        return r::BASH_01;
    }
    if !want_error && sleeps_past_the_timeout(call) {
        return r::BASH_05;
    }
    r::BASH_02
}

/// Whether the command sleeps 10 s or more (the timeout's cases do).
fn sleeps_past_the_timeout(call: &Call) -> bool {
    let command = call
        .input
        .as_ref()
        .and_then(|i| i.get("command"))
        .and_then(|c| c.as_str())
        .unwrap_or_default();
    command.split("sleep ").skip(1).any(|rest| {
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse::<u64>().is_ok_and(|s| s >= 10)
    })
}

/// Whether `path` (`$BASE/...`) is a symlink of the scenario's tree.
fn names_a_symlink(scenario: &WorkspaceScenario, path: &str) -> bool {
    let Some(relative) = path.strip_prefix("$BASE/") else {
        return false;
    };
    scenario
        .tree
        .iter()
        .any(|e| e.kind == EntryKind::Symlink && e.path == relative)
}

/// The tree's differences: outside the root each is `WS-PATH-06`; inside,
/// `WS-WRITE-01` when the case writes, else `WS-BASH-01`. In a scenario
/// with a swap, the tree outside the root is [`race`]'s, and the tree
/// inside is compared only when the tool did what the seed does after the
/// swap (`inside_compared`).
fn tree_violations(
    scenario: &WorkspaceScenario,
    expected: &WorkspaceObservation,
    actual: &WorkspaceObservation,
    inside_compared: bool,
) -> Vec<Violation> {
    let roots = scenario.real_roots();
    let raced = race::is_raced(scenario);
    let writes = scenario.calls.iter().any(|c| c.tool == Tool::Write);
    let mut out = Vec::new();
    for (path, what) in tree_differences(&expected.tree, &actual.tree) {
        let inside = in_roots(&roots, path);
        let requirement = match (inside, raced) {
            (false, true) => continue,
            (true, true) if !inside_compared => continue,
            (false, false) => r::PATH_06,
            (true, _) if writes => r::WRITE_01,
            (true, _) => r::BASH_01,
        };
        let outside = if inside { "" } else { " (outside the root)" };
        out.push(Violation::named(
            requirement,
            format!("the tree afterwards: {what}{outside}"),
        ));
    }
    out
}

/// Each path whose entry differs between two trees, with what differs
/// (`... is gone`, `... was made`, `... differs`), in path order.
pub fn tree_differences<'a>(want: &'a [Snapshot], got: &'a [Snapshot]) -> Vec<(&'a str, String)> {
    // Trees that agree, the usual case, are seen in one pass of equality
    // tests, without ordering the paths: under the fuzzer every ordering
    // comparison of two unequal paths also feeds libFuzzer's memcmp hook
    // (workspace_fast: 590 -> 822 exec/s side by side with this pass, one
    // minute from the seeds, 2026-12-05).
    if want == got {
        return Vec::new();
    }
    let want: BTreeMap<&str, &Snapshot> = want.iter().map(|e| (e.path.as_str(), e)).collect();
    let got: BTreeMap<&str, &Snapshot> = got.iter().map(|e| (e.path.as_str(), e)).collect();
    let mut paths: Vec<&str> = want.keys().chain(got.keys()).copied().collect();
    paths.sort_unstable();
    paths.dedup();
    paths
        .into_iter()
        .filter_map(|path| match (want.get(path), got.get(path)) {
            (w, g) if w == g => None,
            (Some(_), None) => Some((path, format!("{path} is gone"))),
            (None, Some(_)) => Some((path, format!("{path} was made"))),
            _ => Some((path, format!("{path} differs"))),
        })
        .collect()
}
