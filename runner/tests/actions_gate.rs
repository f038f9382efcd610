//! The `actions` suite's gate on the project's Python implementation of
//! seed 002 (`adapters/python/actions/agent.py`, run through the Python
//! adapter kit): it passes every case and generated ones, and every
//! deliberately broken copy of it in `mutants.json` is caught by the
//! corpus, the gate naming exactly the requirements the mutant lists. A mutant that lists
//! ACT-CONC-01 (a race no sequential case can show) is also raced with
//! `adapters/python/actions/race.py`, which must fail on it.
//!
//! Needs the kit's development environment (`adapters/python/.venv`, made
//! by `adapters/python/venvs.sh`, as `.ci/run` does). Without it these
//! tests say so and pass, unless `TOOLGATE_REQUIRE_PYTHON=1`, where they
//! fail.

mod common;

use common::mutants::Mutant;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use toolgate_runner::outcome::Status;
use toolgate_runner::run::{run, RunOptions};

/// Generated cases the implementation runs besides the corpus (the
/// closing note's 5,000 are `toolgate run --generate 5000`, README).
const GENERATED: u64 = 1000;
/// The seed of the generated cases: fixed, so a mutant's verdict does not
/// depend on the draw.
const SEED: u64 = 20_261_202;
/// Races run on a mutant that lists ACT-CONC-01.
// race.py forces the interleaving that breaks a wrong implementation
// (both transactions read before either writes); the rounds are for a
// thread that could not read within race.py's hold, not for the scheduler
const RACES: &str = "5";

fn actions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/python/actions")
}

/// The kit's development interpreter, which has the kit installed.
fn python() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/python/.venv/bin/python")
}

fn ready() -> bool {
    common::python::ready(
        &python(),
        "toolgate_adapter.actions",
        "bash adapters/python/venvs.sh",
    )
}

/// The gate's options on the implementation module at `module`.
fn options(module: &Path, generated: u64) -> RunOptions {
    let command = format!(
        "{} -m toolgate_adapter --actions {}",
        shell_words::quote(&python().display().to_string()),
        shell_words::quote(&module.display().to_string())
    );
    RunOptions {
        generate: generated,
        seed: Some(SEED),
        ..common::gate_options(command, "actions", Duration::from_secs(30))
    }
}

fn mutants() -> Vec<Mutant> {
    common::mutants::load(&actions_dir().join("mutants.json"))
}

#[test]
fn the_python_implementation_passes_every_case_and_generated_ones() {
    if !ready() {
        return;
    }
    let started = Instant::now();
    let report = run(&options(&actions_dir().join("agent.py"), GENERATED)).expect("the gate runs");
    eprintln!(
        "agent.py: {} cases in {:.1} s",
        report.cases.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(report.implementation.language, "python");
    let bad: Vec<String> = report
        .cases
        .iter()
        .filter(|c| c.status != Status::Pass)
        .take(10)
        .map(|c| format!("{} {}: {:?}", c.id, c.status.name(), c.violations))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert_eq!(report.exit_code, 0);
    let generated = report
        .cases
        .iter()
        .filter(|c| c.id.starts_with("generated-actions/"))
        .count();
    assert_eq!(generated as u64, GENERATED);
    assert!(
        report.cases.len() as u64 >= GENERATED + 120,
        "{} cases",
        report.cases.len()
    );
}

#[test]
fn every_mutant_of_the_python_implementation_is_caught_naming_exactly_its_requirements() {
    if !ready() {
        return;
    }
    let started = Instant::now();
    let source = std::fs::read_to_string(actions_dir().join("agent.py")).unwrap();
    let mutants = mutants();
    assert!(mutants.len() >= 14, "{} mutants", mutants.len());
    let names: BTreeSet<&str> = mutants.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names.len(), mutants.len(), "two mutants share a name");
    // every requirement of the suite is broken by some mutant
    let covered: BTreeSet<&str> = mutants
        .iter()
        .flat_map(|m| m.requirements.iter().map(String::as_str))
        .collect();
    let uncovered: Vec<&str> = toolgate_actions::requirements::ALL
        .into_iter()
        .filter(|r| !covered.contains(r))
        .collect();
    assert!(uncovered.is_empty(), "no mutant breaks {uncovered:?}");

    let tmp = tempfile::tempdir().unwrap();
    let problems =
        common::mutants::check_all(&mutants, |m| check_mutant(m, &source, tmp.path()).err());
    eprintln!(
        "{} mutants: {:.1} s",
        mutants.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs the corpus on a mutated copy of agent.py:
/// caught, naming exactly the requirements it lists (ACT-CONC-01 aside,
/// which the race decides).
fn check_mutant(m: &Mutant, source: &str, tmp: &Path) -> Result<(), String> {
    if m.description.trim().is_empty() || m.requirements.is_empty() {
        return Err(format!(
            "{}: a mutant needs a description and requirements",
            m.name
        ));
    }
    let module = tmp.join(format!("agent_{}.py", m.name.replace('-', "_")));
    std::fs::write(&module, m.apply(source, "agent.py")?).unwrap();
    let concurrent = m.requirements.iter().any(|r| r == "ACT-CONC-01");
    if concurrent {
        let raced = Command::new(python())
            .arg(actions_dir().join("race.py"))
            .arg(&module)
            .args(["--rounds", RACES])
            .output()
            .map_err(|e| format!("{}: race.py does not run: {e}", m.name))?;
        if raced.status.success() {
            return Err(format!(
                "{}: lists ACT-CONC-01 but {RACES} races each went right",
                m.name
            ));
        }
    }
    let sequential: Vec<String> = m
        .requirements
        .iter()
        .filter(|r| *r != "ACT-CONC-01")
        .cloned()
        .collect();
    // the corpus alone: its cases are about one thing each, so the names
    // the gate gives are the mutant's; generated cases are for agent.py
    let report =
        run(&options(&module, 0)).map_err(|e| format!("{}: the gate did not run: {e}", m.name))?;
    if sequential.is_empty() {
        // a mutant only a race shows: no sequential case may fail
        return match report.cases.iter().find(|c| c.status.is_failure()) {
            Some(c) => Err(format!(
                "{}: lists only ACT-CONC-01 but {} fails",
                m.name, c.id
            )),
            None => Ok(()),
        };
    }
    if let Some(problem) = common::mutants::verdict(&m.name, &sequential, &report) {
        return Err(problem);
    }
    common::mutants::exactly(&m.name, &sequential, &report)
}
