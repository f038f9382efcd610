//! The pipeline suite (seed 003, work in progress): Pi's tool pipeline
//! (`@earendil-works/pi-agent-core` 0.85.0). [`spec`] holds the scenario
//! and observation formats, [`validation`] pi-ai 0.85.0's
//! `validateToolArguments`, and [`reference`] the loop itself, run in a
//! model of the Node harness, giving the harness's observation.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
    )
)]

pub mod file_queue;
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
mod suite;
pub mod validation;

pub use suite::{Pipeline, PIPELINE};
