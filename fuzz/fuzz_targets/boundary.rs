//! Fuzz target `boundary`: the oracle `toolgate_boundary::fuzz_oracle::boundary`
//! (the boundary suite's properties: the reference within its schema and
//! its own judge, the boundary's shape, every observation mutant caught),
//! which panics on a bug. Inputs starting with `{` are boundary scenarios in
//! JSON (the seeds are the boundary cases); others drive the generator.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_boundary::fuzz_oracle::boundary(data);
});
