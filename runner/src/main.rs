//! The `toolgate` command: `run`, `matrix`, `bench`, `list`, `explain`.

use clap::builder::PossibleValuesParser;
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use toolgate_runner::run::{run, RunOptions};
use toolgate_runner::{adapter, bench, cases, console, explain, Error};
use toolgate_suite::SuiteDef;

// `toolgate bench` reads the reference's peak memory from this allocator;
// it counts only while a measurement asks it to, on that thread, and
// forwards every call to mimalloc (see Cargo.toml)
#[global_allocator]
static ALLOCATOR: toolgate_benches::heap_count::Counting<mimalloc::MiMalloc> =
    toolgate_benches::heap_count::Counting(mimalloc::MiMalloc);

/// Conformance gate for the tool-call boundary of LLM agent runtimes.
#[derive(Parser)]
#[command(name = "toolgate", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the corpus (and generated cases) against an implementation.
    ///
    /// Exit code 0: every case passed (or failed as expected); 1: contract
    /// failures, timeouts, crashes or stale expectations; 2: a harness error
    /// (bad arguments, an adapter breaking the protocol).
    Run(Box<RunArgs>),
    /// List the suites, the requirements or the cases.
    List {
        #[arg(value_enum, default_value = "cases")]
        what: ListWhat,
        /// Only this suite (repeatable; default: all).
        #[arg(long, value_parser = suite_ids())]
        suite: Vec<String>,
        /// Read the corpus from this directory instead of the embedded one.
        #[arg(long)]
        corpus: Option<PathBuf>,
    },
    /// Run a suite on a list of runtimes (matrix/runtimes.json) and write
    /// the compliance matrix: matrix.md, matrix.json (what `toolgate site`
    /// builds the pages from) and one SVG badge per runtime.
    ///
    /// Exit code: the worst of the runtimes' runs (1 when a runtime fails
    /// a case its baseline does not expect, or passes one it does).
    Matrix(MatrixArgs),
    /// Time the hostile families (runner/BENCH.md) on the reference and on
    /// each --impl adapter that announces `bench`, at growing sizes, and
    /// write the verdicts (bounded or growing), report.json, report.md and
    /// one SVG plot per family.
    ///
    /// Exit code 0 when every implementation was measured as far as it went
    /// (a growing family, or one stopped by a cap, a timeout or a crash, is a
    /// finding, not a failure); 1 when an implementation gave out or a core
    /// implementation's result differs from the reference's; 2 on a harness
    /// error.
    Bench(BenchArgs),
    /// Build the compliance site, a static folder, from the matrix of each
    /// suite: a landing page, a grid per suite, a page per runtime, and a
    /// versions view per package seen at several versions.
    ///
    /// Exit code 0 when it was written; 2 when a matrix cannot be read or
    /// two are of one suite (a runtime's README that cannot be read is said
    /// on its page).
    Site {
        /// Each suite's matrix.json, or the folder `toolgate matrix --out`
        /// (or `report merge --out`) wrote it into.
        #[arg(required = true, value_name = "MATRIX")]
        matrices: Vec<PathBuf>,
        /// Where the site goes.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// The folder the runtimes' README paths are relative to (the
        /// repository root, where the adapters run from).
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
    },
    /// Write the files a team needs to gate its runtime, into its
    /// repository: a shim (for the core suite, the implementation entry)
    /// with the places to fill marked `TOOLGATE:`, an empty
    /// expected-failures baseline, and a GitHub Actions workflow that runs
    /// the gate. Never overwrites a file.
    Init {
        /// The runtime's language.
        #[arg(long, value_enum)]
        lang: toolgate_runner::init::Lang,
        /// The suite to gate it on.
        #[arg(long, default_value = "boundary", value_parser = ["boundary", "core"])]
        suite: String,
        /// The repository to write into.
        #[arg(long, value_name = "DIR", default_value = ".")]
        dir: PathBuf,
    },
    /// Work on reports already written: `merge` joins the JSON reports of
    /// a run's shards (`run --shard I/N`) into the whole run's report.
    #[command(subcommand)]
    Report(ReportCommand),
    /// Say what a case does and what the reference observes.
    Explain {
        /// A case id, e.g. `calls/unknown-tool` (see `toolgate list`), or a
        /// generated case's, e.g. `generated/42-7` (drawn again from its seed).
        case: String,
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// Read the case from a case file (e.g. a saved generated case).
        #[arg(long)]
        case_file: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum ReportCommand {
    /// Join the JSON reports of every shard of one run (`toolgate run
    /// --shard I/N --json ...`, any order) into the report the whole run
    /// would have written, and its JUnit and Markdown; or the
    /// `matrix.json` of matrices made one runtime each (`toolgate matrix
    /// --runtime ID`) into the whole matrix, written into --out. Refuses
    /// reports of different runs, toolgate versions or implementations, a
    /// part given twice and a part missing.
    ///
    /// Exit code: the merged run's (0 passed, 1 failures, 2 harness errors
    /// or a refused merge); for matrices the worst of the runtimes' runs.
    Merge {
        /// The shards' JSON reports, or the parts' matrix.json files.
        #[arg(required = true, value_name = "REPORT")]
        reports: Vec<PathBuf>,
        /// Where the merged matrix's page, table, JSON and badges go.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        #[command(flatten)]
        files: ReportFiles,
    },
}

/// Where a run's reports are written (each format only when asked).
#[derive(clap::Args)]
struct ReportFiles {
    /// The JSON report (runner/schema/report.schema.json): everything.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// JUnit XML, for CI test tabs.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Markdown, for a CI job summary.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
}

#[derive(clap::Args)]
struct MatrixArgs {
    /// The runtimes file.
    #[arg(long, value_name = "FILE", default_value = "matrix/runtimes.json")]
    runtimes: PathBuf,
    /// Only this runtime id (repeatable; default: all of the file).
    #[arg(long = "runtime", value_name = "ID")]
    only: Vec<String>,
    /// Where the page, the table, the JSON and the badges are written.
    #[arg(long, value_name = "DIR", default_value = "matrix")]
    out: PathBuf,
    /// Write each runtime's expected-failures baseline from this run
    /// instead of checking it.
    #[arg(long)]
    write_baselines: bool,
    /// Seconds a case may take before a runtime's adapter is killed.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    timeout: f64,
    /// No progress bar.
    #[arg(long)]
    no_progress: bool,
    /// How many runtimes run at once. More jobs shorten a matrix whose
    /// runtimes mostly wait, and add noise to the time each case measures.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
    /// Adapter processes per runtime, each taking the next case when it is
    /// free (`run --jobs`); runtimes × this many processes run at once.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    jobs_per_runtime: u16,
    /// Also run N generated cases on every runtime, the same N cases (one
    /// seed) for all: the nightly campaign across runtimes. Generated
    /// failures are not shrunk here; each report line has the command that
    /// reproduces it, with the seed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    generate: u64,
    /// The seed of the generated cases (default: a random one, printed).
    #[arg(long, value_name = "SEED", requires = "generate")]
    seed: Option<u64>,
    /// Leave out of every runtime the cases whose id matches this glob
    /// (repeatable; each must match a case). The matrix records it, and the
    /// cells only those cases decide show untested. Not with
    /// --write-baselines: a baseline must hold every failure.
    #[arg(long, value_name = "GLOB", conflicts_with = "write_baselines")]
    exclude: Vec<String>,
}

#[derive(clap::Args)]
struct BenchArgs {
    /// An adapter command (repeatable), measured after the reference, e.g.
    /// "node adapters/node/adapter.mjs" or a shim of matrix/runtimes.json.
    #[arg(long = "impl", value_name = "COMMAND")]
    implementations: Vec<String>,
    /// Only this family (repeatable; default: all, see runner/BENCH.md).
    #[arg(long = "family", value_name = "NAME")]
    families: Vec<String>,
    /// No size above this.
    #[arg(long, value_name = "N")]
    max_size: Option<u64>,
    /// Milliseconds of warm-up calls before the samples.
    #[arg(long, value_name = "MS", default_value_t = 300)]
    warmup_ms: u64,
    /// Milliseconds the samples take in all (about).
    #[arg(long, value_name = "MS", default_value_t = 1_000)]
    measure_ms: u64,
    /// Samples per size (at least 5; fewer when calls are slow).
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    samples: u32,
    /// A family stops at the first size whose first call takes longer.
    #[arg(long, value_name = "MS", default_value_t = 2_000, value_parser = clap::value_parser!(u64).range(1..))]
    time_cap_ms: u64,
    /// A family stops once a call's peak memory grew by more (MiB).
    #[arg(long, value_name = "MIB", default_value_t = 1_024)]
    memory_cap_mib: u64,
    /// Seconds an adapter may take to build a family's value at one size.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    build_timeout: f64,
    /// Seconds the adapter may take to answer `start`.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    start_timeout: f64,
    /// Where report.json, report.md and the plots are written.
    #[arg(long, value_name = "DIR", default_value = "toolgate-bench")]
    out: PathBuf,
    /// No line per measured size on stderr.
    #[arg(long, short)]
    quiet: bool,
    /// Measure nothing: read this report.json (of an earlier run) and write
    /// its report.md and plots into --out again.
    #[arg(long, value_name = "FILE", conflicts_with = "implementations")]
    from_report: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ListWhat {
    Suites,
    Requirements,
    Cases,
}

/// `--suite` takes the id of any suite the runner has.
fn suite_ids() -> PossibleValuesParser {
    PossibleValuesParser::new(toolgate_suites::all().into_iter().map(|s| s.id()))
}

#[derive(clap::Args)]
struct RunArgs {
    /// The adapter command (see runner/PROTOCOL.md), e.g.
    /// "node adapters/node/adapter.mjs". Without it, the built-in reference
    /// runs in process.
    #[arg(long = "impl", value_name = "COMMAND")]
    implementation: Option<String>,
    /// Only this suite (repeatable; default: all).
    #[arg(long, value_parser = suite_ids())]
    suite: Vec<String>,
    /// Only cases whose id matches this glob (repeatable), e.g. 'calls/*'.
    #[arg(long = "case", value_name = "GLOB")]
    cases: Vec<String>,
    /// Leave out cases whose id matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Run the cases of this case file instead of the corpus (repeatable).
    #[arg(long, value_name = "FILE")]
    case_file: Vec<PathBuf>,
    /// Read the corpus from this directory instead of the embedded one.
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Run no corpus case (with --generate: only generated cases).
    #[arg(long)]
    no_corpus: bool,
    /// Add N generated cases of each suite that has a generator (core,
    /// boundary, pipeline, workspace, actions), is chosen (--suite) and is
    /// run by the implementation.
    #[arg(long, value_name = "N", default_value_t = 0)]
    generate: u64,
    /// The seed of --generate (default: random, printed in the report).
    #[arg(long)]
    seed: Option<u64>,
    /// At most this many runs to shrink each generated failure.
    #[arg(long, value_name = "N", default_value_t = 256)]
    shrink_steps: u32,
    /// At most this many generated failures are shrunk in a run (only the
    /// first of each distinct set of violated requirements, and none the
    /// expected-failures file covers); the rest are reported unshrunk, each
    /// with its reproduce command.
    #[arg(long, value_name = "N", default_value_t = 10)]
    max_shrinks: u32,
    /// Seconds shrinking may take in all over the run (a failure whose
    /// turn stays pending costs the adapter's window at every step; those
    /// take at most 8 steps besides).
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0)]
    shrink_time: f64,
    /// Where shrunk generated failures are saved as case files.
    #[arg(long, value_name = "DIR", default_value = "toolgate-failures")]
    save_dir: PathBuf,
    /// Adapter processes at once (each a copy of --impl, or of the
    /// built-in reference), each taking the next case when it is free. The
    /// reports are those of one job, apart from times.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
    /// Only this shard of the run, e.g. 2/4: a stable part (by case id,
    /// generated cases included; with --generate, give --seed) that
    /// `toolgate report merge` joins with the others.
    #[arg(long, value_name = "I/N")]
    shard: Option<toolgate_runner::shard::Shard>,
    /// Seconds a case may take before the adapter is killed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    timeout: f64,
    /// Seconds the adapter may take to answer `start`.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    start_timeout: f64,
    /// Restarts of a crashed or hung adapter before the rest is not run.
    #[arg(long, value_name = "N", default_value_t = 3)]
    max_restarts: u32,
    /// Known failures: a listed failure passes, a listed pass fails as stale.
    #[arg(long, value_name = "FILE")]
    expected_failures: Option<PathBuf>,
    /// Write this run's failures as an expected-failures file, each with
    /// its requirements and fingerprint; an existing file is brought up to
    /// date, its comments and racy (`~`) lines kept.
    #[arg(long, value_name = "FILE")]
    write_expected_failures: Option<PathBuf>,
    #[command(flatten)]
    reports: ReportFiles,
    /// Fail the cases that break only SHOULD requirements (by default they
    /// are reported as `warn` and pass the run).
    #[arg(long)]
    strict: bool,
    /// Print each expected failure in full as it is met (by default the
    /// baseline's failures take one line per finding at the end).
    #[arg(long, short)]
    verbose: bool,
    /// No progress bar.
    #[arg(long)]
    no_progress: bool,
    /// Only the final summary.
    #[arg(long, short)]
    quiet: bool,
}

fn seconds(flag: &str, s: f64) -> Result<Duration, Error> {
    Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| Error::usage(format!("{flag} must be a positive number of seconds")))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // the first signal stops the run between cases (reports are still
    // written); a second one ends the process at once
    let _ = ctrlc::set_handler(|| {
        if toolgate_runner::run::INTERRUPTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
            std::process::exit(130);
        }
        console::err("toolgate: interrupted; finishing the reports (again to quit now)\n");
    });
    match dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            console::err(&format!("toolgate: {e}\n"));
            ExitCode::from(2)
        }
    }
}

fn dispatch(cli: Cli) -> Result<u8, Error> {
    match cli.command {
        Command::Run(args) => {
            let args = *args;
            let implementation = match args.implementation {
                Some(command) => Some(adapter::Options {
                    command,
                    timeout: seconds("--timeout", args.timeout)?,
                    start_timeout: seconds("--start-timeout", args.start_timeout)?,
                    max_restarts: args.max_restarts,
                }),
                None => None,
            };
            let options = RunOptions {
                program: std::env::args().next().unwrap_or_else(|| "toolgate".into()),
                implementation,
                filter_suites: args.suite,
                cases: args.cases,
                exclude: args.exclude,
                case_files: args.case_file,
                corpus: args.corpus,
                no_corpus: args.no_corpus,
                generate: args.generate,
                seed: args.seed,
                shrink_steps: args.shrink_steps,
                shrink_time: Duration::try_from_secs_f64(args.shrink_time)
                    .map_err(|e| Error::usage(format!("--shrink-time: {e}")))?,
                max_shrinks: args.max_shrinks,
                save_dir: args.save_dir,
                expected_failures: args.expected_failures,
                write_expected_failures: args.write_expected_failures,
                json: args.reports.json,
                junit: args.reports.junit,
                markdown: args.reports.markdown,
                progress: !args.no_progress,
                quiet: args.quiet,
                strict: args.strict,
                verbose: args.verbose,
                jobs: usize::from(args.jobs),
                shard: args.shard,
            };
            let report = run(&options)?;
            console::out(&report.terminal());
            Ok(report.exit_code as u8)
        }
        Command::Matrix(args) => {
            let options = toolgate_runner::matrix::run::MatrixOptions {
                program: std::env::args().next().unwrap_or_else(|| "toolgate".into()),
                runtimes: args.runtimes,
                only: args.only,
                out: args.out.clone(),
                write_baselines: args.write_baselines,
                timeout: seconds("--timeout", args.timeout)?,
                progress: !args.no_progress,
                jobs: usize::from(args.jobs),
                jobs_per_runtime: usize::from(args.jobs_per_runtime),
                generate: args.generate,
                seed: args.seed,
                exclude: args.exclude,
            };
            let (matrix, exit) = toolgate_runner::matrix::run::run_matrix(&options)?;
            toolgate_runner::matrix::write_all(&matrix, &args.out)?;
            console::out(&toolgate_runner::matrix::markdown::table(&matrix));
            console::err(&format!(
                "wrote {}/matrix.md, matrix.json and badges/ ({:.0} s); its pages: toolgate site\n",
                args.out.display(),
                matrix.duration_secs
            ));
            Ok(exit as u8)
        }
        Command::Site {
            matrices,
            out,
            root,
        } => {
            let read = matrices
                .iter()
                .map(|p| toolgate_runner::site::read_matrix(p))
                .collect::<Result<Vec<_>, _>>()?;
            let written = toolgate_runner::site::build(&read, &root, &out)?;
            for (suite, bytes) in &written.grids {
                console::err(&format!(
                    "{suite}: {}/{suite}/index.html, {} KB with its style and script\n",
                    out.display(),
                    bytes / 1024
                ));
            }
            console::err(&format!(
                "wrote {} files into {}\n",
                written.pages.len(),
                out.display()
            ));
            Ok(0)
        }
        Command::Bench(args) => {
            let options = bench::BenchOptions {
                implementations: args.implementations,
                families: args.families,
                max_size: args.max_size,
                plan: toolgate_runner::protocol::BenchPlan {
                    warmup_ms: args.warmup_ms,
                    measure_ms: args.measure_ms,
                    samples: args.samples,
                    cap_ms: args.time_cap_ms,
                },
                memory_cap: args.memory_cap_mib.saturating_mul(1 << 20),
                build_timeout: seconds("--build-timeout", args.build_timeout)?,
                start_timeout: seconds("--start-timeout", args.start_timeout)?,
            };
            let quiet = args.quiet;
            let report = match &args.from_report {
                Some(path) => bench::report::read(path)?,
                None => bench::run_bench(&options, &mut |label, family, point| {
                    if !quiet {
                        console::err(&format!(
                            "{label}: {family} {}: {}\n",
                            point.size,
                            bench::report::point_cell(point)
                        ));
                    }
                })?,
            };
            let written = bench::report::write_all(&report, &args.out)?;
            console::out(&bench::report::terminal(&report));
            console::err(&format!(
                "wrote {} files to {} (report.json, report.md, one plot per family)\n",
                written.len(),
                args.out.display()
            ));
            Ok(bench::exit_code(&report))
        }
        Command::Report(ReportCommand::Merge {
            reports,
            out,
            files,
        }) => {
            if let Some(out) = out {
                use toolgate_runner::matrix;
                let mut parts = Vec::new();
                for path in reports {
                    let part = matrix::merge::read(&path)?;
                    parts.push((path, part));
                }
                let merged = matrix::merge::merge(parts)?;
                matrix::write_all(&merged, &out)?;
                console::out(&matrix::markdown::table(&merged));
                console::err(&format!(
                    "wrote {}/matrix.md, matrix.json and badges/\n",
                    out.display()
                ));
                return Ok(matrix::merge::exit_code(&merged) as u8);
            }
            let mut parts = Vec::new();
            for path in reports {
                let report = toolgate_runner::merge::read(&path)?;
                parts.push((path, report));
            }
            let report = toolgate_runner::merge::merge(parts)?;
            report.write_formats(
                files.json.as_deref(),
                files.junit.as_deref(),
                files.markdown.as_deref(),
            )?;
            console::out(&report.terminal());
            Ok(report.exit_code as u8)
        }
        Command::Init { lang, suite, dir } => {
            use toolgate_runner::init::{self, Lang};
            let (planned, gate) = init::plan(&dir, lang, &suite)?;
            init::write(&planned)?;
            for p in &planned {
                console::out(&format!("wrote {}\n", p.path.display()));
            }
            let kit = match lang {
                Lang::Node => "npm pack <toolgate>/adapters/node && npm install -D ./toolgate-node-adapter-0.1.0.tgz",
                Lang::Python => "python -m pip wheel --no-deps <toolgate>/adapters/python && python -m pip install ./toolgate_adapter-0.1.0-py3-none-any.whl",
            };
            console::out(&format!(
                "next: install the kit ({kit}), fill the places marked TOOLGATE:, and from {}:\n  {gate}\n",
                dir.display()
            ));
            Ok(0)
        }
        Command::List {
            what,
            suite,
            corpus,
        } => {
            let chosen: Vec<&'static dyn SuiteDef> = toolgate_suites::all()
                .into_iter()
                .filter(|s| suite.is_empty() || suite.iter().any(|id| id == s.id()))
                .collect();
            let all: Vec<cases::RunCase> = cases::corpus(corpus.as_deref())?
                .into_iter()
                .filter(|c| chosen.iter().any(|s| s.id() == c.suite.id()))
                .collect();
            console::out(&match what {
                ListWhat::Suites => explain::suites(&chosen, &all),
                ListWhat::Requirements => explain::requirement_list(&chosen, &all),
                ListWhat::Cases => explain::case_list(&all),
            });
            Ok(0)
        }
        Command::Explain {
            case,
            corpus,
            case_file,
        } => {
            // a generated case's id (a failure's, say) names its seed and
            // index: the case is drawn again
            if case_file.is_none() {
                if let Some(generated) = toolgate_runner::generate::regenerate(&case) {
                    console::out(&explain::explain(&generated?));
                    return Ok(0);
                }
            }
            let all = match case_file {
                Some(path) => cases::case_file(&path)?,
                None => cases::corpus(corpus.as_deref())?,
            };
            let found = all.iter().find(|c| c.id == case).ok_or_else(|| {
                let close: Vec<&str> = all
                    .iter()
                    .map(|c| c.id.as_str())
                    .filter(|id| id.contains(case.rsplit('/').next().unwrap_or(&case)))
                    .take(5)
                    .collect();
                Error::usage(if close.is_empty() {
                    format!("no case {case:?} (see toolgate list)")
                } else {
                    format!("no case {case:?}; did you mean {}?", close.join(", "))
                })
            })?;
            console::out(&explain::explain(found));
            Ok(0)
        }
    }
}
