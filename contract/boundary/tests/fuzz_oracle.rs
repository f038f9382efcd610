//! The boundary suite's fuzz oracle on stable, without a fuzzer: on inputs
//! from a seeded RNG, on the seeds its corpus cases give it (what
//! `fuzz_seeds` writes under `corpus/fuzz/`) and on every minimized finding
//! (`corpus/regressions/`). A bug panics inside the oracle with what broke
//! and the scenario that broke it.

use serde_json::Value as Json;
use toolgate_boundary::fuzz_oracle;
use toolgate_suite::fuzzing::Verdict;

/// Runs `oracle` on `random` seeded inputs, on `seeds` of every boundary case
/// and on the regressions of `target`; at least `min_checked` inputs must
/// be checked (not skipped), so the oracle cannot silently test nothing.
fn check(
    target: &str,
    oracle: fn(&[u8]) -> Verdict,
    seeds: impl Fn(&Json) -> Vec<Vec<u8>>,
    random: usize,
    min_checked: usize,
) {
    let checked =
        toolgate_corpus::fuzz_replay(&toolgate_boundary::BOUNDARY, target, oracle, seeds, random)
            .expect("the boundary cases load");
    assert!(
        checked >= min_checked,
        "{target}: only {checked} inputs were checked"
    );
}

/// The scenario itself, as the fuzz target reads JSON.
fn whole(scenario: &Json) -> Vec<Vec<u8>> {
    vec![scenario.to_string().into_bytes()]
}

#[test]
fn boundary_oracle() {
    check("boundary", fuzz_oracle::boundary, whole, 200, 190);
}
