//! Writes the fuzz seed corpora from the conformance corpus:
//! `corpus/fuzz/<target>/<case>.json` for every core case (the core
//! targets take core scenarios; `serializer` builds graphs from raw bytes
//! and has no seeds), every boundary case (the `boundary`
//! target takes boundary ones), every pipeline case (`pipeline`) and every
//! workspace case that runs no bash (`workspace`), every actions case
//! (`actions`) and every distinct action text of them (`action_text`,
//! the raw text, named by its SHA-256).
//! Run after changing cases: `cargo run -p toolgate-contract --example fuzz_seeds`.

use std::path::Path;
use toolgate_contract::scenario::corpus::load_dir;
use toolgate_contract::scenario::Scenario;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = load_dir(&root.join("cases"))?;
    let mut written = 0;
    for target in ["serializer_scenario", "call", "registry", "scenario"] {
        let dir = root.join("fuzz").join(target);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        for (_, file) in files.iter().filter(|(_, f)| f.suite == "core") {
            for case in &file.cases {
                let stem = file.id(case).replace('/', "__");
                let mut scenario: Scenario = serde_json::from_value(case.scenario.clone())?;
                let seeds: Vec<serde_json::Value> = match target {
                    "call" => scenario.calls.iter().map(|c| c.call.clone()).collect(),
                    "registry" => {
                        scenario.calls.clear();
                        vec![serde_json::to_value(&scenario)?]
                    }
                    _ => vec![serde_json::to_value(&scenario)?],
                };
                for (i, seed) in seeds.iter().enumerate() {
                    let text = serde_json::to_vec(seed)?;
                    // the oracles skip inputs above 64 KiB; so would the fuzzer
                    if text.len() <= toolgate_contract::fuzzing::oracles::MAX_INPUT {
                        std::fs::write(dir.join(format!("{stem}.{i}.json")), text)?;
                        written += 1;
                    }
                }
            }
        }
    }
    // the boundary, pipeline, workspace and actions targets take their own
    // suite's scenarios (workspace: not those running bash or making a
    // swap, which its oracle skips)
    for suite in ["boundary", "pipeline", "workspace", "actions"] {
        let dir = root.join("fuzz").join(suite);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        for (_, file) in files.iter().filter(|(_, f)| f.suite == suite) {
            for case in &file.cases {
                let runs_bash = case.scenario["calls"]
                    .as_array()
                    .is_some_and(|calls| calls.iter().any(|c| c["tool"] == "bash"));
                let swaps = case.scenario["calls"]
                    .as_array()
                    .is_some_and(|calls| calls.iter().any(|c| c.get("swap").is_some()));
                if suite == "workspace" && (runs_bash || swaps) {
                    continue;
                }
                let text = serde_json::to_vec(&case.scenario)?;
                if text.len() <= toolgate_contract::fuzzing::oracles::MAX_INPUT {
                    let stem = file.id(case).replace('/', "__");
                    std::fs::write(dir.join(format!("{stem}.json")), text)?;
                    written += 1;
                }
            }
        }
    }
    // the structure layer's target takes the raw texts the actions cases
    // propose
    let dir = root.join("fuzz").join("action_text");
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let mut texts = std::collections::BTreeSet::new();
    for (_, file) in files.iter().filter(|(_, f)| f.suite == "actions") {
        for case in &file.cases {
            let runs = case.scenario["runs"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for run in runs {
                let policy = run["policy"].as_array().cloned().unwrap_or_default();
                texts.extend(policy.iter().filter_map(|e| e.as_str().map(str::to_owned)));
            }
        }
    }
    for text in texts {
        let digest = toolgate_contract::actions::store::digest(&text);
        let name = digest
            .trim_start_matches("sha256:")
            .get(..16)
            .unwrap_or("seed")
            .to_owned();
        std::fs::write(dir.join(format!("{name}.txt")), text)?;
        written += 1;
    }
    println!(
        "wrote {written} seeds under {}",
        root.join("fuzz").display()
    );
    Ok(())
}
