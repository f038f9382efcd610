//! The pipeline suite as the runner sees it (`PIPELINE`, a [`SuiteDef`]):
//! scenarios and observations as JSON in the formats of `spec`, the
//! reference's observation from `reference::observe`, the judge of
//! `judge` naming `PIPE-*` requirements, their levels from
//! `requirements`.

use super::spec::{ParametersKind, PipelineObservation, PipelineScenario};
use super::{judge, reference, requirements};
use crate::error::Error;
use crate::suites::{Judgement, Level, SuiteDef, Violation};
use serde_json::Value as Json;

/// The pipeline suite.
pub struct Pipeline;

/// The one instance `suites::all` lists.
pub static PIPELINE: Pipeline = Pipeline;

const OBSERVATION_SCHEMA: &str =
    include_str!("../../../corpus/schema/pipeline-observation.schema.json");

/// The optional features of Pi's loop a scenario uses, which another
/// implementation of the pipeline may lack.
const CAPABILITIES: &[&str] = &["steering", "followUp", "stopAfterTurn"];

fn scenario(json: &Json) -> Result<PipelineScenario, Error> {
    serde_json::from_value(json.clone())
        .map_err(|e| Error::scenario(format!("pipeline scenario: {e}")))
}

fn observation(json: &Json) -> Result<PipelineObservation, Error> {
    serde_json::from_value(json.clone())
        .map_err(|e| Error::scenario(format!("pipeline observation: {e}")))
}

impl SuiteDef for Pipeline {
    fn id(&self) -> &'static str {
        "pipeline"
    }

    fn requirement_prefix(&self) -> &'static str {
        "PIPE-"
    }

    fn level(&self, requirement: &str) -> Level {
        requirements::level(requirement)
    }

    fn check_scenario(&self, json: &Json) -> Result<(), Error> {
        let s = scenario(json)?;
        for tool in &s.tools {
            if tool.parameters_kind == ParametersKind::Typebox {
                reference::typebox_of(&tool.parameters)?;
            }
        }
        Ok(())
    }

    fn observe(&self, json: &Json) -> Result<Json, Error> {
        reference::observe(&scenario(json)?)
    }

    fn capabilities(&self, json: &Json) -> Vec<String> {
        let Ok(s) = scenario(json) else {
            return Vec::new();
        };
        let config = &s.config;
        [
            config.steering.is_some(),
            config.follow_up.is_some(),
            config.stop_after_turn.is_some(),
        ]
        .iter()
        .zip(CAPABILITIES)
        .filter(|(used, _)| **used)
        .map(|(_, name)| (*name).to_owned())
        .collect()
    }

    fn capability_names(&self) -> &'static [&'static str] {
        CAPABILITIES
    }

    fn observation_schema(&self) -> &'static str {
        OBSERVATION_SCHEMA
    }

    fn judge(&self, scenario_json: &Json, expected: &Json, actual: &Json) -> Judgement {
        let parsed = (
            scenario(scenario_json),
            observation(expected),
            observation(actual),
        );
        let (Ok(s), Ok(e), Ok(a)) = parsed else {
            return Judgement {
                violations: vec![Violation::unnamed(
                    "the scenario or an observation does not decode",
                )],
                ..Judgement::default()
            };
        };
        Judgement {
            violations: judge::judge(&s, &e, &a),
            ..Judgement::default()
        }
    }

    fn canonical_observation(&self, json: &Json) -> Result<Json, Error> {
        let decoded = observation(json)?;
        serde_json::to_value(decoded).map_err(|e| Error::scenario(format!("encoding: {e}")))
    }
}
