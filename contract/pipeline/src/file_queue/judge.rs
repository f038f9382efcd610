//! The judge of file-queue observations: for each operation whose starts
//! and ends differ from the expected ones, the `PIPE-QUEUE-*` requirement
//! its difference breaks, from what the reference knows of its key.
//!
//! Attribution, first match wins, because a difference on one operation
//! is a difference of the rule that decided it:
//! - an operation through a harness queue: `PIPE-QUEUE-04` (the harness's
//!   own queue, per environment, with its own key errors);
//! - an operation whose key is a fallback or failed to compute:
//!   `PIPE-QUEUE-03` (missing paths, paths through a file, key failures);
//! - an operation that throws, or that follows a throwing one on its key:
//!   `PIPE-QUEUE-02` (the lock is released, the error reaches only its
//!   caller);
//! - otherwise `PIPE-QUEUE-01` (one file, any spelling, one at a time in
//!   FIFO order; different files concurrently).
//!
//! Entries whose operations all happen as expected but in another order
//! within a settle break the FIFO discipline: `PIPE-QUEUE-01`.

use super::reference::{self, KeyOrigin, OpInfo, QueueId};
use super::{ErrorSeen, FileQueueObservation, FileQueueScenario, Happened, Step, What};
use crate::requirements::{QUEUE_01, QUEUE_02, QUEUE_03, QUEUE_04};
use std::collections::BTreeMap;
use toolgate_suite::Violation;

/// What happened to one operation, in order.
type Fate = Vec<(u32, What, Option<ErrorSeen>)>;

/// The violations of `actual` against `expected` (empty when equal).
pub fn judge(
    scenario: &FileQueueScenario,
    expected: &FileQueueObservation,
    actual: &FileQueueObservation,
) -> Vec<Violation> {
    if expected == actual {
        return Vec::new();
    }
    let mut violations = Vec::new();
    for (index, h) in actual.file_queue.iter().enumerate() {
        if h.what().is_none() {
            violations.push(Violation::unnamed(format!(
                "entry {index} has not exactly one of start, resolve, reject (with error)"
            )));
        }
    }
    let ops = registered(scenario);
    let infos = reference::run(scenario).map(|r| r.ops).unwrap_or_default();
    let (want, got) = (fates(&expected.file_queue), fates(&actual.file_queue));
    for op in got.keys().filter(|op| !ops.contains_key(op.as_str())) {
        violations.push(Violation::unnamed(format!(
            "{op:?} is no operation of the scenario"
        )));
    }
    for op in ops.keys() {
        let (w, g) = (
            want.get(*op).cloned().unwrap_or_default(),
            got.get(*op).cloned().unwrap_or_default(),
        );
        if w == g {
            continue;
        }
        let requirement = attribute(scenario, &infos, op);
        violations.push(Violation::named(
            requirement,
            format!("{op}: {} (expected {})", describe(&g), describe(&w)),
        ));
    }
    if violations.is_empty() {
        violations.push(Violation::named(
            QUEUE_01,
            "the same starts and ends happened in another order within a settle",
        ));
    }
    violations
}

/// The operations' ids, each with the spelling of its queue.
fn registered(scenario: &FileQueueScenario) -> BTreeMap<&str, &str> {
    scenario
        .file_queue
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Register(r) => Some((r.register.as_str(), r.queue.as_str())),
            _ => None,
        })
        .collect()
}

fn fates(entries: &[Happened]) -> BTreeMap<String, Fate> {
    let mut fates: BTreeMap<String, Fate> = BTreeMap::new();
    for h in entries {
        if let Some((op, what)) = h.what() {
            fates
                .entry(op.to_owned())
                .or_default()
                .push((h.step, what, h.error.clone()));
        }
    }
    fates
}

fn attribute(
    scenario: &FileQueueScenario,
    infos: &BTreeMap<String, OpInfo>,
    op: &str,
) -> &'static str {
    let harness = registered(scenario)
        .get(op)
        .and_then(|q| QueueId::parse(q))
        .is_some_and(|q| matches!(q, QueueId::Harness(_)));
    if harness {
        return QUEUE_04;
    }
    let Some(info) = infos.get(op) else {
        return QUEUE_01;
    };
    if info.origin != KeyOrigin::Canonical {
        return QUEUE_03;
    }
    if info.throws || follows_a_throw(scenario, infos, op, info) {
        return QUEUE_02;
    }
    QUEUE_01
}

/// Whether an operation registered before `op` on the same key throws.
fn follows_a_throw(
    scenario: &FileQueueScenario,
    infos: &BTreeMap<String, OpInfo>,
    op: &str,
    info: &OpInfo,
) -> bool {
    scenario.file_queue.steps.iter().any(|s| {
        matches!(s, Step::Register(r) if r.register != op
                && infos.get(&r.register).is_some_and(|o| o.throws && o.queue == info.queue && o.key == info.key)
                && registered_before(scenario, &r.register, op))
        })
}

fn registered_before(scenario: &FileQueueScenario, first: &str, second: &str) -> bool {
    let position = |op: &str| {
        scenario
            .file_queue
            .steps
            .iter()
            .position(|s| matches!(s, Step::Register(r) if r.register == op))
    };
    matches!((position(first), position(second)), (Some(a), Some(b)) if a < b)
}

fn describe(fate: &Fate) -> String {
    if fate.is_empty() {
        return "never started nor ended".into();
    }
    fate.iter()
        .map(|(step, what, error)| {
            let verb = match what {
                What::Start => "started",
                What::Resolve => "resolved",
                What::Reject => "rejected",
            };
            let with = error
                .as_ref()
                .map(|e| match (&e.code, &e.message) {
                    (Some(code), _) => format!(" with {} {code}", e.name),
                    (None, Some(message)) => format!(" with {}: {message}", e.name),
                    (None, None) => format!(" with {}", e.name),
                })
                .unwrap_or_default();
            format!("{verb} after step {step}{with}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}
