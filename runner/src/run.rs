//! `toolgate run`: the loop over the chosen cases and the generated ones,
//! with progress, expectations, shrinking, and the reports written at the
//! end whatever happened to the adapter.

use crate::adapter::{self, Adapter};
use crate::cases::{self, Filter, Origin, RunCase};
use crate::expectations::Expectations;
use crate::generate::{self, Generator};
use crate::outcome::{self, CaseOutcome, Shrunk, Status};
use crate::report::{self, RunReport};
use crate::subject::{Reference, Subject};
use crate::Error;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use proptest::strategy::ValueTree;
use std::collections::{BTreeMap, HashSet};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use toolgate_suite::SuiteDef;

/// Set by the command's signal handler (SIGINT, SIGTERM): the run stops at
/// the next case (or the next poll of a waiting adapter), reports the rest
/// as not run, and still writes every report.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether the run was asked to stop.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

const NOT_RUN_INTERRUPTED: &str = "not run: the run was interrupted";

/// Everything `toolgate run` was asked to do.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The program name to put in reproduction commands.
    pub program: String,
    pub implementation: Option<adapter::Options>,
    /// Suite ids to keep (empty: all).
    pub filter_suites: Vec<String>,
    pub cases: Vec<String>,
    pub exclude: Vec<String>,
    pub case_files: Vec<PathBuf>,
    pub corpus: Option<PathBuf>,
    pub no_corpus: bool,
    pub generate: u64,
    pub seed: Option<u64>,
    pub shrink_steps: u32,
    /// The time shrinking may take in all, over the run's failures.
    pub shrink_time: Duration,
    /// Generated failures shrunk at most, over the whole run.
    pub max_shrinks: u32,
    pub save_dir: PathBuf,
    pub expected_failures: Option<PathBuf>,
    pub write_expected_failures: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub markdown: Option<PathBuf>,
    pub progress: bool,
    pub quiet: bool,
    /// A case breaking only SHOULD requirements fails instead of warning.
    pub strict: bool,
    /// Print each expected failure in full as it is met (by default it is
    /// counted in its finding's one line at the end).
    pub verbose: bool,
}

impl Default for RunOptions {
    /// The command line's defaults: the embedded corpus on the built-in
    /// reference, no generated cases, no reports, a progress bar.
    fn default() -> Self {
        RunOptions {
            program: "toolgate".into(),
            implementation: None,
            filter_suites: Vec::new(),
            cases: Vec::new(),
            exclude: Vec::new(),
            case_files: Vec::new(),
            corpus: None,
            no_corpus: false,
            generate: 0,
            seed: None,
            shrink_steps: 256,
            shrink_time: Duration::from_secs(120),
            max_shrinks: 10,
            save_dir: PathBuf::from("toolgate-failures"),
            expected_failures: None,
            write_expected_failures: None,
            json: None,
            junit: None,
            markdown: None,
            progress: true,
            quiet: false,
            strict: false,
            verbose: false,
        }
    }
}

/// Runs, writes the reports, and returns the report (its `exit_code` is the
/// process's).
pub fn run(options: &RunOptions) -> Result<RunReport, Error> {
    let mut all = Vec::new();
    if options.case_files.is_empty() {
        if !options.no_corpus {
            all = cases::corpus(options.corpus.as_deref())?;
        }
    } else {
        for path in &options.case_files {
            all.extend(cases::case_file(path)?);
        }
    }
    run_cases(options, all)
}

/// [`run`] over cases already loaded (`all`, of any suite, filtered here
/// like the corpus is); the generated ones are added as `options` says.
pub fn run_cases(options: &RunOptions, all: Vec<RunCase>) -> Result<RunReport, Error> {
    let filter = Filter::new(&options.filter_suites, &options.cases, &options.exclude)?;
    let expectations = match &options.expected_failures {
        Some(path) => {
            let e = Expectations::load(path)?;
            // a baseline is checked against every case it could name, so
            // one file serves runs of the corpus, of generated cases only
            // (--no-corpus) and of replayed case files alike
            let corpus = if options.no_corpus || !options.case_files.is_empty() {
                cases::corpus(options.corpus.as_deref())?
            } else {
                Vec::new()
            };
            let known: HashSet<&str> = all.iter().chain(&corpus).map(|c| c.id.as_str()).collect();
            e.check_ids(&known)?;
            Some(e)
        }
        None => None,
    };
    let chosen: Vec<RunCase> = all
        .into_iter()
        .filter(|c| filter.keeps(c.suite.id(), &c.id))
        .collect();
    let seed = (options.generate > 0).then(|| options.seed.unwrap_or_else(random_seed));
    let mut subject: Box<dyn Subject> = match &options.implementation {
        Some(adapter) => Box::new(Adapter::start(adapter.clone())?),
        // the built-in reference runs every suite it is given
        None => {
            let mut suites = toolgate_suites::all();
            suites.extend(chosen.iter().map(|c| c.suite));
            Box::new(Reference::new(&suites))
        }
    };
    let generated = generated_suites(options, &filter, subject.hello());
    let total = chosen.len() as u64 + options.generate * generated.len() as u64;
    let bar = progress_bar(options, total);
    let started = Instant::now();
    let mut outcomes = Vec::with_capacity(total as usize);
    let reproduce = |case: &RunCase| reproduce(options, case);

    for case in &chosen {
        if interrupted() {
            outcomes.push(not_run(case, reproduce(case)));
            continue;
        }
        let outcome = run_one(subject.as_mut(), case, reproduce(case), options.strict);
        let expected = expectations.as_ref().is_some_and(|e| e.expects(&outcome));
        note(&bar, options, &outcome, expected);
        outcomes.push(outcome);
    }
    if let Some(seed) = seed {
        // one shrink per distinct set of violated requirements, and at most
        // --max-shrinks in all: a run with a common divergence spends its
        // time running cases, not minimizing the same bug again
        let mut shrinks = Shrinks {
            sets: BTreeMap::new(),
            done: 0,
            spent: Duration::ZERO,
        };
        for suite in &generated {
            let Some(mut generator) = Generator::new(*suite, seed) else {
                continue;
            };
            for _ in 0..options.generate {
                generate_one(
                    &mut generator,
                    subject.as_mut(),
                    options,
                    (&filter, expectations.as_ref()),
                    &mut shrinks,
                    &bar,
                    &mut outcomes,
                )?;
            }
        }
    }
    let duration = started.elapsed();
    bar.finish_and_clear();
    if let Some(e) = &expectations {
        e.apply(&mut outcomes);
    }
    let adapter_stderr = subject.finish();
    let restarts = subject.restarts();
    let mut report = RunReport::new(
        subject.hello().implementation.clone(),
        subject.command().map(str::to_string),
        seed,
        duration,
        restarts,
        outcomes,
        adapter_stderr,
    );
    // writing a baseline is the run's purpose: its failures are what it
    // writes, not a failure of the run (a harness error still is)
    if options.write_expected_failures.is_some() && report.exit_code == 1 {
        report.exit_code = 0;
    }
    write_reports(options, &report)?;
    Ok(report)
}

fn run_one(
    subject: &mut dyn Subject,
    case: &RunCase,
    reproduce: String,
    strict: bool,
) -> CaseOutcome {
    if let Some(reason) = outcome::unsupported(subject.hello(), case) {
        return outcome::skipped(case, reason, reproduce);
    }
    let attempt = subject.run(case);
    let first = outcome::judge(case, attempt, reproduce.clone(), strict);
    // a timeout is a verdict on time too: the adapter had --timeout to
    // answer, and a busy machine may be why it did not
    let on_time = first.status == Status::Timeout
        || (first.timing && matches!(first.status, Status::Fail | Status::Warn));
    if !on_time {
        return first;
    }
    // the verdict rests on time: slow is told from stuck by a second run
    // with a longer window, whose verdict is kept
    let attempt = subject.run_patiently(case, PATIENCE);
    let mut second = outcome::judge(case, attempt, reproduce, strict);
    if second.not_run {
        // the run gave up on the adapter before the second attempt: the
        // first is all there is
        return first;
    }
    let mut said: Vec<&str> = first
        .violations
        .iter()
        .map(|v| v.message.as_str())
        .collect();
    said.extend(first.message.as_deref());
    second.reran = Some(format!(
        "ran again with {PATIENCE} times the adapter's window and timeout: the first run's verdict ({}: {}) rested on time",
        first.status.name(),
        said.join("; ")
    ));
    second
}

/// How many times its window a case whose verdict rested on time is given
/// the second time.
pub const PATIENCE: u32 = 4;

fn not_run(case: &RunCase, reproduce: String) -> CaseOutcome {
    let attempt = crate::subject::Attempt {
        ran: crate::subject::Ran::NotRun(NOT_RUN_INTERRUPTED.into()),
        stderr: String::new(),
        duration: Duration::ZERO,
    };
    outcome::judge(case, attempt, reproduce, false)
}

/// What shrinking has done so far in a run.
struct Shrinks {
    /// Each set of violated requirements shrunk, with the case shrunk.
    sets: BTreeMap<Vec<String>, String>,
    done: u32,
    /// The time shrinking took so far.
    spent: Duration,
}

/// The suites `--generate` draws cases of: those chosen (`--suite`, or
/// all), that the implementation runs and that have a generator.
fn generated_suites(
    options: &RunOptions,
    filter: &Filter,
    hello: &crate::protocol::Hello,
) -> Vec<&'static dyn SuiteDef> {
    if options.generate == 0 {
        return Vec::new();
    }
    toolgate_suites::all()
        .into_iter()
        .filter(|s| filter.keeps_suite(s.id()) && hello.suites.iter().any(|h| h == s.id()))
        .filter(|s| toolgate_proptests::suites::scenarios(s.id()).is_some())
        .collect()
}

/// Draws, runs, judges (and, when worth it, shrinks) one generated case.
fn generate_one(
    generator: &mut Generator,
    subject: &mut dyn Subject,
    options: &RunOptions,
    (filter, expectations): (&Filter, Option<&Expectations>),
    shrinks: &mut Shrinks,
    bar: &ProgressBar,
    outcomes: &mut Vec<CaseOutcome>,
) -> Result<(), Error> {
    let reproduce = |case: &RunCase| reproduce(options, case);
    let (index, mut tree) = generator.next_tree()?;
    let id = generator.id(index);
    if interrupted() {
        let message = NOT_RUN_INTERRUPTED.to_string();
        let mut outcome = generator_error(generator, index, message, options);
        outcome.not_run = true;
        outcomes.push(outcome);
        return Ok(());
    }
    if !filter.keeps(generator.suite().id(), &id) {
        bar.inc(1);
        return Ok(());
    }
    let case = match generator.case(index, &tree.current()) {
        Ok(case) => case,
        Err(message) => {
            bar.inc(1);
            outcomes.push(generator_error(generator, index, message, options));
            return Ok(());
        }
    };
    let mut outcome = run_one(subject, &case, reproduce(&case), options.strict);
    let worth = generate::shrinkable(&outcome)
        && options.shrink_steps > 0
        && !expectations.is_some_and(|e| e.expects(&outcome));
    let skip_reason = if !worth {
        None
    } else if let Some(first) = shrinks.sets.get(&outcome.requirements) {
        Some(format!(
            "not shrunk: {first} fails on the same requirements and was shrunk"
        ))
    } else if shrinks.done >= options.max_shrinks {
        Some(format!(
            "not shrunk: --max-shrinks {} reached",
            options.max_shrinks
        ))
    } else if shrinks.spent >= options.shrink_time {
        Some(format!(
            "not shrunk: --shrink-time {} s spent",
            options.shrink_time.as_secs_f64()
        ))
    } else {
        None
    };
    if let Some(reason) = skip_reason {
        outcome.message.get_or_insert(reason);
    } else if worth {
        shrinks.done += 1;
        shrinks
            .sets
            .insert(outcome.requirements.clone(), id.clone());
        bar.set_message(format!("shrinking {id}"));
        let started = Instant::now();
        let deadline = started + options.shrink_time.saturating_sub(shrinks.spent);
        let (minimal, mut shrunk, steps) = generate::shrink(
            &mut tree,
            generator,
            index,
            (case, outcome),
            (options.shrink_steps, deadline),
            |candidate| run_one(subject, candidate, String::new(), options.strict),
        );
        shrinks.spent += started.elapsed();
        bar.set_message("");
        let saved = match generate::save(&options.save_dir, &minimal, &shrunk) {
            Ok(path) => {
                let replay = RunCase {
                    origin: Origin::CaseFile(path.clone()),
                    ..minimal.clone()
                };
                shrunk.reproduce = reproduce(&replay);
                Some(path.display().to_string())
            }
            Err(e) => {
                shrunk.reproduce = reproduce(&minimal);
                shrunk.message = Some(format!("saving the shrunk case failed: {e}"));
                None
            }
        };
        shrunk.shrunk = Some(Shrunk { steps, saved });
        outcome = shrunk;
    }
    let expected = expectations.is_some_and(|e| e.expects(&outcome));
    note(bar, options, &outcome, expected);
    outcomes.push(outcome);
    Ok(())
}

fn generator_error(
    generator: &Generator,
    index: u64,
    message: String,
    options: &RunOptions,
) -> CaseOutcome {
    let case = RunCase {
        id: generator.id(index),
        suite: generator.suite(),
        description: String::new(),
        requirements: Vec::new(),
        scenario: serde_json::Value::Null,
        expect: serde_json::Value::Null,
        origin: Origin::Generated {
            seed: generator.seed(),
            index,
        },
    };
    let attempt = crate::subject::Attempt {
        ran: crate::subject::Ran::Error(message),
        stderr: String::new(),
        duration: Duration::ZERO,
    };
    outcome::judge(&case, attempt, reproduce(options, &case), false)
}

fn write_reports(options: &RunOptions, report: &RunReport) -> Result<(), Error> {
    if let Some(path) = &options.json {
        report.write(path, &report.json())?;
    }
    if let Some(path) = &options.junit {
        report.write(path, &report.junit()?)?;
    }
    if let Some(path) = &options.markdown {
        report.write(path, &report.markdown())?;
    }
    if let Some(path) = &options.write_expected_failures {
        // an existing baseline is brought up to date, its comments kept
        let previous = if path.exists() {
            Expectations::load(path)?
        } else {
            Expectations::default()
        };
        report.write(path, &previous.rewrite(&report.cases))?;
    }
    Ok(())
}

/// The command that runs `case` again against the same implementation.
pub fn reproduce(options: &RunOptions, case: &RunCase) -> String {
    let mut words = vec![options.program.clone(), "run".to_string()];
    if let Some(a) = &options.implementation {
        words.push("--impl".into());
        words.push(a.command.clone());
    }
    if options.strict {
        words.push("--strict".into());
    }
    match &case.origin {
        Origin::Corpus => {
            if let Some(dir) = &options.corpus {
                words.push("--corpus".into());
                words.push(dir.display().to_string());
            }
            words.push("--case".into());
            words.push(case.id.clone());
        }
        Origin::CaseFile(path) => {
            words.push("--case-file".into());
            words.push(path.display().to_string());
            words.push("--case".into());
            words.push(case.id.clone());
        }
        Origin::Generated { seed, index } => {
            words.extend([
                "--no-corpus".into(),
                "--suite".into(),
                case.suite.id().to_string(),
                "--generate".into(),
                (index + 1).to_string(),
                "--seed".into(),
                seed.to_string(),
                "--case".into(),
                case.id.clone(),
            ]);
        }
    }
    shell_words::join(words)
}

/// A seed for a run that was given none.
pub(crate) fn random_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    // seeds stay below 2^53 so that JSON readers keep them exact
    h.finish() >> 11
}

fn progress_bar(options: &RunOptions, total: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if !options.progress || options.quiet || !std::io::stderr().is_terminal() || total < 200 {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} cases {per_sec} {eta} {msg}")
            .expect("a valid template"),
    );
    bar
}

/// Prints a case that went wrong as soon as it is known (an expected one
/// only with `--verbose`).
fn note(bar: &ProgressBar, options: &RunOptions, outcome: &CaseOutcome, expected: bool) {
    bar.inc(1);
    if options.quiet || !report::notable(outcome) || (expected && !options.verbose) {
        return;
    }
    let mut text = format!("\n{} {}", outcome.status.name().to_uppercase(), outcome.id);
    if !outcome.requirements.is_empty() {
        text.push_str(&format!(" [{}]", outcome.requirements.join(" ")));
    }
    text.push('\n');
    for line in report::details(outcome).lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    bar.suspend(|| eprint!("{text}"));
}
