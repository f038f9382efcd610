//! The pipeline corpus as the pipeline tests read it: every case of
//! `corpus/cases/pipeline/` (through the crate's own loader) with pi
//! 0.85.0's recorded observation, and 1.6.0's from
//! `adapters/node/pipeline/recorded/pi-1.6.0.json`.

// each test file that includes this module uses a part of it
#![allow(dead_code)]

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use toolgate_contract::scenario::corpus::load_dir;

/// One case: its id, scenario and `expect` (pi 0.85.0's observation).
pub struct PipelineCase {
    pub id: String,
    pub scenario: Json,
    pub expect: Json,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every case of the pipeline suite, in file and case order.
pub fn pipeline_cases() -> Vec<PipelineCase> {
    let files = load_dir(&root().join("corpus/cases")).expect("the corpus loads");
    let mut out = Vec::new();
    for (_, file) in files.iter().filter(|(_, f)| f.suite == "pipeline") {
        for case in &file.cases {
            out.push(PipelineCase {
                id: file.id(case),
                scenario: case.scenario.clone(),
                expect: case.expect.clone().unwrap_or(Json::Null),
            });
        }
    }
    assert!(out.len() >= 150, "only {} pipeline cases", out.len());
    out
}

/// pi 1.6.0's observations, by case id.
pub fn recorded_1_6() -> Json {
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
