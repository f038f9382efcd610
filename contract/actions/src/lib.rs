//! The `actions` suite (seed 002, `ACT-*`; issue 19): strict action
//! contracts with real effects. A policy proposes JSON actions as raw text;
//! a structure layer accepts only exact shapes and exact types; an
//! authorization layer decides whether a well-typed action may run for the
//! task; only `reserve` writes, idempotently, to a real SQLite inventory
//! and ledger; five outcome classes stay apart
//! (`adapters/python/actions/FORMAT.md`).
//!
//! `spec` holds the formats and the table of refusal codes;
//! `strict_json` the parser of action texts; `structure` the seed's
//! `validate_action`; `authorize` its `Runner.authorize` over what a run
//! has seen; `store` the database; `runner` one run; `reference` a
//! scenario run on a fresh database; `judge` the requirement-naming
//! comparison; `mutants` observations broken on purpose, with what the
//! judge must name; `requirements` the ids; `generate` (feature `fuzzing`)
//! hostile scenarios from bytes, and `properties` what every scenario
//! keeps on the reference.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
    )
)]

pub mod authorize;
#[cfg(feature = "fuzzing")]
pub mod fuzz_oracle;
#[cfg(feature = "fuzzing")]
pub mod generate;
pub mod judge;
pub mod mutants;
#[cfg(feature = "fuzzing")]
pub mod properties;
pub mod reference;
pub mod requirements;
pub mod runner;
pub mod spec;
pub mod store;
pub mod strict_json;
pub mod structure;

use serde_json::Value as Json;
use spec::{ActionsObservation, ActionsScenario};
use toolgate_suite::Error;
use toolgate_suite::{canonical, decode, encode, judge_decoded, Judgement, Level, SuiteDef};

/// The actions suite.
pub struct Actions;

/// The one instance `suites::all` lists.
pub static ACTIONS: Actions = Actions;

const OBSERVATION_SCHEMA: &str = toolgate_corpus::schema::ACTIONS_OBSERVATION;

fn scenario(json: &Json) -> Result<ActionsScenario, Error> {
    let scenario: ActionsScenario = decode("actions scenario", json)?;
    reference::check(&scenario)?;
    Ok(scenario)
}

impl SuiteDef for Actions {
    fn id(&self) -> &'static str {
        "actions"
    }

    fn requirement_prefix(&self) -> &'static str {
        "ACT-"
    }

    fn level(&self, requirement: &str) -> Level {
        requirements::level(requirement)
    }

    fn check_scenario(&self, scenario_json: &Json) -> Result<(), Error> {
        scenario(scenario_json).map(|_| ())
    }

    fn observe(&self, scenario_json: &Json) -> Result<Json, Error> {
        // `reference::observe` checks the scenario itself
        let scenario: ActionsScenario = decode("actions scenario", scenario_json)?;
        encode(&reference::observe(&scenario)?)
    }

    fn capabilities(&self, _scenario: &Json) -> Vec<String> {
        Vec::new()
    }

    fn observation_schema(&self) -> &'static str {
        OBSERVATION_SCHEMA
    }

    fn judge(&self, scenario_json: &Json, expected: &Json, actual: &Json) -> Judgement {
        judge_decoded::<_, ActionsObservation>(
            scenario(scenario_json),
            "actions observation",
            expected,
            actual,
            judge::judge,
        )
    }

    fn canonical_observation(&self, observation: &Json) -> Result<Json, Error> {
        canonical::<ActionsObservation>("actions observation", observation)
    }
}
