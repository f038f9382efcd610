//! The authorization layer (the seed's `Runner.authorize`): what a run has
//! seen so far ([`RunState`]) and whether a well-typed action may run for
//! this task, in FORMAT.md's order. Only what tools returned counts as
//! evidence: the task is fixed before the run, and nothing a document says
//! reaches this layer.

use super::spec::{Code, Mode, Outcome, Task};
use super::structure::Action;
use std::collections::{BTreeMap, BTreeSet};

/// What a run has observed, as authorization and the finish evidence read
/// it.
#[derive(Debug, Clone, Default)]
pub struct RunState {
    /// The ids the last `search` returned (`None` before the first).
    pub last_hits: Option<Vec<String>>,
    /// Per item, `(available, revision)` of its last `stock` result.
    pub observed: BTreeMap<String, (i64, i64)>,
    /// Items a `document` or `stock` returned in this run.
    pub read: BTreeSet<String>,
    /// Whether a `reserve` of this run was `ok` (a replay included).
    pub reserved: bool,
    /// Whether a `reserve` of this run was `rejected`.
    pub rejected: bool,
    /// The outcome of the last executed tool step.
    pub last_attempt: Option<Outcome>,
}

impl RunState {
    /// The last search's hit when it had exactly one.
    pub fn unique_hit(&self) -> Option<&str> {
        match self.last_hits.as_deref() {
            Some([only]) => Some(only.as_str()),
            _ => None,
        }
    }
}

/// The idempotency key the task and the preset content determine
/// (**Decision**: `<task id>:<item_id>:<quantity>`).
pub fn idempotency_key(task: &Task, item_id: &str) -> String {
    format!("{}:{}:{}", task.id, item_id, task.quantity)
}

/// `Ok` when `action` may run now; else the refusal's code.
pub fn authorize(task: &Task, state: &RunState, action: &Action) -> Result<(), Code> {
    let hits = || state.last_hits.as_deref().ok_or(Code::NoSearch);
    match action {
        Action::Search { query } => {
            if *query != task.query {
                return Err(Code::QueryMismatch);
            }
        }
        Action::Document { item_id } | Action::Stock { item_id } => {
            if !hits()?.contains(item_id) {
                return Err(Code::NotAHit);
            }
        }
        Action::Reserve {
            item_id,
            quantity,
            expected_revision,
            idempotency_key: key,
        } => {
            if task.mode != Mode::Reserve || !task.allow_write {
                return Err(Code::WritesNotAllowed);
            }
            hits()?;
            if state.unique_hit() != Some(item_id.as_str()) {
                return Err(Code::NotUniqueHit);
            }
            if *quantity != task.quantity {
                return Err(Code::QuantityMismatch);
            }
            let Some(&(_, observed)) = state.observed.get(item_id) else {
                return Err(Code::NoObservation);
            };
            if *expected_revision != observed {
                return Err(Code::RevisionMismatch);
            }
            if *key != idempotency_key(task, item_id) {
                return Err(Code::KeyMismatch);
            }
        }
        Action::Finish { status } => {
            if !supported(task, state, status) {
                return Err(Code::UnsupportedStatus);
            }
        }
    }
    Ok(())
}

/// Whether the run's evidence supports finishing with `status`.
fn supported(task: &Task, state: &RunState, status: &str) -> bool {
    let hit_count = state.last_hits.as_ref().map(Vec::len);
    match status {
        "reserved" => state.reserved,
        "answered" => {
            task.mode == Mode::Read && state.unique_hit().is_some_and(|h| state.read.contains(h))
        }
        "insufficient" => {
            state.rejected
                || state.unique_hit().is_some_and(|h| {
                    state
                        .observed
                        .get(h)
                        .is_some_and(|&(available, _)| available < task.quantity)
                })
        }
        "ambiguous" => hit_count.is_some_and(|n| n >= 2),
        "not_found" => hit_count == Some(0),
        "retry_later" => state.last_attempt == Some(Outcome::Retryable),
        _ => false,
    }
}
