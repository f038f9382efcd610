//! The pipeline corpus as the pipeline tests read it: every case of
//! `corpus/cases/pipeline/` (through the crate's own loader) with pi
//! 0.85.0's recorded observation, and 1.6.0's from
//! `adapters/node/pipeline/recorded/pi-1.6.0.json`. The agent-loop cases
//! ([`pipeline_cases`]) and the file-queue cases ([`file_queue_cases`])
//! have different formats, so each test reads the kind it is about.

// each test file that includes this module uses a part of it
#![allow(dead_code)]

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use toolgate_pipeline::file_queue::is_file_queue;

/// The repository's root: pi 1.6.0's recording is the Node harness's
/// output (`adapters/node/pipeline/recorded/`), not this crate's data.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One case: its id, scenario and `expect` (pi 0.85.0's observation).
pub struct PipelineCase {
    pub id: String,
    pub scenario: Json,
    pub expect: Json,
}

/// Every case of the pipeline suite, in file and case order.
fn all_cases() -> Vec<PipelineCase> {
    let files = toolgate_corpus::of_suite(&toolgate_pipeline::PIPELINE).expect("the corpus loads");
    let mut out = Vec::new();
    for (_, file) in &files {
        for case in &file.cases {
            out.push(PipelineCase {
                id: file.id(case),
                scenario: case.scenario.clone(),
                expect: case.expect.clone().unwrap_or(Json::Null),
            });
        }
    }
    out
}

/// The agent-loop cases of the pipeline suite, in file and case order.
pub fn pipeline_cases() -> Vec<PipelineCase> {
    let out: Vec<PipelineCase> = all_cases()
        .into_iter()
        .filter(|c| !is_file_queue(&c.scenario))
        .collect();
    assert!(out.len() >= 150, "only {} pipeline cases", out.len());
    out
}

/// The file-queue cases (`{"fileQueue": ...}` scenarios).
pub fn file_queue_cases() -> Vec<PipelineCase> {
    all_cases()
        .into_iter()
        .filter(|c| is_file_queue(&c.scenario))
        .collect()
}

/// pi 1.6.0's observations of agent-loop cases, by case id.
pub fn recorded_1_6() -> Json {
    let all = recorded_1_6_all();
    let kept = all
        .as_object()
        .expect("an object of observations by case id")
        .iter()
        .filter(|(_, o)| !is_file_queue(o))
        .map(|(id, o)| (id.clone(), o.clone()))
        .collect();
    Json::Object(kept)
}

/// pi 1.6.0's observations of every case, by case id.
pub fn recorded_1_6_all() -> Json {
    let path = root().join("adapters/node/pipeline/recorded/pi-1.6.0.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of a file of the repository, parsed.
pub fn repository_json(relative: &str) -> Json {
    let path = root().join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
