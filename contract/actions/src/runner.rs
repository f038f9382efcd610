//! One run of a task under a policy (FORMAT.md, "The run"): ask the policy
//! for an action, check its structure, the budget and its authorization,
//! execute it against the [`Store`], and record a step, until a step ends
//! the run. A refused action never reaches the store.

use super::authorize::{authorize, RunState};
use super::spec::{Code, Outcome, RunObservation, Step, Task};
use super::store::{digest, Reservation, Store};
use super::structure::{validate_text, Action, Refused};
use serde_json::json;
use toolgate_suite::Error;

/// Where the actions come from: the model in a real agent, a script in a
/// case. `next` may change the database first (an outside change).
pub trait Policy {
    /// The next action's text, or `None` when the policy has none.
    fn next(&mut self, store: &Store) -> Result<Option<String>, Error>;
}

/// Runs `task` under `policy` on `store`.
pub fn run(
    store: &mut Store,
    task: &Task,
    policy: &mut dyn Policy,
) -> Result<RunObservation, Error> {
    let mut state = RunState::default();
    let mut steps = Vec::new();
    let mut attempts: u64 = 0;
    loop {
        let step = match policy.next(store)? {
            None => refusal(Refused::code(Code::NoAction)),
            Some(text) => match validate_text(&text) {
                Err(refused) => refusal(refused),
                Ok(action) => {
                    let over_budget = action.tool().is_some()
                        && i64::try_from(attempts).unwrap_or(i64::MAX) >= task.max_tool_attempts;
                    if over_budget {
                        refusal(Refused::code(Code::Budget))
                    } else if let Err(code) = authorize(task, &state, &action) {
                        refusal(Refused::code(code))
                    } else {
                        execute(store, task, &mut state, &action)?
                    }
                }
            },
        };
        if step.outcome.is_attempt() {
            attempts += 1;
            state.last_attempt = Some(step.outcome);
        }
        let ends = step.outcome.ends_the_run();
        let status = match step.outcome {
            Outcome::Finished => step.status.clone().unwrap_or_default(),
            other => other.name().to_string(),
        };
        steps.push(step);
        if ends {
            return Ok(RunObservation {
                steps,
                status,
                attempts,
            });
        }
    }
}

fn refusal(refused: Refused) -> Step {
    Step {
        outcome: refused.code.outcome(),
        tool: None,
        result: None,
        status: None,
        code: Some(refused.code.name().to_string()),
        // only the structure layer points into the action
        field: match refused.code.outcome() {
            Outcome::ContractError => refused.field,
            _ => None,
        },
        message: None,
    }
}

fn ok(tool: &str, result: serde_json::Value) -> Step {
    Step {
        outcome: Outcome::Ok,
        tool: Some(tool.to_string()),
        result: Some(result),
        status: None,
        code: None,
        field: None,
        message: None,
    }
}

fn execute(
    store: &mut Store,
    task: &Task,
    state: &mut RunState,
    action: &Action,
) -> Result<Step, Error> {
    Ok(match action {
        Action::Finish { status } => Step {
            outcome: Outcome::Finished,
            tool: None,
            result: None,
            status: Some(status.clone()),
            code: None,
            field: None,
            message: None,
        },
        Action::Search { query } => {
            let hits = store.search(query)?;
            state.last_hits = Some(hits.iter().map(|h| h.id.clone()).collect());
            let hits: Vec<_> = hits
                .into_iter()
                .map(|h| json!({"id": h.id, "title": h.title, "text": h.text}))
                .collect();
            ok("search", json!({ "hits": hits }))
        }
        Action::Document { item_id } => {
            let text = store.document(item_id)?;
            state.read.insert(item_id.clone());
            let digest = digest(&text);
            ok(
                "document",
                json!({"item_id": item_id, "text": text, "digest": digest, "untrusted": true}),
            )
        }
        Action::Stock { item_id } => {
            let (available, revision) = store.stock(item_id)?;
            state.read.insert(item_id.clone());
            state
                .observed
                .insert(item_id.clone(), (available, revision));
            ok(
                "stock",
                json!({"item_id": item_id, "available": available, "revision": revision}),
            )
        }
        Action::Reserve {
            item_id,
            quantity,
            expected_revision,
            idempotency_key,
        } => match store.reserve(
            &task.id,
            item_id,
            *quantity,
            *expected_revision,
            idempotency_key,
        )? {
            Reservation::Done { row, replayed } => {
                state.reserved = true;
                ok(
                    "reserve",
                    json!({
                        "item_id": row.item_id,
                        "reserved": row.quantity,
                        "remaining": row.remaining,
                        "revision": row.revision,
                        "transaction": row.id,
                        "replayed": replayed,
                    }),
                )
            }
            Reservation::Stale => refusal(Refused::code(Code::StaleRevision)),
            Reservation::Insufficient => {
                state.rejected = true;
                refusal(Refused::code(Code::InsufficientStock))
            }
        },
    })
}
