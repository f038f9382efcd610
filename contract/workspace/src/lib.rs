//! The `workspace` suite (seed 004, `WS-*`): the file tools of a coding
//! agent, `read`, `write` and `bash`, behind the `workspacePath` realpath
//! boundary, on a real tree of files, directories and symlinks made in a
//! fresh temporary base (`adapters/node/workspace/FORMAT.md`).
//!
//! `spec` holds the formats; `boundary` the path boundary over any
//! filesystem ([`boundary::Fs`]), `model` an in-memory filesystem for it;
//! `tools` and `bash` the three tools on the real filesystem, with
//! `node_text` the messages Node gives their failures; `reference` a
//! scenario run for real; `judge` the requirement-naming comparison;
//! `requirements` the ids; `race` how the judge reads a swap between a
//! check and a use; `generate` (feature `fuzzing`) hostile trees
//! and paths from bytes, and `properties` what every generated scenario
//! keeps (nothing outside the root touched; the model's boundary equals
//! the real one).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
    )
)]

pub mod bash;
pub mod boundary;
#[cfg(feature = "fuzzing")]
pub mod fuzz_oracle;
#[cfg(feature = "fuzzing")]
pub mod generate;
pub mod judge;
pub mod model;
pub mod mutants;
pub mod node_text;
#[cfg(feature = "fuzzing")]
pub mod properties;
pub mod race;
pub mod read_stream;
pub mod reference;
pub mod requirements;
pub mod spec;
pub mod tools;

use serde_json::Value as Json;
use spec::{Tool, WorkspaceObservation, WorkspaceScenario};
use toolgate_suite::Error;
use toolgate_suite::{canonical, decode, encode, judge_decoded, Judgement, Level, SuiteDef};

/// The workspace suite.
pub struct Workspace;

/// The one instance `suites::all` lists.
pub static WORKSPACE: Workspace = Workspace;

/// The capability of running the seed's `bash` (`$SHELL -c`, 10 s, 64 KiB).
pub const CAPABILITY_BASH: &str = "workspace.bash";
/// The capability of a call layer with the seed's approval policies.
pub const CAPABILITY_APPROVAL: &str = "workspace.approval";
/// The capability of running a swap between a read's or write's check and
/// its use (`Call::swap`): the harness needs a hook inside the tool.
pub const CAPABILITY_INTERFERENCE: &str = "workspace.interference";

const OBSERVATION_SCHEMA: &str = toolgate_corpus::schema::WORKSPACE_OBSERVATION;

fn scenario(json: &Json) -> Result<WorkspaceScenario, Error> {
    let scenario: WorkspaceScenario = decode("workspace scenario", json)?;
    reference::check(&scenario)?;
    Ok(scenario)
}

impl SuiteDef for Workspace {
    fn id(&self) -> &'static str {
        "workspace"
    }

    fn requirement_prefix(&self) -> &'static str {
        "WS-"
    }

    fn level(&self, requirement: &str) -> Level {
        requirements::level(requirement)
    }

    fn check_scenario(&self, scenario_json: &Json) -> Result<(), Error> {
        scenario(scenario_json).map(|_| ())
    }

    fn observe(&self, scenario_json: &Json) -> Result<Json, Error> {
        encode(&reference::observe(&scenario(scenario_json)?)?)
    }

    /// `workspace.bash` for a scenario that calls bash, and
    /// `workspace.approval` for one whose call layer denies bash by
    /// default: a real tool set may have no bash, or a bash that is not the
    /// seed's (another shell, no timeout), and the approval hook is the
    /// call layer's, not the tools'; `workspace.interference` for one that
    /// swaps a path between a check and a use (a hook inside the tool).
    /// Their cases are skipped for an adapter that does not announce them.
    fn capabilities(&self, scenario_json: &Json) -> Vec<String> {
        let Ok(s) = scenario(scenario_json) else {
            return Vec::new();
        };
        let mut needs = Vec::new();
        if s.calls.iter().any(|c| c.tool == Tool::Bash) {
            needs.push(CAPABILITY_BASH.to_owned());
        }
        if s.approval == spec::Approval::DenyBashByDefault {
            needs.push(CAPABILITY_APPROVAL.to_owned());
        }
        if s.calls.iter().any(|c| c.swap.is_some()) {
            needs.push(CAPABILITY_INTERFERENCE.to_owned());
        }
        needs
    }

    fn capability_names(&self) -> &'static [&'static str] {
        &[
            CAPABILITY_BASH,
            CAPABILITY_APPROVAL,
            CAPABILITY_INTERFERENCE,
        ]
    }

    fn observation_schema(&self) -> &'static str {
        OBSERVATION_SCHEMA
    }

    fn judge(&self, scenario_json: &Json, expected: &Json, actual: &Json) -> Judgement {
        judge_decoded::<_, WorkspaceObservation>(
            scenario(scenario_json),
            "workspace observation",
            expected,
            actual,
            judge::judge,
        )
    }

    fn canonical_observation(&self, observation: &Json) -> Result<Json, Error> {
        canonical::<WorkspaceObservation>("workspace observation", observation)
    }

    fn case_seconds(&self, scenario_json: &Json) -> f64 {
        // each bash call may run to its timeout; the rest is quick
        let bash_calls = scenario(scenario_json).map_or(0, |s| {
            s.calls.iter().filter(|c| c.tool == Tool::Bash).count()
        });
        bash_calls as f64 * bash::TIMEOUT.as_secs_f64() + 5.0
    }
}
