//! The invariants every generated scenario must keep on the reference, each
//! tied to SPEC.md ids. Case counts: `toolgate_proptests::knobs`.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::Value as Json;
use toolgate_core::constants::{MAX_ENTRIES, MAX_NODES, MAX_STRING_CHARS};
use toolgate_core::model::{Runtime, Trace};
use toolgate_core::scenario::observation::{Event, Outcome, Registered};
use toolgate_core::scenario::{build, invariants, observe};
use toolgate_core::serializer::{serialize, MAX_STEPS};
use toolgate_core::AbortSignal;
use toolgate_proptests::plan::{value_scenario, Plan};
use toolgate_proptests::{knobs, strategy};

/// Fails the case with the requirement id and what happened.
macro_rules! ensure {
    ($cond:expr, $id:literal, $($msg:tt)+) => {
        if !$cond {
            return Err(TestCaseError::fail(format!("{}: {}", $id, format!($($msg)+))));
        }
    };
}

/// Runs `plan` on the reference (twice) and checks every invariant.
fn check(plan: &Plan) -> Result<(), TestCaseError> {
    let (scenario, roles) = plan.render();
    let observed = observe(&scenario).map_err(|e| TestCaseError::fail(format!("oracle: {e}")))?;
    let again = observe(&scenario).map_err(|e| TestCaseError::fail(format!("oracle: {e}")))?;
    ensure!(
        observed == again,
        "CORE-SER-17",
        "the same scenario gave two observations"
    );
    // content limits, JSON, key order, ids, execute counts, aborts
    let problems = invariants::check(&scenario, &observed);
    ensure!(
        problems.is_empty(),
        "shared invariants",
        "{}",
        problems.join("; ")
    );

    // registrations: names are exactly the tools of the batches that succeeded
    let mut expected_names = Vec::new();
    for (batch, registered) in plan.batches.iter().zip(&observed.registrations) {
        if registered.outcome == Registered::Ok {
            expected_names.extend(batch.tools.iter().map(|t| Json::String(t.name.text())));
        }
    }
    ensure!(
        observed.names == expected_names,
        "CORE-REG-05",
        "names {:?} after the scenario, expected those of the successful batches {:?}",
        observed.names,
        expected_names
    );

    // beyond the shared invariants, what only the plan knows: which
    // functions are validators, and the id and name each call carries
    let is_tool = |name: &str, of: &[String]| of.iter().any(|n| n == name);
    for (i, call) in observed.calls.iter().enumerate() {
        if let Some(at) = call.trace.iter().position(|e| matches!(e, Event::Abort(_))) {
            let later = call.trace.iter().skip(at).find(|e| {
                matches!(e, Event::Call(c) if is_tool(&c.call, &roles.executors) || is_tool(&c.call, &roles.validators))
            });
            ensure!(
                later.is_none(),
                "CORE-CAN-03",
                "call {i}: {later:?} ran after the abort"
            );
        }
        if let (Outcome::Result(r), Some(Some((id, name)))) = (&call.outcome, roles.calls.get(i)) {
            ensure!(
                r.tool_call_id == Json::String(id.clone()),
                "CORE-RES-01",
                "call {i}: toolCallId {} for call id {id:?}",
                r.tool_call_id
            );
            ensure!(
                r.tool_name == Json::String(name.clone()),
                "CORE-RES-01",
                "call {i}: toolName {} for name {name:?}",
                r.tool_name
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(knobs::config(1024, "proptest-regressions/properties.txt"))]

    /// CORE-SER-02/05/10/17, CORE-REG-05, CORE-RES-01, CORE-EXE-01,
    /// CORE-VAL-09, CORE-CAN-03/08, CORE-CALL-02: see `check`.
    #[test]
    fn every_generated_scenario_keeps_the_invariants(plan in strategy::plan()) {
        if let Err(e) = check(&plan) {
            let (scenario, _) = plan.render();
            let scenario = serde_json::to_string_pretty(&scenario).unwrap_or_default();
            return Err(TestCaseError::fail(format!(
                "{e}\nscenario:\n{scenario}\nreproduce: cargo test -p toolgate-proptests --test properties \
                 (the seed is saved in proptests/proptest-regressions/properties.txt and replays first)"
            )));
        }
    }

    /// CORE-SER-16: the serializer's work and budgets stay bounded whatever
    /// the output.
    #[test]
    fn serializer_work_is_bounded_by_the_budgets(value in strategy::output_plan()) {
        let scenario = value_scenario(&value);
        let built = build(&scenario).map_err(|e| TestCaseError::fail(format!("build: {e}")))?;
        let root = built.registrations.first().cloned().unwrap_or(toolgate_core::model::Value::Undefined);
        let rt = Runtime::new(&built.heap, AbortSignal::new(), Trace::default());
        if let Ok(out) = serialize(&rt, &root) {
            invariants::content(&out.content, true).map_err(TestCaseError::fail)?;
            prop_assert!(out.steps <= MAX_STEPS, "CORE-SER-16: {} steps", out.steps);
            prop_assert!(out.usage.nodes <= MAX_NODES && out.usage.entries <= MAX_ENTRIES && out.usage.string_chars <= MAX_STRING_CHARS,
                "CORE-SER-16: usage {:?}", out.usage);
        }
    }
}
