//! The gate against a real foreign implementation: the JavaScript
//! implementation of the core contract in `adapters/node/`, through the Node
//! adapter, passes the corpus and generated cases; and every deliberately
//! broken copy of it listed in `adapters/node/mutants.json` fails the gate,
//! naming the requirements the mutant lists.
//!
//! Needs Node 20 on the PATH. Without it these tests say so and pass, unless
//! `TOOLGATE_REQUIRE_NODE=1` (as `.ci/run` sets), where they fail.

mod common;

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use toolgate_runner::outcome::Status;
use toolgate_runner::run::{run, RunOptions};

/// The three slowest cases (a million keys or levels, built in JavaScript
/// for each mutant) are left out of the mutant runs; no mutant needs them.
const SLOW: [&str; 3] = [
    "serializer-budgets/cost-million-key-object",
    "serializer-containers/hidden-and-symbol-keys-cost-nothing",
    "serializer-budgets/cost-million-deep-array-nest",
];

fn options(module: Option<&Path>) -> RunOptions {
    // the boundary suite grades runtimes through adapters/node/boundary
    common::gate_options(
        common::node_adapter(module),
        "core",
        Duration::from_secs(120),
    )
}

#[test]
fn the_javascript_implementation_passes_the_corpus() {
    if !common::node_available() {
        return;
    }
    let report = common::check(&options(None), 0);
    assert_eq!(report.implementation.language, "javascript");
    assert!(report.cases.iter().all(|c| c.status == Status::Pass));
}

#[test]
fn the_javascript_implementation_passes_generated_cases() {
    if !common::node_available() {
        return;
    }
    // .ci/run runs 10,000 with the release binary; this keeps cargo test short
    let mut o = options(None);
    o.no_corpus = true;
    o.generate = 300;
    o.seed = Some(20261130);
    let report = common::check(&o, 0);
    let skipped = report
        .cases
        .iter()
        .filter(|c| c.status == Status::Skip)
        .count();
    assert!(skipped * 10 < report.cases.len(), "{skipped} skipped");
}

#[test]
fn every_mutant_fails_the_gate_naming_its_requirements() {
    if !common::node_available() {
        return;
    }
    let dir = common::node_dir();
    let source = std::fs::read_to_string(dir.join("toolgate-core.mjs")).unwrap();
    let mutants = common::mutants::load(&dir.join("mutants.json"));
    assert!(mutants.len() >= 10);
    let tmp = tempfile::tempdir().unwrap();
    let queue = Mutex::new(mutants.iter().collect::<Vec<_>>());
    let problems = Mutex::new(Vec::new());
    let timings = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let Some(m) = queue.lock().unwrap().pop() else {
                    return;
                };
                let mutated = match m.apply(&source, "toolgate-core.mjs") {
                    Ok(mutated) => mutated,
                    Err(problem) => {
                        problems.lock().unwrap().push(problem);
                        continue;
                    }
                };
                let path = tmp.path().join(format!("{}.mjs", m.name));
                std::fs::write(&path, mutated).unwrap();
                let mut o = options(Some(&path));
                o.exclude = SLOW.iter().map(|s| s.to_string()).collect();
                let started = Instant::now();
                let report = match run(&o) {
                    Ok(r) => r,
                    Err(e) => {
                        problems.lock().unwrap().push(format!("{}: {e}", m.name));
                        continue;
                    }
                };
                let wall = started.elapsed();
                if let Some(problem) = common::mutants::verdict(&m.name, &m.requirements, &report) {
                    problems.lock().unwrap().push(problem);
                }
                timings.lock().unwrap().push((
                    m.name.clone(),
                    wall,
                    common::mutants::first_failure(&report),
                ));
            });
        }
    });
    let mut timings = timings.into_inner().unwrap();
    timings.sort();
    for (name, wall, first) in &timings {
        eprintln!(
            "mutant {name}: gate {:.2} s, first failure after {}",
            wall.as_secs_f64(),
            first.map_or("-".to_string(), |d| format!(
                "{:.1} ms",
                d.as_secs_f64() * 1e3
            ))
        );
    }
    let problems = problems.into_inner().unwrap();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
