//! Runs past one process: `--jobs N` reports what one job reports, an
//! adapter that crashes or is given up on costs only its own process, and
//! `--shard I/N` parts joined by `toolgate report merge` are the whole
//! run's report; a merge of reports that are not one run's shards is
//! refused with a message naming the file.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use toolgate_runner::adapter;
use toolgate_runner::merge;
use toolgate_runner::report::RunReport;
use toolgate_runner::run::{run, RunOptions};
use toolgate_runner::shard::Shard;

fn reference() -> String {
    env!("CARGO_BIN_EXE_toolgate-reference-adapter").to_string()
}

fn faulty(fault: &str) -> String {
    format!("{} {fault}", env!("CARGO_BIN_EXE_toolgate-faulty-adapter"))
}

/// A run of `command` on `suites`, with `generate` cases of seed 13 and
/// failures shrunk into `dir`.
fn options(command: String, suites: &[&str], generate: u64, dir: &Path) -> RunOptions {
    RunOptions {
        implementation: Some(adapter::Options {
            command,
            timeout: Duration::from_secs(300),
            start_timeout: Duration::from_secs(30),
            max_restarts: 3,
        }),
        filter_suites: suites.iter().map(|s| s.to_string()).collect(),
        generate,
        seed: Some(13),
        shrink_steps: 32,
        save_dir: dir.join("failures"),
        progress: false,
        quiet: true,
        ..RunOptions::default()
    }
}

fn check(options: &RunOptions) -> RunReport {
    run(options).unwrap_or_else(|e| panic!("the run failed: {e}"))
}

/// The report with its times set to zero: what must not differ between
/// runs dealt differently.
fn timeless(mut report: RunReport) -> RunReport {
    report.duration_secs = 0.0;
    for case in &mut report.cases {
        case.duration_ms = 0.0;
    }
    report
}

/// Every format of two reports is the same, times aside.
fn assert_same(a: RunReport, b: RunReport, what: &str) {
    let (a, b) = (timeless(a), timeless(b));
    assert_eq!(a.json(), b.json(), "{what}: JSON");
    assert_eq!(a.junit().unwrap(), b.junit().unwrap(), "{what}: JUnit");
    assert_eq!(a.markdown(), b.markdown(), "{what}: Markdown");
    assert_eq!(
        a.terminal(),
        b.terminal(),
        "{what}: terminal (times are zero)"
    );
}

/// A subtly wrong core implementation over the core corpus and 24
/// generated cases, failures shrunk: two jobs report what one does.
#[test]
fn two_jobs_report_what_one_job_reports_failures_and_shrinking_included() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = options(faulty("lose-effect"), &["core"], 24, dir.path());
    // shrinking within its time budget on a loaded machine could stop
    // early in one run and not in the other: bounded by steps instead
    o.shrink_steps = 16;
    o.max_shrinks = 3;
    o.shrink_time = Duration::from_secs(3_600);
    let one = check(&o);
    o.jobs = 2;
    let two = check(&o);
    assert!(one.summary.fail >= 2, "{}", one.terminal());
    assert!(
        one.cases.iter().any(|c| c.shrunk.is_some()),
        "nothing was shrunk: {}",
        one.terminal()
    );
    assert_same(one, two, "--jobs 1 and --jobs 2");
}

/// The processes of a run start side by side: each of these two waits,
/// before its handshake, until both have begun (a latch of files in
/// `meet`). Started one after the other, the first would wait for ever, and
/// the run would fail at the start's time limit.
#[test]
fn the_processes_of_a_run_start_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let meet = dir.path().join("meet");
    std::fs::create_dir(&meet).unwrap();
    let command = format!(
        "sh -c 'touch {meet}/$$; until [ $(ls {meet} | wc -l) -ge 2 ]; do sleep 0.01; done; exec {reference}'",
        meet = meet.display(),
        reference = reference(),
    );
    let mut o = options(command, &["core"], 0, dir.path());
    o.jobs = 2;
    o.implementation.as_mut().unwrap().start_timeout = Duration::from_secs(20);
    let report = check(&o);
    assert_eq!(
        report.summary.pass,
        report.summary.total,
        "{}",
        report.terminal()
    );
    assert_eq!(std::fs::read_dir(&meet).unwrap().count(), 2);
}

/// The core corpus on `jobs` processes of the reference adapter, the first
/// of which crashes at its third case (`--once` FILE, returned: remove it
/// to crash again).
fn crashing_once(dir: &Path, jobs: usize) -> (RunOptions, PathBuf) {
    let once = dir.join("crashed");
    let command = format!("{} --at 3 --once {}", faulty("crash"), once.display());
    let o = RunOptions {
        jobs,
        ..options(command, &["core"], 0, dir)
    };
    (o, once)
}

/// One process crashes once (`--once`): that case crashes, its process is
/// restarted, and the other process never notices.
#[test]
fn a_crash_costs_one_case_and_restarts_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let (o, _) = crashing_once(dir.path(), 2);
    let report = check(&o);
    assert_eq!(report.summary.crash, 1, "{}", report.terminal());
    assert_eq!(report.restarts, 1);
    assert_eq!(report.summary.pass, report.summary.total - 1);
}

/// The run gives up on a process that crashes past `--max-restarts`; its
/// cases go to the other process instead of being reported not run.
#[test]
fn a_process_given_up_on_leaves_its_cases_to_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let (mut o, once) = crashing_once(dir.path(), 2);
    o.implementation.as_mut().unwrap().max_restarts = 0;
    let report = check(&o);
    assert_eq!(report.summary.crash, 1, "{}", report.terminal());
    assert_eq!(report.summary.not_run, 0, "{}", report.terminal());
    assert_eq!(report.summary.pass, report.summary.total - 1);
    // with one job, the same crash leaves the rest of the run not run
    o.jobs = 1;
    std::fs::remove_file(&once).unwrap();
    let alone = check(&o);
    assert!(alone.summary.not_run > 0, "{}", alone.terminal());
}

/// Shard `index` of `count` of `o`.
fn shard(o: &RunOptions, index: u32, count: u32, jobs: usize) -> RunReport {
    let report = check(&RunOptions {
        shard: Some(Shard { index, count }),
        jobs,
        ..o.clone()
    });
    assert!(!report.cases.is_empty(), "shard {index}/{count} is empty");
    report
}

/// Round trips through the JSON report, as shards on other machines do.
fn written(report: &RunReport, dir: &Path, name: &str) -> (PathBuf, RunReport) {
    let path = dir.join(name);
    report.write(&path, &report.json()).unwrap();
    let read = merge::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    (path, read)
}

/// Every suite's corpus and generated cases on the reference, and the
/// core suite's on the wrong implementation: the shards, each dealt to a
/// different number of jobs, merged, are the whole run.
#[test]
fn shards_merged_are_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    for (command, suites, generate) in [
        (reference(), vec![], 6),
        (faulty("lose-effect"), vec!["core"], 24),
    ] {
        let mut o = options(command, &suites, generate, dir.path());
        // a shard shrinks its own first failure of a kind; the whole run
        // only the first of all (see the merge's documentation)
        o.shrink_steps = 0;
        // the two cases that wait out the workspace's 10 s bash limit were
        // 40 of this test's 68 s (four runs), and are cases like the others
        // to a shard and a merge
        o.exclude = vec![
            "workspace-bash/timeout-kills-the-shell".into(),
            "workspace-bash/background-job-holds-output-until-timeout".into(),
        ];
        let whole = check(&o);
        let parts = vec![
            written(&shard(&o, 2, 3, 2), dir.path(), "2.json"),
            written(&shard(&o, 1, 3, 1), dir.path(), "1.json"),
            written(&shard(&o, 3, 3, 2), dir.path(), "3.json"),
        ];
        let sizes: usize = parts.iter().map(|(_, r)| r.cases.len()).sum();
        assert_eq!(sizes, whole.cases.len());
        let merged = merge::merge(parts).unwrap();
        assert_same(whole, merged, "three shards merged and the whole run");
    }
}

/// The refusals of a merge: each names the file and what is wrong.
#[test]
fn a_merge_refuses_what_is_not_one_runs_shards() {
    let dir = tempfile::tempdir().unwrap();
    let o = options(reference(), &["core"], 4, dir.path());
    let a = written(&shard(&o, 1, 2, 1), dir.path(), "a.json");
    let b = written(&shard(&o, 2, 2, 1), dir.path(), "b.json");
    let refused = |parts: Vec<(PathBuf, RunReport)>, words: &str| {
        let e = merge::merge(parts).expect_err(words).to_string();
        assert!(e.contains(words), "{e}\nnot: {words}");
    };
    refused(vec![a.clone()], "shard 2/2 of the run missing");
    refused(vec![a.clone(), a.clone()], "shard 1/2 is given twice");
    let other_seed = written(
        &shard(
            &RunOptions {
                seed: Some(14),
                ..o.clone()
            },
            2,
            2,
            1,
        ),
        dir.path(),
        "seed.json",
    );
    refused(
        vec![a.clone(), other_seed],
        "seed.json: not a shard of the run of",
    );
    let other_count = written(&shard(&o, 2, 3, 1), dir.path(), "three.json");
    refused(vec![a.clone(), other_count], "of a run split in 3");
    let whole = written(&check(&o), dir.path(), "whole.json");
    refused(
        vec![whole, b.clone()],
        "whole.json: a whole run's report, not a shard's",
    );
    let mut newer = b.clone();
    newer.1.toolgate = "9.9.9".into();
    refused(vec![a.clone(), newer], "written by toolgate 9.9.9");
    let mut cut = b.clone();
    cut.1.cases.pop();
    refused(vec![a.clone(), cut], "the shards hold");
    std::fs::write(dir.path().join("garbage.json"), "{\"cases\": 3}").unwrap();
    let e = merge::read(&dir.path().join("garbage.json")).unwrap_err();
    assert!(e.to_string().contains("not a toolgate run report"), "{e}");
    assert!(merge::merge(vec![a, b]).is_ok());
}

/// The command line end to end: two shards written by `toolgate run
/// --shard`, joined by `toolgate report merge`, give the JSON of the whole
/// run; a malformed shard is refused before anything runs.
#[test]
fn the_command_line_merges_two_shards_into_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let toolgate = env!("CARGO_BIN_EXE_toolgate");
    let succeeds = |command: &mut Command| {
        let out = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
    };
    let run = |extra: &[&str], json: &str| {
        succeeds(
            Command::new(toolgate)
                .args(["run", "--impl", &reference(), "--suite", "boundary"])
                .args(["--generate", "5", "--seed", "7", "--no-progress", "--quiet"])
                .args(extra)
                .arg("--json")
                .arg(dir.path().join(json)),
        )
    };
    run(&[], "whole.json");
    run(&["--shard", "1/2", "--jobs", "2"], "1.json");
    run(&["--shard", "2/2"], "2.json");
    succeeds(
        Command::new(toolgate)
            .args(["report", "merge"])
            .args([dir.path().join("2.json"), dir.path().join("1.json")])
            .arg("--json")
            .arg(dir.path().join("merged.json"))
            .arg("--markdown")
            .arg(dir.path().join("merged.md")),
    );
    let read = |name: &str| timeless(merge::read(&dir.path().join(name)).unwrap()).json();
    assert_eq!(read("whole.json"), read("merged.json"));
    assert!(dir.path().join("merged.md").exists());
    for wrong in ["3/2", "0/4", "two"] {
        let out = Command::new(toolgate)
            .args(["run", "--shard", wrong])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{wrong}: {stderr}");
        assert!(stderr.contains("--shard"), "{wrong}: {stderr}");
    }
    let out = Command::new(toolgate)
        .args(["run", "--shard", "1/2", "--generate", "3"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("needs --seed"), "{stderr}");
}
