//! The implementation under test, as the run loop sees it: the built-in
//! reference (in process) or an adapter process (`adapter.rs`). Either runs
//! one case and says how it went.

use crate::cases::RunCase;
use crate::protocol::{Capability, Hello, Implementation, PROTOCOL_VERSION};
use std::time::{Duration, Instant};
use toolgate_contract::scenario::{observe, Observation, Suite};

/// How running one case went, before judging.
#[derive(Debug, Clone, PartialEq)]
pub enum Ran {
    Observed(Observation),
    Skipped(String),
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
}

/// An implementation the runner can drive.
pub trait Subject {
    /// The handshake's answer (the reference makes up its own).
    fn hello(&self) -> &Hello;
    fn run(&mut self, case: &RunCase) -> Attempt;
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
}

/// The handshake of the Rust reference, shared by the built-in subject and
/// the reference adapter binary.
pub fn reference_hello() -> Hello {
    Hello {
        protocol: PROTOCOL_VERSION,
        implementation: Implementation {
            name: "toolgate-reference".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            language: "rust".into(),
            homepage: Some("https://github.com/toolgate/toolgate".into()),
        },
        suites: vec![Suite::Core, Suite::Boundary],
        capabilities: Capability::ALL.to_vec(),
    }
}

/// The reference, run in this process.
pub struct Reference {
    hello: Hello,
}

impl Default for Reference {
    fn default() -> Self {
        Reference {
            hello: reference_hello(),
        }
    }
}

impl Subject for Reference {
    fn hello(&self) -> &Hello {
        &self.hello
    }

    fn run(&mut self, case: &RunCase) -> Attempt {
        let start = Instant::now();
        let ran = match observe(&case.scenario) {
            Ok(observation) => Ran::Observed(observation),
            Err(e) => Ran::Error(format!("the reference cannot run this scenario: {e}")),
        };
        Attempt {
            ran,
            stderr: String::new(),
            duration: start.elapsed(),
        }
    }

    fn finish(&mut self) -> String {
        String::new()
    }

    fn command(&self) -> Option<&str> {
        None
    }
}
