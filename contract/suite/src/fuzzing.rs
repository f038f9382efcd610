//! The shape every suite's fuzz target shares: a [`Verdict`] per input, the
//! size above which an input is not looked at, and [`suite_target`], which
//! reads JSON as a scenario of the suite and any other bytes through the
//! suite's generator, then holds the suite's properties on it.
//!
//! A suite may have two targets over one oracle. The full one
//! (`boundary`) draws every value family at every size ([`Size::Hostile`])
//! and tries every observation mutant on each input ([`Mutants::Every`]):
//! the rare 10^5-deep value or a judge run per mutant sets its pace (tens
//! to hundreds of inputs a second). The fast one (`boundary_fast`) keeps
//! values at their ordinary sizes ([`Size::Small`]) and tries one mutant
//! per input, the input choosing which ([`Mutants::OneFrom`], [`pick`]),
//! so that over many inputs every mutant is tried at about the cost of one.
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

/// How large a generator lets its value families grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// Every family at every size, up to what a serializer's recursion or
    /// a result budget does not survive (the full targets, the property
    /// tests, `toolgate run --generate`).
    Hostile,
    /// Every family at its ordinary and large sizes, not the extreme ones
    /// (the fast targets).
    Small,
}

/// Which of a suite's observation mutants a property check tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutants {
    /// Every one that fits (the property tests, the corpus, the full
    /// targets).
    Every,
    /// The first that fits, going round from the one at this index (taken
    /// modulo their number): a fast target's, whose input picks it.
    OneFrom(usize),
}

impl Mutants {
    /// Runs `try_one` on the indices of `count` mutants in this choice's
    /// order until one fits (`try_one` answers `Ok(true)`) under
    /// [`Mutants::OneFrom`], on all of them under [`Mutants::Every`]; the
    /// first error ends it.
    pub fn each(
        self,
        count: usize,
        mut try_one: impl FnMut(usize) -> Result<bool, String>,
    ) -> Result<(), String> {
        match self {
            Mutants::Every => {
                for i in 0..count {
                    try_one(i)?;
                }
            }
            Mutants::OneFrom(start) => {
                for k in 0..count {
                    if try_one((start + k) % count)? {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

/// What a fast target relies on, checked on `scenarios` (named): for each
/// scenario the full check passes, the one-mutant check from every
/// starting point below `count` tries at most one mutant, tries one
/// exactly when the full check tried any, and together they try exactly
/// the full check's mutants. `check` answers the mutants a check tried.
/// Returns how many scenarios were checked; the error names the scenario
/// and what failed.
pub fn one_mutant_reaches_every_mutant<S>(
    scenarios: impl IntoIterator<Item = (String, S)>,
    count: usize,
    check: impl Fn(&S, Mutants) -> Result<Vec<&'static str>, String>,
) -> Result<usize, String> {
    use std::collections::BTreeSet;
    let mut checked = 0;
    for (name, scenario) in scenarios {
        let Ok(full) = check(&scenario, Mutants::Every) else {
            continue;
        };
        let full: BTreeSet<&str> = full.into_iter().collect();
        let mut union = BTreeSet::new();
        for start in 0..count {
            let one =
                check(&scenario, Mutants::OneFrom(start)).map_err(|e| format!("{name}: {e}"))?;
            if one.len() > 1 || one.is_empty() != full.is_empty() {
                return Err(format!(
                    "{name}: from {start}, the one-mutant check tried {one:?}; the full check {full:?}"
                ));
            }
            union.extend(one);
        }
        if union != full {
            return Err(format!(
                "{name}: the one-mutant checks tried {union:?}, the full check {full:?}"
            ));
        }
        checked += 1;
    }
    Ok(checked)
}

/// The mutant a fast target starts from for `data`: a hash of the whole
/// input (FNV-1a), so that a change anywhere in it may move to another
/// mutant and the inputs start from every one alike.
pub fn pick(data: &[u8]) -> usize {
    let hash = data.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    });
    // the low bits are enough to choose among a few dozen mutants
    (hash & 0xffff) as usize
}

/// The shape of a suite's target: input that starts as JSON is a scenario
/// of the suite (skipped when it does not decode, or `usable` refuses it);
/// any other bytes go to the suite's generator; then every property of
/// the suite's `check` must hold (a broken one panics, as libFuzzer wants).
pub fn suite_target<S: serde::de::DeserializeOwned, Covered>(
    data: &[u8],
    not_a_scenario: &'static str,
    usable: impl Fn(&S) -> Result<(), &'static str>,
    generate: impl Fn(&[u8]) -> S,
    check: impl Fn(&S) -> Result<Covered, String>,
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

#[cfg(test)]
mod tests {
    use super::{pick, Mutants};

    /// The indices `each` tries, stopping where `fits` says one fits.
    fn tried(choice: Mutants, count: usize, fits: &[usize]) -> Vec<usize> {
        let mut seen = Vec::new();
        let done = choice.each(count, |i| {
            seen.push(i);
            Ok(fits.contains(&i))
        });
        assert_eq!(done, Ok(()));
        seen
    }

    #[test]
    fn every_tries_all_and_one_from_stops_at_the_first_that_fits() {
        assert_eq!(tried(Mutants::Every, 4, &[1]), vec![0, 1, 2, 3]);
        // from 2 (6 mod 4), round to the first that fits
        assert_eq!(tried(Mutants::OneFrom(6), 4, &[1]), vec![2, 3, 0, 1]);
        assert_eq!(tried(Mutants::OneFrom(1), 4, &[1, 2]), vec![1]);
        // none fits: each is tried once
        assert_eq!(tried(Mutants::OneFrom(3), 3, &[]), vec![0, 1, 2]);
        assert_eq!(tried(Mutants::OneFrom(3), 0, &[]), Vec::<usize>::new());
    }

    #[test]
    fn an_error_ends_the_round() {
        let mut seen = 0;
        let done = Mutants::Every.each(5, |i| {
            seen += 1;
            if i == 2 {
                Err("broken".to_string())
            } else {
                Ok(false)
            }
        });
        assert_eq!(done, Err("broken".to_string()));
        assert_eq!(seen, 3);
    }

    #[test]
    fn inputs_pick_every_mutant_of_57_alike() {
        let mut hits = [0u32; 57];
        for n in 0u32..57_000 {
            if let Some(h) = hits.get_mut(pick(&n.to_le_bytes()) % 57) {
                *h += 1;
            }
        }
        // 1,000 each on average; a constant or clustered pick fails
        assert!(hits.iter().all(|h| (800..1200).contains(h)), "{hits:?}");
    }
}
