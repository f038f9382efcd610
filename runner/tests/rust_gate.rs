//! The boundary suite's gate against Rust runtimes through
//! `toolgate-harness`: the suite's Rust positive control,
//! `adapters/rust/runtimes/toolgate-wall-rust` (a tokio executor that
//! keeps the whole wall), passes every boundary case and 500 generated
//! ones under `--strict` through the `toolgate` command, and every
//! deliberately broken copy of it listed in its `mutants.json` is caught,
//! the gate naming exactly the requirements the mutant lists.
//!
//! The wall and its mutants are built here, as members of one generated
//! workspace under `target/tmp/rust-wall` (reading the wall's sources and
//! the repository's `Cargo.lock`), with this workspace's target directory
//! and test profile, so only the copies themselves are compiled.

mod common;

use common::mutants::Mutant;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use toolgate_runner::cases::RunCase;
use toolgate_runner::run::{run, RunOptions};

/// Mutants run at once: each run is one adapter whose cases mostly wait
/// (deadlines, windows), so more than the 2 cores of CI are kept busy.
const MUTANTS_AT_ONCE: usize = 4;

fn wall_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/rust/runtimes/toolgate-wall-rust")
}

fn mutants() -> Vec<Mutant> {
    common::mutants::load(&wall_dir().join("mutants.json"))
}

/// The package name of a copy of the wall (`original` or a mutant's).
fn package(name: &str) -> String {
    format!("wall-{name}")
}

/// The adapter binary of a copy of the wall.
fn adapter(name: &str) -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent()
        .unwrap()
        .join("debug")
        .join(format!("toolgate-wall-rust-{name}"))
}

/// A copy of the wall's crate under `dir`, with `lib` as its `src/lib.rs`.
fn write_copy(dir: &Path, name: &str, lib: &str) {
    let harness = wall_dir().join("../../harness");
    let crate_name = package(name).replace('-', "_");
    let manifest = format!(
        r#"[package]
name = "{package}"
version = "1.0.0"
edition = "2021"
publish = false

[dependencies]
toolgate-harness = {{ path = "{harness}" }}
jsonschema = {{ version = "0.61", default-features = false }}
serde = {{ version = "1", features = ["derive"] }}
serde_json = {{ version = "1", features = ["preserve_order", "float_roundtrip"] }}
tokio = {{ version = "1", features = ["rt", "macros", "sync", "time", "rt-multi-thread"] }}
tokio-util = "0.7"
futures = "0.3"
# not used: the two features `cargo test` turns on in the workspace (its
# dev-dependencies': criterion's zerocopy `derive`, toolgate-core's tokio
# `rt-multi-thread`), asked for so that cargo reuses the workspace's builds
# of tokio, jsonschema and what depends on them. The toolgate crates are
# compiled again all the same (a path dependency outside its workspace
# has another hash); the harness's throwaway crate asks for the same
# features and reuses those builds
zerocopy = {{ version = "0.8", features = ["derive"] }}

[[bin]]
name = "toolgate-wall-rust-{name}"
path = "src/main.rs"
"#,
        package = package(name),
        harness = harness.canonicalize().unwrap().display(),
    );
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    std::fs::copy(wall_dir().join("src/render.rs"), dir.join("src/render.rs")).unwrap();
    std::fs::write(
        dir.join("src/main.rs"),
        format!(
            "fn main() -> std::process::ExitCode {{\n    \
             toolgate_harness::adapter_main({crate_name}::Wall::default())\n}}\n"
        ),
    )
    .unwrap();
}

/// Builds the wall and every mutant once per test process; returns why
/// it could not.
fn built() -> &'static Result<(), String> {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let started = Instant::now();
        let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rust-wall");
        let _ = std::fs::remove_dir_all(&root);
        let source = std::fs::read_to_string(wall_dir().join("src/lib.rs")).unwrap();
        let mut members = vec!["original".to_string()];
        write_copy(&root.join("original"), "original", &source);
        for m in mutants() {
            let mutated = m.apply(&source, "src/lib.rs")?;
            write_copy(&root.join(&m.name), &m.name, &mutated);
            members.push(m.name.clone());
        }
        let quoted: Vec<String> = members.iter().map(|m| format!("{m:?}")).collect();
        std::fs::write(
            root.join("Cargo.toml"),
            format!(
                "[workspace]\nresolver = \"2\"\nmembers = [{}]\n\n\
                 # the repository's test profile: its dependencies' builds are reused\n\
                 [profile.test]\nopt-level = 1\ndebug = \"line-tables-only\"\n",
                quoted.join(", ")
            ),
        )
        .unwrap();
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"),
            root.join("Cargo.lock"),
        )
        .unwrap();
        let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .parent()
            .unwrap()
            .to_path_buf();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let output = Command::new(cargo)
            .args(["build", "--offline", "--profile", "test", "--bins"])
            .current_dir(&root)
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .map_err(|e| format!("cargo: {e}"))?;
        eprintln!(
            "the wall and {} mutants built in {:.1} s",
            members.len() - 1,
            started.elapsed().as_secs_f64()
        );
        if !output.status.success() {
            return Err(format!(
                "the copies of the wall do not build:\n{}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        Ok(())
    })
}

fn options(name: &str) -> RunOptions {
    let command = shell_words::quote(&adapter(name).display().to_string()).into_owned();
    RunOptions {
        strict: true,
        ..common::gate_options(command, "boundary", Duration::from_secs(30))
    }
}

#[test]
fn the_rust_wall_passes_the_corpus_and_500_generated_cases_through_toolgate_run() {
    if let Err(e) = built() {
        panic!("{e}");
    }
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["run", "--strict", "--no-progress", "--suite", "boundary"])
        .args([
            "--generate",
            "500",
            "--seed",
            "20261206",
            "--jobs",
            "2",
            "--impl",
        ])
        .arg(adapter("original"))
        .output()
        .expect("toolgate runs");
    let said = String::from_utf8_lossy(&output.stdout);
    eprintln!("the wall: {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(
        output.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let total = common::corpus_of("boundary").len() + 500;
    assert!(
        said.contains(&format!("{total} cases: {total} pass")),
        "{said}"
    );
    assert!(said.contains("(rust)"), "{said}");
}

#[test]
fn every_mutant_of_the_rust_wall_is_caught_naming_exactly_its_requirements() {
    if let Err(e) = built() {
        panic!("{e}");
    }
    let started = Instant::now();
    let mutants = mutants();
    let corpus = common::corpus_of("boundary");
    // every MUST requirement of the suite is seen failing on some broken wall
    common::mutants::cover_every_must(&mutants, &corpus, 9);
    let problems = common::mutants::check_all_at(&mutants, MUTANTS_AT_ONCE, |m| {
        check_mutant(m, &corpus).err()
    });
    eprintln!(
        "{} mutants: {:.1} s",
        mutants.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs the boundary cases about `m`'s requirements on its build: caught,
/// naming exactly the requirements it lists (over those cases).
fn check_mutant(m: &Mutant, corpus: &[RunCase]) -> Result<(), String> {
    let about = common::mutants::cases_about(m, corpus)?;
    let report = run(&RunOptions {
        cases: about,
        ..options(&m.name)
    })
    .map_err(|e| format!("{}: the gate did not run: {e}", m.name))?;
    common::mutants::caught_exactly(m, &report)
}
