//! Replays the whole corpus against the reference: every stored expected
//! observation must equal its suite's reference observation (through
//! `SuiteDef::observe`), byte for byte once serialized.
//!
//! To regenerate expectations deliberately, run
//! `TOOLGATE_BLESS=1 cargo test -p toolgate-corpus --test replay`: changed cases are
//! rewritten and each change is printed as a diff; the run still fails so a
//! bless is never silent. `TOOLGATE_CASE_FILES=core/x.json,boundary/y.json`
//! (paths under `corpus/cases/`) limits the replay to those files.

use serde_json::Value as Json;
use std::path::Path;
use toolgate_corpus::case_file::{load_dir, load_file, to_text};

/// Compares the oracle's observation of every case with its stored one;
/// returns the differences, and blesses them when asked.
fn check(dir: &Path, bless: bool) -> Vec<String> {
    let mut problems = Vec::new();
    // TOOLGATE_CASE_FILES=a.json,b.json replays (and blesses) only those files
    let files = match std::env::var("TOOLGATE_CASE_FILES") {
        Ok(list) => list
            .split(',')
            .map(|name| {
                let path = dir.join(name.trim());
                let file =
                    load_file(&path, &toolgate_suites::all()).unwrap_or_else(|e| panic!("{e}"));
                (path, file)
            })
            .collect(),
        Err(_) => load_dir(dir, &toolgate_suites::all()).unwrap_or_else(|e| panic!("{e}")),
    };
    for (path, mut file) in files {
        let mut changed = false;
        for i in 0..file.cases.len() {
            let id = file.id(&file.cases[i]);
            let Some(suite) = toolgate_suites::get(&file.suite) else {
                problems.push(format!("{id}: no suite {}", file.suite));
                continue;
            };
            let actual: Json = match suite.observe(&file.cases[i].scenario) {
                Ok(o) => o,
                Err(e) => {
                    problems.push(format!("{id}: the oracle cannot run it: {e}"));
                    continue;
                }
            };
            let case = &mut file.cases[i];
            let stored: Option<Json> = case.expect.clone();
            if stored.as_ref() == Some(&actual) {
                continue;
            }
            let old = stored
                .as_ref()
                .map(|o| serde_json::to_string_pretty(o).unwrap())
                .unwrap_or_default();
            let new = serde_json::to_string_pretty(&actual).unwrap();
            problems.push(format!(
                "{id}: expected observation differs from the oracle's\n{}",
                line_diff(&old, &new)
            ));
            if bless {
                case.expect = Some(serde_json::to_value(&actual).unwrap());
                changed = true;
            }
        }
        if changed {
            std::fs::write(&path, to_text(&file).unwrap()).unwrap();
            eprintln!("blessed {}", path.display());
        }
    }
    problems
}

/// A minimal line diff: lines only in `old` start with `-`, only in `new` with `+`.
fn line_diff(old: &str, new: &str) -> String {
    let old: Vec<&str> = old.lines().collect();
    let new: Vec<&str> = new.lines().collect();
    let common_start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let common_end = old[common_start..]
        .iter()
        .rev()
        .zip(new[common_start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = String::new();
    for l in &old[common_start..old.len() - common_end] {
        out.push_str(&format!("  - {l}\n"));
    }
    for l in &new[common_start..new.len() - common_end] {
        out.push_str(&format!("  + {l}\n"));
    }
    out
}

#[test]
fn every_stored_observation_is_the_oracles() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
    let bless = std::env::var_os("TOOLGATE_BLESS").is_some_and(|v| v == "1");
    let problems = check(&dir, bless);
    assert!(
        problems.is_empty(),
        "{} case(s) differ{}:\n{}",
        problems.len(),
        if bless {
            " (blessed now; rerun without TOOLGATE_BLESS)"
        } else {
            "; rerun with TOOLGATE_BLESS=1 to regenerate deliberately"
        },
        problems.join("\n")
    );
}
