//! The pipeline suite over generated scenarios: every scenario the
//! pipeline generator builds keeps `pipeline::properties::check` (the
//! reference observes it within the observation schema, passes its own
//! judge, keeps pi 0.85.0's invariants, and the judge names every
//! observation mutant that fits it). The fuzz target `pipeline` checks the
//! same function on fuzzer bytes; `toolgate run --suite pipeline
//! --generate` sends the same scenarios to a real pi. Case counts:
//! `toolgate_proptests::knobs`.

use proptest::prelude::*;
use toolgate_contract::pipeline::properties;
use toolgate_proptests::{knobs, suites};

proptest! {
    #![proptest_config(knobs::config(96, "proptest-regressions/pipeline.txt"))]

    #[test]
    fn every_generated_pipeline_scenario_keeps_the_suite_properties(scenario in suites::pipeline()) {
        if let Err(e) = properties::check(&scenario) {
            return Err(TestCaseError::fail(e));
        }
    }
}
