//! Running the matrix: each runtime of the runtimes file through `run`
//! (its adapter, its suites, its baseline), `jobs` runtimes at a time, into
//! a [`Matrix`] whose rows keep the file's order. Exit code: the worst of the runs' (an unexpected failure or
//! a stale baseline entry in any runtime fails the matrix).

use super::{row, CaseResult, Matrix, Requirement, Row, RuntimeEntry, RuntimesFile, Weight};
use crate::adapter;
use crate::cases;
use crate::console;
use crate::report::RunReport;
use crate::run::{run, RunOptions};
use crate::Error;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What `toolgate matrix` was asked.
#[derive(Debug, Clone)]
pub struct MatrixOptions {
    pub program: String,
    pub runtimes: PathBuf,
    /// Only these runtime ids (all when empty).
    pub only: Vec<String>,
    pub out: PathBuf,
    /// Write each runtime's baseline from this run instead of checking it.
    pub write_baselines: bool,
    pub timeout: Duration,
    pub progress: bool,
    /// How many runtimes run at once (at least 1). Each runtime's cases
    /// still run one after another; more jobs shorten the wall time of a
    /// matrix whose runtimes mostly wait (deadlines, process starts) and
    /// add noise to the time measures of those that compute.
    pub jobs: usize,
    /// Adapter processes each runtime's run deals its cases to (`run
    /// --jobs`; at least 1).
    pub jobs_per_runtime: usize,
    /// Generated cases run on every runtime besides its corpus cases (0:
    /// none), all from one seed.
    pub generate: u64,
    /// Their seed; a random one (printed) when absent.
    pub seed: Option<u64>,
    /// Case globs left out of every row (`run --exclude`); each must match
    /// a corpus case of the suite, and the matrix records them.
    pub exclude: Vec<String>,
}

/// The requirements of `suite`, with their levels and texts (SPEC.md).
pub fn requirements(suite: &str) -> Vec<Requirement> {
    let Some(def) = toolgate_suites::get(suite) else {
        return Vec::new();
    };
    cases::requirements()
        .into_iter()
        .filter(|(id, _)| id.starts_with(def.requirement_prefix()))
        .map(|(id, text)| Requirement {
            level: match def.level(&id) {
                toolgate_suite::Level::Must => Weight::Must,
                toolgate_suite::Level::Should => Weight::Should,
            },
            id,
            text,
        })
        .collect()
}

/// Runs every chosen runtime; the matrix and the exit code.
pub fn run_matrix(options: &MatrixOptions) -> Result<(Matrix, i32), Error> {
    let file = RuntimesFile::load(&options.runtimes)?;
    let base = options.runtimes.parent().unwrap_or(Path::new("."));
    for id in &options.only {
        if !file.runtimes.iter().any(|r| r.id == *id) {
            return Err(Error::usage(format!(
                "--runtime {id}: not in {}",
                options.runtimes.display()
            )));
        }
    }
    let suites: Vec<String> = file
        .runtimes
        .iter()
        .flat_map(|r| r.suites.clone())
        .collect();
    let suite = suites
        .first()
        .cloned()
        .ok_or_else(|| Error::usage("the runtimes file names no suite"))?;
    if suites.iter().any(|s| *s != suite) {
        return Err(Error::usage(
            "a matrix grades one suite: every runtime of the file must name the same one",
        ));
    }
    let corpus = cases::corpus(None)?;
    if options.write_baselines && !options.exclude.is_empty() {
        return Err(Error::usage(
            "--exclude with --write-baselines: a baseline written from a run that left cases out would drop their failures",
        ));
    }
    check_excluded(&options.exclude, &suite, &corpus)?;
    let about: HashMap<String, Vec<String>> =
        corpus.into_iter().map(|c| (c.id, c.requirements)).collect();
    let requirements = requirements(&suite);
    let started = Instant::now();
    // every runtime meets the same generated cases
    let seeded;
    let options = if options.generate > 0 && options.seed.is_none() {
        let seed = crate::run::random_seed();
        console::err(&format!(
            "{} generated cases per runtime, seed {seed}\n",
            options.generate
        ));
        seeded = MatrixOptions {
            seed: Some(seed),
            ..options.clone()
        };
        &seeded
    } else {
        options
    };
    let chosen: Vec<&RuntimeEntry> = file
        .runtimes
        .iter()
        .filter(|e| options.only.is_empty() || options.only.contains(&e.id))
        .collect();
    // a work queue: each job takes the next runtime; results land in the
    // runtime's slot, so the rows keep the file's order
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<RuntimeResult>>> =
        chosen.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.clamp(1, chosen.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let (Some(entry), Some(slot)) = (chosen.get(i), slots.get(i)) else {
                    break;
                };
                let result = run_runtime(options, base, entry, &about, &requirements);
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            });
        }
    });
    let mut rows = Vec::new();
    let mut exit = 0;
    for slot in slots {
        let result = slot
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .ok_or_else(|| Error::usage("a matrix job ended without its runtime's result"))?;
        let (row, code) = result?;
        exit = exit.max(code);
        rows.push(row);
    }
    let matrix = Matrix {
        toolgate: env!("CARGO_PKG_VERSION").to_string(),
        suite,
        generated: now_utc(),
        machine: machine(),
        duration_secs: started.elapsed().as_secs_f64(),
        runtimes: file.runtimes.iter().map(|r| r.id.clone()).collect(),
        excluded: options.exclude.clone(),
        requirements,
        rows,
    };
    Ok((matrix, exit))
}

/// Refuses an `--exclude` glob that leaves out no corpus case of `suite`:
/// a case renamed would otherwise be run again unnoticed, or a typo leave
/// out nothing while the page says it left something out.
fn check_excluded(exclude: &[String], suite: &str, corpus: &[cases::RunCase]) -> Result<(), Error> {
    for glob in exclude {
        let filter = cases::Filter::new(&[suite.to_string()], std::slice::from_ref(glob), &[])?;
        if !corpus.iter().any(|c| filter.keeps(c.suite.id(), &c.id)) {
            return Err(Error::usage(format!(
                "--exclude {glob}: no case of the {suite} suite has such an id"
            )));
        }
    }
    Ok(())
}

/// A runtime's row and its run's exit code, or why it did not run.
type RuntimeResult = Result<(Row, i32), Error>;

/// One runtime through `run`: its row and its exit code.
fn run_runtime(
    options: &MatrixOptions,
    base: &Path,
    entry: &RuntimeEntry,
    about: &HashMap<String, Vec<String>>,
    requirements: &[Requirement],
) -> RuntimeResult {
    let baseline = entry.baseline.as_ref().map(|b| base.join(b));
    let mut run_options = RunOptions {
        program: options.program.clone(),
        implementation: Some(adapter::Options {
            command: entry.adapter.clone(),
            timeout: options.timeout,
            start_timeout: Duration::from_secs(60),
            max_restarts: 10,
        }),
        // one bar would hide another: with several jobs, lines only
        progress: options.progress && options.jobs <= 1,
        jobs: options.jobs_per_runtime.max(1),
        // the matrix prints one line per runtime; the page has the rest
        quiet: true,
        ..RunOptions::default()
    };
    run_options.filter_suites = entry.suites.clone();
    run_options.exclude = options.exclude.clone();
    if options.generate > 0 {
        run_options.generate = options.generate;
        run_options.seed = options.seed;
        // a campaign across runtimes reports; shrinking a runtime's pending
        // turns would take its time budget on every row
        run_options.max_shrinks = 0;
    }
    if options.write_baselines {
        run_options.write_expected_failures = baseline.clone();
    } else {
        run_options.expected_failures = baseline.filter(|b| b.exists());
    }
    let t = Instant::now();
    let report = run(&run_options)?;
    console::err(&format!(
        "{}: {} ({:.1} s)\n",
        entry.id,
        summary_line(&report),
        t.elapsed().as_secs_f64()
    ));
    let cases = report
        .cases
        .iter()
        .map(|c| CaseResult {
            id: c.id.clone(),
            status: c.status.name().to_string(),
            about: about.get(&c.id).cloned().unwrap_or_default(),
            violations: c
                .violations
                .iter()
                .map(|v| super::Violated {
                    requirement: v.requirement.clone(),
                    message: v.message.clone(),
                })
                .collect(),
            measures: c.measures.clone(),
            message: c.message.clone(),
            expected: matches!(c.expectation, Some(crate::outcome::Expectation::Expected)),
            reproduce: c.reproduce.clone(),
        })
        .collect();
    let implementation = format!(
        "{} {}",
        report.implementation.name, report.implementation.version
    );
    let mut row = row(
        entry.clone(),
        implementation,
        report.duration_secs,
        requirements,
        cases,
    );
    row.exit_code = report.exit_code;
    Ok((row, report.exit_code))
}

fn summary_line(report: &RunReport) -> String {
    let s = &report.summary;
    format!(
        "{} cases: {} pass, {} fail, {} warn, {} n/a, {} skipped, {} expected failure(s)",
        s.total, s.pass, s.fail, s.warn, s.not_applicable, s.skip, s.expected_failures
    )
}

/// The current time in UTC, to the second (RFC 3339).
fn now_utc() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// Cores, and the Node and Python versions the runtimes ran on (each
/// runtime's virtual environment is made from the same `python3`).
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let version = |program: &str| {
        std::process::Command::new(program)
            .arg("--version")
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|v| v.trim().to_string())
    };
    let node = version("node").map_or_else(|| "node ?".to_string(), |v| format!("Node {v}"));
    let python = version("python3").unwrap_or_else(|| "python3 ?".to_string());
    format!(
        "{} {}, {cores} cores, {node}, {python}",
        std::env::consts::OS,
        std::env::consts::ARCH
    )
}
