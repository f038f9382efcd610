//! The pipeline suite (seed 003, work in progress): the reference of Pi's
//! tool pipeline (`@earendil-works/pi-agent-core` 0.85.0), piece by piece.
//! So far only [`validation`], pi-ai 0.85.0's `validateToolArguments`.

pub mod validation;
