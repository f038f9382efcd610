//! How a case ended, judged: the six statuses, the violations named by the
//! checks of `toolgate_contract::scenario::checks`, a readable diff against
//! the reference, and what the report needs to reproduce it.

use crate::capabilities;
use crate::cases::RunCase;
use crate::protocol::{Capability, Hello};
use crate::subject::{Attempt, Ran};
use serde::Serialize;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use toolgate_contract::scenario::checks::{check_boundary, check_core, Violation};
use toolgate_contract::scenario::host_limits::excuse;
use toolgate_contract::scenario::{Observation, Suite};

/// Lines of diff kept in a report; the rest is counted.
const MAX_DIFF_LINES: usize = 160;

/// The status of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Pass,
    Fail,
    Skip,
    /// A harness error: the adapter could not run the case or broke the
    /// protocol (or the run gave up on it: `notRun`).
    Error,
    Timeout,
    Crash,
}

impl Status {
    /// The statuses that are the implementation's failures (and may be
    /// listed as expected).
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Timeout | Status::Crash)
    }

    pub fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
            Status::Error => "error",
            Status::Timeout => "timeout",
            Status::Crash => "crash",
        }
    }
}

/// One violation as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    pub message: String,
}

/// Whether a failure was listed in `--expected-failures`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Expectation {
    /// Listed, and it fails as listed: does not fail the run.
    Expected,
    /// Listed with requirements, but it also breaks these.
    Unexpected { unlisted: Vec<String> },
    /// Listed, but it passes now: fails the run until the entry is removed.
    Stale,
}

/// How a generated failure was minimized.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shrunk {
    pub steps: u32,
    /// The minimal case, replayable with `--case-file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved: Option<String>,
}

/// One case of the report.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseOutcome {
    pub id: String,
    pub suite: Suite,
    pub status: Status,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_run: bool,
    pub duration_ms: f64,
    /// The requirement ids violated, sorted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<Finding>,
    /// Why it was skipped, the harness error, the crash...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Expected (reference) against actual observation, unified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// The command that runs this case again.
    pub reproduce: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expectation: Option<Expectation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrunk: Option<Shrunk>,
}

impl CaseOutcome {
    /// Whether this case fails the run (exit code 1).
    pub fn fails_the_run(&self) -> bool {
        match &self.expectation {
            Some(Expectation::Expected) => false,
            Some(Expectation::Stale) | Some(Expectation::Unexpected { .. }) => true,
            None => self.status.is_failure(),
        }
    }
}

/// Why `hello`'s adapter cannot run `case`, if it cannot.
pub fn unsupported(hello: &Hello, case: &RunCase) -> Option<String> {
    if !hello.suites.contains(&case.suite) {
        return Some(format!(
            "the adapter does not run the {} suite",
            suite_name(case.suite)
        ));
    }
    if Capability::ALL
        .iter()
        .all(|c| hello.capabilities.contains(c))
    {
        return None;
    }
    let missing: Vec<&str> = capabilities::needed(&case.scenario)
        .into_iter()
        .filter(|c| !hello.capabilities.contains(c))
        .map(|c| c.name())
        .collect();
    (!missing.is_empty()).then(|| format!("needs capability {}", missing.join(", ")))
}

pub fn suite_name(suite: Suite) -> &'static str {
    match suite {
        Suite::Core => "core",
        Suite::Boundary => "boundary",
    }
}

/// Judges one attempt at `case`.
pub fn judge(case: &RunCase, attempt: Attempt, reproduce: String) -> CaseOutcome {
    let mut outcome = CaseOutcome {
        id: case.id.clone(),
        suite: case.suite,
        status: Status::Pass,
        not_run: false,
        duration_ms: attempt.duration.as_secs_f64() * 1e3,
        requirements: Vec::new(),
        violations: Vec::new(),
        message: None,
        diff: None,
        stderr: attempt.stderr,
        reproduce,
        expectation: None,
        shrunk: None,
    };
    match attempt.ran {
        Ran::Observed(actual) => {
            // what the contract leaves to the host is taken as expected
            let actual = match excuse(&case.scenario, &case.expect, &actual) {
                Some((adjusted, notes)) => {
                    outcome.message = Some(notes.join("; "));
                    adjusted
                }
                None => actual,
            };
            judge_observed(case, &actual, &mut outcome);
        }
        Ran::Skipped(reason) => {
            outcome.status = Status::Skip;
            outcome.message = Some(reason);
        }
        Ran::Error(message) => {
            outcome.status = Status::Error;
            outcome.message = Some(message);
        }
        Ran::Timeout(after) => {
            outcome.status = Status::Timeout;
            outcome.message = Some(format!(
                "no reply within {} s; the adapter was killed",
                after.as_secs_f64()
            ));
        }
        Ran::Crash(message) => {
            outcome.status = Status::Crash;
            outcome.message = Some(message);
        }
        Ran::NotRun(message) => {
            outcome.status = Status::Error;
            outcome.not_run = true;
            outcome.message = Some(message);
        }
    }
    outcome
}

/// Judges an observation (after [`excuse`]) into pass, fail or error.
fn judge_observed(case: &RunCase, actual: &Observation, outcome: &mut CaseOutcome) {
    match violations(case, actual) {
        Ok(found) if found.is_empty() => {}
        Ok(found) => {
            outcome.status = Status::Fail;
            let ids: BTreeSet<String> =
                found.iter().filter_map(|v| v.requirement.clone()).collect();
            outcome.requirements = ids.into_iter().collect();
            outcome.violations = found
                .into_iter()
                .map(|v| Finding {
                    requirement: v.requirement,
                    message: v.message,
                })
                .collect();
            outcome.diff = Some(diff(&case.expect, actual));
        }
        Err(message) => {
            outcome.status = Status::Error;
            outcome.message = Some(message);
        }
    }
}

/// A skipped case, never sent.
pub fn skipped(case: &RunCase, reason: String, reproduce: String) -> CaseOutcome {
    judge(
        case,
        Attempt {
            ran: Ran::Skipped(reason),
            stderr: String::new(),
            duration: Default::default(),
        },
        reproduce,
    )
}

fn violations(case: &RunCase, actual: &Observation) -> Result<Vec<Violation>, String> {
    // the checks analyse the scenario again to name requirements; an equal
    // observation has nothing to name (and is the common case)
    if *actual == case.expect {
        return Ok(Vec::new());
    }
    // the checks read whatever an adapter sent; a panic there is a toolgate
    // bug, reported as such instead of ending the run
    let found = catch_unwind(AssertUnwindSafe(|| match case.suite {
        Suite::Core => check_core(&case.scenario, &case.expect, actual),
        Suite::Boundary => check_boundary(&case.scenario, &case.expect, actual),
    }))
    .map_err(|_| "the checks panicked on this observation (a toolgate bug; please report it with the adapter's observation)".to_string())?;
    if found.is_empty() && case.suite == Suite::Core {
        // a core case passes only on equal observations, whatever the
        // checks recognise
        return Ok(vec![Violation {
            requirement: None,
            message: "the observation differs from the reference's, but no check names the difference (see the diff)".into(),
        }]);
    }
    Ok(found)
}

/// A unified diff of the pretty JSON of two observations.
pub fn diff(expected: &Observation, actual: &Observation) -> String {
    let pretty = |o: &Observation| serde_json::to_string_pretty(o).unwrap_or_default() + "\n";
    let (e, a) = (pretty(expected), pretty(actual));
    let text = similar::TextDiff::from_lines(&e, &a)
        .unified_diff()
        .context_radius(3)
        .header("expected (reference)", "actual")
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= MAX_DIFF_LINES {
        return text;
    }
    let mut kept = lines[..MAX_DIFF_LINES].join("\n");
    kept.push_str(&format!(
        "\n… {} more diff line(s)\n",
        lines.len() - MAX_DIFF_LINES
    ));
    kept
}
