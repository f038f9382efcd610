//! A Rust team's first hour with the harness, as a test: a throwaway crate
//! depends on `toolgate-harness` (by path), implements `Shim` for a
//! 30-line runtime of its own (it runs each call in turn, with a deadline,
//! and validates nothing), and has the gate as a `harness = false` test.
//! The first `cargo test` writes the runtime's baseline (its known
//! failures); the next is green against it; a broken variant of the
//! runtime (an unknown tool now panics the turn) is red, naming the
//! requirements it breaks.
//!
//! The crate is built with this workspace's `Cargo.lock` (read from the
//! repository root) and target directory, so only the new crate and what
//! its features change are compiled.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The runtime: 30 lines of an ordinary tool loop.
const RUNTIME: &str = r#"
use std::time::Duration;
use toolgate_harness::{ResultSeen, Runtime, Shim, ToolContext, Turn, TurnError, TurnOutcome};

pub struct Tiny;

impl Shim for Tiny {
    fn runtime(&self) -> Runtime {
        Runtime { id: "tiny", package: "tiny", version: "0.1.0", path: "a loop", homepage: None }
    }

    async fn run_turn(&self, mut turn: Turn) -> Result<TurnOutcome, TurnError> {
        let mut results = Vec::new();
        for call in &mut turn.calls {
            let found = turn.tools.iter().find(|t| t.name == call.name).cloned();
            let (is_error, text) = match found {
                None => (true, format!("unknown tool {}", call.name)),
                Some(tool) => {
                    let cx = ToolContext { call_id: Some(call.id.clone()), ..Default::default() };
                    let body = tool.call(call.arguments.take(), cx);
                    match tokio::time::timeout(Duration::from_secs(1), body).await {
                        Ok(Ok(v)) => (false, serde_json::to_string(&v).unwrap_or_default()),
                        Ok(Err(e)) => (true, e.to_string()),
                        Err(_) => (true, "timed out".to_string()),
                    }
                }
            };
            let delivered = serde_json::Value::String(text);
            results.push(ResultSeen { call_id: Some(call.id.clone()), is_error: Some(is_error), delivered });
        }
        Ok(TurnOutcome { results, ..Default::default() })
    }
}
"#;

/// The variant: an unknown tool panics the turn.
const BROKEN: (&str, &str) = (
    "None => (true, format!(\"unknown tool {}\", call.name)),",
    "None => panic!(\"no tool named {}\", call.name),",
);

const GATE: &str = r#"
fn main() -> std::process::ExitCode {
    toolgate_harness::Gate::new(tiny_runtime::Tiny)
        .expected_failures("baseline.txt")
        .main()
}
"#;

fn manifest(harness: &Path) -> String {
    format!(
        r#"[package]
name = "tiny-runtime"
version = "0.1.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
toolgate-harness = {{ path = "{}" }}
serde_json = "1"
# `rt-multi-thread` and zerocopy are not the team's: they are the features
# `cargo test` turns on in toolgate's workspace (criterion's zerocopy
# `derive`, toolgate-core's tokio `rt-multi-thread`), asked for so that
# this crate's dependencies are the builds the workspace and
# runner/tests/rust_gate.rs made, not a set of their own
tokio = {{ version = "1", features = ["time", "rt-multi-thread"] }}
zerocopy = {{ version = "0.8", features = ["derive"] }}

[[test]]
name = "toolgate"
path = "tests/toolgate.rs"
harness = false

# the workspace's test profile, so that its dependencies' builds are reused
[profile.test]
opt-level = 1
debug = "line-tables-only"
"#,
        harness.display()
    )
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `cargo test --test toolgate -- <args>` in the crate.
fn gate(dir: &Path, target: &Path, args: &[&str]) -> Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    Command::new(cargo)
        .args(["test", "--offline", "--test", "toolgate", "--"])
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("cargo runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn a_throwaway_crate_gates_its_runtime_green_then_red_when_broken() {
    let harness = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let target = tmp
        .parent()
        .expect("target/tmp is in the target directory")
        .to_path_buf();
    let dir = tmp.join("tiny-runtime");
    let _ = std::fs::remove_dir_all(&dir);
    write(&dir.join("Cargo.toml"), &manifest(&harness));
    write(&dir.join("src/lib.rs"), RUNTIME);
    write(&dir.join("tests/toolgate.rs"), GATE);
    std::fs::copy(harness.join("../../../Cargo.lock"), dir.join("Cargo.lock")).unwrap();

    // the first run writes the baseline: what the runtime fails today
    let first = gate(
        &dir,
        &target,
        &["--write-expected-failures", "baseline.txt"],
    );
    assert!(first.status.success(), "{}", text(&first));
    let baseline = std::fs::read_to_string(dir.join("baseline.txt")).unwrap();
    // it validates nothing, so a refused argument reaches the tool
    assert!(
        baseline.contains("boundary-arguments/missing-required-property"),
        "{baseline}"
    );
    // and a working call is no failure
    assert!(
        !baseline.contains("boundary-outputs/returns-a-string"),
        "{baseline}"
    );

    let green = gate(&dir, &target, &[]);
    assert!(green.status.success(), "{}", text(&green));

    let source = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    assert!(source.contains(BROKEN.0));
    write(&dir.join("src/lib.rs"), &source.replace(BROKEN.0, BROKEN.1));
    let red = gate(&dir, &target, &[]);
    let said = text(&red);
    assert_eq!(red.status.code(), Some(1), "{said}");
    assert!(
        said.contains("boundary-unknown-tools/unknown-among-registered"),
        "{said}"
    );
    assert!(said.contains("BOUNDARY-UNK-01"), "{said}");
    assert!(said.contains("no tool named"), "{said}");
}
