//! How a case ended, judged: the eight statuses, the violations named by
//! the case's suite ([`SuiteDef::judge`]) with the level of each, what it
//! measured, a readable diff against the reference, and what the report
//! needs to reproduce it. Nothing here knows a suite's insides.

use crate::cases::RunCase;
use crate::protocol::Hello;
use crate::subject::{Attempt, Ran};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use toolgate_suite::{Judgement, Level, Measure};

/// Lines of diff kept in a report; the rest is counted.
const MAX_DIFF_LINES: usize = 160;

/// The status of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Pass,
    Fail,
    /// Every violation breaks a SHOULD requirement: reported, but the run
    /// passes (under `--strict` such a case is `fail`).
    Warn,
    Skip,
    /// The adapter says the case cannot exist in its implementation
    /// (`notApplicable`): neither a skip (a limit of the adapter) nor a
    /// failure.
    #[serde(rename = "n/a")]
    NotApplicable,
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
            Status::Warn => "warn",
            Status::Skip => "skip",
            Status::NotApplicable => "n/a",
            Status::Error => "error",
            Status::Timeout => "timeout",
            Status::Crash => "crash",
        }
    }
}

/// One violation as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    /// The level of the requirement in its suite; absent for an unnamed
    /// difference (which weighs as a MUST).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    pub message: String,
}

/// Whether a failure was listed in `--expected-failures`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Expectation {
    /// Listed, and it fails as listed: does not fail the run.
    Expected,
    /// Listed with requirements, but it also breaks these.
    Unexpected { unlisted: Vec<String> },
    /// Listed with fingerprints, and it breaks the listed requirements, but
    /// not in a way the baseline recorded (`findings::fingerprint`): the
    /// runtime's failure changed.
    Changed {
        fingerprint: String,
        listed: Vec<String>,
    },
    /// Listed, but it passes now: fails the run until the entry is removed.
    Stale,
}

/// How a generated failure was minimized.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Shrunk {
    pub steps: u32,
    /// The minimal case, replayable with `--case-file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved: Option<String>,
}

/// One case of the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseOutcome {
    pub id: String,
    /// The id of the case's suite.
    pub suite: String,
    pub status: Status,
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub not_run: bool,
    pub duration_ms: f64,
    /// The requirement ids violated, sorted.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub requirements: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub violations: Vec<Finding>,
    /// Why it was skipped, the harness error, the crash...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Expected (reference) against actual observation, unified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// What the case measured (wall time, memory...), with bounds.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub measures: Vec<Measure>,
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub stderr: String,
    /// The command that runs this case again.
    pub reproduce: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expectation: Option<Expectation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shrunk: Option<Shrunk>,
    /// The case ran a second time with a longer window because the first
    /// verdict rested on time (what the first attempt said); the outcome
    /// is the second's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reran: Option<String>,
    /// The verdict rests on how long something took (`Judgement::timing`).
    #[serde(skip)]
    pub timing: bool,
    /// It rests on the adapter's window itself (`Judgement::window`).
    #[serde(skip)]
    pub window: bool,
    /// In a shard's report, the case's place in the whole run, which
    /// `report merge` restores; absent in a whole run's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<u64>,
}

impl CaseOutcome {
    /// Whether this case fails the run (exit code 1).
    pub fn fails_the_run(&self) -> bool {
        match &self.expectation {
            Some(Expectation::Expected) => false,
            Some(Expectation::Stale)
            | Some(Expectation::Unexpected { .. })
            | Some(Expectation::Changed { .. }) => true,
            None => self.status.is_failure(),
        }
    }

    /// Whether `violation` is among those that make this case fail: all of
    /// them, unless a MUST (or unnamed) one fails it, when its SHOULD ones
    /// are left out. A warning that comes and goes with the machine's load
    /// (an abort that took over 1 s) beside a failure must not make the
    /// same failure look changed or unexpected to a baseline.
    pub fn is_failing(&self, violation: &Finding) -> bool {
        violation.level != Some(Level::Should)
            || self
                .violations
                .iter()
                .all(|v| v.level == Some(Level::Should))
    }

    /// The requirements that make this case fail ([`Self::is_failing`]),
    /// sorted: what a baseline lists and checks.
    pub fn failing_requirements(&self) -> Vec<&str> {
        let left_out = |r: &str| {
            self.violations
                .iter()
                .any(|v| v.requirement.as_deref() == Some(r) && !self.is_failing(v))
        };
        self.requirements
            .iter()
            .map(String::as_str)
            .filter(|r| !left_out(r))
            .collect()
    }
}

/// Why `hello`'s adapter cannot run `case`, if it cannot: its suite is not
/// announced, or a capability the suite derives from the scenario.
pub fn unsupported(hello: &Hello, case: &RunCase) -> Option<String> {
    let suite = case.suite;
    if !hello.suites.iter().any(|s| s == suite.id()) {
        return Some(format!("the adapter does not run the {} suite", suite.id()));
    }
    let announced = |name: &str| hello.capabilities.iter().any(|c| c == name);
    // an adapter that announces them all needs no look at the scenario
    if suite.capability_names().iter().all(|c| announced(c)) {
        return None;
    }
    let missing: Vec<String> = suite
        .capabilities(&case.scenario)
        .into_iter()
        .filter(|c| !announced(c))
        .collect();
    (!missing.is_empty()).then(|| format!("needs capability {}", missing.join(", ")))
}

/// Judges one attempt at `case`; under `strict`, a case breaking only
/// SHOULD requirements fails instead of warning.
pub fn judge(case: &RunCase, attempt: Attempt, reproduce: String, strict: bool) -> CaseOutcome {
    let mut outcome = CaseOutcome {
        id: case.id.clone(),
        suite: case.suite.id().to_string(),
        status: Status::Pass,
        not_run: false,
        duration_ms: attempt.duration.as_secs_f64() * 1e3,
        requirements: Vec::new(),
        violations: Vec::new(),
        message: None,
        diff: None,
        measures: Vec::new(),
        stderr: attempt.stderr,
        reproduce,
        expectation: None,
        shrunk: None,
        reran: None,
        timing: false,
        window: false,
        position: None,
    };
    match attempt.ran {
        Ran::Observed(actual) => judge_observed(case, &actual, strict, &mut outcome),
        Ran::Skipped(reason) => {
            outcome.status = Status::Skip;
            outcome.message = Some(reason);
        }
        Ran::NotApplicable(reason) => {
            outcome.status = Status::NotApplicable;
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

/// Judges an observation with the case's suite into pass, warn, fail or
/// error.
fn judge_observed(case: &RunCase, actual: &Json, strict: bool, outcome: &mut CaseOutcome) {
    // a suite's judge reads whatever an adapter sent; a panic there is a
    // toolgate bug, reported as such instead of ending the run
    let judged = catch_unwind(AssertUnwindSafe(|| {
        case.suite.judge(&case.scenario, &case.expect, actual)
    }));
    let Judgement {
        violations,
        notes,
        measures,
        timing,
        window,
        unmet,
    } = match judged {
        Ok(j) => j,
        Err(_) => {
            outcome.status = Status::Error;
            outcome.message = Some(format!(
                "the {} suite's judge panicked on this observation (a toolgate bug; please report it with the adapter's observation)",
                case.suite.id()
            ));
            return;
        }
    };
    // what the suite took as expected, and why
    if !notes.is_empty() {
        outcome.message = Some(notes.join("; "));
    }
    outcome.measures = measures;
    if violations.is_empty() {
        // never a pass: the adapter ran a case whose set-up did not happen
        if let Some(why) = unmet {
            outcome.status = Status::Error;
            outcome.message = Some(why);
        }
        return;
    }
    outcome.timing = timing;
    outcome.window = window;
    let level = |r: &Option<String>| r.as_deref().map(|r| case.suite.level(r));
    let should_only = violations
        .iter()
        .all(|v| level(&v.requirement) == Some(Level::Should));
    outcome.status = if should_only && !strict {
        Status::Warn
    } else {
        Status::Fail
    };
    let ids: BTreeSet<String> = violations
        .iter()
        .filter_map(|v| v.requirement.clone())
        .collect();
    outcome.requirements = ids.into_iter().collect();
    outcome.violations = violations
        .into_iter()
        .map(|v| Finding {
            level: level(&v.requirement),
            requirement: v.requirement,
            message: v.message,
        })
        .collect();
    outcome.diff = Some(diff(&case.expect, actual));
}

/// A skipped case, never sent.
pub fn skipped(case: &RunCase, reason: String, reproduce: String) -> CaseOutcome {
    judge(
        case,
        Attempt {
            ran: Ran::Skipped(reason),
            stderr: String::new(),
            duration: Default::default(),
            busy_at_end: None,
        },
        reproduce,
        false,
    )
}

/// A unified diff of the pretty JSON of two observations.
pub fn diff(expected: &Json, actual: &Json) -> String {
    let pretty = |o: &Json| serde_json::to_string_pretty(o).unwrap_or_default() + "\n";
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

/// A case outcome with nothing in it but its id and status, for tests.
#[cfg(test)]
pub(crate) fn sample(id: &str, status: Status) -> CaseOutcome {
    CaseOutcome {
        id: id.into(),
        suite: "core".into(),
        status,
        not_run: false,
        duration_ms: 0.0,
        requirements: Vec::new(),
        violations: Vec::new(),
        message: None,
        diff: None,
        measures: Vec::new(),
        stderr: String::new(),
        reproduce: String::new(),
        expectation: None,
        shrunk: None,
        reran: None,
        timing: false,
        window: false,
        position: None,
    }
}
