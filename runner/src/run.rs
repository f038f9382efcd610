//! `toolgate run`: the plan of a run (the chosen cases and the generated
//! ones, or a shard of them), dealt to `--jobs` adapter processes, with
//! progress, expectations, shrinking, and the reports written at the end
//! whatever happened to the adapters. Which cases a run holds, their
//! order in its reports, and which failures it shrinks never depend on
//! how the cases were dealt.

use crate::adapter::{self, Adapter};
use crate::cases::{self, Filter, Origin, RunCase};
use crate::deal::Queue;
use crate::expectations::Expectations;
use crate::generate::{self, Generator};
use crate::outcome::{self, CaseOutcome, Shrunk, Status};
use crate::protocol::Hello;
use crate::report::{self, RunPlan, RunReport};
use crate::shard::Shard;
use crate::subject::{Attempt, Reference, Subject};
use crate::Error;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use proptest::strategy::ValueTree;
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
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
    /// Adapter processes run at once, each taking the next case when it is
    /// free (at least 1).
    pub jobs: usize,
    /// Only this shard's part of the run.
    pub shard: Option<Shard>,
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
            jobs: 1,
            shard: None,
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
    if options.shard.is_some() && options.generate > 0 && options.seed.is_none() {
        return Err(Error::usage(
            "--shard with --generate needs --seed: every shard must draw the same generated cases",
        ));
    }
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
    // the built-in reference runs every suite it is given
    let mut suites = toolgate_suites::all();
    suites.extend(chosen.iter().map(|c| c.suite));
    // every adapter process the run may use starts now, side by side: a
    // start is mostly its runtime loading, which the others need not wait
    // behind, and no job's start then falls inside the run's time
    let most = if seed.is_some() {
        usize::MAX
    } else {
        chosen.len()
    };
    let (first, others) = start_subjects(options, &suites, options.jobs.clamp(1, most.max(1)))?;
    let hello = first.hello().clone();
    let generated = generated_suites(options, &filter, &hello);
    let whole = plan(&chosen, &generated, options.generate, seed, &filter);
    let run_plan = run_plan(&whole, options)?;
    // a shard keeps its cases' places in the whole run, for the merge
    let (positions, planned): (Vec<usize>, Vec<Planned>) = whole
        .into_iter()
        .enumerate()
        .filter(|(_, p)| options.shard.is_none_or(|s| s.keeps(p.id())))
        .unzip();
    let bar = progress_bar(options, planned.len() as u64);
    let started = Instant::now();
    let dealt = deal(
        options,
        &planned,
        seed,
        (first, others),
        expectations.as_ref(),
        &bar,
    );
    let (mut outcomes, mut subjects, mut notes) = dealt?;
    if let Some(seed) = seed {
        let subject = subjects
            .iter_mut()
            .find(|s| !s.gave_up())
            .map(|s| s.as_mut() as &mut dyn Subject);
        shrink_failures(
            options,
            (&planned, seed),
            &mut outcomes,
            subject,
            expectations.as_ref(),
            &bar,
        );
    }
    let duration = started.elapsed();
    bar.finish_and_clear();
    if let Some(e) = &expectations {
        e.apply(&mut outcomes);
    }
    if options.shard.is_some() {
        for (outcome, position) in outcomes.iter_mut().zip(positions) {
            outcome.position = Some(position as u64);
        }
    }
    let mut restarts = 0;
    for (job, subject) in subjects.iter_mut().enumerate() {
        restarts += subject.restarts();
        let said = subject.finish();
        if !said.is_empty() {
            if !notes.is_empty() {
                notes.push('\n');
            }
            if options.jobs > 1 {
                let _ = writeln!(notes, "adapter process {}:", job + 1);
            }
            notes.push_str(&said);
        }
    }
    let mut report = RunReport::new(
        hello.implementation.clone(),
        options.implementation.as_ref().map(|a| a.command.clone()),
        seed,
        duration,
        restarts,
        outcomes,
        notes,
    );
    report.plan = run_plan;
    report.shard = options.shard;
    // writing a baseline is the run's purpose: its failures are what it
    // writes, not a failure of the run (a harness error still is)
    if options.write_expected_failures.is_some() && report.exit_code == 1 {
        report.exit_code = 0;
    }
    write_reports(options, &report)?;
    Ok(report)
}

/// What the whole run holds (all shards), for its reports.
fn run_plan(whole: &[Planned], options: &RunOptions) -> Result<RunPlan, Error> {
    let baseline = match &options.expected_failures {
        Some(path) => Some(std::fs::read(path).map_err(|e| Error::file(path, e))?),
        None => None,
    };
    Ok(RunPlan::new(
        whole.iter().map(Planned::id),
        options.strict,
        baseline.as_deref(),
    ))
}

/// The implementation of the run: the adapter process of `--impl`, or the
/// built-in reference of `suites`.
fn start_subject(
    options: &RunOptions,
    suites: &[&'static dyn SuiteDef],
) -> Result<Box<dyn Subject>, Error> {
    Ok(match &options.implementation {
        Some(adapter) => Box::new(Adapter::start(adapter.clone())?),
        None => Box::new(Reference::new(suites)),
    })
}

/// One case of a run, in the order its reports list them.
enum Planned<'a> {
    Loaded(&'a RunCase),
    Generated {
        suite: &'static dyn SuiteDef,
        index: u64,
        id: String,
    },
}

impl Planned<'_> {
    fn id(&self) -> &str {
        match self {
            Planned::Loaded(case) => &case.id,
            Planned::Generated { id, .. } => id,
        }
    }
}

/// Every case of the whole run (all shards): the chosen ones, then each
/// generated suite's, by index, those the filter keeps.
fn plan<'a>(
    chosen: &'a [RunCase],
    generated: &[&'static dyn SuiteDef],
    count: u64,
    seed: Option<u64>,
    filter: &Filter,
) -> Vec<Planned<'a>> {
    let mut planned: Vec<Planned> = chosen.iter().map(Planned::Loaded).collect();
    if let Some(seed) = seed {
        for &suite in generated {
            for index in 0..count {
                let id = generate::id(suite.id(), seed, index);
                if filter.keeps(suite.id(), &id) {
                    planned.push(Planned::Generated { suite, index, id });
                }
            }
        }
    }
    planned
}

/// A case dealt to a worker: the slot of its outcome, the case, and for a
/// generated one its scenario, drawn by the producer (the worker observes
/// the reference for its expectation, so that work is spread too).
struct Job<'a> {
    slot: usize,
    planned: &'a Planned<'a>,
    scenario: Option<serde_json::Value>,
}

/// What the workers hand back: the outcomes in plan order, the subjects
/// still held (for shrinking and their stderr), and notes about processes
/// that could not join.
type Dealt = (Vec<CaseOutcome>, Vec<Box<dyn Subject>>, String);

/// The subjects of a run: the first, whose handshake plans the run, and
/// the others, each of which may have failed to start.
type Started = (Box<dyn Subject>, Vec<Result<Box<dyn Subject>, Error>>);

/// Starts `count` subjects at once. The first's failure ends the run; the
/// others' are kept for their workers to report (a run goes on with the
/// processes it has).
fn start_subjects(
    options: &RunOptions,
    suites: &[&'static dyn SuiteDef],
    count: usize,
) -> Result<Started, Error> {
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..count)
            .map(|_| scope.spawn(|| start_subject(options, suites)))
            .collect();
        let first = start_subject(options, suites);
        let others = others
            .into_iter()
            .map(|o| {
                o.join()
                    .unwrap_or_else(|_| Err(Error::Adapter("its start panicked".into())))
            })
            .collect();
        Ok((first?, others))
    })
}

/// Runs the planned cases on `options.jobs` subjects at once (those
/// `started`, as many as there are cases), a producer generating the
/// scenarios in order ahead of them; prints each notable outcome as it
/// comes, except the generated failures that may be shrunk, which
/// [`shrink_failures`] prints.
fn deal(
    options: &RunOptions,
    planned: &[Planned],
    seed: Option<u64>,
    started: Started,
    expectations: Option<&Expectations>,
    bar: &ProgressBar,
) -> Result<Dealt, Error> {
    let (first, others) = started;
    let jobs = (1 + others.len()).clamp(1, planned.len().max(1));
    let queue: Queue<Job> = Queue::new(jobs, 2 * jobs);
    let hello = first.hello().clone();
    let mut subjects: Vec<Result<Box<dyn Subject>, Error>> = vec![Ok(first)];
    for other in others {
        if subjects.len() < jobs {
            subjects.push(other.and_then(|s| same_hello(s, &hello)));
        } else if let Ok(mut surplus) = other {
            // more processes than cases: stopped unused
            surplus.finish();
        }
    }
    let (sender, results) = mpsc::channel::<(usize, CaseOutcome)>();
    let mut slots: Vec<Option<CaseOutcome>> = planned.iter().map(|_| None).collect();
    let (produced, joined) = std::thread::scope(|scope| {
        let queue = &queue;
        let producer = scope.spawn(move || produce(planned, seed, queue));
        let workers: Vec<_> = subjects
            .into_iter()
            .map(|subject| {
                let sender = sender.clone();
                scope.spawn(move || {
                    let _leaves = Abandon(queue);
                    work(options, seed, subject, queue, &sender)
                })
            })
            .collect();
        drop(sender);
        let _collecting = crate::deal::Collecting(queue);
        for (slot, outcome) in results {
            let expected = expectations.is_some_and(|e| e.expects(&outcome));
            let later = shrinks_later(options, planned.get(slot), &outcome, expected);
            note(bar, options, &outcome, expected, later);
            if let Some(place) = slots.get_mut(slot) {
                *place = Some(outcome);
            }
        }
        let produced = producer
            .join()
            .unwrap_or_else(|_| Err(Error::usage("generating the cases panicked")));
        let joined: Vec<Result<Joined, String>> = workers
            .into_iter()
            .map(|w| w.join().map_err(|_| "the worker panicked".to_string()))
            .collect();
        (produced, joined)
    });
    produced?;
    let mut subjects = Vec::new();
    let mut notes = String::new();
    for (job, joined) in joined.into_iter().enumerate() {
        match joined {
            Ok(Joined::Subject(subject)) => subjects.push(subject),
            Ok(Joined::NotStarted(why)) | Err(why) => {
                let _ = writeln!(notes, "adapter process {}: {why}", job + 1);
            }
        }
    }
    // a slot is empty when the run was interrupted before its case was
    // dealt, or when every worker died
    let why = if interrupted() {
        NOT_RUN_INTERRUPTED.to_string()
    } else {
        format!(
            "not run: no adapter process was left to run it ({})",
            notes.trim_end()
        )
    };
    let outcomes = slots
        .into_iter()
        .zip(planned)
        .map(|(slot, p)| slot.unwrap_or_else(|| not_run(options, p, seed, &why)))
        .collect();
    Ok((outcomes, subjects, notes))
}

/// A subject must say the same as the first to run cases of the same run.
fn same_hello(subject: Box<dyn Subject>, hello: &Hello) -> Result<Box<dyn Subject>, Error> {
    if subject.hello() == hello {
        Ok(subject)
    } else {
        Err(Error::Adapter(
            "announced itself differently from the first adapter process".into(),
        ))
    }
}

/// How a worker ended.
enum Joined {
    Subject(Box<dyn Subject>),
    /// Its adapter process did not start (or announced itself
    /// differently): why.
    NotStarted(String),
}

/// Leaves the queue when its worker panics (one that returns has taken its
/// leave, or found the queue empty), so that the producer never waits for
/// a worker that is gone.
struct Abandon<'q, 'a>(&'q Queue<Job<'a>>);

impl Drop for Abandon<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abandon();
        }
    }
}

/// A worker: takes jobs until there are none; one whose adapter the run
/// gave up on gives its job back to the others.
fn work(
    options: &RunOptions,
    seed: Option<u64>,
    subject: Result<Box<dyn Subject>, Error>,
    queue: &Queue<Job>,
    results: &mpsc::Sender<(usize, CaseOutcome)>,
) -> Joined {
    let mut subject = match subject {
        Ok(subject) => subject,
        Err(e) => {
            let why = format!("did not start: {e}");
            if !queue.leave() {
                // the last worker cannot leave its jobs to anybody
                while let Some(job) = queue.take() {
                    let why = format!("not run: the adapter {why}");
                    let outcome = not_run(options, job.planned, seed, &why);
                    let _ = results.send((job.slot, outcome));
                }
            }
            return Joined::NotStarted(why);
        }
    };
    while let Some(job) = queue.take() {
        let outcome = run_job(options, seed, subject.as_mut(), &job);
        if outcome.not_run && subject.gave_up() && !interrupted() {
            match queue.give_back(job) {
                Ok(()) => break,
                Err(job) => {
                    let _ = results.send((job.slot, outcome));
                    continue;
                }
            }
        }
        if results.send((job.slot, outcome)).is_err() {
            // nobody collects any more: let the others end too
            queue.abandon_all();
            break;
        }
    }
    Joined::Subject(subject)
}

fn run_job(
    options: &RunOptions,
    seed: Option<u64>,
    subject: &mut dyn Subject,
    job: &Job,
) -> CaseOutcome {
    if interrupted() {
        return not_run(options, job.planned, seed, NOT_RUN_INTERRUPTED);
    }
    match (job.planned, &job.scenario, seed) {
        (Planned::Loaded(case), _, _) => {
            run_one(subject, case, reproduce(options, case), options.strict)
        }
        (Planned::Generated { suite, index, .. }, Some(scenario), Some(seed)) => {
            run_generated(options, subject, (*suite, seed, *index), scenario)
        }
        (Planned::Generated { suite, index, .. }, _, seed) => generator_error(
            *suite,
            seed.unwrap_or_default(),
            *index,
            "a generated case was dealt without its scenario or seed".into(),
            options,
        ),
    }
}

/// Runs a generated case, the reference observing its scenario for the
/// expectation while the implementation runs it: the two overlap, so a
/// hostile case the reference is slow on costs its time once, not twice.
fn run_generated(
    options: &RunOptions,
    subject: &mut dyn Subject,
    (suite, seed, index): (&'static dyn SuiteDef, u64, u64),
    scenario: &serde_json::Value,
) -> CaseOutcome {
    let mut case = generate::unobserved(suite, seed, index, scenario);
    let reproduce = reproduce(options, &case);
    let mut expected = None;
    let first = first_attempt(subject, &case, &mut || {
        expected = Some(generate::expect(case.suite, &case.scenario));
    });
    let attempt = match first {
        Ok(attempt) => attempt,
        Err(reason) => return outcome::skipped(&case, reason, reproduce),
    };
    match expected.unwrap_or_else(|| generate::expect(case.suite, &case.scenario)) {
        Ok(expect) => case.expect = expect,
        Err(message) => return generator_error(suite, seed, index, message, options),
    }
    judge_attempt(subject, &case, attempt, reproduce, options.strict)
}

fn not_run(options: &RunOptions, planned: &Planned, seed: Option<u64>, why: &str) -> CaseOutcome {
    match planned {
        Planned::Loaded(case) => not_run_case(case, reproduce(options, case), why),
        Planned::Generated { suite, index, .. } => {
            generated_not_run(*suite, seed.unwrap_or_default(), *index, why, options)
        }
    }
}

fn generated_not_run(
    suite: &'static dyn SuiteDef,
    seed: u64,
    index: u64,
    why: &str,
    options: &RunOptions,
) -> CaseOutcome {
    let mut outcome = generator_error(suite, seed, index, why.to_string(), options);
    outcome.not_run = true;
    outcome
}

/// Generates the planned scenarios in order into the queue (a generated
/// suite's stream is one sequence: case `i` is drawn after cases `0..i`,
/// those of other shards included), and closes it.
fn produce<'a>(
    planned: &'a [Planned<'a>],
    seed: Option<u64>,
    queue: &Queue<Job<'a>>,
) -> Result<(), Error> {
    let mut generator: Option<Generator> = None;
    let mut deal_all = || {
        for (slot, p) in planned.iter().enumerate() {
            if interrupted() {
                break;
            }
            let scenario = match p {
                Planned::Loaded(_) => None,
                Planned::Generated { suite, index, .. } => {
                    let seed =
                        seed.ok_or_else(|| Error::usage("a generated case without a seed"))?;
                    Some(tree_at(&mut generator, *suite, seed, *index)?.current())
                }
            };
            let job = Job {
                slot,
                planned: p,
                scenario,
            };
            if !queue.put(job) {
                break;
            }
        }
        Ok(())
    };
    let dealt = deal_all();
    queue.close();
    dealt
}

/// The value tree of generated case `index` of `suite`, from `generator`
/// when it can still reach it (one stream walked forward), else from a new
/// one.
fn tree_at(
    generator: &mut Option<Generator>,
    suite: &'static dyn SuiteDef,
    seed: u64,
    index: u64,
) -> Result<generate::Tree, Error> {
    let reusable = generator
        .as_ref()
        .is_some_and(|g| g.suite().id() == suite.id() && g.seed() == seed && g.next() <= index);
    if !reusable {
        *generator = Generator::new(suite, seed);
    }
    generator
        .as_mut()
        .ok_or_else(|| Error::usage(format!("the {} suite has no generator", suite.id())))?
        .tree(index)
}

/// Whether a generated failure may be shrunk, and so is printed after
/// shrinking rather than when met.
fn shrinks_later(
    options: &RunOptions,
    planned: Option<&Planned>,
    outcome: &CaseOutcome,
    expected: bool,
) -> bool {
    matches!(planned, Some(Planned::Generated { .. }))
        && generate::shrinkable(outcome)
        && options.shrink_steps > 0
        && !expected
}

/// Shrinks the generated failures worth it, in the run's order: the first
/// of each distinct set of violated requirements, at most `--max-shrinks`
/// in all and within `--shrink-time` (a run with a common divergence spends
/// its time running cases, not minimizing the same bug again). Done after
/// every case ran, so that which failures are shrunk does not depend on
/// how the cases were dealt.
fn shrink_failures(
    options: &RunOptions,
    (planned, seed): (&[Planned], u64),
    outcomes: &mut [CaseOutcome],
    mut subject: Option<&mut dyn Subject>,
    expectations: Option<&Expectations>,
    bar: &ProgressBar,
) {
    let mut shrinks = Shrinks {
        sets: BTreeMap::new(),
        done: 0,
        spent: Duration::ZERO,
    };
    let mut generator: Option<Generator> = None;
    for (p, outcome) in planned.iter().zip(outcomes.iter_mut()) {
        let Planned::Generated { suite, index, id } = p else {
            continue;
        };
        let expected = expectations.is_some_and(|e| e.expects(outcome));
        if !shrinks_later(options, Some(p), outcome, expected) {
            continue;
        }
        let skip_reason = if let Some(first) = shrinks.sets.get(&outcome.requirements) {
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
        } else if interrupted() {
            Some("not shrunk: the run was interrupted".to_string())
        } else {
            None
        };
        let subject = match (skip_reason, subject.as_deref_mut()) {
            (Some(reason), _) => Err(reason),
            (None, None) => Err("not shrunk: the run gave up on every adapter process".into()),
            (None, Some(subject)) => Ok(subject),
        };
        let ready = subject.and_then(|subject| {
            let tree = tree_at(&mut generator, *suite, seed, *index)
                .map_err(|e| format!("not shrunk: generating it again failed: {e}"))?;
            let case = generate::case(*suite, seed, *index, &tree.current())
                .map_err(|e| format!("not shrunk: generating it again failed: {e}"))?;
            Ok((subject, case, tree))
        });
        match ready {
            Err(reason) => {
                outcome.message.get_or_insert(reason);
            }
            Ok((subject, case, mut tree)) => {
                shrinks.done += 1;
                shrinks
                    .sets
                    .insert(outcome.requirements.clone(), id.clone());
                bar.set_message(format!("shrinking {id}"));
                let started = Instant::now();
                let deadline = started + options.shrink_time.saturating_sub(shrinks.spent);
                let (minimal, mut shrunk, steps) = generate::shrink(
                    &mut tree,
                    (*suite, seed, *index),
                    (case, outcome.clone()),
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
                        shrunk.reproduce = reproduce(options, &replay);
                        Some(path.display().to_string())
                    }
                    Err(e) => {
                        shrunk.reproduce = reproduce(options, &minimal);
                        shrunk.message = Some(format!("saving the shrunk case failed: {e}"));
                        None
                    }
                };
                shrunk.shrunk = Some(Shrunk { steps, saved });
                *outcome = shrunk;
            }
        }
        print(bar, options, outcome);
    }
}

/// Runs `case` and judges it.
fn run_one(
    subject: &mut dyn Subject,
    case: &RunCase,
    reproduce: String,
    strict: bool,
) -> CaseOutcome {
    match first_attempt(subject, case, &mut || {}) {
        Ok(attempt) => judge_attempt(subject, case, attempt, reproduce, strict),
        Err(reason) => outcome::skipped(case, reason, reproduce),
    }
}

/// The case's first run, calling `meanwhile` while the implementation
/// works on it; why it is skipped when the implementation does not support
/// it (then `meanwhile` is not called).
fn first_attempt(
    subject: &mut dyn Subject,
    case: &RunCase,
    meanwhile: &mut dyn FnMut(),
) -> Result<Attempt, String> {
    match outcome::unsupported(subject.hello(), case) {
        Some(reason) => Err(reason),
        None => Ok(subject.run_overlapped(case, meanwhile)),
    }
}

/// The verdict on `attempt`; one that rests on time is tried again with
/// more patience, and a failure once more with the most patience when the
/// adapter's processes were still working as it called the turn pending.
fn judge_attempt(
    subject: &mut dyn Subject,
    case: &RunCase,
    attempt: Attempt,
    reproduce: String,
    strict: bool,
) -> CaseOutcome {
    let first = outcome::judge(case, attempt, reproduce.clone(), strict);
    // a timeout is a verdict on time too: the adapter had --timeout to
    // answer, and a busy machine may be why it did not
    let on_time = |o: &CaseOutcome| {
        o.status == Status::Timeout || (o.timing && matches!(o.status, Status::Fail | Status::Warn))
    };
    if !on_time(&first) {
        return first;
    }
    // the verdict rests on time: slow is told from stuck by a second run
    // with a longer window, whose verdict is kept
    let mut patience = PATIENCE;
    let mut second = loop {
        let attempt = subject.run_patiently(case, patience);
        let busy = attempt.busy_at_end;
        let second = outcome::judge(case, attempt, reproduce.clone(), strict);
        if second.not_run {
            // the run gave up on the adapter before this attempt: the
            // first is all there is
            return first;
        }
        // a verdict on a turn called pending while it was still working:
        // the machine's load may be why it had not ended, so it gets the
        // most patience. A warning too: a turn held by huge arguments
        // (a SHOULD) may end by running the tool on arguments it refuses
        // (a MUST), as langgraph-python's did beside two spinning loops.
        // A turn still working after that many windows is slow beyond
        // what load explains, and its verdict is kept
        let working = busy.is_some_and(|b| b >= crate::busy::IDLE_BELOW);
        let judged = matches!(second.status, Status::Fail | Status::Warn);
        if working && second.window && judged && patience < MAX_PATIENCE {
            patience = MAX_PATIENCE;
            continue;
        }
        break second;
    };
    let mut said: Vec<&str> = first
        .violations
        .iter()
        .map(|v| v.message.as_str())
        .collect();
    said.extend(first.message.as_deref());
    second.reran = Some(format!(
        "ran again with {patience} times the adapter's window and timeout: the first run's verdict ({}: {}) rested on time",
        first.status.name(),
        said.join("; ")
    ));
    second
}

/// How many times its window a case whose verdict rested on time is given
/// the second time.
pub const PATIENCE: u32 = 4;

/// The patience of a third run, for a failure on a turn still working when
/// the second run's window closed (a window of 32 s for the Node adapter's
/// 2 s).
pub const MAX_PATIENCE: u32 = PATIENCE * PATIENCE;

fn not_run_case(case: &RunCase, reproduce: String, why: &str) -> CaseOutcome {
    let attempt = crate::subject::Attempt {
        ran: crate::subject::Ran::NotRun(why.into()),
        stderr: String::new(),
        duration: Duration::ZERO,
        busy_at_end: None,
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

/// The outcome of generated case `index` that could not be made (or run).
fn generator_error(
    suite: &'static dyn SuiteDef,
    seed: u64,
    index: u64,
    message: String,
    options: &RunOptions,
) -> CaseOutcome {
    let case = RunCase {
        id: generate::id(suite.id(), seed, index),
        suite,
        description: String::new(),
        requirements: Vec::new(),
        scenario: serde_json::Value::Null,
        expect: serde_json::Value::Null,
        origin: Origin::Generated { seed, index },
    };
    let attempt = crate::subject::Attempt {
        ran: crate::subject::Ran::Error(message),
        stderr: String::new(),
        duration: Duration::ZERO,
        busy_at_end: None,
    };
    outcome::judge(&case, attempt, reproduce(options, &case), false)
}

fn write_reports(options: &RunOptions, report: &RunReport) -> Result<(), Error> {
    report.write_formats(
        options.json.as_deref(),
        options.junit.as_deref(),
        options.markdown.as_deref(),
    )?;
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

/// Counts a case in the progress bar and prints it if it went wrong (an
/// expected failure only with `--verbose`); `later` holds the printing back
/// (a generated failure is printed once shrinking is done with it).
fn note(
    bar: &ProgressBar,
    options: &RunOptions,
    outcome: &CaseOutcome,
    expected: bool,
    later: bool,
) {
    bar.inc(1);
    if !later && (!expected || options.verbose) {
        print(bar, options, outcome);
    }
}

/// Prints a case that went wrong.
fn print(bar: &ProgressBar, options: &RunOptions, outcome: &CaseOutcome) {
    if options.quiet || !report::notable(outcome) {
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
    bar.suspend(|| crate::console::err(&text));
}
