//! Fuzz target `boundary_fast`: the oracle
//! `toolgate_boundary::fuzz_oracle::boundary_fast`, the `boundary` target's
//! properties with values at their ordinary sizes and one observation
//! mutant per input (the input chooses it), for thousands of inputs a
//! second. The seeds are the `boundary` target's.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_boundary::fuzz_oracle::boundary_fast(data);
});
