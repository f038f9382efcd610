//! The pipeline suite's fuzz oracle: the fuzzer's bytes (or a scenario in
//! JSON) through the suite's generator and properties, panicking on a bug,
//! as `toolgate_suite::fuzzing` says. The fuzz target in `fuzz/` is one
//! call; `tests/fuzz_oracle.rs` replays it on seeded bytes, the seed corpus
//! and the committed regressions.

// An oracle reports a bug by panicking: that is the fuzzing protocol.
#![allow(clippy::panic)]

use toolgate_suite::fuzzing::{pick, suite_target, Mutants, Verdict};

/// The pipeline target: a pipeline scenario (JSON, or built by
/// `pipeline::generate` from the bytes) keeps every property of
/// `pipeline::properties::check`: the reference observes it within its
/// schema, passes its own judge, keeps pi 0.85.0's invariants, and the
/// judge names every observation mutant that fits it. A JSON scenario the
/// reference does not model is skipped; a generated one is a generator bug.
pub fn pipeline(data: &[u8]) -> Verdict {
    target(data, Mutants::Every)
}

/// The fast pipeline target: [`pipeline`] trying one observation mutant
/// per input, the input choosing it (the generator has no sizes to
/// bound: a judge run per mutant, 59 of them, is what sets the full
/// target's pace).
pub fn pipeline_fast(data: &[u8]) -> Verdict {
    target(data, Mutants::OneFrom(pick(data)))
}

fn target(data: &[u8], mutants: Mutants) -> Verdict {
    use crate::{generate, properties, reference, spec::PipelineScenario};
    suite_target(
        data,
        "not a pipeline scenario",
        |scenario: &PipelineScenario| {
            reference::observe(scenario)
                .map(|_| ())
                .map_err(|_| "a pipeline scenario outside the reference's model")
        },
        generate::scenario_from_bytes,
        |scenario| properties::check_with(scenario, mutants),
    )
}
