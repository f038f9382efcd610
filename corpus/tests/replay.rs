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
    let observed = observe_all(&files);
    for ((path, mut file), observed) in files.into_iter().zip(observed) {
        let mut changed = false;
        for (i, actual) in observed.into_iter().enumerate() {
            let id = file.id(&file.cases[i]);
            let actual: Json = match actual {
                Ok(o) => o,
                Err(e) => {
                    problems.push(format!("{id}: {e}"));
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

/// The oracle's observation of every case of `files` (or why there is
/// none), in their order. The cases are independent, so they are observed
/// on every core: the workspace suite's two cases that wait out its 10 s
/// bash limit took 20 of this test's 31 s one after the other.
fn observe_all(
    files: &[(std::path::PathBuf, toolgate_corpus::case_file::CaseFile)],
) -> Vec<Vec<Result<Json, String>>> {
    let work: Vec<(usize, usize)> = files
        .iter()
        .enumerate()
        .flat_map(|(f, (_, file))| (0..file.cases.len()).map(move |c| (f, c)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let observed: Vec<std::sync::OnceLock<Result<Json, String>>> =
        work.iter().map(|_| std::sync::OnceLock::new()).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let at = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(&(f, c)) = work.get(at) else { return };
                let file = &files[f].1;
                let result = match toolgate_suites::get(&file.suite) {
                    None => Err(format!("no suite {}", file.suite)),
                    Some(suite) => suite
                        .observe(&file.cases[c].scenario)
                        .map_err(|e| format!("the oracle cannot run it: {e}")),
                };
                let _ = observed[at].set(result);
            });
        }
    });
    // `work` is in file order: each file takes its cases' count in turn
    let mut observed = observed
        .into_iter()
        .map(|o| o.into_inner().expect("every case observed"));
    files
        .iter()
        .map(|(_, file)| observed.by_ref().take(file.cases.len()).collect())
        .collect()
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
