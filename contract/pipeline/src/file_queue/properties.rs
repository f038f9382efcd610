//! What holds for every file-queue scenario (the property tests draw them
//! from `generate`): the reference runs it, its own judge passes it, and
//! its observation keeps the queue's invariants:
//! - an operation starts at most once and ends at most once, and ends only
//!   after it started, unless its key computation rejected it (then it
//!   never starts);
//! - on one key of one queue instance at most one operation runs at a
//!   time, and they start in the order they were registered;
//! - an operation ends in the step it is released in (or, released before
//!   it starts, in the step it starts in), with a rejection iff it throws.

use super::reference::{self, KeyOrigin};
use super::{judge, FileQueueScenario, Step, What};
use std::collections::BTreeMap;

/// An operation's start step, and its end step with whether it rejected.
type Seen = (Option<u32>, Option<(u32, bool)>);

/// `Err` says which invariant broke, and where.
pub fn check(scenario: &FileQueueScenario) -> Result<(), String> {
    let run = reference::run(scenario).map_err(|e| format!("the reference refused: {e}"))?;
    let o = &run.observation;
    let self_judged = judge::judge(scenario, o, o);
    if !self_judged.is_empty() {
        return Err(format!("its own judge: {self_judged:?}"));
    }
    let registered: Vec<&str> = scenario
        .file_queue
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Register(r) => Some(r.register.as_str()),
            _ => None,
        })
        .collect();
    let released: BTreeMap<&str, usize> = scenario
        .file_queue
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Step::Release(r) => Some((r.release.as_str(), i)),
            _ => None,
        })
        .collect();
    let mut seen: BTreeMap<&str, Seen> = BTreeMap::new();
    // per (queue, key): the operation running
    let mut running: BTreeMap<(reference::QueueId, &str), &str> = BTreeMap::new();
    let mut last_start: BTreeMap<(reference::QueueId, &str), usize> = BTreeMap::new();
    for (index, h) in o.file_queue.iter().enumerate() {
        let at = |what: &str| format!("entry {index} ({h:?}): {what}");
        let (op, what) = h.what().ok_or_else(|| at("malformed"))?;
        let info = run.ops.get(op).ok_or_else(|| at("an unknown operation"))?;
        let line = (info.queue.clone(), info.key.as_str());
        let entry = seen.entry(op).or_default();
        match what {
            What::Start => {
                if entry.0.is_some() || info.origin == KeyOrigin::Failed {
                    return Err(at("started twice, or despite a failed key"));
                }
                entry.0 = Some(h.step);
                if let Some(other) = running.insert(line.clone(), op) {
                    return Err(at(&format!("started while {other} runs on its key")));
                }
                let order = registered.iter().position(|r| *r == op).unwrap_or(0);
                if last_start.get(&line).is_some_and(|last| *last > order) {
                    return Err(at("started before an operation registered earlier"));
                }
                last_start.insert(line, order);
            }
            What::Resolve | What::Reject => {
                if entry.1.is_some() {
                    return Err(at("ended twice"));
                }
                let rejected = what == What::Reject;
                entry.1 = Some((h.step, rejected));
                if info.origin == KeyOrigin::Failed {
                    if !rejected || entry.0.is_some() {
                        return Err(at("a failed key must reject before any start"));
                    }
                    continue;
                }
                if entry.0.is_none() {
                    return Err(at("ended before it started"));
                }
                if rejected != info.throws {
                    return Err(at("rejects iff it throws"));
                }
                let release = released.get(op).copied().unwrap_or(usize::MAX);
                let start = entry.0.and_then(|s| usize::try_from(s).ok()).unwrap_or(0);
                if usize::try_from(h.step).ok() != Some(release.max(start)) {
                    return Err(at("ends in the step it is released in, or starts in"));
                }
                if running.get(&line) == Some(&op) {
                    running.remove(&line);
                }
            }
        }
    }
    Ok(())
}
