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

#[test]
fn workspace_fast_oracle() {
    let checked = fuzz_replay(
        &WORKSPACE,
        "workspace",
        fuzz_oracle::workspace_fast,
        seed,
        120,
        110,
    );
    checked.unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_fast_oracle_skips_deep_paths_and_large_trees_the_full_one_checks() {
    let scenario = |path: &str, extra: usize| {
        let mut tree = vec![
            serde_json::json!({"path": "ws", "kind": "dir"}),
            serde_json::json!({"path": "ws/a.txt", "kind": "file", "content": "a"}),
        ];
        tree.extend((0..extra).map(
            |i| serde_json::json!({"path": format!("ws/f{i}"), "kind": "file", "content": ""}),
        ));
        serde_json::json!({"tree": tree, "root": "ws", "calls": [{"tool": "write", "input": {"path": path, "content": "w"}}]})
            .to_string()
            .into_bytes()
    };
    let deep = vec!["d"; 40].join("/");
    for (input, what) in [
        (scenario(&deep, 0), "a 40-segment path"),
        (scenario("a.txt", 70), "a 72-entry tree"),
    ] {
        assert_eq!(
            fuzz_oracle::workspace_fast(&input),
            toolgate_suite::fuzzing::Verdict::Skipped(
                "a workspace scenario too large to fuzz quickly"
            ),
            "{what}"
        );
        assert_eq!(
            fuzz_oracle::workspace(&input),
            toolgate_suite::fuzzing::Verdict::Checked,
            "{what}"
        );
    }
    let small = scenario(&vec!["d"; 20].join("/"), 10);
    assert_eq!(
        fuzz_oracle::workspace_fast(&small),
        toolgate_suite::fuzzing::Verdict::Checked
    );
}
