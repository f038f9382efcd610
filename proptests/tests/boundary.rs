//! The boundary suite over generated scenarios: every scenario the
//! boundary generator builds keeps `boundary::properties::check` (the
//! reference observes it within the observation schema, passes its own
//! judge, keeps the boundary's shape, and the judge catches every
//! observation mutant that fits it). The fuzz target `boundary` checks the
//! same function on fuzzer bytes. Case counts: `toolgate_proptests::knobs`.

use proptest::prelude::*;
use toolgate_boundary::properties;
use toolgate_proptests::{knobs, suites};

proptest! {
    #![proptest_config(knobs::config(96, "proptest-regressions/boundary.txt"))]

    #[test]
    fn every_generated_boundary_scenario_keeps_the_suite_properties(scenario in suites::boundary()) {
        if let Err(e) = properties::check(&scenario) {
            return Err(TestCaseError::fail(e));
        }
    }
}
