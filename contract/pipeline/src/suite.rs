//! The pipeline suite as the runner sees it (`PIPELINE`, a [`SuiteDef`]):
//! scenarios and observations as JSON in the formats of `spec`, the
//! reference's observation from `reference::observe`, the judge of
//! `judge` naming `PIPE-*` requirements, their levels from
//! `requirements`. A scenario `{"fileQueue": ...}` is a file-queue run
//! (`file_queue`), every other one a run of the agent loop.

use super::file_queue::{self, is_file_queue, FileQueueObservation, FileQueueScenario};
use super::spec::{ParametersKind, PipelineObservation, PipelineScenario};
use super::{judge, reference, requirements};
use serde_json::Value as Json;
use toolgate_suite::Error;
use toolgate_suite::{decode, encode, Judgement, Level, SuiteDef, Undecodable};

/// The pipeline suite.
pub struct Pipeline;

/// The one instance `suites::all` lists.
pub static PIPELINE: Pipeline = Pipeline;

const OBSERVATION_SCHEMA: &str = toolgate_corpus::schema::PIPELINE_OBSERVATION;

/// The optional features of Pi's loop a scenario uses, which another
/// implementation of the pipeline may lack.
/// `fileQueue`: the file-queue scenarios (pi-coding-agent's
/// `withFileMutationQueue`); `harnessQueue`: those naming pi-agent-core
/// 0.85.0's harness queue, which 1.6.0 no longer has.
const CAPABILITIES: &[&str] = &[
    "steering",
    "followUp",
    "stopAfterTurn",
    "fileQueue",
    "harnessQueue",
];

/// A pipeline scenario of either kind.
enum Scenario {
    Loop(Box<PipelineScenario>),
    FileQueue(FileQueueScenario),
}

fn scenario(json: &Json) -> Result<Scenario, Error> {
    if is_file_queue(json) {
        return file_queue::reference::decode(json).map(Scenario::FileQueue);
    }
    decode("pipeline scenario", json).map(|s| Scenario::Loop(Box::new(s)))
}

fn observation<T: serde::de::DeserializeOwned>(json: &Json) -> Result<T, Error> {
    decode("pipeline observation", json)
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
        let s = match scenario(json)? {
            Scenario::Loop(s) => s,
            Scenario::FileQueue(s) => return file_queue::reference::check(&s),
        };
        for tool in &s.tools {
            if tool.parameters_kind == ParametersKind::Typebox {
                reference::typebox_of(&tool.parameters)?;
            }
        }
        Ok(())
    }

    fn observe(&self, json: &Json) -> Result<Json, Error> {
        match scenario(json)? {
            Scenario::Loop(s) => reference::observe(&s),
            Scenario::FileQueue(s) => encode(&file_queue::reference::observe(&s)?),
        }
    }

    fn capabilities(&self, json: &Json) -> Vec<String> {
        let s = match scenario(json) {
            Ok(Scenario::Loop(s)) => s,
            Ok(Scenario::FileQueue(s)) => {
                let harness = s.file_queue.steps.iter().any(|step| {
                    matches!(step, file_queue::Step::Register(r)
                        if r.queue.starts_with(file_queue::HARNESS_PREFIX))
                });
                let mut needs = vec!["fileQueue".to_owned()];
                if harness {
                    needs.push("harnessQueue".to_owned());
                }
                return needs;
            }
            Err(_) => return Vec::new(),
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
        // the common case, without decoding the three: the reference's own
        // text (both judges find nothing in an observation equal to the
        // expected one, and an expected one exists only for a scenario the
        // reference observed, which decodes)
        if toolgate_suite::same_text(expected, actual) {
            return Judgement::default();
        }
        let verdict = match scenario(scenario_json) {
            Ok(Scenario::Loop(s)) => {
                Judgement::decoded(Ok(s), observation(expected), observation(actual))
                    .map(|(s, e, a)| judge::judge(&s, &e, &a))
            }
            Ok(Scenario::FileQueue(s)) => {
                Judgement::decoded(Ok(s), observation(expected), observation(actual))
                    .map(|(s, e, a)| file_queue::judge::judge(&s, &e, &a))
            }
            Err(e) => Err(Judgement::undecodable(Undecodable::Scenario, &e)),
        };
        let violations = match verdict {
            Ok(violations) => violations,
            Err(undecodable) => return undecodable,
        };
        Judgement {
            violations,
            ..Judgement::default()
        }
    }

    fn canonical_observation(&self, json: &Json) -> Result<Json, Error> {
        if is_file_queue(json) {
            encode(&observation::<FileQueueObservation>(json)?)
        } else {
            encode(&observation::<PipelineObservation>(json)?)
        }
    }
}
