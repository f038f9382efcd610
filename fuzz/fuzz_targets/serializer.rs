//! Fuzz target `serializer`: the oracle `toolgate_core::fuzzing::serializer`,
//! which panics on a bug. The bytes build an output graph straight into a
//! model heap (`fuzzing::graph`); `serializer_scenario` reaches the same
//! checks through the scenario format and the corpus's seeds.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_core::fuzzing::serializer(data);
});
