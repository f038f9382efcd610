//! The actions suite's fuzz oracles on stable, without a fuzzer
//! (`toolgate_corpus::fuzz_replay`): on inputs from a seeded RNG, on the
//! seeds its corpus cases give it (what `fuzz_seeds` writes under
//! `corpus/fuzz/`) and on every minimized finding (`corpus/regressions/`).
//! A bug panics inside the oracle with what broke and the scenario that
//! broke it; too few inputs checked fails the test.

use toolgate_actions::{fuzz_oracle, ACTIONS};
use toolgate_corpus::{fuzz_replay, scenario_seed};
use toolgate_suite::fuzzing::Verdict;

#[test]
fn actions_oracle() {
    let checked = fuzz_replay(
        &ACTIONS,
        "actions",
        fuzz_oracle::actions,
        scenario_seed,
        300,
        300,
    );
    checked.unwrap_or_else(|e| panic!("{e}"));
}

/// The action texts of the actions cases, each once.
fn texts(scenario: &serde_json::Value) -> Vec<Vec<u8>> {
    let texts = fuzz_oracle::action_texts(scenario);
    texts.iter().map(|t| t.as_bytes().to_vec()).collect()
}

#[test]
fn action_text_oracle() {
    let checked = fuzz_replay(
        &ACTIONS,
        "action_text",
        fuzz_oracle::action_text,
        texts,
        2000,
        2000,
    );
    checked.unwrap_or_else(|e| panic!("{e}"));
}

/// The action texts of the seeds, each edited ten times the way a fuzzer
/// edits them (a byte inserted from JSON's own alphabet and its near
/// misses, a byte deleted, a stretch repeated): random bytes alone seldom
/// come near JSON.
#[test]
fn action_text_oracle_on_edited_seeds() {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    const ALPHABET: &[u8] = b" \t\n\r\x0c\x0b,:[]{}\"\\/ubfnrt0123456789.eE+-NIa\x00\x7f\xc3\xff";
    let mut rng = StdRng::seed_from_u64(0x0ac7_10a5);
    let inputs = toolgate_corpus::fuzz_inputs(&ACTIONS, "action_text", texts)
        .expect("the actions cases load");
    // each text once, in order, as the seed files hold them
    let seeds: std::collections::BTreeSet<Vec<u8>> =
        inputs.into_iter().map(|(_, data)| data).collect();
    let mut checked = 0;
    for seed in seeds {
        for _ in 0..10 {
            let mut data = seed.clone();
            for _ in 0..rng.random_range(1..4) {
                let at = rng.random_range(0..=data.len());
                match rng.random_range(0..3) {
                    0 => data.insert(at, ALPHABET[rng.random_range(0..ALPHABET.len())]),
                    1 if at < data.len() => {
                        data.remove(at);
                    }
                    _ => {
                        let end = (at + rng.random_range(1..16)).min(data.len());
                        let stretch = data[at..end].to_vec();
                        data.splice(at..at, stretch);
                    }
                }
            }
            if fuzz_oracle::action_text(&data) == Verdict::Checked {
                checked += 1;
            }
        }
    }
    assert!(checked >= 2000, "only {checked} edited texts were checked");
}
