//! The fuzz oracles on stable, without a fuzzer: each target's oracle runs
//! on a fixed number of inputs from a seeded RNG, on its seed corpus
//! (`corpus/fuzz/<target>/`) and on every minimized finding
//! (`corpus/regressions/<target>/`). A bug panics inside the oracle with
//! what broke and the scenario that broke it.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::Path;
use toolgate_contract::fuzzing::{self, Verdict};

type Oracle = fn(&[u8]) -> Verdict;

/// Runs `oracle` on `random` seeded inputs and on every file of the target's
/// seeds and regressions; at least `min_checked` inputs must be checked
/// (not skipped), so the oracle cannot silently test nothing.
fn check(target: &str, oracle: Oracle, random: usize, min_checked: usize) {
    let mut rng = StdRng::seed_from_u64(0x7001_6a7e);
    let mut checked = 0;
    for _ in 0..random {
        let len = rng.random_range(0..2048);
        let data: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        if oracle(&data) == Verdict::Checked {
            checked += 1;
        }
    }
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    for dir in [
        corpus.join("fuzz").join(target),
        corpus.join("regressions").join(target),
    ] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|x| x == "md") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            // a panic here names the file through the test's output
            eprintln!("replaying {}", path.display());
            if oracle(&data) == Verdict::Checked {
                checked += 1;
            }
        }
    }
    assert!(
        checked >= min_checked,
        "{target}: only {checked} inputs were checked"
    );
}

#[test]
fn serializer_oracle() {
    check("serializer", fuzzing::serializer, 2000, 1500);
}

#[test]
fn serializer_scenario_oracle() {
    check(
        "serializer_scenario",
        fuzzing::serializer_scenario,
        400,
        200,
    );
}

#[test]
fn call_oracle() {
    // random bytes are rarely JSON: the seeds carry this one
    check("call", fuzzing::call, 200, 0);
}

#[test]
fn registry_oracle() {
    check("registry", fuzzing::registry, 300, 150);
}

#[test]
fn scenario_oracle() {
    check("scenario", fuzzing::scenario, 300, 150);
}

#[test]
fn boundary_oracle() {
    check("boundary", fuzzing::boundary, 200, 190);
}

#[test]
fn pipeline_oracle() {
    check("pipeline", fuzzing::pipeline, 200, 190);
}

#[test]
fn action_text_oracle() {
    check("action_text", fuzzing::action_text, 2000, 2000);
}

/// The action texts of the seeds, each edited ten times the way a fuzzer
/// edits them (a byte inserted from JSON's own alphabet and its near
/// misses, a byte deleted, a stretch repeated): random bytes alone seldom
/// come near JSON.
#[test]
fn action_text_oracle_on_edited_seeds() {
    const ALPHABET: &[u8] = b" \t\n\r\x0c\x0b,:[]{}\"\\/ubfnrt0123456789.eE+-NIa\x00\x7f\xc3\xff";
    let mut rng = StdRng::seed_from_u64(0x0ac7_10a5);
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/fuzz/action_text");
    let mut checked = 0;
    for entry in std::fs::read_dir(seeds).unwrap().flatten() {
        let seed = std::fs::read(entry.path()).unwrap();
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
            if fuzzing::action_text(&data) == Verdict::Checked {
                checked += 1;
            }
        }
    }
    assert!(checked >= 2000, "only {checked} edited texts were checked");
}

#[test]
fn actions_oracle() {
    check("actions", fuzzing::actions, 300, 300);
}

#[test]
fn workspace_oracle() {
    check("workspace", fuzzing::workspace, 120, 110);
}

/// The graphs the `serializer` target builds from raw bytes reach what the
/// serializer must bound and refuse: each budget hit, refused prototypes of
/// objects and arrays, throwing hosts, and plain outputs.
#[test]
fn raw_byte_graphs_reach_every_budget_and_failure() {
    use arbitrary::Unstructured;
    use toolgate_contract::constants::{MAX_ENTRIES, MAX_NODES, MAX_STRING_CHARS};
    use toolgate_contract::fuzzing::graph::output_graph;
    use toolgate_contract::model::{Runtime, Trace};
    use toolgate_contract::serializer::{serialize, Failure, Refused};
    use toolgate_contract::AbortSignal;

    let mut rng = StdRng::seed_from_u64(0x9a4f);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..3000 {
        let len = rng.random_range(0..1024);
        let data: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let Ok(Some(graph)) = output_graph(&mut Unstructured::new(&data)) else {
            continue;
        };
        for root in &graph.roots {
            let rt = Runtime::new(&graph.heap, AbortSignal::new(), Trace::default());
            seen.insert(match serialize(&rt, root) {
                Ok(out) if out.usage.nodes >= MAX_NODES => "nodes budget",
                Ok(out) if out.usage.entries >= MAX_ENTRIES => "entries budget",
                Ok(out) if out.usage.string_chars >= MAX_STRING_CHARS => "string budget",
                Ok(out) if out.truncated => "truncated otherwise",
                Ok(_) => "whole",
                Err(Failure::Unsupported(Refused::Array)) => "refused array",
                Err(Failure::Unsupported(_)) => "refused object",
                Err(Failure::Thrown(_)) => "thrown",
            });
        }
    }
    let want = [
        "entries budget",
        "nodes budget",
        "refused array",
        "refused object",
        "string budget",
        "thrown",
        "truncated otherwise",
        "whole",
    ];
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), want);
}
