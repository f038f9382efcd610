//! The shape every suite's fuzz target shares: a [`Verdict`] per input, the
//! size above which an input is not looked at, and [`suite_target`], which
//! reads JSON as a scenario of the suite and any other bytes through the
//! suite's generator, then holds the suite's properties on it.
//!
//! An oracle reports a bug by panicking: that is how libFuzzer learns of
//! one. The fuzz targets in `fuzz/` are one call each; each suite's
//! `tests/fuzz_oracle.rs` runs the same functions on seeded bytes, the seed
//! corpora and the committed regressions under `cargo test`.

// An oracle reports a bug by panicking: that is the fuzzing protocol.
#![allow(clippy::panic)]

/// Inputs above this size are not looked at: they only slow the fuzzer.
pub const MAX_INPUT: usize = 64 * 1024;

/// What an oracle did with an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The input was run and every invariant held.
    Checked,
    /// The input could not be compared (malformed, oversized, outside the
    /// model): not a bug.
    Skipped(&'static str),
}

/// The shape of a suite's target: input that starts as JSON is a scenario
/// of the suite (skipped when it does not decode, or `usable` refuses it);
/// any other bytes go to the suite's generator; then every property of
/// the suite's `check` must hold (a broken one panics, as libFuzzer wants).
pub fn suite_target<S: serde::de::DeserializeOwned, Covered>(
    data: &[u8],
    not_a_scenario: &'static str,
    usable: impl Fn(&S) -> Result<(), &'static str>,
    generate: fn(&[u8]) -> S,
    check: fn(&S) -> Result<Covered, String>,
) -> Verdict {
    if data.len() > MAX_INPUT {
        return Verdict::Skipped("oversized");
    }
    let scenario = if data.first() == Some(&b'{') {
        let Ok(scenario) = serde_json::from_slice::<S>(data) else {
            return Verdict::Skipped(not_a_scenario);
        };
        if let Err(why) = usable(&scenario) {
            return Verdict::Skipped(why);
        }
        scenario
    } else {
        generate(data)
    };
    if let Err(e) = check(&scenario) {
        panic!("{e}");
    }
    Verdict::Checked
}

/// Runs `oracle` as `cargo test` does, without a fuzzer: on `random` inputs
/// of seeded bytes (up to 2 KiB each, from `seed`), then on each of
/// `inputs` (the seeds a suite derives from its corpus cases, its committed
/// regressions), naming each on stderr so a panic says which. Returns how
/// many inputs were checked (not skipped), for the caller's lower bound: an
/// oracle that skips everything tests nothing.
pub fn replay<'a>(
    oracle: fn(&[u8]) -> Verdict,
    seed: u64,
    random: usize,
    inputs: impl IntoIterator<Item = (String, &'a [u8])>,
) -> usize {
    let mut rng = crate::testing::rng(seed);
    let mut checked = 0;
    for _ in 0..random {
        let len = rng(2048);
        // a byte is a number below 256
        let data: Vec<u8> = (0..len).map(|_| rng(256) as u8).collect();
        if oracle(&data) == Verdict::Checked {
            checked += 1;
        }
    }
    for (name, data) in inputs {
        eprintln!("replaying {name}");
        if oracle(data) == Verdict::Checked {
            checked += 1;
        }
    }
    checked
}
