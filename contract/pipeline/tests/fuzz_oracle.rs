//! The pipeline suite's fuzz oracle on stable, without a fuzzer
//! (`toolgate_corpus::fuzz_replay`): on inputs from a seeded RNG, on the
//! seeds its corpus cases give it (what `fuzz_seeds` writes under
//! `corpus/fuzz/`) and on every minimized finding (`corpus/regressions/`).
//! A bug panics inside the oracle with what broke and the scenario that
//! broke it; too few inputs checked fails the test.

use toolgate_corpus::{fuzz_replay, scenario_seed};
use toolgate_pipeline::{fuzz_oracle, PIPELINE};

#[test]
fn pipeline_oracle() {
    let checked = fuzz_replay(
        &PIPELINE,
        "pipeline",
        fuzz_oracle::pipeline,
        scenario_seed,
        200,
        190,
    );
    checked.unwrap_or_else(|e| panic!("{e}"));
}
