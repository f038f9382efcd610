//! Fuzz target `workspace`: the oracle `toolgate_workspace::fuzz_oracle::workspace`
//! (no read or write touches anything outside the root; the in-memory
//! model's boundary equals the real one), which panics on a bug. Inputs
//! starting with `{` are workspace scenarios in JSON (the seeds are the
//! workspace cases without bash); others drive the generator of hostile
//! trees and paths.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_workspace::fuzz_oracle::workspace(data);
});
