//! CORE-CAN-09 over generated scenarios: a call aborted after N job-queue
//! turns, for every N from 0 until it settles on its own, gives one of the
//! reference's abort points, never an earlier one after a later one; each
//! point is the cancellation with the sweep's reason or the call's own
//! ending, and the last is how the call ends when nothing aborts it.
//! Case counts: `toolgate_proptests::knobs`.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::json;
use toolgate_core::scenario::observation::{CallObserved, Outcome};
use toolgate_core::scenario::oracle::abort_points;
use toolgate_core::scenario::{invariants, observe, AbortPlan, Scenario, TurnsSpec};
use toolgate_core::AbortReason;
use toolgate_proptests::plan::Plan;
use toolgate_proptests::{knobs, strategy};

/// The reason every sweep aborts with, unlike any a scenario's own aborts
/// carry, so a point cancelled by the sweep is told from the call's own.
fn reason() -> serde_json::Value {
    json!({"swept": true})
}

/// `scenario` with call `call` aborted as `abort` says.
fn with_abort(scenario: &Scenario, call: usize, abort: Option<AbortPlan>) -> Scenario {
    let mut s = scenario.clone();
    if let Some(c) = s.calls.get_mut(call) {
        c.abort = abort;
    }
    s
}

/// Call `call` of `scenario`, observed on the reference, with the shared
/// invariants checked.
fn observe_call(scenario: &Scenario, call: usize) -> Result<CallObserved, TestCaseError> {
    let observed = observe(scenario).map_err(|e| TestCaseError::fail(format!("oracle: {e}")))?;
    let problems = invariants::check(scenario, &observed);
    if !problems.is_empty() {
        return Err(TestCaseError::fail(problems.join("; ")));
    }
    observed
        .calls
        .into_iter()
        .nth(call)
        .ok_or_else(|| TestCaseError::fail(format!("no call {call}")))
}

/// Sweeps call `call` of `scenario` (without the call's own abort from
/// outside) and checks everything the module says.
fn check(scenario: &Scenario, call: usize) -> Result<(), TestCaseError> {
    let scenario = &with_abort(scenario, call, None);
    let swept = AbortReason::from_option(Some(reason()));
    let points = abort_points(scenario, call, &swept)
        .map_err(|e| TestCaseError::fail(format!("abort points: {e}")))?;
    let own = observe_call(scenario, call)?;
    let cancelled_by_sweep = |o: &CallObserved| matches!(&o.outcome, Outcome::Cancelled(r) if r.reason == Some(reason()));
    let Some(last) = points.last() else {
        return Err(TestCaseError::fail("CORE-CAN-09: no abort point"));
    };
    for (k, point) in points.iter().enumerate() {
        prop_assert!(
            cancelled_by_sweep(point) || point.outcome == own.outcome,
            "CORE-CAN-09: point {k} ends {:?}, neither the sweep's cancellation nor the call's own {:?}",
            point.outcome,
            own.outcome
        );
        if k > 0 && cancelled_by_sweep(point) {
            prop_assert!(
                points.iter().take(k).all(cancelled_by_sweep),
                "CORE-CAN-09: point {k} is cancelled after an earlier point was not"
            );
        }
    }
    if own.outcome == Outcome::Pending {
        prop_assert!(
            cancelled_by_sweep(last),
            "CORE-CAN-09: a call that never settles was not cancelled by its last abort point"
        );
    } else {
        // the last point is an abort after the call settled (CORE-CAN-08)
        prop_assert!(
            last.outcome == own.outcome,
            "CORE-CAN-08: the abort after the call settled changed its ending {:?} to {:?}",
            own.outcome,
            last.outcome
        );
    }
    // every N up to two past the last point: a point, in order
    let mut at = 0usize;
    for turns in 0..=(points.len() as u32 + 1) {
        let plan = AbortPlan::AfterTurns(TurnsSpec {
            turns,
            reason: Some(reason()),
        });
        let given = observe_call(&with_abort(scenario, call, Some(plan)), call)?;
        let Some(found) = points.iter().position(|p| *p == given) else {
            return Err(TestCaseError::fail(format!(
                "CORE-CAN-09: the abort after {turns} turn(s) gave {:?}, none of the {} abort points",
                given.outcome,
                points.len()
            )));
        };
        prop_assert!(
            found >= at,
            "CORE-CAN-09: the abort after {turns} turn(s) gave point {found}, before point {at} of fewer turns"
        );
        at = found;
    }
    prop_assert!(
        at == points.len() - 1,
        "CORE-CAN-09: the sweep ended at point {at} of {}",
        points.len()
    );
    Ok(())
}

proptest! {
    #![proptest_config(knobs::config(96, "proptest-regressions/abort_sweep.txt"))]

    /// CORE-CAN-08/09: see `check`; the first call of each scenario is swept.
    #[test]
    fn an_abort_after_any_turn_lands_at_an_abort_point_in_order(plan in strategy::plan()) {
        let plan: Plan = plan;
        let (scenario, _) = plan.render();
        if scenario.calls.is_empty() {
            return Ok(());
        }
        if let Err(e) = check(&scenario, 0) {
            let scenario = serde_json::to_string_pretty(&scenario).unwrap_or_default();
            return Err(TestCaseError::fail(format!(
                "{e}\nscenario:\n{scenario}\nreproduce: cargo test -p toolgate-proptests --test abort_sweep \
                 (the seed is saved in proptests/proptest-regressions/abort_sweep.txt and replays first)"
            )));
        }
    }
}
