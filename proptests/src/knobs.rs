//! How many cases the property tests run: a default that keeps CI fast, and
//! `TOOLGATE_PROPTEST_SCALE` (a multiplier, e.g. 100 for nightly runs) to go
//! further. `PROPTEST_CASES`, when set, still wins, as proptest users expect.
//!
//! Which cases: a fixed seed by default, so that `cargo test` (and CI) runs
//! the same cases every time and a red run is red again; nightly campaigns
//! set `PROPTEST_RNG_SEED` (proptest's own variable) to another number
//! (`$RANDOM`, the date) to explore further. Every failure is also persisted
//! in `proptest-regressions/`, which are replayed first.

use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

/// The seed of the default runs.
pub const SEED: u64 = 20_261_202;

/// The multiplier from `TOOLGATE_PROPTEST_SCALE` (default 1).
pub fn scale() -> u32 {
    std::env::var("TOOLGATE_PROPTEST_SCALE")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .filter(|s| *s > 0)
        .unwrap_or(1)
}

/// A proptest config running `default_cases` times the scale, persisting
/// failures in `proptests/proptest-regressions/<regressions>` (paths are
/// relative to the crate, where cargo runs its tests).
pub fn config(default_cases: u32, regressions: &'static str) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or_else(|| default_cases.saturating_mul(scale()));
    // Config::default() reads PROPTEST_RNG_SEED; without it, ours
    let defaults = Config::default();
    let rng_seed = if std::env::var_os("PROPTEST_RNG_SEED").is_some() {
        defaults.rng_seed
    } else {
        RngSeed::Fixed(SEED)
    };
    Config {
        cases,
        rng_seed,
        max_shrink_iters: 4096,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regressions))),
        ..defaults
    }
}
