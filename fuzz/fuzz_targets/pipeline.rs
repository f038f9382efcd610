//! Fuzz target `pipeline`: the oracle `toolgate_pipeline::fuzz_oracle::pipeline`
//! (the pipeline suite's properties: the reference within its schema and
//! its own judge, pi 0.85.0's invariants, every observation mutant named),
//! which panics on a bug. Inputs starting with `{` are pipeline scenarios
//! in JSON (the seeds are the pipeline cases); others drive the generator.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_pipeline::fuzz_oracle::pipeline(data);
});
