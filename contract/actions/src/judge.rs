//! The `actions` judge: an implementation's observation against the
//! reference's, each departure named by the requirement that decided the
//! expected step. Steps are compared in order, without their messages; at
//! the first step of a run that differs the judge names the rule the
//! expected step applied (a refusal's code) and the one the actual step
//! applied instead, and stops reading that run: what follows is a
//! consequence. The database is named only when every step was as
//! expected, since a step that went differently explains its effects.

use super::spec::{
    ActionsObservation, ActionsScenario, Code, Database, Outcome, PolicyEntry, Step,
};
use super::strict_json;
use std::collections::BTreeSet;
use toolgate_suite::{Judgement, Violation};

/// `actual` against `expected` for `scenario`.
pub fn judge(
    scenario: &ActionsScenario,
    expected: &ActionsObservation,
    actual: &ActionsObservation,
) -> Judgement {
    let mut violations = Vec::new();
    if expected.runs.len() != actual.runs.len() {
        violations.push(Violation::named(
            "ACT-STATUS-01",
            format!(
                "{} run(s) observed, {} expected",
                actual.runs.len(),
                expected.runs.len()
            ),
        ));
    }
    let injected: BTreeSet<&str> = scenario
        .items
        .iter()
        .filter(|i| i.injected)
        .map(|i| i.id.as_str())
        .collect();
    let mut steps_as_expected = violations.is_empty();
    for (r, (exp, act)) in expected.runs.iter().zip(&actual.runs).enumerate() {
        let texts: Vec<&str> = scenario
            .runs
            .get(r)
            .map(|spec| {
                spec.policy
                    .iter()
                    .filter_map(|e| match e {
                        PolicyEntry::Action(text) => Some(text.as_str()),
                        PolicyEntry::External { .. } => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let length = exp.steps.len().max(act.steps.len());
        let differing = (0..length).find(|&j| {
            exp.steps.get(j).map(Step::compared) != act.steps.get(j).map(Step::compared)
        });
        if let Some(j) = differing {
            steps_as_expected = false;
            let text = texts.get(j).copied();
            let e = exp.steps.get(j);
            let a = act.steps.get(j);
            let mut names = step_requirements(e, a, text);
            let further = match (e, a) {
                (Some(e), Some(a)) => e.outcome != Outcome::Ok && rank(a) > rank(e),
                _ => false,
            };
            if further && read_injected(&exp.steps, j, &injected) {
                names.insert("ACT-DATA-01");
            }
            let message = format!(
                "run {}, step {}{}: expected {}, got {}",
                r + 1,
                j + 1,
                text.map(|t| format!(" ({})", shorten(t)))
                    .unwrap_or_default(),
                describe(e),
                describe(a)
            );
            for name in names {
                violations.push(Violation::named(name, message.clone()));
            }
            continue;
        }
        if exp.status != act.status {
            violations.push(Violation::named(
                "ACT-STATUS-01",
                format!(
                    "run {}: ended {:?} after the expected steps, expected {:?}",
                    r + 1,
                    act.status,
                    exp.status
                ),
            ));
        }
        if exp.attempts != act.attempts {
            violations.push(Violation::named(
                "ACT-BUDGET-01",
                format!(
                    "run {}: counted {} attempt(s), expected {}",
                    r + 1,
                    act.attempts,
                    exp.attempts
                ),
            ));
        }
    }
    if steps_as_expected && expected.database != actual.database {
        violations.extend(database_violations(&expected.database, &actual.database));
    } else if !steps_as_expected {
        // whatever the steps did, the ledger holds no row the
        // implementation's own successful reservations do not account for
        let written = actual
            .runs
            .iter()
            .flat_map(|r| &r.steps)
            .filter(|s| {
                s.outcome == Outcome::Ok && s.tool.as_deref() == Some("reserve") && !replayed(s)
            })
            .count();
        if actual.database.ledger.len() > written {
            violations.push(Violation::named(
                "ACT-EFFECT-01",
                format!(
                    "the ledger has {} row(s) but only {written} reservation(s) were made",
                    actual.database.ledger.len()
                ),
            ));
        }
    }
    Judgement {
        violations,
        ..Judgement::default()
    }
}

/// Where in the run's order of checks a step was decided: the structure
/// layer (its checks in FORMAT.md's order, `unknown_tool` among them), the
/// budget, authorization (in its order), execution (a replay, a stale
/// revision, too little stock, then a result or a finish). A step decided
/// earlier than the reference's applied a rule where it does not hold; one
/// decided later went past the rule that should have stopped it.
fn rank(step: &Step) -> (u8, u8, u8) {
    let code = step.code.as_deref().and_then(Code::named);
    let field = step.field.as_deref().unwrap_or_default();
    match step.outcome {
        Outcome::ContractError | Outcome::PolicyError if code == Some(Code::UnknownTool) => {
            (1, 5, 0)
        }
        Outcome::ContractError => {
            let in_args = field.starts_with("/args/");
            let arg = [
                "/args/query",
                "/args/item_id",
                "/args/quantity",
                "/args/expected_revision",
                "/args/idempotency_key",
            ]
            .iter()
            .position(|a| *a == field);
            let minor = |codes: &[Code]| {
                code.and_then(|c| codes.iter().position(|x| *x == c))
                    .map_or(0, |i| u8::try_from(i).unwrap_or(u8::MAX))
            };
            match code {
                Some(Code::InvalidJson) => (1, 0, 0),
                Some(Code::NotObject) if field.is_empty() => (1, 1, 0),
                _ if field == "/kind" => (1, 2, 0),
                Some(Code::UnknownField) if !in_args => (1, 3, 0),
                Some(Code::MissingField) if !in_args => (1, 4, 0),
                _ if field == "/status" || field == "/name" => (1, 5, 0),
                Some(Code::NotObject) => (1, 6, 0),
                Some(Code::UnknownField) => (1, 7, 0),
                Some(Code::MissingField) => (1, 8, 0),
                _ => (
                    1,
                    9 + arg.map_or(0, |i| u8::try_from(i).unwrap_or(u8::MAX)),
                    minor(&[
                        Code::NotInteger,
                        Code::OutOfRange,
                        Code::NotString,
                        Code::TooLong,
                        Code::ControlCharacter,
                        Code::Blank,
                    ]),
                ),
            }
        }
        Outcome::BudgetExhausted => (2, 0, 0),
        Outcome::PolicyError => {
            let order = [
                Code::WritesNotAllowed,
                Code::NoSearch,
                Code::NotAHit,
                Code::NotUniqueHit,
                Code::QuantityMismatch,
                Code::NoObservation,
                Code::RevisionMismatch,
                Code::KeyMismatch,
            ];
            let at = code.and_then(|c| order.iter().position(|x| *x == c));
            (3, at.map_or(0, |i| u8::try_from(i).unwrap_or(u8::MAX)), 0)
        }
        Outcome::Ok if replayed(step) => (4, 0, 0),
        Outcome::Retryable => (4, 1, 0),
        Outcome::Rejected => (4, 2, 0),
        Outcome::Ok | Outcome::Finished => (4, 3, 0),
        Outcome::Raised => (5, 0, 0),
    }
}

/// The rule that decided a step: a refusal's code, a replay, a
/// reservation, a read tool's result (`None` for a finish).
fn rule(step: &Step, text: Option<&str>) -> Option<&'static str> {
    if step.outcome == Outcome::Ok {
        return Some(match step.tool.as_deref() {
            Some("reserve") if replayed(step) => "ACT-EFFECT-03",
            Some("reserve") => "ACT-EFFECT-02",
            _ => "ACT-TOOL-01",
        });
    }
    refusal_requirement(step, text)
}

/// The requirements a differing step departs from: the expected step's
/// rule when the implementation went past it, the actual step's when it
/// stopped earlier (it applied that rule where it does not hold), both
/// when the two were decided at the same point. What a step let through
/// wrongly then met (an authorization refusal after a bool was taken for
/// an integer) is a consequence, not named.
fn step_requirements(
    e: Option<&Step>,
    a: Option<&Step>,
    text: Option<&str>,
) -> BTreeSet<&'static str> {
    let mut names = BTreeSet::new();
    let (Some(e), Some(a)) = (e, a) else {
        // a run that stopped early, or went on after its terminal step
        names.insert("ACT-STATUS-01");
        return names;
    };
    if a.outcome == Outcome::Raised {
        names.insert("ACT-STATUS-01");
    }
    let (expected, actual) = (rank(e), rank(a));
    if actual >= expected {
        names.extend(rule(e, text));
    }
    if actual <= expected && a.outcome != Outcome::Raised {
        names.extend(rule(a, text));
    }
    if names.is_empty() {
        // a finish status changed, an outcome with a code the contract
        // does not know
        names.insert("ACT-STATUS-01");
    }
    names
}

fn replayed(step: &Step) -> bool {
    step.result
        .as_ref()
        .and_then(|r| r.get("replayed"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

/// The requirement of a step's refusal code (`None` for a step without a
/// known code). `invalid_json` is named by which JSON rule the text breaks.
fn refusal_requirement(step: &Step, text: Option<&str>) -> Option<&'static str> {
    let code = Code::named(step.code.as_deref()?)?;
    if code == Code::InvalidJson {
        if let Some(Err(refusal)) = text.map(|t| strict_json::parse(t.as_bytes())) {
            return Some(refusal.requirement());
        }
    }
    Some(code.requirement(step.field.as_deref()))
}

/// Whether the run had been given an injected item's document before
/// step `j`.
fn read_injected(steps: &[Step], j: usize, injected: &BTreeSet<&str>) -> bool {
    steps.iter().take(j).any(|step| {
        step.tool.as_deref() == Some("document")
            && step
                .result
                .as_ref()
                .and_then(|r| r.get("item_id"))
                .and_then(serde_json::Value::as_str)
                .is_some_and(|id| injected.contains(id))
    })
}

fn database_violations(expected: &Database, actual: &Database) -> Vec<Violation> {
    let mut violations = Vec::new();
    let keys: BTreeSet<&str> = actual
        .ledger
        .iter()
        .map(|row| row.idempotency_key.as_str())
        .collect();
    if keys.len() < actual.ledger.len() {
        violations.push(Violation::named(
            "ACT-EFFECT-03",
            "the ledger holds two rows with one idempotency key",
        ));
    }
    if actual.ledger.len() > expected.ledger.len() {
        violations.push(Violation::named(
            "ACT-EFFECT-01",
            format!(
                "the ledger has {} row(s) after the expected steps, expected {}: a write no reservation accounts for",
                actual.ledger.len(),
                expected.ledger.len()
            ),
        ));
    } else {
        violations.push(Violation::named(
            "ACT-EFFECT-02",
            format!(
                "the database after the expected steps is {}, expected {}",
                serde_json::to_string(actual).unwrap_or_default(),
                serde_json::to_string(expected).unwrap_or_default()
            ),
        ));
    }
    violations
}

fn shorten(text: &str) -> String {
    const MOST: usize = 120;
    if text.chars().count() <= MOST {
        text.to_string()
    } else {
        let head: String = text.chars().take(MOST).collect();
        format!("{head}…")
    }
}

/// A step in words.
pub fn describe(step: Option<&Step>) -> String {
    let Some(step) = step else {
        return "no step".into();
    };
    let mut out = step.outcome.name().to_string();
    for part in [&step.tool, &step.status, &step.code].into_iter().flatten() {
        out.push(' ');
        out.push_str(part);
    }
    if let Some(field) = &step.field {
        out.push_str(&format!(" at {field:?}"));
    }
    if let Some(result) = &step.result {
        out.push(' ');
        out.push_str(&shorten(&result.to_string()));
    }
    if let Some(message) = &step.message {
        out.push_str(&format!(" ({})", shorten(message)));
    }
    out
}
