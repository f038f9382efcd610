//! What the runner needs of a suite, so that it runs, judges, lists and
//! reports any suite without knowing its insides: each suite (its
//! scenario vocabulary, reference, checks and requirement levels) is one
//! [`SuiteDef`], and [`all`] is the list the runner and the corpus tools
//! go through. Scenarios and observations cross this interface as JSON, the
//! form case files and adapters hold them in; each suite decodes its own.

use crate::Error;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// How much a requirement weighs in the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Level {
    /// Breaking it fails the case.
    Must,
    /// Breaking it is reported (`warn`); it fails the case only under
    /// `--strict`.
    Should,
}

/// One way an observation departs from the reference's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The SPEC.md id broken; `None` when no predicate recognised the
    /// difference (the message is then a diff). An unnamed violation
    /// weighs as a MUST.
    pub requirement: Option<String>,
    pub message: String,
}

impl Violation {
    /// A difference a predicate recognised as breaking `requirement`.
    pub fn named(requirement: &str, message: impl Into<String>) -> Violation {
        Violation {
            requirement: Some(requirement.to_string()),
            message: message.into(),
        }
    }

    /// A difference no predicate recognised.
    pub fn unnamed(message: impl Into<String>) -> Violation {
        Violation {
            requirement: None,
            message: message.into(),
        }
    }
}

/// A figure a case measured (wall time, memory growth, bytes the model
/// receives), reported next to its bound.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measure {
    pub name: String,
    pub value: f64,
    pub unit: String,
    /// The bound SPEC.md sets for it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
}

/// A suite's verdict on one observation.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Judgement {
    /// Empty when the observation is taken as expected.
    pub violations: Vec<Violation>,
    /// Differences the suite took as expected, each saying why (a host
    /// limit, an abort point).
    pub notes: Vec<String>,
    /// What the case measured.
    pub measures: Vec<Measure>,
}

/// One suite.
pub trait SuiteDef: Send + Sync {
    /// The id case files and the command line use (`"core"`).
    fn id(&self) -> &'static str;

    /// The prefix of its requirement ids in SPEC.md (`"CORE-"`).
    fn requirement_prefix(&self) -> &'static str;

    /// The level of one of its requirements.
    fn level(&self, requirement: &str) -> Level;

    /// Checks that `scenario` is a well-formed scenario of this suite; the
    /// error names the JSON Pointer of the fault.
    fn check_scenario(&self, scenario: &Json) -> Result<(), Error>;

    /// The reference's observation of `scenario`, as JSON.
    fn observe(&self, scenario: &Json) -> Result<Json, Error>;

    /// The capability names an adapter must declare to run `scenario`.
    fn capabilities(&self, scenario: &Json) -> Vec<String>;

    /// The JSON Schema (text) every observation of this suite keeps; the
    /// runner checks adapters' replies against it before judging.
    fn observation_schema(&self) -> &'static str;

    /// `actual` against `expected` for `scenario`.
    fn judge(&self, scenario: &Json, expected: &Json, actual: &Json) -> Judgement;
}

/// Every suite, in the order the runner lists and runs them.
pub fn all() -> Vec<&'static dyn SuiteDef> {
    vec![&crate::portable::PORTABLE]
}

/// The suite with id `id`.
pub fn get(id: &str) -> Option<&'static dyn SuiteDef> {
    all().into_iter().find(|s| s.id() == id)
}
