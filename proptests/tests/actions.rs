//! The actions suite over generated scenarios: every policy the generator
//! builds (hostile texts, forged fields, type confusions, replays, stale
//! revisions, outside changes, injected documents) keeps
//! `actions::properties::check` on the reference: the observation within
//! its schema and its own judge, each run's steps, status and attempts
//! consistent, and the database exactly what an independent replay of the
//! steps gives (a refused action changes nothing, a read-only task never
//! writes, one ledger row per key, stock never negative). The fuzz target
//! `actions` checks the same function on fuzzer bytes; `toolgate run
//! --suite actions --generate` sends the same scenarios to an
//! implementation. Case counts: `toolgate_proptests::knobs`.

use proptest::prelude::*;
use toolgate_actions::properties;
use toolgate_proptests::{knobs, suites};

proptest! {
    #![proptest_config(knobs::config(512, "proptest-regressions/actions.txt"))]

    #[test]
    fn every_generated_policy_changes_only_what_its_steps_account_for(scenario in suites::actions()) {
        if let Err(e) = properties::check(&scenario) {
            return Err(TestCaseError::fail(e));
        }
    }
}

/// The generator reaches every outcome and every refusal code the
/// reference gives, in 3,000 scenarios drawn from a fixed seed: a
/// generator that stopped reaching replays or stale revisions would leave
/// the property above checking little.
#[test]
fn the_generator_reaches_every_outcome_and_code() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    use std::collections::BTreeMap;
    use toolgate_actions::reference::observe;
    use toolgate_actions::spec::CODES;

    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strategy = suites::actions();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..3000 {
        let scenario = strategy
            .new_tree(&mut runner)
            .expect("a scenario")
            .current();
        let observation = observe(&scenario).expect("observed");
        for step in observation.runs.iter().flat_map(|r| &r.steps) {
            let what = step
                .code
                .clone()
                .or(step.tool.clone())
                .or(step.status.clone());
            *seen.entry(what.unwrap_or_default()).or_default() += 1;
            if step.result.as_ref().and_then(|r| r.get("replayed"))
                == Some(&serde_json::json!(true))
            {
                *seen.entry("replayed".into()).or_default() += 1;
            }
        }
    }
    let mut missing: Vec<&str> = CODES
        .iter()
        .map(|c| c.name())
        .chain([
            "search", "document", "stock", "reserve", "replayed", "reserved", "answered",
        ])
        .filter(|what| !seen.contains_key(*what))
        .collect();
    missing.sort_unstable();
    assert!(
        missing.is_empty(),
        "never generated: {missing:?}; seen: {seen:?}"
    );
    eprintln!("steps of 3,000 generated scenarios: {seen:?}");
}
