//! What every suite of toolgate shares, and nothing suite-specific.
//!
//! A suite (its scenario vocabulary, reference, judge and requirement
//! levels) is one [`SuiteDef`], so that the runner runs, judges, lists and
//! reports any suite without knowing its insides; the list of suites is
//! `toolgate-suites`, which no suite imports. Scenarios and observations
//! cross this interface as JSON, the form case files and adapters hold them
//! in; each suite decodes its own.
//!
//! Beside the interface: the one [`Error`] of a suite's scenarios and
//! storage, the leaf modules several suites build on ([`js_string`],
//! JavaScript's strings as UTF-16; [`fs_tree`], real trees in a temporary
//! root; [`same_text`], two observations compared as their texts), the
//! promise a deliberate breakage of an observation makes about what the
//! judge names ([`mutant::Expect`]), and the shape of a suite's fuzz
//! target ([`fuzzing`]).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
    )
)]

mod error;
pub mod fs_tree;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod js_string;
pub mod mutant;
mod same_text;
#[doc(hidden)]
pub mod testing;

pub use error::Error;
pub use js_string::JsString;
pub use same_text::{same_as_written, same_text};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::fmt;

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

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.requirement {
            Some(r) => write!(f, "{r}: {}", self.message),
            None => write!(f, "differs from the reference: {}", self.message),
        }
    }
}

impl Level {
    /// The level as reports spell it (`"must"`, `"should"`).
    pub fn name(self) -> &'static str {
        match self {
            Level::Must => "must",
            Level::Should => "should",
        }
    }
}

/// A figure a case measured (wall time, memory growth, bytes the model
/// receives), reported next to its bound.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The verdict rests on how long something took (a turn called pending
    /// at the end of the adapter's window, a time bound): the runner runs
    /// the case once more with a longer window before it keeps a failure,
    /// so that no verdict comes from the machine's load.
    pub timing: bool,
    /// Of those, a verdict that rests on the adapter's window itself: the
    /// turn was still running when it closed. A runner that can see the
    /// implementation was still working then gives it more time before it
    /// keeps the verdict (a time bound needs no more: the turn ended).
    pub window: bool,
    /// The case's precondition did not hold in this observation (what it
    /// sets up never happened: an abort whose latch never fired), so what
    /// it is about was never exercised: without a violation the runner
    /// reports it as an `error` saying this, never as a pass.
    pub unmet: Option<String>,
}

impl Judgement {
    /// The verdict when the scenario or an observation does not decode in
    /// the suite's format: one unnamed violation (it weighs as a MUST)
    /// saying which of them and where (`error`, from [`decode`]).
    pub fn undecodable(which: Undecodable, error: &Error) -> Judgement {
        let which = match which {
            Undecodable::Scenario => "the scenario",
            Undecodable::Expected => "the expected observation",
            Undecodable::Actual => "the observation",
        };
        Judgement {
            violations: vec![Violation::unnamed(format!(
                "{which} does not decode: {error}"
            ))],
            ..Judgement::default()
        }
    }

    /// The three decoded, or the verdict on the first that does not
    /// decode (the scenario, then the expected, then the actual).
    pub fn decoded<S, E, A>(
        scenario: Result<S, Error>,
        expected: Result<E, Error>,
        actual: Result<A, Error>,
    ) -> Result<(S, E, A), Judgement> {
        let s = scenario.map_err(|e| Judgement::undecodable(Undecodable::Scenario, &e))?;
        let e = expected.map_err(|e| Judgement::undecodable(Undecodable::Expected, &e))?;
        let a = actual.map_err(|e| Judgement::undecodable(Undecodable::Actual, &e))?;
        Ok((s, e, a))
    }
}

/// Which input of a judge did not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undecodable {
    Scenario,
    /// The reference's (or a case's stored) observation.
    Expected,
    /// The implementation's observation.
    Actual,
}

/// A suite's scenario or observation decoded from its JSON; the error
/// names `what` ("boundary scenario") and says where the JSON departs.
pub fn decode<T: serde::de::DeserializeOwned>(what: &str, json: &Json) -> Result<T, Error> {
    // from the value in place: `from_value` would take a deep copy of it
    T::deserialize(json).map_err(|e| Error::scenario(format!("{what}: {e}")))
}

/// The JSON of a decoded scenario or observation (the suites' canonical
/// form: fields in their declared order, defaults left out).
pub fn encode<T: Serialize>(value: &T) -> Result<Json, Error> {
    serde_json::to_value(value).map_err(|e| Error::scenario(format!("encoding: {e}")))
}

/// A suite's `judge` over its decoded scenario and two observations of
/// type `O` (`what` names it in errors): the verdict of `judge`, or
/// [`Judgement::decoded`]'s verdict when any of the three does not decode.
pub fn judge_decoded<S, O: serde::de::DeserializeOwned>(
    scenario: Result<S, Error>,
    what: &str,
    expected: &Json,
    actual: &Json,
    judge: impl FnOnce(&S, &O, &O) -> Judgement,
) -> Judgement {
    match Judgement::decoded(
        scenario,
        decode::<O>(what, expected),
        decode::<O>(what, actual),
    ) {
        Ok((s, e, a)) => judge(&s, &e, &a),
        Err(undecodable) => undecodable,
    }
}

/// An observation of type `O` in its canonical form (decoded and encoded
/// again), for [`SuiteDef::canonical_observation`].
pub fn canonical<O: Serialize + serde::de::DeserializeOwned>(
    what: &str,
    observation: &Json,
) -> Result<Json, Error> {
    encode(&decode::<O>(what, observation)?)
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

    /// Every capability name [`capabilities`](SuiteDef::capabilities) may
    /// return. Added for the runner: the built-in reference announces them
    /// all, and a case of an adapter that announces them all is sent
    /// without deriving what its scenario needs. Default: none.
    fn capability_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// An adapter's `observation` (which keeps
    /// [`observation_schema`](SuiteDef::observation_schema)) in the form
    /// [`judge`](SuiteDef::judge) reads and reports diff, or why it cannot
    /// be read. Added for the runner: a schema does not say everything a
    /// suite's decoder refuses, and a reply the suite cannot read is a
    /// harness error (the adapter broke the protocol), not a contract
    /// failure; and an observation re-encoded in its canonical form (key
    /// order, defaults left out) diffs against the reference's line by
    /// line. Default: the observation as it came.
    fn canonical_observation(&self, observation: &Json) -> Result<Json, Error> {
        Ok(observation.clone())
    }

    /// The seconds a faithful implementation may need for `scenario`:
    /// the runner gives a case at least this long before it kills the
    /// adapter, whatever `--timeout` says (a workspace case that runs bash
    /// to its 10 s timeout takes 10 s by contract). Default: 0.
    fn case_seconds(&self, _scenario: &Json) -> f64 {
        0.0
    }
}

/// A suite shows as its id (`SuiteDef({id})`), so that types holding one
/// can derive `Debug`.
impl fmt::Debug for dyn SuiteDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SuiteDef({})", self.id())
    }
}

/// `value` against a compiled schema: the first few places that do not
/// match, each with its JSON Pointer (shared by the protocol's, the
/// report's, the bench's and the matrix's schema checks, and the suites'
/// properties). A valid value costs one `is_valid`, which stops at nothing
/// and builds no error: the fuzz targets check every observation so.
pub fn schema_errors(validator: &jsonschema::Validator, value: &Json) -> Result<(), String> {
    if validator.is_valid(value) {
        return Ok(());
    }
    let errors: Vec<String> = validator
        .iter_errors(value)
        .take(3)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() {
                e.to_string()
            } else {
                format!("at {at}: {e}")
            }
        })
        .collect();
    Err(errors.join("; "))
}

/// The compiled observation schema of `suite` (compiled once per suite),
/// for the properties every suite's reference keeps and for the adapter
/// protocol's check of what an implementation observed.
pub fn observation_validator(
    suite: &dyn SuiteDef,
) -> Result<&'static jsonschema::Validator, String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Compiled = Result<&'static jsonschema::Validator, String>;
    static CACHE: OnceLock<Mutex<HashMap<&'static str, Compiled>>> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .map_err(|_| "the schema cache is poisoned".to_string())?;
    cache
        .entry(suite.id())
        .or_insert_with(|| {
            let broken = |e: String| {
                format!(
                    "the {} suite's observation schema is broken (a toolgate bug): {e}",
                    suite.id()
                )
            };
            let schema: Json = serde_json::from_str(suite.observation_schema())
                .map_err(|e| broken(e.to_string()))?;
            // a suite's schemas are self-contained: nothing is fetched
            let validator = jsonschema::options()
                .offline()
                .build(&schema)
                .map_err(|e| broken(e.to_string()))?;
            // one per suite, for the life of the process
            Ok(&*Box::leak(Box::new(validator)))
        })
        .clone()
}
