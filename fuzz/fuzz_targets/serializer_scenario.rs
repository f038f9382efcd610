//! Fuzz target `serializer_scenario`: the oracle
//! `toolgate_core::fuzzing::serializer_scenario`, which panics on a bug.
//! Inputs starting with `{` are scenarios in JSON (the seeds are the
//! corpus's cases); others drive the structure-aware scenario generator.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_core::fuzzing::serializer_scenario(data);
});
