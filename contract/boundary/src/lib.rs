//! The boundary suite (`boundary`): the wall every agent runtime must keep
//! around tool calls (seed 001: every failure becomes a result the model
//! can read, the loop survives every failure, nothing runs before its
//! arguments are checked), in a vocabulary any runtime can express: tools
//! with JSON Schemas and described behaviours, one model turn, an abort
//! timing. `spec` holds the formats, `translate` turns a scenario into core
//! scenarios, `reference` projects the core reference's observations,
//! `judge` and `requirements` grade a runtime's observation, `generate`
//! builds hostile scenarios from bytes (fuzzing, properties, `--generate`),
//! `mutants` breaks observations on purpose and `properties` is what must
//! hold for every scenario (the judge included).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
    )
)]

mod attribution;
#[cfg(feature = "fuzzing")]
pub mod fuzz_oracle;
#[cfg(feature = "fuzzing")]
pub mod generate;
pub mod judge;
pub mod mutants;
pub mod properties;
pub mod reference;
pub mod requirements;
pub mod spec;
pub mod translate;

pub use reference::observe;
use spec::TurnEnd;
pub use spec::{BoundaryObservation, BoundaryScenario};

use serde_json::Value as Json;
use toolgate_suite::Error;
use toolgate_suite::{Judgement, Level, SuiteDef, Undecodable};

/// The boundary suite.
pub struct Boundary;

/// The one instance `suites::all` lists.
pub static BOUNDARY: Boundary = Boundary;

const OBSERVATION_SCHEMA: &str = toolgate_corpus::schema::BOUNDARY_OBSERVATION;

fn scenario(json: &Json) -> Result<BoundaryScenario, Error> {
    toolgate_suite::decode("boundary scenario", json)
}

fn observation(json: &Json) -> Result<BoundaryObservation, Error> {
    toolgate_suite::decode("boundary observation", json)
}

impl SuiteDef for Boundary {
    fn id(&self) -> &'static str {
        "boundary"
    }

    fn requirement_prefix(&self) -> &'static str {
        "BOUNDARY-"
    }

    fn level(&self, requirement: &str) -> Level {
        requirements::level(requirement)
    }

    fn check_scenario(&self, json: &Json) -> Result<(), Error> {
        translate::decode(&scenario(json)?).map(|_| ())
    }

    fn observe(&self, json: &Json) -> Result<Json, Error> {
        let observed = observe(&scenario(json)?)?;
        serde_json::to_value(observed).map_err(|e| Error::scenario(format!("encoding: {e}")))
    }

    fn capabilities(&self, json: &Json) -> Vec<String> {
        let Ok(s) = scenario(json) else {
            return Vec::new();
        };
        let mut needed = Vec::new();
        if s.abort.is_some() {
            needed.push("abort".to_string());
        }
        if s.tools.iter().any(|t| t.check.is_some()) {
            needed.push("check".to_string());
        }
        let mut names: Vec<&str> = s.tools.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w.first() == w.get(1)) {
            needed.push("duplicateNames".to_string());
        }
        if s.turn.len() > 1 {
            needed.push("parallel".to_string());
        }
        if s.turn
            .iter()
            .any(|c| !s.tools.iter().any(|t| t.name == c.name))
        {
            needed.push("unknownTool".to_string());
        }
        if s.tools
            .iter()
            .any(|t| t.behaviour.get("progress").is_some())
        {
            needed.push("progress".to_string());
        }
        needed
    }

    fn observation_schema(&self) -> &'static str {
        OBSERVATION_SCHEMA
    }

    fn judge(&self, scenario_json: &Json, expected: &Json, actual: &Json) -> Judgement {
        let (s, e, a) = match Judgement::decoded(
            scenario(scenario_json),
            observation(expected),
            observation(actual),
        ) {
            Ok(decoded) => decoded,
            Err(undecodable) => return undecodable,
        };
        let judge = match judge::Judge::new(&s) {
            Ok(judge) => judge,
            Err(e) => return Judgement::undecodable(Undecodable::Scenario, &e),
        };
        let (violations, measures) = judge.judge(&e, &a);
        let unmet = judge.unmet(&e, &a);
        // a turn still running at the end of the window, or a bound on
        // time: another run with a longer window tells slow from stuck
        // (not a turn held only by a body that never settles, after an
        // abort or without a timeout: the case makes that body stuck, and
        // more time changes nothing the bounds of CAN-02 and TIME-01 say)
        let stuck_by_design = a.turn == TurnEnd::Pending
            && violations.iter().all(|v| {
                matches!(
                    v.requirement.as_deref(),
                    Some(requirements::TIME_01 | requirements::CAN_02)
                )
            });
        let timing = !violations.is_empty()
            && !stuck_by_design
            && (a.turn == TurnEnd::Pending
                || violations.iter().any(|v| {
                    matches!(
                        v.requirement.as_deref(),
                        Some(requirements::ARGS_01 | requirements::CAN_02)
                    )
                }));
        Judgement {
            window: timing && a.turn == TurnEnd::Pending,
            violations,
            notes: Vec::new(),
            measures,
            timing,
            unmet,
        }
    }
}
