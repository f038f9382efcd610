//! Writes the fuzz seed corpora from the conformance corpus (the embedded
//! cases), with the functions the suites' replay tests use:
//! `corpus/fuzz/<target>/<case>.json` for every core case (the core
//! targets take core scenarios; `serializer` builds graphs from raw bytes
//! and has no seeds), every boundary case (the `boundary` target takes
//! boundary ones), every pipeline case (`pipeline`) and every workspace
//! case that runs no bash and swaps no path (`workspace`), every actions
//! case (`actions`) and every distinct action text of them (`action_text`,
//! the raw text, named by its SHA-256).
//! Run after changing cases: `cargo run -p toolgate-suites --example fuzz_seeds`.
//! It writes into the repository's `corpus/fuzz/`, which the fuzz campaign
//! (`fuzz/campaign.sh`) copies its working corpus from.

use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use toolgate_corpus::scenario_seed;
use toolgate_suite::fuzzing::MAX_INPUT;
use toolgate_suite::SuiteDef;

/// Seeds, each with its file name.
type Seeds = Vec<(String, Vec<u8>)>;

/// Writes `seeds` under `corpus/fuzz/<target>/`, emptied first, each named
/// by `name`; returns how many (seeds over the fuzzers' size bound are
/// left out).
fn write(dir: &Path, seeds: &Seeds) -> std::io::Result<usize> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)?;
    let mut written = 0;
    for (name, data) in seeds.iter().filter(|(_, d)| d.len() <= MAX_INPUT) {
        std::fs::write(dir.join(name), data)?;
        written += 1;
    }
    Ok(written)
}

/// Each case of `suite` with what `seeds` makes of its scenario, named
/// `<group>__<case>.<i>.json` (or without `.<i>` when `numbered` is off).
fn of_cases(
    suite: &'static dyn SuiteDef,
    numbered: bool,
    seeds: impl Fn(&Json) -> Vec<Vec<u8>>,
) -> Result<Seeds, Box<dyn std::error::Error>> {
    let mut out = Vec::new();
    for (_, file) in toolgate_corpus::of_suite(suite)? {
        for case in &file.cases {
            let stem = file.id(case).replace('/', "__");
            for (i, seed) in seeds(&case.scenario).into_iter().enumerate() {
                let name = if numbered {
                    format!("{stem}.{i}.json")
                } else {
                    format!("{stem}.json")
                };
                out.push((name, seed));
            }
        }
    }
    Ok(out)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../corpus/fuzz");
    let mut written = 0;
    for target in ["serializer_scenario", "call", "registry", "scenario"] {
        let seeds = of_cases(&toolgate_core::CORE, true, |s| {
            let seeds = toolgate_core::fuzzing::oracles::seeds(target, s);
            seeds
                .iter()
                .map(|seed| seed.to_string().into_bytes())
                .collect()
        })?;
        written += write(&root.join(target), &seeds)?;
    }
    let boundary = of_cases(&toolgate_boundary::BOUNDARY, false, scenario_seed)?;
    written += write(&root.join("boundary"), &boundary)?;
    let pipeline = of_cases(&toolgate_pipeline::PIPELINE, false, scenario_seed)?;
    written += write(&root.join("pipeline"), &pipeline)?;
    let workspace = of_cases(&toolgate_workspace::WORKSPACE, false, |s| {
        toolgate_workspace::fuzz_oracle::seed(s).map_or_else(Vec::new, scenario_seed)
    })?;
    written += write(&root.join("workspace"), &workspace)?;
    let actions = of_cases(&toolgate_actions::ACTIONS, false, scenario_seed)?;
    written += write(&root.join("actions"), &actions)?;
    // each distinct action text once, named by its digest
    let texts: std::collections::BTreeSet<String> =
        toolgate_corpus::of_suite(&toolgate_actions::ACTIONS)?
            .iter()
            .flat_map(|(_, file)| file.cases.iter())
            .flat_map(|case| {
                toolgate_actions::fuzz_oracle::action_texts(&case.scenario)
                    .into_iter()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
    let texts: Seeds = texts
        .into_iter()
        .map(|text| {
            let digest = toolgate_actions::store::digest(&text);
            let name = digest
                .trim_start_matches("sha256:")
                .get(..16)
                .unwrap_or("seed")
                .to_owned();
            (format!("{name}.txt"), text.into_bytes())
        })
        .collect();
    written += write(&root.join("action_text"), &texts)?;
    println!("wrote {written} seeds under {}", root.display());
    Ok(())
}
