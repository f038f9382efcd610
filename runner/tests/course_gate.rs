//! The gate against the contract's author: the course's own implementation
//! of checkpoint 06, built by the user from a checkout of the course's
//! repository (this project ships none of its code), passes the corpus and
//! generated cases of four seeds through the Node adapter, with the
//! divergences listed in `corpus/baselines/course-06.txt` and nothing else.
//!
//! Opt-in: `TOOLGATE_COURSE_MODULE=/path/to/course/tool.js cargo test -p
//! toolgate --test course_gate` (the module as `tsc` emits it, importable by
//! Node 20; `TOOLGATE_COURSE_CASES` sets the generated cases per seed,
//! default 5,000). Without the variable the test says it was not run.

use std::path::{Path, PathBuf};
use std::time::Duration;
use toolgate_runner::adapter;
use toolgate_runner::outcome::Status;
use toolgate_runner::run::{run, RunOptions};

const SEEDS: [u64; 4] = [7, 11, 13, 17];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn check(module: &Path, seed: Option<u64>, generate: u64) {
    let adapter = repo().join("adapters/node/adapter.mjs");
    let options = RunOptions {
        implementation: Some(adapter::Options {
            command: format!(
                "node {} --module {}",
                shell_words::quote(&adapter.display().to_string()),
                shell_words::quote(&module.display().to_string())
            ),
            timeout: Duration::from_secs(120),
            start_timeout: Duration::from_secs(30),
            max_restarts: 20,
        }),
        filter_suites: vec!["core".into()],
        no_corpus: seed.is_some(),
        generate,
        seed,
        shrink_steps: 0,
        expected_failures: Some(repo().join("corpus/baselines/course-06.txt")),
        save_dir: PathBuf::from("target/toolgate-failures"),
        progress: false,
        quiet: true,
        ..RunOptions::default()
    };
    let report = run(&options).unwrap_or_else(|e| panic!("the gate did not run: {e}"));
    let unexpected: Vec<String> = report
        .cases
        .iter()
        .filter(|c| c.fails_the_run())
        .map(|c| format!("{} {:?} {:?}", c.id, c.status, c.requirements))
        .collect();
    assert!(
        unexpected.is_empty() && report.exit_code == 0,
        "seed {seed:?}: {} unexpected result(s), first: {:?}",
        unexpected.len(),
        unexpected.iter().take(10).collect::<Vec<_>>()
    );
    assert!(
        report.cases.iter().all(|c| c.status != Status::Skip),
        "the course's adapter has every capability"
    );
}

#[test]
fn the_course_passes_the_corpus_and_four_seeds_but_its_listed_divergences() {
    let Some(module) = std::env::var_os("TOOLGATE_COURSE_MODULE") else {
        eprintln!(
            "not run: set TOOLGATE_COURSE_MODULE to the course's built tool.js to gate it \
             (see corpus/baselines/course-06.txt)"
        );
        return;
    };
    let module = PathBuf::from(module);
    assert!(module.is_file(), "{} is not a file", module.display());
    let generate = std::env::var("TOOLGATE_COURSE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(5_000);
    check(&module, None, 0);
    for seed in SEEDS {
        check(&module, Some(seed), generate);
    }
}
