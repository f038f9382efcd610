//! Fuzz target `pipeline_fast`: the oracle
//! `toolgate_pipeline::fuzz_oracle::pipeline_fast`, the `pipeline` target's
//! properties with one observation mutant per input (the input chooses
//! it) instead of all 59, for thousands of inputs a second. The seeds are
//! the `pipeline` target's.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_pipeline::fuzz_oracle::pipeline_fast(data);
});
