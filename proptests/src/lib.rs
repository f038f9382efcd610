//! Hostile scenario generators for toolgate: plans (flat, shrinkable
//! descriptions of hostile scenarios), their rendering into the scenario
//! format, and proptest strategies. The property tests in `tests/` check the
//! reference against them; the runner uses the same strategies to generate
//! cases for other implementations.

pub mod knobs;
pub mod plan;
pub mod strategy;
pub mod suites;

pub use plan::{Plan, Roles};
pub use strategy::plan;
