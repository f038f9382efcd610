//! The reference's observation of a workspace scenario: the tree made for
//! real under a fresh base, the three tools of seed 004 run on it call by
//! call (behind the scenario's approval hook), the results with the base's
//! path written `$BASE`, and the whole base read back.

use super::bash::bash;
use super::spec::{
    in_roots, Approval, Call, CallResult, Grading, Swap, Tool, WorkspaceObservation,
    WorkspaceScenario, BASE_VARIABLE,
};
use super::tools::{read_interfered, write_interfered};
use serde_json::Value as Json;
use toolgate_suite::fs_tree::{check_relative, resolve_in_tree, tree_dirname, Base, EntryKind};
use toolgate_suite::js_string::JsString;
use toolgate_suite::Error;

/// The approval policy's refusal (seed:L203, W34).
pub const BASH_DENIED: &str = "bash requires an explicit approval policy";

/// Whether the scenario is one the reference runs: tree paths relative and
/// plain, symlinks with a target, the root inside the base, an absolute
/// shell, aborts on bash calls only, swaps the judge can read
/// ([`check_swap`]).
pub fn check(scenario: &WorkspaceScenario) -> Result<(), Error> {
    for (i, entry) in scenario.tree.iter().enumerate() {
        let at = |what: String| Error::scenario(format!("/tree/{i}: {what}"));
        check_relative(&entry.path).map_err(at)?;
        match entry.kind {
            EntryKind::Symlink => match entry.target.as_deref() {
                Some(t) if !t.is_empty() && !t.contains('\0') => {}
                _ => return Err(at("a symlink needs a non-empty target without NUL".into())),
            },
            _ if entry.target.is_some() => return Err(at("only a symlink has a target".into())),
            _ => {}
        }
        if entry.content.is_some() && entry.kind != EntryKind::File {
            return Err(at("only a file has a content".into()));
        }
        if let Some(content) = &entry.content {
            content.bytes().map_err(at)?;
        }
    }
    check_relative(scenario.root()).map_err(|e| Error::scenario(format!("/root: {e}")))?;
    if let Some(shell) = &scenario.shell {
        if !shell.starts_with('/') || shell.contains('\0') {
            return Err(Error::scenario(format!(
                "/shell: {shell:?} is not an absolute path"
            )));
        }
    }
    for (i, call) in scenario.calls.iter().enumerate() {
        if call.abort.is_some() && call.tool != Tool::Bash {
            return Err(Error::scenario(format!(
                "/calls/{i}/abort: only a bash call takes a signal"
            )));
        }
        if let Some(swap) = &call.swap {
            check_swap(scenario, call, swap)
                .map_err(|e| Error::scenario(format!("/calls/{i}/swap: {e}")))?;
        }
    }
    Ok(())
}

/// A swap is one the judge can read: on a read or write whose path, on
/// paper, goes through `swap.path`; that path strictly below the root;
/// the target leading outside it (WS-RACE-01).
fn check_swap(scenario: &WorkspaceScenario, call: &Call, swap: &Swap) -> Result<(), String> {
    if call.tool == Tool::Bash {
        return Err("only a read or a write is swapped under".into());
    }
    check_relative(&swap.path)?;
    if swap.target.is_empty() || swap.target.contains('\0') {
        return Err("the target is a non-empty text without NUL".into());
    }
    let roots = scenario.real_roots();
    if roots.contains(&swap.path) || !in_roots(&roots, &swap.path) {
        return Err(format!("{:?} is not below the root", swap.path));
    }
    let route = call
        .input
        .as_ref()
        .and_then(|i| i.get("path"))
        .and_then(|p| p.as_str())
        .map(|path| {
            roots
                .iter()
                .filter_map(|root| resolve_in_tree(root, path, BASE_VARIABLE))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if !route
        .iter()
        .any(|r| in_roots(std::slice::from_ref(&swap.path), r))
    {
        return Err(format!(
            "{:?} is not on the call's path (resolved: {route:?})",
            swap.path
        ));
    }
    match resolve_in_tree(tree_dirname(&swap.path), &swap.target, BASE_VARIABLE) {
        Some(to) if in_roots(&roots, &to) => Err(format!(
            "the target {:?} leads inside the root ({to:?})",
            swap.target
        )),
        _ => Ok(()),
    }
}

/// Makes the scenario's tree under `base`; the error names the entry the
/// OS refused (a missing parent, a name made twice).
pub fn make_tree(base: &Base, scenario: &WorkspaceScenario) -> Result<(), Error> {
    for (i, entry) in scenario.tree.iter().enumerate() {
        base.make(entry, BASE_VARIABLE)
            .map_err(|e| Error::scenario(format!("/tree/{i} ({:?}): {e}", entry.path)))?;
    }
    Ok(())
}

/// The observation of `scenario` on the real filesystem.
pub fn observe(scenario: &WorkspaceScenario) -> Result<WorkspaceObservation, Error> {
    check(scenario)?;
    let base = Base::alone("toolgate-ws-")?;
    make_tree(&base, scenario)?;
    let root = format!("{}/{}", base.path(), scenario.root());
    let mut results = Vec::with_capacity(scenario.calls.len());
    for (i, call) in scenario.calls.iter().enumerate() {
        let mut swapped = Ok(());
        let mut between = || {
            if let Some(swap) = &call.swap {
                swapped = swap.make(base.path(), BASE_VARIABLE);
            }
        };
        let result = run_call(scenario, &root, base.path(), call, &mut between);
        swapped.map_err(|e| Error::scenario(format!("/calls/{i}/swap: {e}")))?;
        results.push(result.map_text(|text| replace(text, base.path(), BASE_VARIABLE)));
    }
    Ok(WorkspaceObservation {
        results,
        tree: base.snapshot(BASE_VARIABLE)?,
        // the reference never touches anything outside the root
        grading: Grading::Exact,
        outside: Vec::new(),
    })
}

/// One call; `between` runs between a read's or write's boundary check
/// and its use (only when the check passed).
fn run_call(
    scenario: &WorkspaceScenario,
    root: &str,
    base: &str,
    call: &Call,
    between: &mut dyn FnMut(),
) -> CallResult {
    let input = call.input.as_ref().map(|i| substitute(i, base));
    let input = input.as_ref();
    match call.tool {
        Tool::Bash if scenario.approval == Approval::DenyBashByDefault => {
            CallResult::error(BASH_DENIED)
        }
        Tool::Read => read_interfered(root, input, between),
        Tool::Write => write_interfered(root, input, between),
        Tool::Bash => bash(root, input, scenario.shell.as_deref(), call.abort),
    }
}

/// `input` with `$BASE` in every string (keys excepted) replaced by `base`.
pub fn substitute(input: &Json, base: &str) -> Json {
    match input {
        Json::String(s) => Json::String(s.replace(BASE_VARIABLE, base)),
        Json::Array(items) => Json::Array(items.iter().map(|i| substitute(i, base)).collect()),
        Json::Object(map) => Json::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), substitute(v, base)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `text` with every occurrence of `from` replaced by `to`, on code units.
pub fn replace(text: &JsString, from: &str, to: &str) -> JsString {
    let from: Vec<u16> = from.encode_utf16().collect();
    let units = text.units();
    if from.is_empty() || units.len() < from.len() {
        return text.clone();
    }
    let to: Vec<u16> = to.encode_utf16().collect();
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        if units.get(i..i + from.len()) == Some(from.as_slice()) {
            out.extend_from_slice(&to);
            i += from.len();
        } else {
            out.extend(units.get(i).copied());
            i += 1;
        }
    }
    JsString::from_units(out)
}
