//! Fuzz target `action_text`: the `actions` suite's structure layer on raw
//! bytes, through the oracle `toolgate_actions::fuzz_oracle::action_text`
//! (never a panic; the strict parser against `serde_json`; an accepted
//! action written out again is the same action). The seeds are every
//! action text of the `actions` cases.
#![no_main]

use toolgate_fuzz as _;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = toolgate_actions::fuzz_oracle::action_text(data);
});
