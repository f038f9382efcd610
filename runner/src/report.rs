//! The reports of a run: the JSON report (everything), JUnit XML (for CI test
//! tabs), Markdown (for a CI job summary), and the terminal summary. All are
//! written from the same [`RunReport`], also when the run stopped early.

use crate::outcome::{CaseOutcome, Expectation, Status};
use crate::protocol::Implementation;
use crate::Error;
// a JUnit <testsuite> per toolgate suite, named by the suite's id
use crate::shard::Shard;
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite as JunitTestsuite};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;
use toolgate_suite::{Level, Measure};

/// Everything a run measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    pub toolgate: String,
    pub implementation: Implementation,
    /// The `--impl` command; absent for the built-in reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    pub duration_secs: f64,
    pub summary: Summary,
    pub exit_code: i32,
    pub restarts: u32,
    pub plan: RunPlan,
    /// The shard of the run this report holds; absent for a whole run
    /// (and for shards merged into one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    pub cases: Vec<CaseOutcome>,
    /// What the adapter wrote to stderr outside any case.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub adapter_stderr: String,
}

/// What the whole run holds, all its shards together: the same in every
/// shard's report, so that `toolgate report merge` can tell the shards of
/// one run from reports of different runs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunPlan {
    /// How many cases the whole run holds.
    pub cases: usize,
    /// The SHA-256 of their ids in the run's order, one per line: a run
    /// of another corpus, filter, seed or `--generate` has another.
    pub digest: String,
    /// `--strict`: SHOULD violations fail.
    pub strict: bool,
    /// The SHA-256 of the `--expected-failures` file, if one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
}

impl RunPlan {
    /// The plan of a run of `ids`, in order.
    pub fn new<'a>(
        ids: impl IntoIterator<Item = &'a str>,
        strict: bool,
        baseline: Option<&[u8]>,
    ) -> RunPlan {
        let mut hash = Sha256::new();
        let mut cases = 0;
        for id in ids {
            hash.update(id.as_bytes());
            hash.update(b"\n");
            cases += 1;
        }
        RunPlan {
            cases,
            digest: hex(&hash.finalize()),
            strict,
            baseline: baseline.map(|bytes| hex(&Sha256::digest(bytes))),
        }
    }
}

/// Bytes as lowercase hexadecimal digits.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

const REPORT_SCHEMA: &str = include_str!("../schema/report.schema.json");

/// Checks a JSON report against `runner/schema/report.schema.json`; the
/// error names the first few places that do not match.
pub fn validate_json(report: &serde_json::Value) -> Result<(), String> {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| {
        let schema = serde_json::from_str(REPORT_SCHEMA).expect("the report schema is JSON");
        jsonschema::options()
            .offline()
            .build(&schema)
            .expect("the report schema compiles")
    });
    toolgate_suite::schema_errors(validator, report)
}

/// Counts by status and by expectation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub total: usize,
    pub pass: usize,
    pub fail: usize,
    /// Cases breaking only SHOULD requirements (not failures unless
    /// `--strict`, where they are `fail`).
    pub warn: usize,
    pub skip: usize,
    /// Cases the adapter said cannot exist in its implementation.
    pub not_applicable: usize,
    pub error: usize,
    pub timeout: usize,
    pub crash: usize,
    pub not_run: usize,
    pub expected_failures: usize,
    pub unexpected_failures: usize,
    pub stale: usize,
}

impl Summary {
    pub fn of(cases: &[CaseOutcome]) -> Summary {
        let mut s = Summary {
            total: cases.len(),
            ..Summary::default()
        };
        for c in cases {
            match c.status {
                Status::Pass => s.pass += 1,
                Status::Fail => s.fail += 1,
                Status::Warn => s.warn += 1,
                Status::Skip => s.skip += 1,
                Status::NotApplicable => s.not_applicable += 1,
                Status::Error => s.error += 1,
                Status::Timeout => s.timeout += 1,
                Status::Crash => s.crash += 1,
            }
            s.not_run += usize::from(c.not_run);
            match &c.expectation {
                Some(Expectation::Expected) => s.expected_failures += 1,
                Some(Expectation::Stale) => s.stale += 1,
                _ if c.fails_the_run() => s.unexpected_failures += 1,
                _ => {}
            }
        }
        s
    }

    /// 0 passed, 1 contract failures or stale expectations, 2 harness errors.
    pub fn exit_code(&self) -> i32 {
        if self.error > 0 {
            2
        } else if self.unexpected_failures > 0 || self.stale > 0 {
            1
        } else {
            0
        }
    }

    pub fn line(&self) -> String {
        let mut parts = vec![format!("{} pass", self.pass)];
        for (n, what) in [
            (self.fail, "fail"),
            (self.warn, "warn"),
            (self.timeout, "timeout"),
            (self.crash, "crash"),
            (self.error, "error"),
            (self.skip, "skip"),
            (self.not_applicable, "n/a"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        if self.not_run > 0 {
            parts.push(format!("({} of the errors not run)", self.not_run));
        }
        let mut line = format!("{} cases: {}", self.total, parts.join(", "));
        if self.expected_failures > 0 {
            let _ = write!(line, "; {} expected failure(s)", self.expected_failures);
        }
        if self.stale > 0 {
            let _ = write!(line, "; {} stale expectation(s)", self.stale);
        }
        line
    }
}

impl RunReport {
    pub fn new(
        implementation: Implementation,
        command: Option<String>,
        seed: Option<u64>,
        duration: Duration,
        restarts: u32,
        cases: Vec<CaseOutcome>,
        adapter_stderr: String,
    ) -> RunReport {
        let summary = Summary::of(&cases);
        RunReport {
            toolgate: env!("CARGO_PKG_VERSION").to_string(),
            implementation,
            command,
            seed,
            duration_secs: duration.as_secs_f64(),
            exit_code: summary.exit_code(),
            summary,
            restarts,
            // the plan of these cases; a run sets its own (all its shards')
            plan: RunPlan::new(cases.iter().map(|c| c.id.as_str()), false, None),
            shard: None,
            cases,
            adapter_stderr,
        }
    }

    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize") + "\n"
    }

    pub fn junit(&self) -> Result<String, Error> {
        let mut report = quick_junit::Report::new("toolgate");
        let mut suites: BTreeMap<&str, JunitTestsuite> = BTreeMap::new();
        for case in &self.cases {
            let suite = suites
                .entry(case.suite.as_str())
                .or_insert_with(|| JunitTestsuite::new(case.suite.as_str()));
            let status = match case.status {
                Status::Pass if case.expectation == Some(Expectation::Stale) => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_type("stale");
                    s.set_message("passes, but is listed in --expected-failures");
                    s
                }
                // JUnit has no warning: a pass, with the violations as output
                Status::Pass | Status::Warn => TestCaseStatus::success(),
                Status::Skip => {
                    let mut s = TestCaseStatus::skipped();
                    if let Some(m) = &case.message {
                        s.set_message(m.as_str());
                    }
                    s
                }
                Status::NotApplicable => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_type("n/a");
                    s.set_message(format!(
                        "n/a: {}",
                        case.message.as_deref().unwrap_or("not applicable")
                    ));
                    s
                }
                _ if case.expectation == Some(Expectation::Expected) => {
                    let mut s = TestCaseStatus::skipped();
                    s.set_message(format!("expected failure ({})", case.status.name()));
                    s
                }
                status => {
                    let kind = if status == Status::Error {
                        NonSuccessKind::Error
                    } else {
                        NonSuccessKind::Failure
                    };
                    let mut s = TestCaseStatus::non_success(kind);
                    s.set_type(status.name());
                    s.set_message(headline(case));
                    s.set_description(details(case));
                    s
                }
            };
            let mut test = TestCase::new(case.id.as_str(), status);
            test.set_classname(format!("toolgate.{}", case.suite));
            test.set_time(Duration::from_secs_f64(case.duration_ms / 1e3));
            if case.status == Status::Warn {
                test.set_system_out(format!("warn: {}", details(case)));
            }
            if !case.stderr.is_empty() {
                test.set_system_err(case.stderr.as_str());
            }
            suite.add_test_case(test);
        }
        for (_, suite) in suites {
            report.add_test_suite(suite);
        }
        report
            .to_string()
            .map_err(|e| Error::usage(format!("JUnit report: {e}")))
    }

    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let verdict = match self.exit_code {
            0 => "passed",
            1 => "failed",
            _ => "harness error",
        };
        let _ = writeln!(
            md,
            "## toolgate: {} {} ({}): {verdict}\n",
            self.implementation.name, self.implementation.version, self.implementation.language
        );
        let s = &self.summary;
        let _ = writeln!(
            md,
            "| total | pass | fail | warn | timeout | crash | error | skip | n/a | expected | stale |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|");
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            s.total,
            s.pass,
            s.fail,
            s.warn,
            s.timeout,
            s.crash,
            s.error,
            s.skip,
            s.not_applicable,
            s.expected_failures,
            s.stale
        );
        let _ = writeln!(
            md,
            "{:.2} s; {} adapter restart(s){}\n",
            self.duration_secs,
            self.restarts,
            self.seed
                .map(|s| format!("; generated with seed {s}"))
                .unwrap_or_default()
        );
        let notable: Vec<&CaseOutcome> = self.cases.iter().filter(|c| notable(c)).collect();
        if notable.is_empty() {
            return md;
        }
        let findings = crate::findings::group(&self.cases);
        if !findings.is_empty() {
            let _ = writeln!(md, "| cases | requirement | finding | expected |");
            let _ = writeln!(md, "|---:|---|---|---|");
            for f in &findings {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} |",
                    f.cases.len(),
                    f.requirement.as_deref().unwrap_or("(unnamed)"),
                    f.example.replace('|', "\\|"),
                    if f.expected { "yes" } else { "no" }
                );
            }
            md.push('\n');
        }
        let _ = writeln!(md, "| case | status | requirements | what |");
        let _ = writeln!(md, "|---|---|---|---|");
        for c in &notable {
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} |",
                c.id,
                status_label(c),
                c.requirements.join(" "),
                headline(c).replace('|', "\\|").replace('\n', " ")
            );
        }
        md.push('\n');
        for c in notable
            .iter()
            .filter(|c| c.status != Status::Error || !c.not_run)
        {
            let _ = writeln!(
                md,
                "<details><summary><code>{}</code>: {}</summary>\n\n```text\n{}\n```\n\n</details>\n",
                c.id,
                status_label(c),
                details(c).replace("```", "'''")
            );
        }
        md
    }

    /// The terminal summary printed at the end of a run.
    pub fn terminal(&self) -> String {
        let mut out = crate::findings::text(&crate::findings::group(&self.cases));
        let _ = writeln!(
            out,
            "toolgate {} against {} {} ({})",
            self.toolgate,
            self.implementation.name,
            self.implementation.version,
            self.implementation.language
        );
        let _ = writeln!(out, "{}", self.summary.line());
        let secs = self.duration_secs.max(1e-9);
        let _ = writeln!(
            out,
            "{:.2} s, {:.0} cases/s{}",
            self.duration_secs,
            self.cases.len() as f64 / secs,
            if self.restarts > 0 {
                format!(", {} adapter restart(s)", self.restarts)
            } else {
                String::new()
            }
        );
        out
    }

    /// Writes the JSON, JUnit and Markdown reports to the paths given.
    pub fn write_formats(
        &self,
        json: Option<&Path>,
        junit: Option<&Path>,
        markdown: Option<&Path>,
    ) -> Result<(), Error> {
        if let Some(path) = json {
            self.write(path, &self.json())?;
        }
        if let Some(path) = junit {
            self.write(path, &self.junit()?)?;
        }
        if let Some(path) = markdown {
            self.write(path, &self.markdown())?;
        }
        Ok(())
    }

    pub fn write(&self, path: &Path, text: &str) -> Result<(), Error> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        }
        std::fs::write(path, text).map_err(|e| Error::file(path, e))
    }
}

/// Whether a case deserves a line of its own in reports: not a pass, a
/// skip or an n/a (those are counted), unless a baseline lists it.
pub fn notable(c: &CaseOutcome) -> bool {
    !matches!(
        c.status,
        Status::Pass | Status::Skip | Status::NotApplicable
    ) || c.expectation.is_some()
}

fn status_label(c: &CaseOutcome) -> String {
    match &c.expectation {
        Some(Expectation::Expected) => format!("{} (expected)", c.status.name()),
        Some(Expectation::Stale) => "stale (passes now)".into(),
        Some(Expectation::Unexpected { unlisted }) => {
            format!("{} (also {})", c.status.name(), unlisted.join(" "))
        }
        Some(Expectation::Changed {
            fingerprint,
            listed,
        }) => format!(
            "{} (changed: @{fingerprint}, the baseline has @{})",
            c.status.name(),
            listed.join(" @")
        ),
        None => c.status.name().into(),
    }
}

/// One line saying what went wrong.
pub fn headline(c: &CaseOutcome) -> String {
    if c.expectation == Some(Expectation::Stale) {
        return "passes, but is listed in --expected-failures: remove the line".into();
    }
    if let Some(m) = &c.message {
        return m.lines().next().unwrap_or_default().to_string();
    }
    match c.violations.first() {
        Some(v) => {
            let first = v.message.lines().next().unwrap_or_default();
            let more = c.violations.len() - 1;
            if more > 0 {
                format!("{first} (+{more} more)")
            } else {
                first.to_string()
            }
        }
        None => String::new(),
    }
}

/// A measure on one line: `name: value unit (bound: b unit)`.
pub fn measure(m: &Measure) -> String {
    let mut line = format!("{}: {} {}", m.name, m.value, m.unit);
    if let Some(bound) = m.bound {
        let _ = write!(line, " (bound: {bound} {})", m.unit);
    }
    line
}

/// Everything about one case that went wrong, as text.
pub fn details(c: &CaseOutcome) -> String {
    let mut out = String::new();
    if let Some(m) = &c.message {
        let _ = writeln!(out, "{m}");
    }
    for v in &c.violations {
        match (&v.requirement, v.level) {
            (Some(r), Some(Level::Should)) => {
                let _ = writeln!(out, "{r} (should): {}", v.message);
            }
            (Some(r), _) => {
                let _ = writeln!(out, "{r}: {}", v.message);
            }
            (None, _) => {
                let _ = writeln!(out, "unnamed difference: {}", v.message);
            }
        }
    }
    if !c.measures.is_empty() {
        let _ = writeln!(out, "\nmeasured:");
        for m in &c.measures {
            let _ = writeln!(out, "  {}", measure(m));
        }
    }
    if let Some(d) = &c.diff {
        let _ = writeln!(out, "\n{}", d.trim_end());
    }
    if !c.stderr.is_empty() {
        let _ = writeln!(out, "\nadapter stderr:\n{}", c.stderr.trim_end());
    }
    if let Some(s) = &c.shrunk {
        let _ = writeln!(out, "\nshrunk in {} run(s)", s.steps);
    }
    if let Some(r) = &c.reran {
        let _ = writeln!(out, "\n{r}");
    }
    let _ = writeln!(out, "\nreproduce: {}", c.reproduce);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{CaseOutcome, Finding, Status};

    fn case(id: &str, status: Status) -> CaseOutcome {
        CaseOutcome {
            duration_ms: 1.0,
            reproduce: format!("toolgate run --case {id}"),
            ..crate::outcome::sample(id, status)
        }
    }

    fn report(cases: Vec<CaseOutcome>) -> RunReport {
        RunReport::new(
            crate::subject::reference_hello().implementation,
            None,
            None,
            Duration::from_secs(1),
            0,
            cases,
            String::new(),
        )
    }

    fn check(status: &str, valid: bool) {
        let mut timeout = case("calls/x", Status::Timeout);
        timeout.message = Some("no reply".into());
        let report = report(vec![timeout]);
        let mut json: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
        json["cases"][0]["status"] = status.into();
        assert_eq!(
            validate_json(&json).is_ok(),
            valid,
            "{status}: {:?}",
            validate_json(&json)
        );
    }

    #[test]
    fn the_report_schema_accepts_the_statuses_and_nothing_else() {
        for status in [
            "pass", "fail", "warn", "skip", "n/a", "error", "timeout", "crash",
        ] {
            check(status, true);
        }
        check("flaky", false);
        check("notApplicable", false);
    }

    /// A warning case with a measure, an n/a case, a skip and a pass: each
    /// counted apart in every format, the run passing.
    #[test]
    fn warn_and_n_a_are_kept_apart_in_every_report() {
        let mut warn = case("latency/slow", Status::Warn);
        warn.requirements = vec!["CORE-X-01".into()];
        warn.violations = vec![Finding {
            requirement: Some("CORE-X-01".into()),
            level: Some(Level::Should),
            message: "took long".into(),
        }];
        warn.measures = vec![Measure {
            name: "wall time".into(),
            value: 12.5,
            unit: "ms".into(),
            bound: Some(10.0),
        }];
        let mut na = case("calls/unknown-tool", Status::NotApplicable);
        na.message = Some("no dispatcher".into());
        let mut skip = case("calls/proxy", Status::Skip);
        skip.message = Some("needs capability proxy".into());
        let report = report(vec![warn, na, skip, case("calls/ok", Status::Pass)]);
        let s = &report.summary;
        assert_eq!(
            (s.pass, s.warn, s.not_applicable, s.skip, s.fail),
            (1, 1, 1, 1, 0)
        );
        assert_eq!(report.exit_code, 0);
        assert_eq!(s.line(), "4 cases: 1 pass, 1 warn, 1 skip, 1 n/a");
        let json: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
        validate_json(&json).unwrap();
        assert_eq!(json["summary"]["notApplicable"], 1);
        assert_eq!(json["cases"][1]["status"], "n/a");
        assert_eq!(json["cases"][0]["violations"][0]["level"], "should");
        assert_eq!(json["cases"][0]["measures"][0]["bound"], 10.0);
        let junit = report.junit().unwrap();
        assert!(junit.contains("n/a: no dispatcher"), "{junit}");
        assert!(junit.contains("CORE-X-01 (should): took long"), "{junit}");
        assert_eq!(junit.matches("<skipped").count(), 2, "{junit}");
        assert!(!junit.contains("<failure"), "{junit}");
        let md = report.markdown();
        assert!(
            md.contains("| 4 | 1 | 0 | 1 | 0 | 0 | 0 | 1 | 1 | 0 | 0 |"),
            "{md}"
        );
        assert!(md.contains("| `latency/slow` | warn | CORE-X-01 |"), "{md}");
        assert!(md.contains("wall time: 12.5 ms (bound: 10 ms)"), "{md}");
        assert!(!md.contains("`calls/unknown-tool`"), "{md}");
    }
}
