//! The workspace suite's fuzz oracle on stable, without a fuzzer
//! (`toolgate_corpus::fuzz_replay`): on inputs from a seeded RNG, on the
//! seeds its corpus cases give it (what `fuzz_seeds` writes under
//! `corpus/fuzz/`) and on every minimized finding (`corpus/regressions/`).
//! A bug panics inside the oracle with what broke and the scenario that
//! broke it; too few inputs checked fails the test.

use toolgate_corpus::{fuzz_replay, scenario_seed};
use toolgate_workspace::{fuzz_oracle, WORKSPACE};

/// A case's scenario, unless the target skips it (bash, a swap).
fn seed(scenario: &serde_json::Value) -> Vec<Vec<u8>> {
    fuzz_oracle::seed(scenario).map_or_else(Vec::new, scenario_seed)
}

#[test]
fn workspace_oracle() {
    let checked = fuzz_replay(
        &WORKSPACE,
        "workspace",
        fuzz_oracle::workspace,
        seed,
        120,
        110,
    );
    checked.unwrap_or_else(|e| panic!("{e}"));
}
