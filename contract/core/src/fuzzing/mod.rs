//! Fuzzing support (feature `fuzzing`, on by default): the structure-aware
//! generator of hostile scenarios (`generate`), output graphs built straight
//! into a heap (`graph`), and the oracles the fuzz targets in
//! `fuzz/` call. The same oracles run under `cargo test` on seeded bytes,
//! the seed corpora and the committed regressions, so CI exercises them on
//! stable.

pub mod generate;
pub mod graph;
pub mod oracles;

pub use oracles::{call, registry, scenario, serializer, serializer_scenario, Verdict};
