//! Fuzz target `actions`: the oracle `toolgate_actions::fuzz_oracle::actions`
//! (the reference's database is exactly what its steps account for; its
//! observation within its schema and its own judge), which panics on a
//! bug. Inputs starting with `{` are actions scenarios in JSON (the seeds
//! are the `actions` cases); others drive the generator of hostile
//! policies.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_actions::fuzz_oracle::actions(data);
});
