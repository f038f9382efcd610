//! What the gate tests of adapters with deliberate mutants share: the
//! format of a `mutants.json` (a text replacement in a source file and the
//! requirements the gate must name), the verdict on one mutant's run
//! (caught, naming every requirement the mutant lists; or, for an
//! equivalent mutant, not caught), that the gate names no other, and the
//! time the gate spent before its first failure.

use serde::Deserialize;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;
use toolgate_runner::cases::RunCase;
use toolgate_runner::outcome::Status;
use toolgate_runner::report::RunReport;
use toolgate_suite::Level;

/// One deliberate bug: `find` (which occurs once in the source) replaced by
/// `replace`, and the requirements the gate must name.
#[derive(Debug, Deserialize)]
pub struct Mutant {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub find: String,
    pub replace: String,
    pub requirements: Vec<String>,
}

impl Mutant {
    /// `source` with this mutant's replacement made, or why it cannot be.
    pub fn apply(&self, source: &str, file: &str) -> Result<String, String> {
        match source.matches(&self.find).count() {
            1 => Ok(source.replacen(&self.find, &self.replace, 1)),
            n => Err(format!("{}: `find` occurs {n} times in {file}", self.name)),
        }
    }
}

/// The ids of the corpus cases about `m`'s requirements, which a gate of
/// `m` runs; a mutant without a description or requirements, or about no
/// case, is refused.
pub fn cases_about(m: &Mutant, corpus: &[RunCase]) -> Result<Vec<String>, String> {
    if m.description.trim().is_empty() || m.requirements.is_empty() {
        return Err(format!(
            "{}: a mutant needs a description and requirements",
            m.name
        ));
    }
    let about: Vec<String> = corpus
        .iter()
        .filter(|c| c.requirements.iter().any(|r| m.requirements.contains(r)))
        .map(|c| c.id.clone())
        .collect();
    if about.is_empty() {
        return Err(format!("{}: no case is about {:?}", m.name, m.requirements));
    }
    Ok(about)
}

/// The gate caught `m`, naming each requirement it lists and no other.
pub fn caught_exactly(m: &Mutant, report: &RunReport) -> Result<(), String> {
    if let Some(problem) = verdict(&m.name, &m.requirements, report) {
        return Err(problem);
    }
    exactly(&m.name, &m.requirements, report)
}

/// Every MUST requirement the corpus's cases name is broken by some mutant
/// (at least `least` of them), and no two mutants share a name.
pub fn cover_every_must(mutants: &[Mutant], corpus: &[RunCase], least: usize) {
    let musts: BTreeSet<&str> = corpus
        .iter()
        .flat_map(|c| c.requirements.iter().map(move |r| (c, r)))
        .filter(|(c, r)| c.suite.level(r) == Level::Must)
        .map(|(_, r)| r.as_str())
        .collect();
    assert!(musts.len() >= least, "{musts:?}");
    let covered: BTreeSet<&str> = mutants
        .iter()
        .flat_map(|m| m.requirements.iter().map(String::as_str))
        .collect();
    let uncovered: Vec<&&str> = musts.iter().filter(|r| !covered.contains(**r)).collect();
    assert!(uncovered.is_empty(), "no mutant breaks {uncovered:?}");
    let names: BTreeSet<&str> = mutants.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names.len(), mutants.len(), "two mutants share a name");
}

/// The mutants of a `mutants.json`.
pub fn load(path: &Path) -> Vec<Mutant> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{}: an array of {{ name, description, find, replace, requirements }}: {e}",
            path.display()
        )
    })
}

/// The requirements the gate names are the mutant's (`listed`), no more.
pub fn exactly(name: &str, listed: &[String], report: &RunReport) -> Result<(), String> {
    let mut extra: BTreeSet<&str> = BTreeSet::new();
    let mut example: Vec<String> = Vec::new();
    for c in &report.cases {
        for r in &c.requirements {
            if !listed.contains(r) && extra.insert(r) {
                example.push(format!("{r} ({})", c.id));
            }
        }
    }
    if extra.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{name}: the gate also names {}, which mutants.json does not list",
            example.join(", ")
        ))
    }
}

/// What is wrong with the gate's verdict on mutant `name`, which should
/// make the gate name each of `requirements` (none: an equivalent mutant
/// no case can tell apart), if anything.
pub fn verdict(name: &str, requirements: &[String], report: &RunReport) -> Option<String> {
    let errors: Vec<&str> = report
        .cases
        .iter()
        .filter(|c| c.status == Status::Error)
        .map(|c| c.id.as_str())
        .collect();
    if !errors.is_empty() {
        return Some(format!("{name}: harness errors in {}", errors.join(", ")));
    }
    let named: BTreeSet<&str> = report
        .cases
        .iter()
        .flat_map(|c| c.requirements.iter().map(String::as_str))
        .collect();
    // a mutant breaking only SHOULD requirements is caught as `warn`
    let failed = report
        .cases
        .iter()
        .filter(|c| c.status.is_failure() || c.status == Status::Warn)
        .count();
    if requirements.is_empty() {
        return (failed > 0)
            .then(|| format!("{name}: listed as equivalent but {failed} case(s) fail"));
    }
    if failed == 0 {
        return Some(format!("{name}: survived (no case fails)"));
    }
    let missing: Vec<&str> = requirements
        .iter()
        .map(String::as_str)
        .filter(|r| !named.contains(r))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "{name}: caught, but the gate never names {} (it names {})",
            missing.join(", "),
            named.iter().copied().collect::<Vec<_>>().join(" ")
        )
    })
}

/// The time the gate spent on cases up to the first failing one.
pub fn first_failure(report: &RunReport) -> Option<Duration> {
    let mut spent = 0.0;
    for c in &report.cases {
        spent += c.duration_ms;
        if c.status.is_failure() {
            return Some(Duration::from_secs_f64(spent / 1e3));
        }
    }
    None
}

/// Runs `check` on every one of `mutants`, two at a time (each run is an
/// adapter process that mostly waits), and returns every problem found.
pub fn check_all<M: Sync>(
    mutants: &[M],
    check: impl Fn(&M) -> Option<String> + Sync,
) -> Vec<String> {
    check_all_at(mutants, 2, check)
}

/// `check_all` with `at_once` runs at a time.
pub fn check_all_at<M: Sync>(
    mutants: &[M],
    at_once: usize,
    check: impl Fn(&M) -> Option<String> + Sync,
) -> Vec<String> {
    let queue = std::sync::Mutex::new(mutants.iter().collect::<Vec<_>>());
    let problems = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..at_once {
            scope.spawn(|| loop {
                let Some(m) = queue.lock().unwrap().pop() else {
                    return;
                };
                if let Some(problem) = check(m) {
                    problems.lock().unwrap().push(problem);
                }
            });
        }
    });
    problems.into_inner().unwrap()
}
