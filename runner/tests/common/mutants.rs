//! What the gate tests of adapters with deliberate mutants share: the
//! verdict on one mutant's run (caught, naming every requirement the
//! mutant lists; or, for an equivalent mutant, not caught) and the time
//! the gate spent before its first failure.

use std::collections::BTreeSet;
use std::time::Duration;
use toolgate_runner::outcome::Status;
use toolgate_runner::report::RunReport;

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
