//! Fuzz target `registry`: the oracle `toolgate_core::fuzzing::registry`, which
//! panics on a bug. Inputs starting with `{` are JSON; others drive the
//! structure-aware generator.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_core::fuzzing::registry(data);
});
