//! Requirement levels and measures through the whole run, with a test-only
//! suite (no suite of the corpus has SHOULD requirements yet): a case
//! breaking only a SHOULD requirement warns and passes the run, fails it
//! under `--strict`, and a case breaking a MUST one fails either way; what
//! a case measured reaches every report.

use serde_json::{json, Value as Json};
use std::path::PathBuf;
use toolgate_runner::cases::{Origin, RunCase};
use toolgate_runner::outcome::Status;
use toolgate_runner::report::RunReport;
use toolgate_runner::run::{run_cases, RunOptions};
use toolgate_suite::Error;
use toolgate_suite::{Judgement, Level, Measure, SuiteDef, Violation};

/// A suite whose reference observes what the scenario says it does
/// (`{"observe": {"ms": .., "ok": ..}}`): `LAT-01` (SHOULD) bounds `ms` by
/// 10, `LAT-02` (MUST) wants `ok` as expected.
struct Latency;

static LATENCY: Latency = Latency;

const BOUND_MS: f64 = 10.0;

impl SuiteDef for Latency {
    fn id(&self) -> &'static str {
        "latency-test"
    }

    fn requirement_prefix(&self) -> &'static str {
        "LAT-"
    }

    fn level(&self, requirement: &str) -> Level {
        if requirement == "LAT-01" {
            Level::Should
        } else {
            Level::Must
        }
    }

    fn check_scenario(&self, _scenario: &Json) -> Result<(), Error> {
        Ok(())
    }

    fn observe(&self, scenario: &Json) -> Result<Json, Error> {
        Ok(scenario["observe"].clone())
    }

    fn capabilities(&self, _scenario: &Json) -> Vec<String> {
        Vec::new()
    }

    fn observation_schema(&self) -> &'static str {
        r#"{"type": "object"}"#
    }

    fn judge(&self, _scenario: &Json, expected: &Json, actual: &Json) -> Judgement {
        let ms = actual["ms"].as_f64().unwrap_or(f64::MAX);
        let mut violations = Vec::new();
        if ms > BOUND_MS {
            violations.push(Violation::named(
                "LAT-01",
                format!("took {ms} ms, more than {BOUND_MS}"),
            ));
        }
        if actual["ok"] != expected["ok"] {
            violations.push(Violation::named("LAT-02", "not ok"));
        }
        Judgement {
            violations,
            notes: Vec::new(),
            measures: vec![Measure {
                name: "wall time".into(),
                value: ms,
                unit: "ms".into(),
                bound: Some(BOUND_MS),
            }],
            // a time bound: the runner gives it a second, patient run
            timing: ms > BOUND_MS,
            window: false,
            // a case whose set-up did not happen says so
            unmet: actual
                .get("unset")
                .map(|why| format!("not exercised: {why}")),
        }
    }
}

fn case(name: &str, ms: f64, ok: bool) -> RunCase {
    RunCase {
        id: format!("latency/{name}"),
        suite: &LATENCY,
        description: String::new(),
        requirements: vec!["LAT-01".into(), "LAT-02".into()],
        scenario: json!({"observe": {"ms": ms, "ok": ok}}),
        expect: json!({"ms": 1.0, "ok": true}),
        origin: Origin::Corpus,
    }
}

fn options(dir: &std::path::Path, strict: bool) -> RunOptions {
    RunOptions {
        strict,
        json: Some(dir.join("report.json")),
        junit: Some(dir.join("junit.xml")),
        markdown: Some(dir.join("summary.md")),
        save_dir: PathBuf::from("target/toolgate-failures"),
        progress: false,
        quiet: true,
        ..RunOptions::default()
    }
}

fn statuses(report: &RunReport) -> Vec<Status> {
    report.cases.iter().map(|c| c.status).collect()
}

#[test]
fn a_should_violation_warns_and_passes_the_run_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    let cases = vec![case("fast", 3.0, true), case("slow", 12.5, true)];
    let report = run_cases(&options(dir.path(), false), cases.clone()).unwrap();
    assert_eq!(statuses(&report), [Status::Pass, Status::Warn]);
    assert_eq!(report.exit_code, 0);
    assert_eq!(report.summary.line(), "2 cases: 1 pass, 1 warn");
    let slow = &report.cases[1];
    assert_eq!(slow.requirements, ["LAT-01"]);
    // its verdict rests on time: it ran again, and says what the first said
    let reran = slow.reran.as_deref().expect("ran again");
    assert!(reran.contains("took 12.5 ms"), "{reran}");
    assert!(report.cases[0].reran.is_none());
    assert_eq!(slow.violations[0].level, Some(Level::Should));
    let json: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    toolgate_runner::report::validate_json(&json).unwrap();
    assert_eq!(json["summary"]["warn"], 1);
    assert_eq!(json["cases"][1]["status"], "warn");
    // measures reach the JSON report for every case that has them
    assert_eq!(json["cases"][0]["measures"][0]["value"], 3.0);
    assert_eq!(
        json["cases"][1]["measures"][0],
        json!({"name": "wall time", "value": 12.5, "unit": "ms", "bound": 10.0})
    );
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains(": passed"), "{md}");
    assert!(md.contains("| `latency/slow` | warn | LAT-01 |"), "{md}");
    assert!(md.contains("LAT-01 (should): took 12.5 ms"), "{md}");
    assert!(md.contains("wall time: 12.5 ms (bound: 10 ms)"), "{md}");
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(!junit.contains("<failure"), "{junit}");

    let report = run_cases(&options(dir.path(), true), cases).unwrap();
    assert_eq!(statuses(&report), [Status::Pass, Status::Fail]);
    assert_eq!(report.exit_code, 1);
    assert_eq!(report.summary.line(), "2 cases: 1 pass, 1 fail");
    assert!(
        report.cases[1].reproduce.contains("--strict"),
        "{}",
        report.cases[1].reproduce
    );
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert!(junit.contains("<failure"), "{junit}");
}

#[test]
fn a_must_violation_fails_whatever_else_it_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let report = run_cases(
        &options(dir.path(), false),
        vec![case("wrong", 12.5, false)],
    )
    .unwrap();
    assert_eq!(statuses(&report), [Status::Fail]);
    assert_eq!(report.cases[0].requirements, ["LAT-01", "LAT-02"]);
    assert_eq!(report.exit_code, 1);
}

#[test]
fn the_suite_filter_and_the_built_in_reference_take_any_suite() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(dir.path(), false);
    o.filter_suites = vec!["core".into()];
    let report = run_cases(&o, vec![case("fast", 3.0, true)]).unwrap();
    assert!(report.cases.is_empty());
    let report = run_cases(&options(dir.path(), false), vec![case("fast", 3.0, true)]).unwrap();
    assert_eq!(report.cases[0].suite, "latency-test");
    assert_eq!(report.cases[0].status, Status::Pass);
}

#[test]
fn a_case_whose_set_up_did_not_happen_is_an_error_never_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let mut unset = case("unset", 3.0, true);
    unset.scenario = json!({"observe": {"ms": 3.0, "ok": true, "unset": "the abort never came"}});
    let mut failing = case("unset-and-wrong", 3.0, false);
    failing.scenario =
        json!({"observe": {"ms": 3.0, "ok": false, "unset": "the abort never came"}});
    let report = run_cases(&options(dir.path(), false), vec![unset, failing]).unwrap();
    // without a violation: an error saying why; with one: the failure
    assert_eq!(statuses(&report), [Status::Error, Status::Fail]);
    assert_eq!(
        report.cases[0].message.as_deref(),
        Some("not exercised: \"the abort never came\"")
    );
    assert_eq!(report.exit_code, 2);
}
