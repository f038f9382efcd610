//! The workspace suite over generated scenarios: every read and write the
//! generator builds on a hostile tree keeps `workspace::properties::check`
//! (nothing outside the root created, changed or read; the boundary on the
//! in-memory model equals the boundary on the disk; the reference within
//! its schema and its own judge). The fuzz target `workspace` checks the
//! same function on fuzzer bytes; `toolgate run --suite workspace
//! --generate` sends the same scenarios to an implementation. Case counts:
//! `toolgate_proptests::knobs`.

use proptest::prelude::*;
use toolgate_proptests::{knobs, suites};
use toolgate_workspace::properties;

proptest! {
    #![proptest_config(knobs::config(256, "proptest-regressions/workspace.txt"))]

    #[test]
    fn no_generated_call_touches_anything_outside_the_root(scenario in suites::workspace()) {
        if let Err(e) = properties::check(&scenario) {
            return Err(TestCaseError::fail(e));
        }
    }
}
