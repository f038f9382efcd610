//! The pipeline suite's gate on the real pi-agent-core, through
//! `adapters/node/pipeline/adapter.mjs`: 0.85.0 passes the corpus and
//! generated cases; 1.6.0 fails exactly as
//! `matrix/pipeline/baselines/pi-agent-core-1.6.txt` says; and every mutant of `adapters/node/pipeline/mutants.json` (pi
//! wrapped to break on purpose) fails the gate, naming the requirements
//! it lists; and every drift of `adapters/node/pipeline/drift-mutants.json`
//! (what a later pi release could plausibly change) fails exactly the cases
//! that exercise what it changes, naming exactly its requirements.
//!
//! Needs Node 20 and the pinned installs (`npm ci` in
//! `adapters/node/runtimes/pi-agent-core-*`); without Node these tests say
//! so and pass, unless `TOOLGATE_REQUIRE_NODE=1`.

mod common;

use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;
use toolgate_runner::cases::RunCase;
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

/// Every string in `v`, at any depth.
fn strings(v: &Json) -> Vec<&str> {
    match v {
        Json::String(s) => vec![s.as_str()],
        Json::Array(items) => items.iter().flat_map(strings).collect(),
        Json::Object(o) => o.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// The events of a case's expected trace.
fn events(c: &RunCase) -> Vec<&Json> {
    (c.expect
        .get("trace")
        .and_then(Json::as_array)
        .into_iter()
        .flatten())
    .filter_map(|e| e.get("event"))
    .collect()
}

/// Whether pi 0.85.0 emitted a toolResult message in the case.
fn has_result_message(c: &RunCase) -> bool {
    events(c).iter().any(|e| {
        e.get("type").and_then(Json::as_str) == Some("message_start")
            && e.pointer("/message/role").and_then(Json::as_str) == Some("toolResult")
    })
}

/// The cases drift `id` changes in what a requirement it lists is about,
/// read from each case's scenario and recorded expectation (not from the
/// judge): `None` for a drift this test does not know.
fn affected_by(id: &str) -> Option<fn(&RunCase) -> bool> {
    Some(match id {
        // the leading system message is about the transcript: the cases
        // queueing messages or recording the hooks' context (with tools,
        // which the message lists)
        "leading-system-message" => |c| {
            let s = &c.scenario;
            let tools = s
                .get("tools")
                .and_then(Json::as_array)
                .is_some_and(|t| !t.is_empty());
            let config = s.get("config");
            let queued = ["steering", "followUp"]
                .iter()
                .any(|k| config.and_then(|c| c.get(*k)).is_some());
            tools && (queued || s.get("hookContext") == Some(&Json::Bool(true)))
        },
        // a validation failure with an error line
        "validation-line-bullet" => |c| {
            strings(&c.expect)
                .iter()
                .any(|t| t.starts_with("Validation failed for tool ") && t.contains("\n  - "))
        },
        "result-duration-field" | "result-message-update" => has_result_message,
        // pi's own not-found text
        "unknown-tool-reworded" => |c| {
            strings(&c.expect)
                .iter()
                .any(|t| t.starts_with("Tool ") && t.ends_with(" not found") && !t.contains('"'))
        },
        // no requirement covers it: nothing may fail
        "model-tools-sorted" => |_| false,
        _ => return None,
    })
}

#[test]
fn every_drift_fails_the_cases_it_affects_naming_only_its_requirements() {
    if !common::node_available() {
        return;
    }
    let file = common::node_dir().join("pipeline/drift-mutants.json");
    let drifts: Vec<Mutant> =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert!(drifts.len() >= 5);
    let corpus: Vec<RunCase> = common::corpus_of("pipeline");
    let problems = common::mutants::check_all(&drifts, |m| {
        let Some(affects) = affected_by(&m.id) else {
            return Some(format!(
                "{}: this test does not say which cases it affects",
                m.id
            ));
        };
        let expected: BTreeSet<&str> = corpus
            .iter()
            .filter(|c| !m.requirements.is_empty() && affects(c))
            .map(|c| c.id.as_str())
            .collect();
        let o = options(&format!("--pi 0.85 --mutant {}", m.id));
        let report = match run(&o) {
            Ok(report) => report,
            Err(e) => return Some(format!("{}: {e}", m.id)),
        };
        let mut found = Vec::new();
        found.extend(common::mutants::verdict(&m.id, &m.requirements, &report));
        found.extend(common::mutants::exactly(&m.id, &m.requirements, &report).err());
        let failing: BTreeSet<&str> = (report.cases.iter())
            .filter(|c| c.status != Status::Pass)
            .map(|c| c.id.as_str())
            .collect();
        let extra: Vec<&str> = failing.difference(&expected).copied().collect();
        let spared: Vec<&str> = expected.difference(&failing).copied().collect();
        if !extra.is_empty() {
            found.push(format!(
                "{}: {} case(s) it does not affect fail: {}",
                m.id,
                extra.len(),
                extra.iter().take(5).copied().collect::<Vec<_>>().join(", ")
            ));
        }
        if !spared.is_empty() {
            found.push(format!(
                "{}: {} case(s) it affects pass: {}",
                m.id,
                spared.len(),
                spared
                    .iter()
                    .take(5)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        eprintln!(
            "{}: {} case(s) fail, naming {:?}",
            m.id,
            failing.len(),
            (report.cases.iter())
                .flat_map(|c| c.requirements.iter().map(String::as_str))
                .collect::<BTreeSet<_>>()
        );
        (!found.is_empty()).then(|| found.join("\n"))
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
