//! Scenarios (the language-neutral conformance cases), their decoding into
//! the host model, observations, and the oracle that runs a scenario on the
//! reference.

pub mod build;
pub mod checks;
pub mod host_limits;
pub mod spec;

pub use build::{build, build_with, Built, Limits};
pub use spec::{AbortPlan, CallSpec, ReasonSpec, RegistryKind, Scenario, TurnsSpec};
pub mod invariants;
pub mod observation;
pub mod oracle;

pub use observation::Observation;
pub use oracle::{observe, observe_with};
pub mod suite;
pub use suite::{CoreVocabulary, CORE};
