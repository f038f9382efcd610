//! Deliberate breakages of an `actions` observation, as data: each takes
//! the reference's observation of a scenario and breaks it the way an
//! implementation does (a refusal let through, a result miscounted, a row
//! written by a read, a run that goes on after its end...), and says what
//! the judge must name for it. `properties::check` applies every mutant
//! that fits a scenario, so the judge is tested on every generated, fuzzed
//! and corpus scenario, not only on `agent.py`'s mutants.

use super::spec::{
    ActionsObservation, ActionsScenario, Code, LedgerRow, Outcome, PolicyEntry, Step,
};
use super::strict_json;
use serde_json::json;
use toolgate_suite::mutant::Expect;

/// One deliberate breakage: the broken observation and what the judge
/// must name, when the mutant fits the scenario.
pub struct Mutant {
    pub name: &'static str,
    pub apply: fn(&ActionsScenario, &ActionsObservation) -> Option<(ActionsObservation, Expect)>,
}

/// The action text behind step `j` of run `r`.
fn text(s: &ActionsScenario, r: usize, j: usize) -> Option<&str> {
    s.runs
        .get(r)?
        .policy
        .iter()
        .filter_map(|e| match e {
            PolicyEntry::Action(t) => Some(t.as_str()),
            PolicyEntry::External { .. } => None,
        })
        .nth(j)
}

/// The first step, in any run, that `pick` chooses: `(run, step)`.
fn first(o: &ActionsObservation, pick: impl Fn(&Step) -> bool) -> Option<(usize, usize)> {
    o.runs
        .iter()
        .enumerate()
        .find_map(|(r, run)| run.steps.iter().position(&pick).map(|j| (r, j)))
}

fn step_mut(o: &mut ActionsObservation, (r, j): (usize, usize)) -> Option<&mut Step> {
    o.runs.get_mut(r)?.steps.get_mut(j)
}

/// Every mutant, in order.
pub const MUTANTS: &[Mutant] = &[
    Mutant {
        name: "attempts-off-by-one",
        apply: |_, o| {
            let mut m = o.clone();
            m.runs.first_mut()?.attempts += 1;
            Some((m, Expect::Exactly(&["ACT-BUDGET-01"])))
        },
    },
    Mutant {
        name: "status-not-the-last-steps",
        apply: |_, o| {
            let mut m = o.clone();
            let run = m.runs.first_mut()?;
            run.status = if run.status == "policy_error" {
                "reserved".into()
            } else {
                "policy_error".into()
            };
            Some((m, Expect::Exactly(&["ACT-STATUS-01"])))
        },
    },
    Mutant {
        name: "asks-after-the-end",
        apply: |_, o| {
            let mut m = o.clone();
            let run = m.runs.first_mut()?;
            let last = run.steps.last()?.clone();
            run.steps.push(last);
            Some((m, Expect::Exactly(&["ACT-STATUS-01"])))
        },
    },
    Mutant {
        name: "a-row-no-reservation-wrote",
        apply: |_, o| {
            let mut m = o.clone();
            let item_id = m.database.items.first()?.id.clone();
            let id = i64::try_from(m.database.ledger.len()).ok()? + 1;
            m.database.ledger.push(LedgerRow {
                id,
                idempotency_key: "forged:key".into(),
                task_id: "forged".into(),
                item_id,
                quantity: 1,
                remaining: 0,
                revision: 0,
            });
            Some((m, Expect::Exactly(&["ACT-EFFECT-01"])))
        },
    },
    Mutant {
        name: "stock-moved-by-no-step",
        apply: |_, o| {
            let mut m = o.clone();
            m.database.items.first_mut()?.available += 1;
            Some((m, Expect::Exactly(&["ACT-EFFECT-02"])))
        },
    },
    Mutant {
        name: "a-refusal-let-through",
        apply: |s, o| {
            // the first refusal of the structure layer, the budget or
            // authorization, taken as an executed `search`
            let at = first(o, |st| {
                matches!(
                    st.outcome,
                    Outcome::ContractError | Outcome::PolicyError | Outcome::BudgetExhausted
                ) && st.code.as_deref() != Some("no_action")
            })?;
            let step = o.runs.get(at.0)?.steps.get(at.1)?;
            let code = Code::named(step.code.as_deref()?)?;
            let requirement = match (code, text(s, at.0, at.1)) {
                (Code::InvalidJson, Some(t)) => match strict_json::parse(t.as_bytes()) {
                    Err(refusal) => refusal.requirement(),
                    Ok(_) => return None,
                },
                _ => code.requirement(step.field.as_deref()),
            };
            let mut m = o.clone();
            *step_mut(&mut m, at)? = Step {
                outcome: Outcome::Ok,
                tool: Some("search".into()),
                result: Some(json!({"hits": []})),
                status: None,
                code: None,
                field: None,
                message: None,
            };
            Some((m, Expect::Includes(requirement)))
        },
    },
    Mutant {
        name: "a-read-result-changed",
        apply: |_, o| {
            let at = first(o, |st| {
                st.outcome == Outcome::Ok && st.tool.as_deref() != Some("reserve")
            })?;
            let mut m = o.clone();
            let step = step_mut(&mut m, at)?;
            step.result = Some(json!({"changed": true}));
            Some((m, Expect::Exactly(&["ACT-TOOL-01"])))
        },
    },
    Mutant {
        name: "a-replay-not-flagged-as-one",
        apply: |_, o| {
            let at = first(o, |st| {
                st.tool.as_deref() == Some("reserve")
                    && st.result.as_ref().and_then(|r| r.get("replayed")) == Some(&json!(true))
            })?;
            let mut m = o.clone();
            let result = step_mut(&mut m, at)?.result.as_mut()?;
            result["replayed"] = json!(false);
            Some((m, Expect::Exactly(&["ACT-EFFECT-03"])))
        },
    },
    Mutant {
        name: "a-reservation-miscounted",
        apply: |_, o| {
            let at = first(o, |st| {
                st.tool.as_deref() == Some("reserve")
                    && st.result.as_ref().and_then(|r| r.get("replayed")) == Some(&json!(false))
            })?;
            let mut m = o.clone();
            let result = step_mut(&mut m, at)?.result.as_mut()?;
            let remaining = result.get("remaining")?.as_i64()?;
            result["remaining"] = json!(remaining + 1);
            Some((m, Expect::Exactly(&["ACT-EFFECT-02"])))
        },
    },
    Mutant {
        name: "messages-are-not-compared",
        apply: |_, o| {
            let mut m = o.clone();
            for step in m.runs.iter_mut().flat_map(|r| r.steps.iter_mut()) {
                step.message = Some("said differently".into());
            }
            Some((m, Expect::Nothing))
        },
    },
];
