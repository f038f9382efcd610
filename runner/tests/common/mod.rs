//! Helpers the runner's gate tests share: where the Node adapters are,
//! whether Node (and a Python environment, `python`) is there, a gate's options and exit-code check, and the
//! verdict on a mutant's run.

#![allow(dead_code)]

pub mod mutants;
pub mod python;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use toolgate_runner::adapter;
use toolgate_runner::outcome::Status;
use toolgate_runner::report::RunReport;
use toolgate_runner::run::{run, RunOptions};

/// `adapters/node`.
pub fn node_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/node")
}

/// The command of the core suite's Node adapter, on `module` (default:
/// the project's `toolgate-core.mjs`).
pub fn node_adapter(module: Option<&Path>) -> String {
    let mut command = format!(
        "node {}",
        shell_words::quote(&node_dir().join("adapter.mjs").display().to_string())
    );
    if let Some(module) = module {
        command.push_str(&format!(
            " --module {}",
            shell_words::quote(&module.display().to_string())
        ));
    }
    command
}

/// Whether `node` is on the PATH; without it a test says so and passes,
/// unless `TOOLGATE_REQUIRE_NODE=1` (as `.ci/run` sets), where it fails.
pub fn node_available() -> bool {
    let found = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("TOOLGATE_REQUIRE_NODE").is_none(),
            "TOOLGATE_REQUIRE_NODE is set but `node` is not on the PATH"
        );
        eprintln!(
            "skipped: `node` is not on the PATH (set TOOLGATE_REQUIRE_NODE=1 to fail instead)"
        );
    }
    found
}

/// The embedded corpus's cases of `suite`.
pub fn corpus_of(suite: &str) -> Vec<toolgate_runner::cases::RunCase> {
    toolgate_runner::cases::corpus(None)
        .unwrap()
        .into_iter()
        .filter(|c| c.suite.id() == suite)
        .collect()
}

/// The options of a gate test: the adapter `command` on `suite`, with
/// `timeout` per case, no shrinking, no progress bar, shrunk failures (if
/// a test asks for any) under `target/toolgate-failures`.
pub fn gate_options(command: String, suite: &str, timeout: Duration) -> RunOptions {
    RunOptions {
        implementation: Some(adapter::Options {
            command,
            timeout,
            start_timeout: Duration::from_secs(30),
            max_restarts: 20,
        }),
        filter_suites: vec![suite.into()],
        shrink_steps: 0,
        save_dir: PathBuf::from("target/toolgate-failures"),
        progress: false,
        quiet: true,
        ..RunOptions::default()
    }
}

/// Runs the gate and asserts its exit code, printing the first ten cases
/// that did not pass when it differs.
pub fn check(options: &RunOptions, exit_code: i32) -> RunReport {
    let report = run(options).unwrap_or_else(|e| panic!("the gate did not run: {e}"));
    let bad: Vec<String> = report
        .cases
        .iter()
        .filter(|c| c.status != Status::Pass)
        .take(10)
        .map(|c| {
            format!(
                "{} {:?} {:?} {:?}",
                c.id, c.status, c.requirements, c.message
            )
        })
        .collect();
    assert_eq!(
        report.exit_code,
        exit_code,
        "exit code {} (expected {exit_code}):\n{}",
        report.exit_code,
        bad.join("\n")
    );
    report
}
