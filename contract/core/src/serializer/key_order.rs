//! The order of an object's kept keys: stable, by UTF-16 code units,
//! compared over at most a limit of units (ties keep their original order).
//!
//! Keys may share long prefixes (up to the limit, 8194 units), so a sort
//! that compares whole keys pair by pair reads the shared prefix again at
//! every comparison: 256 keys equal over 8190 units cost about 2000
//! comparisons of 8190 units each. The sort here is an LCP merge sort
//! (iterative, so no recursion): every item carries the length of its
//! longest common prefix with the item written before it, two items are
//! told apart from those lengths when they differ, and when they are equal
//! the keys are compared from there on, never from their start.

use crate::js_string::{StrRef, UnitCursor};
use std::cmp::Ordering;

/// An item of a run: a key's position and where it stops agreeing with the
/// item before it in its run (the first item of a run: with the empty
/// string, so at 0).
#[derive(Debug, Clone, Copy)]
struct Item {
    index: usize,
    lcp: UnitCursor,
}

/// Work done by [`sorted_order`]: the serializer counts a step for each
/// merge decision and each code unit pair examined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct SortWork {
    pub decisions: u64,
    pub examined: u64,
}

/// The stable order of the `n` keys `key(0..n)` by UTF-16 code units over
/// at most `limit` units each, and the work it took.
///
/// The bound on that work, whatever the keys (the test below checks it
/// on adversarial inputs):
/// - merge decisions: at most `n * ceil(log2 n)`. A merge of `p + q` items
///   makes at most `p + q - 1`, and each item takes part in at most
///   `ceil(log2 n)` merges: `j` while its run grows to `2^j` items; then the
///   runs left, of distinct lengths `2^j1 > 2^j2 > ... > 2^jm`, join from the
///   shortest, so an item of the `i`-th longest takes part in at most `i`
///   more (`m - 1` for the shortest), and `ji + i <= j1 + 1 <= ceil(log2 n)`
///   when `m > 1` (when `m = 1`, `n = 2^j1`);
/// - code unit pairs: a decision between two items whose common prefixes
///   with the last item written have different lengths reads no key (the
///   one that agrees longer comes first, and the other's common prefix with
///   it is its own). When they are equal, say `h`, the keys are compared
///   from unit `h` to their first difference `k`: `k - h` equal pairs and
///   at most one unequal pair. The item written second then records `k`,
///   so each equal pair raises some item's common prefix by one. An item's
///   common prefix never falls (it only changes when the item is written
///   second, from `h` to `k`; runs start at 0 and their first item is the
///   first written, keeping 0), and it ends as the common prefix with the
///   item before it in the final order, at most `limit`, and 0 for the
///   first. So the equal pairs total at most `D`, the sum over the final
///   order of each key's common prefix with the one before it (capped at
///   `limit`), which is at most `(n - 1) * limit`, and the unequal pairs at
///   most one per decision.
///
/// In all, at most `2 * n * ceil(log2 n) + D` steps, so at most
/// `2 * n * ceil(log2 n) + (n - 1) * limit`. `D` is what any exact sort
/// must read anyway: a key's place among keys that agree with it over `d`
/// units is not known before its first `d` units are read.
///
/// Memory: `n` items (a position and a cursor) and as many again to merge
/// into, in `scratch` (kept by the walk and reused by every object, since
/// an object's keys are sorted before any of its values is written), and
/// the order returned.
pub(super) fn sorted_order<'k>(
    scratch: &mut SortScratch,
    n: usize,
    limit: usize,
    key: impl Fn(usize) -> StrRef<'k>,
) -> (Vec<usize>, SortWork) {
    let SortScratch { items, merged } = scratch;
    merged.clear();
    merged.reserve(n);
    items.clear();
    items.extend((0..n).map(|index| Item {
        index,
        lcp: UnitCursor::default(),
    }));
    let mut work = SortWork::default();
    // sorted runs, as lengths of consecutive slices of `items`, merged as a
    // binary counter: a run joins the one before it when they are the same
    // length, and the runs left at the end join from the shortest (so at
    // most one run per bit of `n` is waiting, and the lengths fit on the
    // stack). For 2^k keys these are the merges of a top-down merge sort, in
    // its depth-first order, where the right run's first key was read by
    // the merge just before: measured about 15% faster here than merging
    // level by level on 256 keys sharing 8190 units (cache, presumably)
    let mut runs = [0usize; usize::BITS as usize + 1];
    let mut waiting = 0;
    for end in 1..=n {
        if let Some(run) = runs.get_mut(waiting) {
            *run = 1;
            waiting += 1;
        }
        while let Some(&[left, right]) = runs.get(waiting.wrapping_sub(2)..waiting) {
            if left != right && end < n {
                break;
            }
            waiting -= 1;
            if let Some(run) = runs.get_mut(waiting - 1) {
                *run = left + right;
            }
            let start = end - left - right;
            if let Some(slice) = items.get_mut(start..end) {
                merged.clear();
                if let Some((l, r)) = slice.split_at_checked(left) {
                    merge(l, r, merged, limit, &key, &mut work);
                    slice.copy_from_slice(merged);
                }
            }
        }
    }
    (items.iter().map(|item| item.index).collect(), work)
}

/// The sort's two arrays, kept between sorts.
#[derive(Debug, Default)]
pub(super) struct SortScratch {
    items: Vec<Item>,
    merged: Vec<Item>,
}

/// Merges two sorted runs into `out`, `left`'s items first among equals.
/// The items of `out` keep the run invariant: each one's common prefix is
/// with the item before it in `out`.
fn merge<'k>(
    left: &[Item],
    right: &[Item],
    out: &mut Vec<Item>,
    limit: usize,
    key: &impl Fn(usize) -> StrRef<'k>,
    work: &mut SortWork,
) {
    let (mut i, mut j) = (0, 0);
    // the common prefixes of `left[i]` and `right[j]` with the last item
    // written to `out` in this merge (with the empty string before the first)
    let mut a_lcp = left.first().map(|a| a.lcp).unwrap_or_default();
    let mut b_lcp = right.first().map(|b| b.lcp).unwrap_or_default();
    while let (Some(a), Some(b)) = (left.get(i), right.get(j)) {
        work.decisions += 1;
        let left_first = match a_lcp.units.cmp(&b_lcp.units) {
            // `a` agrees longer with the last item written: `b` is greater
            // than it where it stops agreeing, and `a` is not
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => {
                let found = key(a.index).cmp_utf16_from(a_lcp, key(b.index), b_lcp, limit);
                work.examined += found.examined as u64;
                if found.order == Ordering::Greater {
                    a_lcp = found.common;
                    false
                } else {
                    b_lcp = found.other_common;
                    true
                }
            }
        };
        // the one not written keeps a common prefix with the one written:
        // the one it had with the item before (when the prefixes differed),
        // or the one just found; the next item of the run written has its
        // common prefix with the item before it, the one just written
        if left_first {
            out.push(Item {
                index: a.index,
                lcp: a_lcp,
            });
            i += 1;
            a_lcp = left.get(i).map(|a| a.lcp).unwrap_or_default();
        } else {
            out.push(Item {
                index: b.index,
                lcp: b_lcp,
            });
            j += 1;
            b_lcp = right.get(j).map(|b| b.lcp).unwrap_or_default();
        }
    }
    // what is left of one run, its first item's common prefix as found
    for (rest, lcp, at) in [(left, a_lcp, i), (right, b_lcp, j)] {
        if let Some(first) = rest.get(at) {
            out.push(Item {
                index: first.index,
                lcp,
            });
            out.extend_from_slice(rest.get(at + 1..).unwrap_or_default());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_suite::testing::rng;

    /// Most merge decisions for `n` items: `n * ceil(log2 n)`.
    fn decision_bound(n: usize) -> u64 {
        (n * n.next_power_of_two().trailing_zeros() as usize) as u64
    }

    /// The reference: the standard stable sort by the pairwise comparison,
    /// and `D`, the sum of each key's common prefix with the one before it
    /// in that order (capped at `limit`).
    fn reference(keys: &[StrRef<'_>], limit: usize) -> (Vec<usize>, u64) {
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by(|&x, &y| keys[x].cmp_utf16_prefix(keys[y], limit).0);
        let units = |k: StrRef<'_>| -> Vec<u16> {
            match k {
                StrRef::Utf8(s) => s.encode_utf16().collect(),
                StrRef::Utf16(u) => u.to_vec(),
            }
        };
        let d = order
            .windows(2)
            .map(|w| {
                let (a, b) = (units(keys[w[0]]), units(keys[w[1]]));
                a.iter()
                    .zip(&b)
                    .take(limit)
                    .take_while(|(x, y)| x == y)
                    .count() as u64
            })
            .sum();
        (order, d)
    }

    /// Sorts `keys` both ways, checks the order and the bounds on the work,
    /// and returns the steps taken.
    fn check(keys: &[StrRef<'_>], limit: usize, label: &str) -> u64 {
        let n = keys.len();
        // one scratch for every sort of the thread, as the walk reuses it
        thread_local! {
            static SCRATCH: std::cell::RefCell<SortScratch> = Default::default();
        }
        let (order, work) =
            SCRATCH.with(|s| sorted_order(&mut s.borrow_mut(), n, limit, |i| keys[i]));
        let (expect, d) = reference(keys, limit);
        assert_eq!(order, expect, "{label}: order");
        assert!(
            work.decisions <= decision_bound(n),
            "{label}: {} decisions > {}",
            work.decisions,
            decision_bound(n)
        );
        assert!(
            work.examined <= work.decisions + d,
            "{label}: {} pairs examined > {} decisions + D = {d}",
            work.examined,
            work.decisions
        );
        let steps = work.decisions + work.examined;
        let worst = (2 * decision_bound(n))
            .saturating_add(n.saturating_sub(1).saturating_mul(limit) as u64);
        assert!(steps <= worst, "{label}: {steps} > {worst}");
        steps
    }

    fn units(keys: &[Vec<u16>]) -> Vec<StrRef<'_>> {
        keys.iter().map(|k| StrRef::Utf16(k)).collect()
    }

    fn texts(keys: &[String]) -> Vec<StrRef<'_>> {
        keys.iter().map(|k| StrRef::Utf8(k)).collect()
    }

    #[test]
    fn the_decision_bound_fits_max_sort_decisions() {
        use super::super::{KEY_COMPARE_UNITS, MAX_SORT_DECISIONS};
        use crate::constants::MAX_ENTRIES;
        assert_eq!(decision_bound(256), 2048);
        assert_eq!(decision_bound(MAX_ENTRIES), MAX_SORT_DECISIONS as u64);
        // superadditive: objects sharing the 256 kept entries make no more
        // decisions than one object holding them all
        for a in 0..=MAX_ENTRIES {
            for b in 0..=MAX_ENTRIES - a {
                assert!(decision_bound(a) + decision_bound(b) <= decision_bound(a + b));
            }
        }
        assert_eq!(KEY_COMPARE_UNITS, 8194);
        // 2 * 2048 decisions and unequal pairs, 255 * 8194 equal pairs, and
        // 12,288 for the rest of the walk
        assert_eq!(super::super::MAX_STEPS, 2_105_854);
    }

    #[test]
    fn decisions_stay_within_n_log_n_for_every_n() {
        let mut r = rng(3);
        for n in 0..=256usize {
            // distinct keys, shuffled and in bit-reversed order (every merge
            // then interleaves its two runs to the end)
            let bits = n.next_power_of_two().trailing_zeros();
            let reversed: Vec<usize> = (0..n.next_power_of_two())
                .map(|i| i.reverse_bits() >> (usize::BITS - bits).min(usize::BITS - 1))
                .filter(|&i| i < n)
                .collect();
            let mut shuffled: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                shuffled.swap(i, r(i + 1));
            }
            for order in [reversed, shuffled] {
                let keys: Vec<Vec<u16>> = order.iter().map(|&i| vec![0x41, i as u16]).collect();
                check(&units(&keys), usize::MAX, &format!("{n} keys"));
            }
        }
    }

    #[test]
    fn small_keys_sort_stably_by_code_units() {
        let mut r = rng(5);
        for round in 0..600 {
            let n = [0, 1, 2, 3, 5, 17, 100, 255, 256][round % 9];
            // few distinct keys over a small alphabet, so that ties, shared
            // prefixes and prefixes of each other all show
            let alphabet = [0x61u16, 0x62, 0xE9, 0xFFFF, 0xD83D, 0xDE00, 0xDBFF];
            let keys: Vec<Vec<u16>> = (0..n)
                .map(|_| {
                    (0..r(4))
                        .map(|_| alphabet[r(1 + round % alphabet.len())])
                        .collect()
                })
                .collect();
            for limit in [0, 1, 2, 3, usize::MAX] {
                check(
                    &units(&keys),
                    limit,
                    &format!("round {round} limit {limit}"),
                );
            }
        }
    }

    #[test]
    fn utf8_and_mixed_keys_sort_like_their_units() {
        // astral characters sort before U+E000..U+FFFF in UTF-16, after
        // them in UTF-8; pairs sharing their high surrogate differ in the
        // low one; the limit falls between the halves of a pair
        let chars = toolgate_suite::testing::ORDER_CHARS;
        let mut r = rng(7);
        for round in 0..400 {
            let n = [2, 3, 17, 64, 256][round % 5];
            let shared: String = (0..[0, 3, 40, 1100][round % 4])
                .map(|_| chars[r(chars.len())])
                .collect();
            let keys: Vec<String> = (0..n)
                .map(|_| {
                    let mut k = shared.clone();
                    k.extend((0..r(5)).map(|_| chars[r(1 + round % chars.len())]));
                    k
                })
                .collect();
            let as_units: Vec<Vec<u16>> = keys.iter().map(|k| k.encode_utf16().collect()).collect();
            for limit in [0, 1, 2, 7, 41, 42, 1000, 1101, 8194] {
                let label = format!("round {round} limit {limit}");
                check(&texts(&keys), limit, &label);
                // the same keys as UTF-16, and half of them so (a source may
                // answer either)
                check(&units(&as_units), limit, &label);
                let mixed: Vec<StrRef<'_>> = (0..n)
                    .map(|i| {
                        if i % 2 == 0 {
                            StrRef::Utf8(&keys[i])
                        } else {
                            StrRef::Utf16(&as_units[i])
                        }
                    })
                    .collect();
                check(&mixed, limit, &label);
            }
        }
    }

    #[test]
    fn long_shared_prefixes_cost_the_prefix_once_per_key() {
        const LIMIT: usize = 8194;
        let mut r = rng(11);
        let mut cases: Vec<(String, Vec<Vec<u16>>)> = Vec::new();
        let index_key = |prefix: &[u16], i: usize, tail: usize| {
            let mut k = prefix.to_vec();
            k.extend(format!("{i:04}").encode_utf16());
            k.extend(std::iter::repeat_n(0x7A, tail));
            k
        };
        for &prefix_len in &[100, 8000, 8190, 8193, 8194, 10_000] {
            let prefix = vec![0x78u16; prefix_len];
            let shuffled = |r: &mut dyn FnMut(usize) -> usize| {
                let mut v: Vec<usize> = (0..256).collect();
                for i in (1..v.len()).rev() {
                    v.swap(i, r(i + 1));
                }
                v
            };
            let orders: [(&str, Vec<usize>); 4] = [
                ("ascending", (0..256).collect()),
                ("descending", (0..256).rev().collect()),
                ("shuffled", shuffled(&mut r)),
                ("few distinct", (0..256).map(|i| i % 3).collect()),
            ];
            for (name, order) in orders {
                let keys = order.iter().map(|&i| index_key(&prefix, i, 5)).collect();
                cases.push((format!("{name} over {prefix_len}"), keys));
            }
            // all equal (over the limit when the prefix reaches it)
            cases.push((
                format!("all equal over {prefix_len}"),
                vec![prefix.clone(); 256],
            ));
            // prefixes of each other: key i is the first prefix_len - i units
            cases.push((
                format!("nested prefixes of {prefix_len}"),
                (0..256)
                    .map(|i| prefix[..prefix_len.saturating_sub(i)].to_vec())
                    .collect(),
            ));
        }
        // one key per length, shuffled, each a prefix of the next: every
        // comparison finds a different common prefix
        let mut lengths: Vec<usize> = (0..256).map(|i| i * 32).collect();
        for i in (1..lengths.len()).rev() {
            lengths.swap(i, r(i + 1));
        }
        cases.push((
            "shuffled prefix chain".to_string(),
            lengths.iter().map(|&l| vec![0x61u16; l]).collect(),
        ));
        for (label, keys) in &cases {
            let steps = check(&units(keys), LIMIT, label);
            // the old binary insertion read about 2000 comparisons' worth of
            // the shared prefix; this reads it about once per key
            let longest = keys.iter().map(Vec::len).max().unwrap_or(0).min(LIMIT);
            assert!(
                steps <= 2 * decision_bound(256) + 255 * longest as u64,
                "{label}: {steps}"
            );
        }
        // the same in UTF-8, characters of every width
        let widths: String = ['a', 'é', '€', '😀'].iter().cycle().take(3300).collect();
        let keys: Vec<String> = (0..256)
            .map(|i| format!("{widths}{:04}", (i * 7) % 256))
            .collect();
        let steps = check(&texts(&keys), LIMIT, "utf-8 shared prefix");
        let prefix_units = widths.encode_utf16().count() as u64;
        assert!(steps <= 2 * decision_bound(256) + 255 * (prefix_units + 4));
        let equal: Vec<String> = vec![widths.repeat(3); 256];
        check(&texts(&equal), LIMIT, "utf-8 all equal over the limit");
    }
}
