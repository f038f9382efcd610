//! A scenario run on the reference: a fresh database in a temporary
//! directory, the inventory seeded, each run in order under its scripted
//! policy (outside changes made with plain SQL between proposals), and the
//! database read back. Also the checks a scenario must pass to be run.

use super::runner::{run, Policy};
use super::spec::limits;
use super::spec::{ActionsObservation, ActionsScenario, PolicyEntry, Task};
use super::store::Store;
use super::structure::check_string;
use std::collections::BTreeSet;
use toolgate_suite::Error;

/// The policy of a case: its entries in order.
pub struct ScriptedPolicy<'a> {
    entries: std::slice::Iter<'a, PolicyEntry>,
}

impl<'a> ScriptedPolicy<'a> {
    pub fn new(entries: &'a [PolicyEntry]) -> ScriptedPolicy<'a> {
        ScriptedPolicy {
            entries: entries.iter(),
        }
    }
}

impl Policy for ScriptedPolicy<'_> {
    fn next(&mut self, store: &Store) -> Result<Option<String>, Error> {
        for entry in self.entries.by_ref() {
            match entry {
                PolicyEntry::Action(text) => return Ok(Some(text.clone())),
                PolicyEntry::External { external } => {
                    store.external(&external.item_id, external.available)?;
                }
            }
        }
        Ok(None)
    }
}

/// The reference's observation of `scenario`.
pub fn observe(scenario: &ActionsScenario) -> Result<ActionsObservation, Error> {
    check(scenario)?;
    let dir =
        tempfile::tempdir().map_err(|e| Error::storage(format!("a temporary directory: {e}")))?;
    let path = dir.path().join("actions.sqlite3");
    let mut store = Store::create(&path, &scenario.items)?;
    let mut runs = Vec::with_capacity(scenario.runs.len());
    for spec in &scenario.runs {
        let mut policy = ScriptedPolicy::new(&spec.policy);
        runs.push(run(&mut store, &spec.task, &mut policy)?);
    }
    Ok(ActionsObservation {
        runs,
        database: store.snapshot()?,
    })
}

fn in_range(value: i64, (low, high): (i64, i64)) -> bool {
    (low..=high).contains(&value)
}

/// Refuses a scenario the contract does not define: ids that break the
/// string rules or repeat, numbers out of their ranges, an invalid task
/// (the seed's `validate_task`), an outside change of an unknown item.
pub fn check(scenario: &ActionsScenario) -> Result<(), Error> {
    let mut ids = BTreeSet::new();
    for (i, item) in scenario.items.iter().enumerate() {
        let at = |what: String| Error::scenario(format!("/items/{i}: {what}"));
        check_string(&item.id, limits::ID_CHARS)
            .map_err(|code| at(format!("id is {}", code.name())))?;
        if !ids.insert(item.id.as_str()) {
            return Err(at(format!("id {:?} twice", item.id)));
        }
        if !in_range(item.available, limits::AVAILABLE) {
            return Err(at("available out of range".into()));
        }
        if !in_range(item.revision, limits::REVISION) {
            return Err(at("revision out of range".into()));
        }
    }
    if scenario.runs.is_empty() {
        return Err(Error::scenario("/runs: no run"));
    }
    for (r, spec) in scenario.runs.iter().enumerate() {
        validate_task(&spec.task)
            .map_err(|what| Error::scenario(format!("/runs/{r}/task: {what}")))?;
        for (p, entry) in spec.policy.iter().enumerate() {
            if let PolicyEntry::External { external } = entry {
                let at = |what: &str| Error::scenario(format!("/runs/{r}/policy/{p}: {what}"));
                if !ids.contains(external.item_id.as_str()) {
                    return Err(at("external names no item"));
                }
                if !in_range(external.available, limits::AVAILABLE) {
                    return Err(at("external available out of range"));
                }
            }
        }
    }
    Ok(())
}

/// The seed's `validate_task`: what a task must be before any run.
pub fn validate_task(task: &Task) -> Result<(), String> {
    check_string(&task.id, limits::ID_CHARS).map_err(|c| format!("id is {}", c.name()))?;
    check_string(&task.query, limits::QUERY_CHARS).map_err(|c| format!("query is {}", c.name()))?;
    if !in_range(task.quantity, limits::QUANTITY) {
        return Err("quantity out of range".into());
    }
    if !in_range(task.max_tool_attempts, limits::ATTEMPTS) {
        return Err("max_tool_attempts out of range".into());
    }
    Ok(())
}
