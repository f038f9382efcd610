//! The runner against deliberately broken adapters
//! (`toolgate-faulty-adapter`): each fault gives the right status to the
//! right case, the run completes, every case is in the report, and the
//! reports are written even when the run gives up on the adapter.

use std::time::Duration;
use toolgate_runner::adapter;
use toolgate_runner::outcome::{CaseOutcome, Status};
use toolgate_runner::report::RunReport;
use toolgate_runner::run::{run, RunOptions};
use toolgate_runner::Error;

/// The group the fault runs use: 20 small cases.
const CASES: &str = "calls/*";

fn faulty(args: &str, max_restarts: u32, dir: &std::path::Path) -> RunOptions {
    RunOptions {
        implementation: Some(adapter::Options {
            command: format!("{} {args}", env!("CARGO_BIN_EXE_toolgate-faulty-adapter")),
            timeout: Duration::from_millis(1500),
            start_timeout: Duration::from_secs(2),
            max_restarts,
        }),
        cases: vec![CASES.into()],
        shrink_steps: 0,
        save_dir: dir.join("failures"),
        json: Some(dir.join("report.json")),
        junit: Some(dir.join("junit.xml")),
        progress: false,
        quiet: true,
        ..RunOptions::default()
    }
}

/// Runs `args` and checks the statuses case by case: `expected` lists
/// (index in the run, status, words in the message); every other case
/// before the first not-run one passes; `not_run_from` is where the run gave
/// up; `{dir}` in `args` is a fresh directory. Also checks the written reports account for every case.
fn check(
    args: &str,
    max_restarts: u32,
    expected: &[(usize, Status, &str)],
    not_run_from: Option<usize>,
    exit_code: i32,
) -> RunReport {
    let dir = tempfile::tempdir().unwrap();
    let args = &args.replace("{dir}", &dir.path().display().to_string());
    let options = faulty(args, max_restarts, dir.path());
    let report = run(&options).unwrap_or_else(|e| panic!("{args}: the run failed: {e}"));
    let total = toolgate_runner::cases::corpus(None)
        .unwrap()
        .iter()
        .filter(|c| c.id.starts_with("calls/"))
        .count();
    assert_eq!(report.cases.len(), total, "{args}: every case is reported");
    for (i, case) in report.cases.iter().enumerate() {
        let listed = expected.iter().find(|(at, _, _)| *at == i);
        match (listed, not_run_from) {
            (Some((_, status, words)), _) => {
                assert_eq!(
                    case.status, *status,
                    "{args}: case {i} {}: {case:?}",
                    case.id
                );
                let message = case.message.as_deref().unwrap_or_default();
                assert!(
                    message.contains(words),
                    "{args}: case {i}: {message:?} lacks {words:?}"
                );
            }
            (None, Some(from)) if i >= from => {
                assert!(
                    is_not_run(case),
                    "{args}: case {i} should be not run: {case:?}"
                );
            }
            (None, _) => assert_eq!(case.status, Status::Pass, "{args}: case {i}: {case:?}"),
        }
    }
    assert_eq!(report.exit_code, exit_code, "{args}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(
        json["cases"].as_array().unwrap().len(),
        total,
        "{args}: JSON report"
    );
    if let Err(e) = toolgate_runner::report::validate_json(&json) {
        panic!("{args}: the JSON report breaks its schema: {e}");
    }
    assert_eq!(json["summary"]["total"], total);
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert_eq!(
        junit.matches("<testcase ").count(),
        total,
        "{args}: JUnit report"
    );
    report
}

fn is_not_run(case: &CaseOutcome) -> bool {
    case.status == Status::Error && case.not_run
}

#[test]
fn a_hanging_adapter_times_out_and_is_restarted() {
    // seq 2 of each process hangs: a timeout may be the machine's load, so
    // the case runs again (patience 4) on the restarted adapter, whose seq
    // 1 answers: cases 1 and 2 pass the second time; case 3's second run
    // finds the cap of 2 restarts reached, so its timeout stands
    let t = (Status::Timeout, "no reply within 1.5 s");
    let report = check("hang", 2, &[(3, t.0, t.1)], Some(4), 2);
    for i in [1, 2] {
        let reran = report.cases[i].reran.as_deref().unwrap_or_default();
        assert!(
            reran.contains("(timeout: no reply within 1.5 s"),
            "{:?}",
            report.cases[i]
        );
    }
}

#[test]
fn a_crashing_adapter_is_reported_with_its_stderr_and_restarted() {
    let report = check(
        "crash --at 3 --once {dir}/crashed",
        3,
        &[(2, Status::Crash, "exit status: 3")],
        None,
        1,
    );
    assert!(
        report.cases[2].stderr.contains("crashing on purpose"),
        "{:?}",
        report.cases[2]
    );
    // --once: the restarted adapter behaves, so only case 2 is lost
    assert_eq!(report.restarts, 1);
}

#[test]
fn garbage_on_stdout_is_a_harness_error() {
    check(
        "garbage",
        1,
        &[
            (1, Status::Error, "not a JSON object"),
            (3, Status::Error, "not a JSON object"),
        ],
        Some(4),
        2,
    );
}

#[test]
fn a_wrong_sequence_number_is_a_harness_error() {
    check(
        "wrong-seq --at 1",
        0,
        &[(
            0,
            Status::Error,
            "a reply for seq 2 arrived while waiting for seq 1",
        )],
        Some(1),
        2,
    );
}

#[test]
fn a_second_reply_fails_the_next_case_not_the_answered_one() {
    check(
        "twice --at 1",
        0,
        &[(1, Status::Error, "answered seq 1 twice")],
        Some(2),
        2,
    );
}

#[test]
fn a_flood_on_stdout_is_cut_at_the_line_limit() {
    check(
        "flood --at 1",
        0,
        &[(0, Status::Error, "longer than 64 MiB")],
        Some(1),
        2,
    );
}

#[test]
fn a_malformed_observation_or_an_error_reply_is_a_harness_error() {
    check(
        "bad-observation --at 1",
        0,
        &[(0, Status::Error, "does not match the observation format")],
        Some(1),
        2,
    );
    // an `error` reply is an honest answer: the adapter keeps running
    check(
        "reply-error --at 2",
        0,
        &[(
            1,
            Status::Error,
            "the adapter reported: cannot build this scenario",
        )],
        None,
        2,
    );
}

#[test]
fn a_not_applicable_reply_is_n_a_apart_from_skip_and_fail() {
    // an honest answer: the adapter keeps running and the run passes
    let report = check(
        "not-applicable --at 2",
        0,
        &[(1, Status::NotApplicable, "no dispatcher")],
        None,
        0,
    );
    let s = &report.summary;
    assert_eq!((s.not_applicable, s.skip, s.fail), (1, 0, 0));
    assert!(s.line().ends_with(", 1 n/a"), "{}", s.line());
    assert_eq!(report.restarts, 0);
    assert!(!toolgate_runner::report::notable(&report.cases[1]));
    let junit = report.junit().unwrap();
    assert!(
        junit.contains("n/a: this runtime has no dispatcher"),
        "{junit}"
    );
}

#[test]
fn a_lone_surrogate_escape_in_a_reply_is_a_contract_failure_not_garbage() {
    // case 5 of calls/ resolves with a result: its content gains U+FFFD
    let report = check(
        "lone-surrogate --at 6",
        0,
        &[(5, Status::Fail, "")],
        None,
        1,
    );
    let diff = report.cases[5].diff.as_deref().unwrap_or_default();
    assert!(diff.contains('\u{FFFD}'), "{diff}");
}

#[test]
fn stderr_is_kept_with_the_case_it_was_written_during() {
    let report = check("chatty --at 3", 0, &[], None, 0);
    assert!(report.cases[2]
        .stderr
        .contains("a note on stderr for seq 3"));
    assert!(report.cases[1].stderr.is_empty());
}

/// Stderr written just before a reply belongs to that reply's case, however
/// the reader threads are scheduled: checked on every case of several runs
/// while other threads keep both cores busy.
#[test]
fn stderr_written_before_each_reply_stays_with_its_case_under_load() {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let load: Vec<_> = (0..4)
        .map(|_| {
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    std::hint::black_box(x);
                }
            })
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    for round in 0..5 {
        let report = run(&faulty("chatty-all", 0, dir.path())).unwrap();
        for (i, case) in report.cases.iter().enumerate() {
            assert_eq!(
                case.stderr,
                format!("faulty adapter: a note on stderr for seq {}\n", i + 1),
                "round {round}, case {i} ({})",
                case.id
            );
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for t in load {
        t.join().unwrap();
    }
}

fn start_error(args: &str, words: &str) {
    let dir = tempfile::tempdir().unwrap();
    match run(&faulty(args, 3, dir.path())) {
        Err(e @ Error::Adapter(_)) => {
            let message = e.to_string();
            assert!(message.contains(words), "{args}: {message}");
        }
        Err(e) => panic!("{args}: wrong error {e}"),
        Ok(report) => panic!("{args}: ran {} cases", report.cases.len()),
    }
}

#[test]
fn a_failed_handshake_stops_the_run_before_any_case() {
    start_error("no-handshake", "no reply to start within 2s");
    start_error("wrong-protocol", "speaks protocol 2");
}

#[test]
fn once_the_restart_cap_is_reached_the_rest_is_not_run_but_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = faulty("crash --at 1", 2, dir.path());
    options.markdown = Some(dir.path().join("summary.md"));
    let report = run(&options).unwrap();
    let statuses: Vec<Status> = report.cases.iter().map(|c| c.status).collect();
    assert_eq!(&statuses[..3], &[Status::Crash; 3]);
    assert!(report.cases[3..].iter().all(is_not_run));
    assert!(report.cases[3]
        .message
        .as_deref()
        .unwrap()
        .contains("after 2 restart(s)"));
    assert_eq!(report.summary.not_run, report.cases.len() - 3);
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(md.contains("harness error"), "{md}");
}

#[cfg(unix)]
#[test]
fn an_interrupted_run_writes_every_case_into_its_reports() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["run", "--case", CASES, "--timeout", "60", "--json"])
        .arg(&json)
        .arg("--impl")
        .arg(format!(
            "{} hang",
            env!("CARGO_BIN_EXE_toolgate-faulty-adapter")
        ))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // the second case hangs for up to 60 s; interrupt while it waits
    std::thread::sleep(Duration::from_millis(1500));
    // SAFETY: kill(2) on our own child.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let started = std::time::Instant::now();
    let status = child.wait().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the interrupt was not honoured promptly"
    );
    assert_eq!(status.code(), Some(2));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let cases = report["cases"].as_array().unwrap();
    assert_eq!(cases[0]["status"], "pass");
    assert!(cases.len() > 10);
    for case in &cases[1..] {
        assert_eq!(case["status"], "error", "{case}");
        assert_eq!(case["notRun"], true);
        assert_eq!(case["message"], "not run: the run was interrupted");
    }
}

fn first_calls_case() -> toolgate_runner::cases::RunCase {
    let corpus = toolgate_runner::cases::corpus(None).unwrap();
    corpus
        .into_iter()
        .find(|c| c.id.starts_with("calls/"))
        .unwrap()
}

fn holding_adapter(latch: &std::path::Path, timeout: Duration) -> adapter::Adapter {
    adapter::Adapter::start(adapter::Options {
        command: format!(
            "{} hold --at 1 --latch {}",
            env!("CARGO_BIN_EXE_toolgate-faulty-adapter"),
            latch.display()
        ),
        timeout,
        start_timeout: Duration::from_secs(10),
        max_restarts: 0,
    })
    .unwrap()
}

/// Waits until `path` exists; fails the test after a minute.
fn wait_for(path: &std::path::Path, what: &str) {
    for _ in 0..60_000 {
        if path.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("{what} never happened");
}

/// The runner's own work for a case (the reference observing a generated
/// scenario) runs while the adapter runs the case, not before it: the
/// adapter holds the case until that work, which waits for the request to
/// have arrived, lets it go. The attempt's duration is the adapter's, from
/// the request to the reply, not to the end of the runner's work.
#[test]
fn the_runner_works_while_the_adapter_runs_the_case() {
    use toolgate_runner::subject::{Ran, Subject};
    let dir = tempfile::tempdir().unwrap();
    let latch = dir.path();
    let mut adapter = holding_adapter(latch, Duration::from_secs(60));
    let case = first_calls_case();
    let mut worked = false;
    let attempt = adapter.run_overlapped(&case, &mut || {
        wait_for(&latch.join("received"), "the request's arrival");
        std::fs::write(latch.join("release"), "").unwrap();
        wait_for(&latch.join("answered"), "the reply");
        // work that goes on well past the reply
        std::thread::sleep(Duration::from_secs(2));
        worked = true;
    });
    assert!(worked);
    assert!(
        matches!(&attempt.ran, Ran::Observed(_)),
        "{:?}",
        attempt.ran
    );
    assert!(
        attempt.duration < Duration::from_secs(2),
        "the duration ends at the reply: {:?}",
        attempt.duration
    );
    adapter.finish();
}

/// A reply that arrives after the case's timeout is a timeout, even when
/// the runner was busy with its own work and only read it then.
#[test]
fn a_reply_read_late_that_came_after_the_timeout_is_a_timeout() {
    use toolgate_runner::subject::{Ran, Subject};
    let dir = tempfile::tempdir().unwrap();
    let latch = dir.path();
    let timeout = Duration::from_millis(500);
    let mut adapter = holding_adapter(latch, timeout);
    let attempt = adapter.run_overlapped(&first_calls_case(), &mut || {
        wait_for(&latch.join("received"), "the request's arrival");
        // past the deadline, then the adapter may answer
        std::thread::sleep(2 * timeout);
        std::fs::write(latch.join("release"), "").unwrap();
        wait_for(&latch.join("answered"), "the reply");
    });
    assert_eq!(attempt.ran, Ran::Timeout(timeout));
    adapter.finish();
}

/// A turn called pending when the adapter's window closed: a failure or a
/// warning whose adapter was still working then (a slow turn on a loaded
/// machine) gets a third run with more patience and is judged on how the
/// turn ends; one whose adapter sat idle (stuck) keeps its verdict after
/// the usual second run; one still working after the most patience keeps
/// it too.
#[test]
fn a_pending_turn_still_working_gets_more_patience_and_a_stuck_one_does_not() {
    let on = |fault: &str, case: &str| {
        let dir = tempfile::tempdir().unwrap();
        let mut options = faulty(fault, 2, dir.path());
        options.cases = vec![case.into()];
        options.implementation.as_mut().unwrap().timeout = Duration::from_secs(20);
        let report = run(&options).unwrap_or_else(|e| panic!("{fault}: {e}"));
        assert_eq!(report.cases.len(), 1, "{fault}");
        (report.cases[0].clone(), report.exit_code)
    };
    let once = |fault: &str| on(fault, "boundary-failures/throws-an-error");
    let reran = |o: &CaseOutcome| o.reran.clone().unwrap_or_default();
    let (slow, code) = once("slow-turn");
    assert_eq!((slow.status, code), (Status::Pass, 0), "{slow:?}");
    assert!(
        reran(&slow).starts_with("ran again with 16 times"),
        "{slow:?}"
    );

    let (stuck, code) = once("stuck-turn");
    assert_eq!((stuck.status, code), (Status::Fail, 1), "{stuck:?}");
    assert!(
        reran(&stuck).starts_with("ran again with 4 times"),
        "{stuck:?}"
    );

    let (busy, code) = once("busy-turn");
    assert_eq!((busy.status, code), (Status::Fail, 1), "{busy:?}");
    assert!(
        reran(&busy).starts_with("ran again with 16 times"),
        "{busy:?}"
    );
    assert_eq!(busy.requirements, ["BOUNDARY-LINK-01"]);

    // a turn held by huge arguments is a warning (ARGS-01, a SHOULD) while
    // it is pending; how it ends may be anything, so a working one is
    // given the most patience too
    let huge = "boundary-arguments/arguments-of-999000-keys";
    let (slow, code) = on("slow-turn", huge);
    assert_eq!((slow.status, code), (Status::Pass, 0), "{slow:?}");
    assert!(
        reran(&slow).starts_with("ran again with 16 times"),
        "{slow:?}"
    );
    let (stuck, code) = on("stuck-turn", huge);
    assert_eq!((stuck.status, code), (Status::Warn, 0), "{stuck:?}");
    assert!(
        reran(&stuck).starts_with("ran again with 4 times"),
        "{stuck:?}"
    );
    assert_eq!(stuck.requirements, ["BOUNDARY-ARGS-01"]);
}
