//! What every `actions` scenario keeps on the reference (feature
//! `fuzzing`; the property tests and the fuzz target check it on generated
//! scenarios): the observation within its schema and passing its own
//! judge; each run's steps, status and attempts consistent; and the
//! database afterwards exactly what an independent replay of the steps
//! gives: the inventory changed only by outside changes and by `ok`
//! reservations that were not replays, one ledger row each. That last
//! check is what "a refused action changes nothing", "a read-only task
//! never writes", "the ledger never has two rows for one key" and "stock
//! never goes negative" come to. And the judge names every observation
//! mutant of `mutants.rs` that fits the scenario as the mutant says.

use super::judge::judge;
use super::mutants::MUTANTS;
use super::reference::observe;
use super::spec::{
    ActionsObservation, ActionsScenario, Database, ItemRow, LedgerRow, Mode, Outcome, PolicyEntry,
};
use std::collections::{BTreeMap, BTreeSet};
use toolgate_suite::observation_validator;

/// Checks every property on `scenario`; the error says which broke.
pub fn check(scenario: &ActionsScenario) -> Result<(), String> {
    let observation = observe(scenario).map_err(|e| format!("the reference failed: {e}"))?;
    let show = || serde_json::to_string(scenario).unwrap_or_default();
    let json = serde_json::to_value(&observation).map_err(|e| e.to_string())?;
    let validator = observation_validator(&super::ACTIONS)?;
    if let Err(error) = toolgate_suite::schema_errors(validator, &json) {
        return Err(format!(
            "the reference's observation breaks its schema: {error}\n{}",
            show()
        ));
    }
    let own = judge(scenario, &observation, &observation);
    if !own.violations.is_empty() {
        return Err(format!(
            "the judge refuses the reference itself: {:?}",
            own.violations
        ));
    }
    runs_are_consistent(scenario, &observation).map_err(|e| format!("{e}\n{}", show()))?;
    let replayed = replay(scenario, &observation).map_err(|e| format!("{e}\n{}", show()))?;
    if replayed != observation.database {
        return Err(format!(
            "the database is {}, the steps give {}\n{}",
            serde_json::to_string(&observation.database).unwrap_or_default(),
            serde_json::to_string(&replayed).unwrap_or_default(),
            show()
        ));
    }
    every_mutant_is_named(scenario, &observation).map_err(|e| format!("{e}\n{}", show()))?;
    let keys: BTreeSet<_> = replayed.ledger.iter().map(|r| &r.idempotency_key).collect();
    if keys.len() != replayed.ledger.len() || replayed.items.iter().any(|i| i.available < 0) {
        return Err(format!(
            "two rows for a key or a negative stock\n{}",
            show()
        ));
    }
    Ok(())
}

/// Every mutant of `mutants.rs` that fits the scenario is named as it
/// says.
fn every_mutant_is_named(scenario: &ActionsScenario, o: &ActionsObservation) -> Result<(), String> {
    for mutant in MUTANTS {
        let Some((broken, expect)) = (mutant.apply)(scenario, o) else {
            continue;
        };
        let violations = judge(scenario, o, &broken).violations;
        if !expect.kept_by(&violations) {
            let named: Vec<Option<&str>> = violations
                .iter()
                .map(|v| v.requirement.as_deref())
                .collect();
            return Err(format!(
                "mutant {} must name {expect:?}; the judge names {named:?}",
                mutant.name
            ));
        }
    }
    Ok(())
}

fn runs_are_consistent(scenario: &ActionsScenario, o: &ActionsObservation) -> Result<(), String> {
    if o.runs.len() != scenario.runs.len() {
        return Err("a run is missing".into());
    }
    for (r, (run, spec)) in o.runs.iter().zip(&scenario.runs).enumerate() {
        let Some((last, before)) = run.steps.split_last() else {
            return Err(format!("run {r} has no step"));
        };
        if !last.outcome.ends_the_run() || before.iter().any(|s| s.outcome.ends_the_run()) {
            return Err(format!(
                "run {r}: a step ends it before its last, or its last does not"
            ));
        }
        let expected_status = match last.outcome {
            Outcome::Finished => last.status.clone().unwrap_or_default(),
            other => other.name().to_string(),
        };
        if run.status != expected_status {
            return Err(format!(
                "run {r}: status {} after {:?}",
                run.status, last.outcome
            ));
        }
        let attempts = run.steps.iter().filter(|s| s.outcome.is_attempt()).count() as u64;
        let most = u64::try_from(spec.task.max_tool_attempts).unwrap_or(0);
        if run.attempts != attempts || attempts > most {
            return Err(format!(
                "run {r}: {} attempts counted, {attempts} made, {most} allowed",
                run.attempts
            ));
        }
        let cannot_write = spec.task.mode == Mode::Read || !spec.task.allow_write;
        let wrote = run
            .steps
            .iter()
            .any(|s| s.outcome == Outcome::Ok && s.tool.as_deref() == Some("reserve"));
        if cannot_write && wrote {
            return Err(format!("run {r}: a task that cannot write reserved"));
        }
    }
    Ok(())
}

/// The database the steps account for, computed without SQLite.
fn replay(scenario: &ActionsScenario, o: &ActionsObservation) -> Result<Database, String> {
    let mut items: BTreeMap<String, ItemRow> = scenario
        .items
        .iter()
        .map(|i| {
            let row = ItemRow {
                id: i.id.clone(),
                available: i.available,
                revision: i.revision,
            };
            (i.id.clone(), row)
        })
        .collect();
    let mut ledger: Vec<LedgerRow> = Vec::new();
    for (run, spec) in o.runs.iter().zip(&scenario.runs) {
        let mut entries = spec.policy.iter();
        for step in &run.steps {
            // the policy was asked once per step: outside changes up to the
            // next text were made first (all of them when it had none left)
            for entry in entries.by_ref() {
                match entry {
                    PolicyEntry::Action(_) => break,
                    PolicyEntry::External { external } => {
                        let row = items
                            .get_mut(&external.item_id)
                            .ok_or("an outside change of no item")?;
                        row.available = external.available;
                        row.revision += 1;
                    }
                }
            }
            if step.outcome != Outcome::Ok || step.tool.as_deref() != Some("reserve") {
                continue;
            }
            let result = step.result.as_ref().ok_or("a reserve without a result")?;
            let int = |name: &str| result.get(name).and_then(serde_json::Value::as_i64);
            let item_id = result
                .get("item_id")
                .and_then(serde_json::Value::as_str)
                .ok_or("a reserve result without item_id")?;
            let transaction = int("transaction").ok_or("no transaction")?;
            if result.get("replayed").and_then(serde_json::Value::as_bool) == Some(true) {
                if !ledger.iter().any(|row| row.id == transaction) {
                    return Err(format!(
                        "a replay of transaction {transaction}, which was never written"
                    ));
                }
                continue;
            }
            let quantity = int("reserved").ok_or("no reserved")?;
            let row = items.get_mut(item_id).ok_or("a reserve of no item")?;
            row.available -= quantity;
            row.revision += 1;
            let written = LedgerRow {
                id: i64::try_from(ledger.len()).unwrap_or(i64::MAX) + 1,
                idempotency_key: super::authorize::idempotency_key(&spec.task, item_id),
                task_id: spec.task.id.clone(),
                item_id: item_id.to_string(),
                quantity,
                remaining: row.available,
                revision: row.revision,
            };
            if (
                Some(written.id),
                Some(written.remaining),
                Some(written.revision),
            ) != (int("transaction"), int("remaining"), int("revision"))
            {
                return Err(format!(
                    "reserve result {result} is not the row the steps give: {written:?}"
                ));
            }
            ledger.push(written);
        }
    }
    Ok(Database {
        items: items.into_values().collect(),
        ledger,
    })
}
