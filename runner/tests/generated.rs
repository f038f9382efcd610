//! Generated cases against a subtly wrong implementation (the faulty
//! adapter's `lose-effect`): failures are shrunk against the implementation,
//! saved as case files that `--case-file` replays, and an expected-failures
//! baseline written from a run makes the next run pass until a listed case
//! passes (stale).

use proptest::strategy::ValueTree;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toolgate_runner::adapter;
use toolgate_runner::cases::Origin;
use toolgate_runner::generate::Generator;
use toolgate_runner::outcome::{Expectation, Status};
use toolgate_runner::report::RunReport;
use toolgate_runner::run::{run, RunOptions};

fn options(adapter_command: String, dir: &Path) -> RunOptions {
    RunOptions {
        implementation: Some(adapter::Options {
            command: adapter_command,
            timeout: Duration::from_secs(120),
            start_timeout: Duration::from_secs(30),
            max_restarts: 0,
        }),
        no_corpus: true,
        // the faulty adapter's faults are the core suite's
        filter_suites: vec!["core".into()],
        shrink_steps: 128,
        save_dir: dir.join("failures"),
        progress: false,
        quiet: true,
        ..RunOptions::default()
    }
}

fn lose_effect() -> String {
    format!(
        "{} lose-effect",
        env!("CARGO_BIN_EXE_toolgate-faulty-adapter")
    )
}

fn reference() -> String {
    env!("CARGO_BIN_EXE_toolgate-reference-adapter").to_string()
}

fn check(options: &RunOptions, exit_code: i32) -> RunReport {
    let report = run(options).unwrap_or_else(|e| panic!("the run failed: {e}"));
    assert_eq!(report.exit_code, exit_code, "{}", report.terminal());
    report
}

#[test]
fn generated_failures_are_shrunk_saved_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(lose_effect(), dir.path());
    // seed 13 generates small cases, two of the first six failing
    o.generate = 6;
    o.seed = Some(13);
    o.shrink_steps = 64;
    let report = check(&o, 1);
    let json: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
    toolgate_runner::report::validate_json(&json).unwrap();
    let failed: Vec<_> = report
        .cases
        .iter()
        .filter(|c| c.status == Status::Fail)
        .collect();
    assert!(!failed.is_empty(), "lose-effect fails some generated case");
    for case in failed.iter().take(1) {
        let shrunk = case.shrunk.as_ref().expect("a failure is shrunk");
        let saved = PathBuf::from(shrunk.saved.as_ref().expect("and saved"));
        assert!(case.reproduce.contains("--case-file"), "{}", case.reproduce);
        assert!(!case.requirements.is_empty() || !case.violations.is_empty());
        // the replay fails the same way, and passes on the reference
        let mut replay = options(lose_effect(), dir.path());
        replay.no_corpus = false;
        replay.case_files = vec![saved.clone()];
        let again = check(&replay, 1);
        assert_eq!(again.cases.len(), 1);
        assert_eq!(again.cases[0].status, Status::Fail);
        assert_eq!(again.cases[0].requirements, case.requirements);
        replay.implementation.as_mut().unwrap().command = reference();
        check(&replay, 0);
    }
    // shrinking made the first failure's case smaller than generated
    let first = failed[0];
    let Some(Origin::Generated { index, .. }) = generated_origin(&first.id) else {
        panic!("{} is a generated id", first.id)
    };
    let mut generator =
        Generator::new(&toolgate_core::scenario::CORE, 13).expect("core has a generator");
    let tree = generator.tree(index).unwrap();
    let original =
        toolgate_runner::generate::case(&toolgate_core::scenario::CORE, 13, index, &tree.current())
            .unwrap();
    let saved = PathBuf::from(first.shrunk.as_ref().unwrap().saved.clone().unwrap());
    let minimal = toolgate_runner::cases::case_file(&saved).unwrap().remove(0);
    let json_size =
        |c: &toolgate_runner::cases::RunCase| serde_json::to_string(&c.scenario).unwrap().len();
    assert!(
        json_size(&minimal) < json_size(&original),
        "shrunk {} bytes, generated {} bytes",
        json_size(&minimal),
        json_size(&original)
    );
}

fn generated_origin(id: &str) -> Option<Origin> {
    let (seed, index) = id.strip_prefix("generated/")?.split_once('-')?;
    Some(Origin::Generated {
        seed: seed.parse().ok()?,
        index: index.parse().ok()?,
    })
}

#[test]
fn the_same_seed_generates_the_same_cases() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(lose_effect(), dir.path());
    o.generate = 15;
    o.seed = Some(13);
    o.shrink_steps = 0;
    let ids = |r: &RunReport| -> Vec<(String, Status)> {
        r.cases.iter().map(|c| (c.id.clone(), c.status)).collect()
    };
    let a = check(&o, 1);
    let b = check(&o, 1);
    assert_eq!(ids(&a), ids(&b));
    o.seed = Some(14);
    let c = run(&o).unwrap();
    assert_ne!(ids(&a), ids(&c), "another seed, other cases");
}

#[test]
fn an_expected_failures_baseline_passes_until_a_listed_case_passes() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("expected-failures.txt");
    let mut o = options(lose_effect(), dir.path());
    o.no_corpus = false;
    o.cases = vec!["cancellation/*".into(), "execution/*".into()];
    o.write_expected_failures = Some(baseline.clone());
    // writing the baseline is the run's purpose: its failures do not fail it
    let first = check(&o, 0);
    let failing = first
        .cases
        .iter()
        .filter(|c| c.status == Status::Fail)
        .count();
    assert!(failing > 0);
    // with the baseline: every failure is expected, the run passes
    o.write_expected_failures = None;
    o.expected_failures = Some(baseline.clone());
    let second = check(&o, 0);
    assert_eq!(second.summary.expected_failures, failing);
    // the fixed implementation: every listed case is now stale
    o.implementation.as_mut().unwrap().command = reference();
    let third = check(&o, 1);
    assert_eq!(third.summary.stale, failing);
    let json: serde_json::Value = serde_json::from_str(&third.json()).unwrap();
    toolgate_runner::report::validate_json(&json).unwrap();
    assert!(third
        .cases
        .iter()
        .filter(|c| c.expectation.is_some())
        .all(|c| c.expectation == Some(Expectation::Stale)));
    // an unknown id in the baseline is a usage error
    std::fs::write(&baseline, "calls/no-such-case\n").unwrap();
    let err = run(&o).expect_err("refused").to_string();
    assert!(err.contains("unknown case id"), "{err}");
}

#[test]
fn a_glob_baseline_expects_generated_failures_by_requirement() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("expected-failures.txt");
    let mut o = options(lose_effect(), dir.path());
    o.generate = 6;
    o.seed = Some(13);
    o.shrink_steps = 0;
    let first = check(&o, 1);
    let failed: Vec<_> = first
        .cases
        .iter()
        .filter(|c| c.status == Status::Fail)
        .collect();
    assert!(!failed.is_empty());
    let ids: std::collections::BTreeSet<&str> = failed
        .iter()
        .flat_map(|c| c.requirements.iter().map(String::as_str))
        .collect();
    // a corpus id is known even when the run has no corpus cases
    let listed = ids.iter().copied().collect::<Vec<_>>().join(" ");
    std::fs::write(
        &baseline,
        format!("calls/the-registry-must-be-real\ngenerated/* {listed}\n"),
    )
    .unwrap();
    o.expected_failures = Some(baseline.clone());
    o.shrink_steps = 64;
    let second = check(&o, 0);
    assert_eq!(second.summary.expected_failures, failed.len());
    assert!(
        second.cases.iter().all(|c| c.shrunk.is_none()),
        "an expected failure is not shrunk"
    );
    // a glob that does not list every violated requirement does not cover
    let (first_id, rest) = listed.split_once(' ').unwrap_or((listed.as_str(), ""));
    let narrower = if rest.is_empty() { "CORE-MOD-01" } else { rest };
    std::fs::write(&baseline, format!("generated/* {narrower}\n")).unwrap();
    let third = check(&o, 1);
    assert!(
        third.cases.iter().any(|c| matches!(
            &c.expectation,
            Some(Expectation::Unexpected { unlisted }) if unlisted.iter().any(|u| u == first_id)
        )),
        "{}",
        third.terminal()
    );
}

#[test]
fn a_baseline_written_by_a_generated_run_is_accepted_with_another_seed() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("expected-failures.txt");
    let mut o = options(lose_effect(), dir.path());
    o.generate = 20;
    o.seed = Some(13);
    o.shrink_steps = 0;
    o.write_expected_failures = Some(baseline.clone());
    let first = check(&o, 0);
    assert!(first.cases.iter().any(|c| c.status == Status::Fail));
    let written = std::fs::read_to_string(&baseline).unwrap();
    assert!(
        written.lines().any(|l| l.starts_with("generated/* CORE-")),
        "{written}"
    );
    assert!(!written.contains("generated/13-"), "{written}");
    // the same command, another seed, the written baseline: accepted (no
    // unknown id), and each failure on the listed requirements expected
    o.write_expected_failures = None;
    o.expected_failures = Some(baseline.clone());
    o.seed = Some(14);
    let second = run(&o).expect("the baseline is accepted with another seed");
    assert_ne!(second.exit_code, 2, "{}", second.terminal());
    let listed: Vec<&str> = written
        .lines()
        .find(|l| l.starts_with("generated/* "))
        .map(|l| l.split_whitespace().skip(1).collect())
        .unwrap_or_default();
    for c in second.cases.iter().filter(|c| c.status == Status::Fail) {
        let covered = !c.requirements.is_empty()
            && c.violations.iter().all(|v| v.requirement.is_some())
            && c.requirements.iter().all(|r| listed.contains(&r.as_str()));
        assert_eq!(
            c.expectation == Some(Expectation::Expected),
            covered,
            "{}: {:?} against {listed:?}",
            c.id,
            c.requirements
        );
    }
}

#[test]
fn shrinking_is_capped_and_done_once_per_set_of_requirements() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(lose_effect(), dir.path());
    o.generate = 40;
    o.seed = Some(13);
    o.shrink_steps = 16;
    o.max_shrinks = 2;
    let report = check(&o, 1);
    let failed: Vec<_> = report
        .cases
        .iter()
        .filter(|c| c.status == Status::Fail)
        .collect();
    assert!(failed.len() > 2, "{} failures", failed.len());
    let shrunk: Vec<_> = failed.iter().filter(|c| c.shrunk.is_some()).collect();
    assert!(!shrunk.is_empty() && shrunk.len() <= 2, "{}", shrunk.len());
    // the first failure of a set of requirements is the one shrunk (its
    // requirements may change while shrinking, so compare the generated ones)
    for c in failed.iter().filter(|c| c.shrunk.is_none()) {
        let why = c.message.as_deref().unwrap_or("");
        assert!(why.starts_with("not shrunk: "), "{}: {why:?}", c.id);
        assert!(c.reproduce.contains("--generate"), "{}", c.reproduce);
    }
}
