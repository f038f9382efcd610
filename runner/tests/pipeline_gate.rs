//! The pipeline suite's gate on the real pi-agent-core, through
//! `adapters/node/pipeline/adapter.mjs`: 0.85.0 passes the corpus and
//! generated cases; 1.6.0 fails exactly as
//! `matrix/pipeline/baselines/pi-agent-core-1.6.txt` says; and every mutant of `adapters/node/pipeline/mutants.json` (pi
//! wrapped to break on purpose) fails the gate, naming the requirements
//! it lists.
//!
//! Needs Node 20 and the pinned installs (`npm ci` in
//! `adapters/node/runtimes/pi-agent-core-*`); without Node these tests say
//! so and pass, unless `TOOLGATE_REQUIRE_NODE=1`.

mod common;

use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;
use toolgate_runner::outcome::Status;
use toolgate_runner::run::{run, RunOptions};

/// The adapter's settle window: every run that ends does so within
/// microtasks, so a short window only makes the cases that never end (two
/// in the corpus, and whatever a mutant makes hang) cheaper.
const SETTLE_MS: u32 = 200;

fn options(arguments: &str) -> RunOptions {
    let adapter = common::node_dir().join("pipeline/adapter.mjs");
    let command = format!(
        "node {} --settle-ms {SETTLE_MS} {arguments}",
        shell_words::quote(&adapter.display().to_string())
    );
    common::gate_options(command, "pipeline", Duration::from_secs(60))
}

#[test]
fn pi_0_85_passes_the_corpus_and_generated_cases() {
    if !common::node_available() {
        return;
    }
    let report = common::check(&options("--pi 0.85"), 0);
    assert!(report.cases.len() >= 150);
    assert!(report.cases.iter().all(|c| c.status == Status::Pass));
    // .ci/run runs 5,000 with the release binary; this keeps cargo test short
    let mut o = options("--pi 0.85");
    o.no_corpus = true;
    o.generate = 300;
    o.seed = Some(20261201);
    common::check(&o, 0);
}

#[test]
fn pi_1_6_fails_as_its_baseline_says() {
    if !common::node_available() {
        return;
    }
    let mut o = options("--pi 1.6");
    o.expected_failures = Some(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../matrix/pipeline/baselines/pi-agent-core-1.6.txt"),
    );
    common::check(&o, 0);
}

#[derive(Deserialize)]
struct Mutant {
    id: String,
    requirements: Vec<String>,
}

#[test]
fn every_mutant_of_pi_fails_the_gate_naming_its_requirements() {
    if !common::node_available() {
        return;
    }
    let file = common::node_dir().join("pipeline/mutants.json");
    let mutants: Vec<Mutant> =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert!(mutants.len() >= 12);
    let problems = common::mutants::check_all(&mutants, |m| {
        let o = options(&format!("--pi 0.85 --mutant {}", m.id));
        match run(&o) {
            Ok(report) => common::mutants::verdict(&m.id, &m.requirements, &report),
            Err(e) => Some(format!("{}: {e}", m.id)),
        }
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
