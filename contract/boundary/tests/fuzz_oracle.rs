//! The boundary suite's fuzz oracle on stable, without a fuzzer
//! (`toolgate_corpus::fuzz_replay`): on inputs from a seeded RNG, on the
//! seeds its corpus cases give it (what `fuzz_seeds` writes under
//! `corpus/fuzz/`) and on every minimized finding (`corpus/regressions/`).
//! A bug panics inside the oracle with what broke and the scenario that
//! broke it; too few inputs checked fails the test. The fast target's
//! oracle (one observation mutant per input) runs the same way, and the
//! one-mutant check is held to reach, over its starting points, exactly
//! the mutants the full check does.

use toolgate_boundary::{fuzz_oracle, mutants, properties, BOUNDARY};
use toolgate_corpus::{fuzz_replay, scenario_seed};
use toolgate_suite::fuzzing::{one_mutant_reaches_every_mutant, Size};

#[test]
fn boundary_oracle() {
    let checked = fuzz_replay(
        &BOUNDARY,
        "boundary",
        fuzz_oracle::boundary,
        scenario_seed,
        200,
        190,
    );
    checked.unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn boundary_fast_oracle() {
    let checked = fuzz_replay(
        &BOUNDARY,
        "boundary_fast",
        fuzz_oracle::boundary_fast,
        scenario_seed,
        2000,
        1900,
    );
    checked.unwrap_or_else(|e| panic!("{e}"));
}

/// On every corpus scenario: the one-mutant check from each starting
/// point tries at most one mutant, and together they try exactly the
/// mutants the full check tries (so a fast target, whose inputs pick the
/// start, leaves none out).
#[test]
fn one_mutant_per_input_reaches_every_mutant_of_the_full_check() {
    let files = toolgate_corpus::of_suite(&BOUNDARY).unwrap_or_else(|e| panic!("{e}"));
    let scenarios = files
        .into_iter()
        .flat_map(|(_, file)| file.cases)
        // the fast target's scenarios (the 10^6-key ones take seconds per
        // check, and the full target is theirs)
        .filter(|case| !fuzz_oracle::too_large_to_fuzz(&case.scenario, Size::Small))
        .filter_map(|case| {
            let scenario =
                serde_json::from_value::<toolgate_boundary::BoundaryScenario>(case.scenario)
                    .ok()?;
            Some((case.name, scenario))
        });
    let checked = one_mutant_reaches_every_mutant(scenarios, mutants::ALL.len(), |s, m| {
        properties::check_with(s, m).map(|c| c.mutants)
    });
    let checked = checked.unwrap_or_else(|e| panic!("{e}"));
    assert!(
        checked >= 50,
        "only {checked} corpus scenarios were checked"
    );
}
