//! The pipeline suite (seed 003, work in progress): the reference of Pi's
//! tool pipeline (`@earendil-works/pi-agent-core` 0.85.0), piece by piece.
//! So far: [`spec`], the scenario and observation formats, and
//! [`validation`], pi-ai 0.85.0's `validateToolArguments`.

pub mod spec;
pub mod validation;
