//! The boundary suite's gate against a real Python runtime: the suite's
//! Python positive control, `adapters/python/runtimes/toolgate-wall-python`
//! (an asyncio executor that keeps the whole wall), passes every boundary
//! case under `--strict`, and every deliberately broken copy of it listed in
//! its `mutants.json` is caught, the gate naming exactly the requirements
//! the mutant lists.
//!
//! Needs the wall's virtual environment (`adapters/python/venvs.sh
//! toolgate-wall-python`, as `.ci/run` does). Without it these tests say so
//! and pass, unless `TOOLGATE_REQUIRE_PYTHON=1`, where they fail.

mod common;

use common::mutants::Mutant;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use toolgate_runner::cases::RunCase;
use toolgate_runner::outcome::Status;
use toolgate_runner::run::{run, RunOptions};

/// Mutants run at once: each run is one adapter process that mostly waits
/// (settle windows, deadlines), so more than the 2 cores of CI are kept busy
/// without the wall's bounds (1 s) coming near.
const MUTANTS_AT_ONCE: usize = 4;

fn wall_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/python/runtimes/toolgate-wall-python")
}

/// The wall's interpreter, whose site-packages hold jsonschema and a `.pth`
/// file pointing at the adapter kit.
fn python() -> PathBuf {
    wall_dir().join(".venv/bin/python")
}

/// Whether the wall's virtual environment is there and imports the kit and
/// jsonschema; fails under `TOOLGATE_REQUIRE_PYTHON` when it does not.
fn ready() -> bool {
    common::python::ready(
        &python(),
        "jsonschema, toolgate_adapter",
        "bash adapters/python/venvs.sh toolgate-wall-python",
    )
}

/// The tests of this file take turns: the wall's run is judged under
/// `--strict` (bounds of 1 s), and it should not share two cores with four
/// mutants.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// The gate's options on the shim in `folder`, run by the wall's
/// interpreter.
fn options(folder: &Path) -> RunOptions {
    let command = format!(
        "{} -m toolgate_adapter --shim {}",
        shell_words::quote(&python().display().to_string()),
        shell_words::quote(&folder.display().to_string())
    );
    RunOptions {
        strict: true,
        ..common::gate_options(command, "boundary", Duration::from_secs(60))
    }
}

fn mutants() -> Vec<Mutant> {
    common::mutants::load(&wall_dir().join("mutants.json"))
}

#[test]
fn the_python_wall_passes_every_boundary_case_strictly() {
    let _turn = turn();
    if !ready() {
        return;
    }
    let started = Instant::now();
    let report = run(&options(&wall_dir())).expect("the gate runs");
    eprintln!("the wall: {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(report.implementation.language, "python");
    let bad: Vec<String> = report
        .cases
        .iter()
        .filter(|c| c.status != Status::Pass)
        .map(|c| format!("{} {}: {:?}", c.id, c.status.name(), c.violations))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert_eq!(report.exit_code, 0);
    assert_eq!(report.cases.len(), common::corpus_of("boundary").len());
    assert!(report.cases.len() >= 80, "{} cases", report.cases.len());
}

#[test]
fn every_mutant_of_the_python_wall_is_caught_naming_exactly_its_requirements() {
    let _turn = turn();
    if !ready() {
        return;
    }
    let started = Instant::now();
    let source = std::fs::read_to_string(wall_dir().join("shim.py")).unwrap();
    let mutants = mutants();
    let corpus = common::corpus_of("boundary");
    // every MUST requirement of the suite is seen failing on some broken wall
    common::mutants::cover_every_must(&mutants, &corpus, 9);

    let tmp = tempfile::tempdir().unwrap();
    let timings = Mutex::new(Vec::new());
    let problems = common::mutants::check_all_at(&mutants, MUTANTS_AT_ONCE, |m| {
        let at = Instant::now();
        let verdict = check_mutant(m, &source, tmp.path(), &corpus);
        timings.lock().unwrap().push((m.name.clone(), at.elapsed()));
        verdict.err()
    });
    let mut timings = timings.into_inner().unwrap();
    timings.sort();
    for (name, spent) in &timings {
        eprintln!("mutant {name}: {:.1} s", spent.as_secs_f64());
    }
    eprintln!(
        "{} mutants: {:.1} s",
        mutants.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs the boundary cases about `m`'s requirements on a mutated copy of
/// the wall: caught, naming exactly the requirements it lists (over those
/// cases; a consequence seen only by cases about other requirements is not
/// looked for).
fn check_mutant(m: &Mutant, source: &str, tmp: &Path, corpus: &[RunCase]) -> Result<(), String> {
    let about = common::mutants::cases_about(m, corpus)?;
    let mutated = m.apply(source, "shim.py")?;
    let dir = tmp.join(&m.name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("shim.py"), mutated).unwrap();
    let report = run(&RunOptions {
        cases: about,
        ..options(&dir)
    })
    .map_err(|e| format!("{}: the gate did not run: {e}", m.name))?;
    common::mutants::caught_exactly(m, &report)
}
