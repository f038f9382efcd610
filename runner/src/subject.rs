//! The implementation under test, as the run loop sees it: the built-in
//! reference (in process) or an adapter process (`adapter.rs`). Either runs
//! one case and says how it went.

use crate::cases::RunCase;
use crate::protocol::{Hello, Implementation, PROTOCOL_VERSION};
use serde_json::Value as Json;
use std::time::{Duration, Instant};
use toolgate_suite::SuiteDef;

/// How running one case went, before judging.
#[derive(Debug, Clone, PartialEq)]
pub enum Ran {
    /// An observation in the format of the case's suite (for an adapter's,
    /// checked against the suite's schema and in its canonical form).
    Observed(Json),
    Skipped(String),
    /// The adapter says the case cannot exist in its implementation.
    NotApplicable(String),
    /// The adapter answered `error` or broke the protocol.
    Error(String),
    Timeout(Duration),
    /// The adapter process died before answering; says how.
    Crash(String),
    /// The run gave up on the adapter before this case.
    NotRun(String),
}

/// One case's run: what happened, what the adapter wrote to stderr meanwhile,
/// and how long it took.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub ran: Ran,
    pub stderr: String,
    pub duration: Duration,
    /// On a patient attempt at an adapter, the cores its processes used
    /// over the half second before it answered ([`crate::busy`]): whether
    /// a turn it called pending was still working. `None` elsewhere, or
    /// where it cannot be known.
    pub busy_at_end: Option<f64>,
}

/// An implementation the runner can drive (from the thread of the worker
/// that holds it: `--jobs` runs one per worker).
pub trait Subject: Send {
    /// The handshake's answer (the reference makes up its own).
    fn hello(&self) -> &Hello;
    fn run(&mut self, case: &RunCase) -> Attempt;
    /// `run`, calling `meanwhile` once while the implementation works on
    /// the case: an adapter process runs it while this thread makes the
    /// next case ready (the reference's expectation), so the two overlap.
    /// The attempt's duration leaves out whatever `meanwhile` took past the
    /// reply. An implementation in this process runs the case first.
    fn run_overlapped(&mut self, case: &RunCase, meanwhile: &mut dyn FnMut()) -> Attempt {
        let attempt = self.run(case);
        meanwhile();
        attempt
    }
    /// `run`, asking the implementation to wait `patience` times its usual
    /// window before it calls anything pending (the reference never waits).
    fn run_patiently(&mut self, case: &RunCase, patience: u32) -> Attempt {
        let _ = patience;
        self.run(case)
    }
    /// Ends the session; returns what the adapter wrote to stderr outside
    /// any case.
    fn finish(&mut self) -> String;
    /// The `--impl` command, for reproduction commands; `None` for the
    /// built-in reference.
    fn command(&self) -> Option<&str>;
    /// How many times the adapter process was restarted.
    fn restarts(&self) -> u32 {
        0
    }
    /// Whether the run gave up on this implementation (it crashed or hung
    /// past `--max-restarts`): what it is asked now is not run.
    fn gave_up(&self) -> bool {
        false
    }
}

/// The handshake of the Rust reference, shared by the built-in subject and
/// the reference adapter binary: every suite, every capability any suite
/// names.
pub fn reference_hello() -> Hello {
    hello_for(&toolgate_suites::all())
}

/// The reference's handshake for `suites` (each once, in order) and every
/// capability they name.
fn hello_for(suites: &[&'static dyn SuiteDef]) -> Hello {
    let mut ids: Vec<String> = Vec::new();
    let mut capabilities: Vec<String> = Vec::new();
    for suite in suites {
        if !ids.iter().any(|id| id == suite.id()) {
            ids.push(suite.id().to_string());
        }
        for name in suite.capability_names() {
            if !capabilities.iter().any(|n| n == name) {
                capabilities.push(name.to_string());
            }
        }
    }
    Hello {
        protocol: PROTOCOL_VERSION,
        implementation: Implementation {
            name: "toolgate-reference".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            language: "rust".into(),
            homepage: Some("https://github.com/toolgate/toolgate".into()),
        },
        suites: ids,
        capabilities,
    }
}

/// The reference, run in this process: each case observed by its suite's
/// own reference ([`SuiteDef::observe`]).
pub struct Reference {
    hello: Hello,
}

impl Reference {
    /// The reference of `suites` (the runner's: [`suites::all`]; a run of
    /// cases of other suites adds theirs).
    pub fn new(suites: &[&'static dyn SuiteDef]) -> Reference {
        Reference {
            hello: hello_for(suites),
        }
    }
}

impl Default for Reference {
    fn default() -> Self {
        Reference::new(&toolgate_suites::all())
    }
}

impl Subject for Reference {
    fn hello(&self) -> &Hello {
        &self.hello
    }

    fn run(&mut self, case: &RunCase) -> Attempt {
        let start = Instant::now();
        let ran = match case.suite.observe(&case.scenario) {
            Ok(observation) => Ran::Observed(observation),
            Err(e) => Ran::Error(format!("the reference cannot run this scenario: {e}")),
        };
        Attempt {
            ran,
            stderr: String::new(),
            duration: start.elapsed(),
            busy_at_end: None,
        }
    }

    fn finish(&mut self) -> String {
        String::new()
    }

    fn command(&self) -> Option<&str> {
        None
    }
}
