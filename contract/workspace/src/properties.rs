//! What holds for every workspace scenario of read and write calls (the
//! property tests and the fuzz target draw them from `generate`):
//! - the reference observes it within the observation schema, and its own
//!   judge passes it, passes it in a real tool's own words on the portable
//!   projection, and names a requirement for every edit of it
//!   (`mutants`), exact and portable;
//! - nothing outside the root is created, changed or removed: the tree
//!   outside the root afterwards is the tree made before the calls;
//! - no read returns what lies outside the root: no result holds
//!   [`OUTSIDE_MARK`], and a read before any write of a path the boundary
//!   refuses on the tree as made is an error;
//! - the boundary on the in-memory model (`model::ModelFs`) answers every
//!   call's path exactly as on the real filesystem, creating or not, where
//!   neither the path nor a link leads out of the base
//!   (the model of realpath, lstat, ENOENT/ENOTDIR/ELOOP/ENAMETOOLONG and
//!   the NUL check is the real one's equal).

use super::boundary::{workspace_path, RealFs};
use super::generate::OUTSIDE_MARK;
use super::model::ModelFs;
use super::spec::{in_roots, Tool, WorkspaceScenario, BASE_VARIABLE};
use super::{judge, mutants, race, reference, WORKSPACE};
use toolgate_suite::fs_tree::{node_resolve, resolve_in_tree, tree_dirname, Base, Snapshot};
use toolgate_suite::{encode, observation_validator};

/// `Err` says which property broke, and how.
pub fn check(scenario: &WorkspaceScenario) -> Result<(), String> {
    let observation =
        reference::observe(scenario).map_err(|e| format!("the reference refused: {e}"))?;
    let json = encode(&observation).map_err(|e| e.to_string())?;
    let validator = observation_validator(&WORKSPACE)?;
    if let Err(error) = toolgate_suite::schema_errors(validator, &json) {
        return Err(format!("outside the observation schema: {error}"));
    }
    let self_judged = judge::judge(scenario, &observation, &observation);
    if !self_judged.violations.is_empty() {
        return Err(format!("its own judge: {:?}", self_judged.violations));
    }
    judge_names_every_edit(scenario, &observation)?;

    let base = Base::new("toolgate-ws-model-").map_err(|e| e.to_string())?;
    let mut model = ModelFs::with_base(base.path());
    for entry in &scenario.tree {
        base.make(entry, BASE_VARIABLE)
            .map_err(|e| format!("making {:?}: {e}", entry.path))?;
        model
            .make(base.path(), entry, BASE_VARIABLE)
            .map_err(|e| format!("the model could not make {:?}: {}", entry.path, e.name))?;
    }
    let before = base.snapshot(BASE_VARIABLE).map_err(|e| e.to_string())?;
    let roots = scenario.real_roots();
    let outside = |tree: &[Snapshot]| -> Vec<Snapshot> {
        tree.iter()
            .filter(|e| !in_roots(&roots, &e.path))
            .cloned()
            .collect()
    };
    if outside(&before) != outside(&observation.tree) {
        return Err(format!(
            "the tree outside the root changed: before {:?}, after {:?}",
            outside(&before),
            outside(&observation.tree)
        ));
    }

    let root = format!("{}/{}", base.path(), scenario.root());
    let links_leave_the_base = links_leave_the_base(scenario);
    for (i, (call, result)) in scenario.calls.iter().zip(&observation.results).enumerate() {
        let text = result.text().to_string_lossy();
        if text.contains(OUTSIDE_MARK) {
            return Err(format!(
                "call {i} returned a file outside the root: {text:?}"
            ));
        }
        let Some(path) = call
            .input
            .as_ref()
            .and_then(|i| i.get("path"))
            .and_then(|p| p.as_str())
        else {
            continue;
        };
        let path = path.replace(BASE_VARIABLE, base.path());
        for creating in [false, true] {
            let on_model = workspace_path(&model, &root, &path, creating);
            let on_disk = workspace_path(&RealFs, &root, &path, creating);
            // a path resolving above the base meets the machine's own
            // files, which the model does not hold
            let resolved = node_resolve(&root, &path);
            let foreign =
                resolved != base.path() && !resolved.starts_with(&format!("{}/", base.path()));
            if on_model != on_disk && !foreign && !links_leave_the_base {
                return Err(format!(
                    "call {i} ({path:?}, creating: {creating}): the model answers {:?}, the disk {:?}",
                    on_model.map_err(|e| e.message().to_string_lossy()),
                    on_disk.map_err(|e| e.message().to_string_lossy())
                ));
            }
        }
        // the initial tree is the tree a read sees until a call writes
        let unchanged = scenario.calls.iter().take(i).all(|c| c.tool == Tool::Read);
        if call.tool == Tool::Read && unchanged && !result_is_error(result) {
            let resolved = workspace_path(&RealFs, &root, &path, false);
            if resolved.is_err() {
                return Err(format!(
                    "call {i} read {path:?}, which the boundary refuses, and succeeded"
                ));
            }
        }
    }
    Ok(())
}

fn result_is_error(result: &super::spec::CallResult) -> bool {
    match result {
        super::spec::CallResult::Returned(r) => r.is_error,
        super::spec::CallResult::Thrown(_) => true,
    }
}

/// Whether a symlink of the tree points above the base (an absolute
/// target not through `$BASE`, or a relative one climbing out): the
/// machine's own files are then reachable, which the model does not hold,
/// so the model is not compared (the generator makes no such link; corpus
/// cases do).
fn links_leave_the_base(scenario: &WorkspaceScenario) -> bool {
    scenario.tree.iter().any(|e| {
        e.target.as_ref().is_some_and(|target| {
            resolve_in_tree(tree_dirname(&e.path), target, BASE_VARIABLE).is_none()
        })
    })
}

/// The judge on the edits of `observation` ([`mutants`]): each named by a
/// requirement, none unnamed, and the observation in a tool's own words
/// passed. A scenario with a swap is judged by `race`, whose edits are the
/// corpus tests'.
fn judge_names_every_edit(
    scenario: &WorkspaceScenario,
    observation: &super::spec::WorkspaceObservation,
) -> Result<(), String> {
    if race::is_raced(scenario) {
        return Ok(());
    }
    let own = mutants::in_other_words(scenario, observation);
    let passed = judge::judge(scenario, observation, &own);
    if !passed.violations.is_empty() {
        return Err(format!(
            "the judge on the observation in a tool's own words (portable): {:?}",
            passed.violations
        ));
    }
    // a few removals spread over the tree, not one per entry: a deep write
    // leaves thousands
    let edits = mutants::exact(observation, 32)
        .into_iter()
        .chain(mutants::portable(scenario, observation, 32));
    for (what, edited) in edits {
        let j = judge::judge(scenario, observation, &edited);
        if j.violations.is_empty() || j.violations.iter().any(|v| v.requirement.is_none()) {
            return Err(format!(
                "the judge on an edit ({what}) names {:?}",
                j.violations
            ));
        }
    }
    Ok(())
}
