//! Fuzz target `workspace_fast`: the oracle
//! `toolgate_workspace::fuzz_oracle::workspace_fast`, the `workspace`
//! target's properties on small scenarios only (paths of at most 24
//! segments, trees of at most 64 entries), so that a mutated seed with a
//! path thousands of directories deep does not set the pace. The seeds are
//! the `workspace` target's.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_workspace::fuzz_oracle::workspace_fast(data);
});
