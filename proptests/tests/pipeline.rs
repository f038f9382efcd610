//! The pipeline suite over generated scenarios: every scenario the
//! pipeline generator builds keeps `pipeline::properties::check` (the
//! reference observes it within the observation schema, passes its own
//! judge, keeps pi 0.85.0's invariants, and the judge names every
//! observation mutant that fits it). The fuzz target `pipeline` checks the
//! same function on fuzzer bytes; `toolgate run --suite pipeline
//! --generate` sends the same scenarios to a real pi. Case counts:
//! `toolgate_proptests::knobs`. The file-queue scenarios keep
//! `pipeline::file_queue::properties::check`.

use proptest::prelude::*;
use toolgate_pipeline::properties;
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

proptest! {
    #![proptest_config(knobs::config(96, "proptest-regressions/pipeline-file-queue.txt"))]

    /// The file-queue scenarios (`PIPE-QUEUE-*`): the reference runs each
    /// on a real tree, passes its own judge and keeps the queue's
    /// invariants (`pipeline::file_queue::properties`).
    #[test]
    fn every_generated_file_queue_scenario_keeps_the_queue_invariants(scenario in suites::file_queue()) {
        if let Err(e) = toolgate_pipeline::file_queue::properties::check(&scenario) {
            return Err(TestCaseError::fail(e));
        }
    }
}
