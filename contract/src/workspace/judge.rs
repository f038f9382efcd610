//! The workspace suite's judge: an implementation's observation against
//! the reference's, result by result and then the tree, each difference
//! named by the requirement that decided the expected outcome (from the
//! call, its input and the expected text), and every difference in the
//! tree outside the root named `WS-PATH-06`.

use super::bash::ABORTED;
use super::boundary::ESCAPE;
use super::reference::BASH_DENIED;
use super::requirements as r;
use super::spec::{Approval, Call, CallResult, Tool, WorkspaceObservation, WorkspaceScenario};
use super::tools::{INVALID_BASH, INVALID_READ, INVALID_WRITE};
use crate::fs_tree::{node_resolve, EntryKind, Snapshot};
use crate::suites::{Judgement, Violation};
use std::collections::BTreeMap;

/// `actual` against `expected` for `scenario`.
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
    for (i, (call, (want, got))) in scenario
        .calls
        .iter()
        .zip(expected.results.iter().zip(&actual.results))
        .enumerate()
    {
        if want == got {
            continue;
        }
        let requirement = classify(scenario, call, want, got);
        violations.push(Violation::named(
            requirement,
            format!(
                "call {i} ({} {}): expected {}, got {}",
                call.tool.name(),
                input_text(call),
                describe(want),
                describe(got)
            ),
        ));
    }
    violations.extend(tree_violations(scenario, expected, actual));
    Judgement {
        violations,
        ..Judgement::default()
    }
}

fn input_text(call: &Call) -> String {
    call.input
        .as_ref()
        .map_or_else(|| "undefined".to_owned(), |i| i.to_string())
}

fn describe(result: &CallResult) -> String {
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
/// `WS-WRITE-01` when the case writes, else `WS-BASH-01`.
fn tree_violations(
    scenario: &WorkspaceScenario,
    expected: &WorkspaceObservation,
    actual: &WorkspaceObservation,
) -> Vec<Violation> {
    let roots = real_roots(scenario);
    let inside = |path: &str| {
        roots
            .iter()
            .any(|root| path == root || path.starts_with(&format!("{root}/")))
    };
    let want: BTreeMap<&str, &Snapshot> =
        expected.tree.iter().map(|e| (e.path.as_str(), e)).collect();
    let got: BTreeMap<&str, &Snapshot> = actual.tree.iter().map(|e| (e.path.as_str(), e)).collect();
    let writes = scenario.calls.iter().any(|c| c.tool == Tool::Write);
    let mut out = Vec::new();
    for path in want
        .keys()
        .chain(got.keys().filter(|p| !want.contains_key(*p)))
    {
        let (w, g) = (want.get(path), got.get(path));
        if w == g {
            continue;
        }
        let what = match (w, g) {
            (Some(_), None) => format!("{path} is gone"),
            (None, Some(_)) => format!("{path} was made"),
            _ => format!("{path} differs"),
        };
        let requirement = if !inside(path) {
            r::PATH_06
        } else if writes {
            r::WRITE_01
        } else {
            r::BASH_01
        };
        let outside = if requirement == r::PATH_06 {
            " (outside the root)"
        } else {
            ""
        };
        out.push(Violation::named(
            requirement,
            format!("the tree afterwards: {what}{outside}"),
        ));
    }
    out
}

/// The root as the scenario names it, and where it really is when it is a
/// symlink of the tree (followed lexically, within the base).
pub fn real_roots(scenario: &WorkspaceScenario) -> Vec<String> {
    let mut roots = vec![scenario.root().to_owned()];
    let mut at = scenario.root().to_owned();
    for _ in 0..8 {
        let Some(link) = scenario
            .tree
            .iter()
            .find(|e| e.kind == EntryKind::Symlink && e.path == at)
        else {
            break;
        };
        let target = link.target.as_deref().unwrap_or_default();
        let dir = node_resolve("/", &at);
        let parent = crate::fs_tree::node_dirname(&dir).to_owned();
        let resolved = if let Some(rest) = target.strip_prefix("$BASE") {
            node_resolve("/", rest)
        } else {
            node_resolve(&parent, target)
        };
        at = resolved.trim_start_matches('/').to_owned();
        roots.push(at.clone());
    }
    roots
}
