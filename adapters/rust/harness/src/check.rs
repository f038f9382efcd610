//! The gate under `cargo test`: one test target with `harness = false`
//! whose `main` is [`Gate::main`]. Run by cargo, it runs the boundary
//! suite with the runner's own `run` (the same cases, verdicts, reports,
//! reproduction commands, shrinking and baselines as `toolgate run`), on
//! this same test binary started again as the adapter
//! (`<binary> --toolgate-adapter`): a hostile case may overflow the
//! runtime's stack or leave a task running forever, which no
//! `catch_unwind` survives, so the cases run in a child process and the
//! run's report outlives whatever one of them does.

use crate::serve::{serve, settle_arg, DEFAULT_SETTLE};
use crate::shim::Shim;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use toolgate_runner::adapter;
use toolgate_runner::run::{run, RunOptions};

/// The argument that makes a gate binary the adapter.
pub const ADAPTER_FLAG: &str = "--toolgate-adapter";

/// The one test the gate is, as `cargo test`'s filters and `--list` see it.
const TEST_NAME: &str = "toolgate";

/// A shim's gate, with what to run; the command line (`cargo test --test
/// <name> -- [run options]`) adds to it or overrides it.
pub struct Gate<S> {
    shim: S,
    generate: u64,
    seed: Option<u64>,
    expected_failures: Option<PathBuf>,
    settle: Duration,
    strict: bool,
    jobs: usize,
}

/// `Gate::new(shim).main()`: the corpus of the boundary suite, no
/// generated cases, no baseline.
pub fn check<S: Shim + Send + 'static>(shim: S) -> ExitCode {
    Gate::new(shim).main()
}

impl<S: Shim + Send + 'static> Gate<S> {
    pub fn new(shim: S) -> Gate<S> {
        Gate {
            shim,
            generate: 0,
            seed: None,
            expected_failures: None,
            settle: DEFAULT_SETTLE,
            strict: false,
            jobs: 1,
        }
    }

    /// Also runs `cases` generated cases (seeded: [`Gate::seed`], else a
    /// fresh seed the report prints).
    pub fn generate(mut self, cases: u64) -> Self {
        self.generate = cases;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The runtime's baseline: the failures known and accepted
    /// (`toolgate run --expected-failures`).
    pub fn expected_failures(mut self, path: impl Into<PathBuf>) -> Self {
        self.expected_failures = Some(path.into());
        self
    }

    /// How long a turn may take before it is called pending (2 s).
    pub fn settle(mut self, window: Duration) -> Self {
        self.settle = window;
        self
    }

    /// A case breaking only SHOULD requirements fails instead of warning.
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Cases run at once, each in its own process (`toolgate run --jobs`):
    /// most of a gate's time is spent waiting on deadlines and windows.
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// The test binary's `main`: the adapter when started as one, else the
    /// gate. The exit code is the run's (0 pass, 1 failures, 2 a harness
    /// error or a bad argument).
    pub fn main(self) -> ExitCode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        if args.first().map(String::as_str) == Some(ADAPTER_FLAG) {
            let settle = match settle_arg(&args[1..]) {
                Ok(settle) => settle.unwrap_or(self.settle),
                Err(message) => {
                    eprintln!("toolgate rust harness: {message}");
                    return ExitCode::from(2);
                }
            };
            return serve(self.shim, settle);
        }
        match self.options(&args) {
            Ok(Some(options)) => match run(&options) {
                Ok(report) => {
                    print!("{}", report.terminal());
                    ExitCode::from(report.exit_code as u8)
                }
                Err(e) => {
                    eprintln!("toolgate: {e}");
                    ExitCode::from(2)
                }
            },
            Ok(None) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("toolgate rust harness: {message}");
                ExitCode::from(2)
            }
        }
    }

    /// The run the arguments ask for, or `None` when there is nothing to
    /// run (`--list`, a filter that leaves the gate out).
    fn options(&self, args: &[String]) -> Result<Option<RunOptions>, String> {
        let exe = std::env::current_exe()
            .map_err(|e| format!("cannot find this test binary: {e}"))?
            .display()
            .to_string();
        let mut command = format!("{} {ADAPTER_FLAG}", shell_quote(&exe));
        if self.settle != DEFAULT_SETTLE {
            command.push_str(&format!(" --settle-ms {}", self.settle.as_millis()));
        }
        let mut options = RunOptions {
            program: exe,
            implementation: Some(adapter::Options {
                command,
                timeout: Duration::from_secs(10).max(self.settle * 5),
                start_timeout: Duration::from_secs(30),
                // each case runs in a process of its own: a restart is the
                // adapter itself failing, which should not happen
                max_restarts: 3,
            }),
            filter_suites: vec!["boundary".into()],
            generate: self.generate,
            seed: self.seed,
            expected_failures: self.expected_failures.clone(),
            strict: self.strict,
            jobs: self.jobs,
            progress: false,
            ..RunOptions::default()
        };
        let mut args = args.iter();
        let mut listing = false;
        while let Some(arg) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .cloned()
                    .ok_or_else(|| format!("{name} needs a value"))
            };
            match arg.as_str() {
                // `toolgate run`'s options, as a reproduction command gives them
                "run" | "--no-corpus" => options.no_corpus |= arg == "--no-corpus",
                "--case" => options.cases.push(value(arg)?),
                "--exclude" => options.exclude.push(value(arg)?),
                "--case-file" => options.case_files.push(value(arg)?.into()),
                "--corpus" => options.corpus = Some(value(arg)?.into()),
                "--generate" => options.generate = number(arg, &value(arg)?)?,
                "--seed" => options.seed = Some(number(arg, &value(arg)?)?),
                "--expected-failures" => options.expected_failures = Some(value(arg)?.into()),
                "--write-expected-failures" => {
                    options.write_expected_failures = Some(value(arg)?.into())
                }
                "--json" => options.json = Some(value(arg)?.into()),
                "--junit" => options.junit = Some(value(arg)?.into()),
                "--markdown" => options.markdown = Some(value(arg)?.into()),
                "--jobs" => options.jobs = number(arg, &value(arg)?)?.max(1) as usize,
                "--strict" => options.strict = true,
                "--verbose" => options.verbose = true,
                "--suite" => {
                    let suite = value(arg)?;
                    if suite != "boundary" {
                        return Err(format!("this gate runs the boundary suite, not {suite:?}"));
                    }
                }
                // the adapter is always this binary
                "--impl" => {
                    value(arg)?;
                }
                // libtest's options, which cargo passes to every test target
                "--list" => listing = true,
                "--ignored" => return Ok(None),
                "--nocapture" | "--include-ignored" | "--exact" | "--quiet" | "-q"
                | "--show-output" => {}
                "--test-threads" | "--color" | "--format" | "--skip" | "-Z" | "--logfile" => {
                    value(arg)?;
                }
                other if other.starts_with("--") && other.contains('=') => {}
                filter if !filter.starts_with('-') => {
                    if !TEST_NAME.contains(filter) {
                        return Ok(None);
                    }
                }
                unknown => return Err(format!("unknown argument {unknown:?}")),
            }
        }
        if options.write_expected_failures.is_some() {
            // writing the baseline records what fails now, whatever the
            // old one said (and before there is one)
            options.expected_failures = None;
        }
        if listing {
            println!("{TEST_NAME}: test");
            return Ok(None);
        }
        Ok(Some(options))
    }
}

fn number(name: &str, text: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("{name} needs a whole number, not {text:?}"))
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:".contains(c))
    {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}
