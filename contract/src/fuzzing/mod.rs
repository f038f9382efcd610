//! Fuzzing support (feature `fuzzing`, on by default): the structure-aware
//! generator of hostile scenarios and the oracles the fuzz targets in
//! `fuzz/` call. The same oracles run under `cargo test` on seeded bytes,
//! the seed corpora and the committed regressions, so CI exercises them on
//! stable.

pub mod generate;
pub mod oracles;

pub use oracles::{boundary, call, pipeline, registry, scenario, serializer, workspace, Verdict};
