//! The core suite's fuzz oracles on stable, without a fuzzer: each target's
//! oracle runs on a fixed number of inputs from a seeded RNG, on the seeds
//! the core cases give it (what `fuzz_seeds` writes under `corpus/fuzz/`)
//! and on every minimized finding (`corpus/regressions/<target>/`). A bug
//! panics inside the oracle with what broke and the scenario that broke it.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use toolgate_core::fuzzing::{self, Verdict};

/// Runs `oracle` on `random` seeded inputs, on the seeds of `target` from
/// every core case and on its regressions; at least `min_checked` inputs
/// must be checked (not skipped), so the oracle cannot silently test
/// nothing.
fn check(target: &str, oracle: fn(&[u8]) -> Verdict, random: usize, min_checked: usize) {
    let seeds = |scenario: &serde_json::Value| {
        let seeds = fuzzing::oracles::seeds(target, scenario);
        seeds
            .iter()
            .map(|seed| seed.to_string().into_bytes())
            .collect()
    };
    let suite = &toolgate_core::CORE;
    toolgate_corpus::fuzz_replay(suite, target, oracle, seeds, random, min_checked)
        .unwrap_or_else(|e| panic!("{e}"));
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

/// The graphs the `serializer` target builds from raw bytes reach what the
/// serializer must bound and refuse: each budget hit, refused prototypes of
/// objects and arrays, throwing hosts, and plain outputs.
#[test]
fn raw_byte_graphs_reach_every_budget_and_failure() {
    use arbitrary::Unstructured;
    use toolgate_core::constants::{MAX_ENTRIES, MAX_NODES, MAX_STRING_CHARS};
    use toolgate_core::fuzzing::graph::output_graph;
    use toolgate_core::model::{Runtime, Trace};
    use toolgate_core::serializer::{serialize, Failure, Refused};
    use toolgate_core::AbortSignal;

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
