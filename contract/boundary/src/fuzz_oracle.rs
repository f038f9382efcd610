//! The boundary suite's fuzz oracle: the fuzzer's bytes (or a scenario in
//! JSON) through the suite's generator and properties, panicking on a bug,
//! as `toolgate_suite::fuzzing` says. The fuzz target in `fuzz/` is one
//! call; `tests/fuzz_oracle.rs` replays it on seeded bytes, the seed corpus
//! and the committed regressions.

// An oracle reports a bug by panicking: that is the fuzzing protocol.
#![allow(clippy::panic)]

use serde_json::Value as Json;
use toolgate_suite::fuzzing::{pick, suite_target, Mutants, Size, Verdict};

/// The boundary target: a boundary scenario (JSON, or built by
/// `boundary::generate` from the bytes) keeps every property of
/// `boundary::properties::check`: the reference observes it within its
/// schema, passes its own judge, keeps the boundary's shape, and the judge
/// catches every observation mutant that fits it. A generated scenario
/// that does not decode is a generator bug; a JSON one is skipped.
pub fn boundary(data: &[u8]) -> Verdict {
    target(data, Size::Hostile, Mutants::Every)
}

/// The fast boundary target: [`boundary`] with values at their ordinary
/// sizes ([`Size::Small`]; a JSON scenario holding a larger one is
/// skipped) and one observation mutant per input, the input choosing it.
pub fn boundary_fast(data: &[u8]) -> Verdict {
    target(data, Size::Small, Mutants::OneFrom(pick(data)))
}

fn target(data: &[u8], size: Size, mutants: Mutants) -> Verdict {
    use crate::{generate, properties, translate, BoundaryScenario};
    suite_target(
        data,
        "not a boundary scenario",
        |scenario: &BoundaryScenario| {
            if translate::decode(scenario).is_err() {
                return Err("a malformed boundary scenario");
            }
            if too_large_to_fuzz(&serde_json::to_value(scenario).unwrap_or(Json::Null), size) {
                return Err("a value family too large to fuzz quickly");
            }
            Ok(())
        },
        |data| generate::scenario_of_size(data, size),
        |scenario| properties::check_with(scenario, mutants),
    )
}

/// Whether a boundary scenario holds a value family larger than the
/// generator makes at `size` (at every size: 100,000 keys or levels,
/// 1,000,000 code units; small: 300 keys, 200 levels, 5,000 code units):
/// the corpus runs the 10^6-key cases; the
/// fuzzer, mutating a seed's sizes, would spend seconds per input on them
/// and find nothing new.
pub fn too_large_to_fuzz(scenario: &Json, size: Size) -> bool {
    let (keys, depth, length) = match size {
        Size::Hostile => (100_000, 100_000, 1_000_000),
        Size::Small => (300, 200, 5_000),
    };
    let mut open = vec![scenario];
    while let Some(v) = open.pop() {
        match v {
            Json::Array(items) => open.extend(items),
            Json::Object(o) => {
                let over = |key: &str, most: u64| {
                    o.get(key).and_then(Json::as_u64).is_some_and(|n| n > most)
                };
                if o.contains_key("$")
                    && (over("keys", keys) || over("depth", depth) || over("length", length))
                {
                    return true;
                }
                open.extend(o.values());
            }
            _ => {}
        }
    }
    false
}
