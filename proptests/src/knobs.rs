//! How many cases the property tests run: a default that keeps CI fast, and
//! `TOOLGATE_PROPTEST_SCALE` (a multiplier, e.g. 100 for nightly runs) to go
//! further. `PROPTEST_CASES`, when set, still wins, as proptest users expect.

use proptest::test_runner::{Config, FileFailurePersistence};

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
    Config {
        cases,
        max_shrink_iters: 4096,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regressions))),
        ..Config::default()
    }
}
