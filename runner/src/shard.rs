//! `--shard I/N`: the stable part of a run one machine takes. A case
//! belongs to a shard by its id alone (a digest of the id, modulo N), so a
//! shard's cases, generated ones included, do not depend on which other
//! cases the run has, and N shards together hold every case once.

use crate::Error;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (1-based, as written on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Whether the case `id` is this shard's.
    pub fn keeps(&self, id: &str) -> bool {
        of(id, self.count) == self.index - 1
    }
}

/// The 0-based shard of `id` among `count`: the first eight bytes of the
/// id's SHA-256, modulo `count`. A digest rather than a position so that a
/// shard's cases stay its own when cases are added elsewhere; SHA-256
/// rather than a std hasher because std's hashes may change between Rust
/// releases, and shards of one run may be built by different toolchains.
pub fn of(id: &str, count: u32) -> u32 {
    let digest = Sha256::digest(id.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(digest.get(..8).unwrap_or(&[0; 8]));
    (u64::from_be_bytes(first) % u64::from(count.max(1))) as u32
}

impl FromStr for Shard {
    type Err = Error;

    fn from_str(text: &str) -> Result<Shard, Error> {
        let wrong = |why: &str| Error::usage(format!("--shard {text:?}: {why}"));
        let (index, count) = text
            .split_once('/')
            .ok_or_else(|| wrong("write it I/N, e.g. 2/4 for the second of four shards"))?;
        let number = |part: &str, what: &str| {
            part.trim()
                .parse::<u32>()
                .map_err(|_| wrong(&format!("{what} {part:?} is not a whole number")))
        };
        let (index, count) = (number(index, "the shard")?, number(count, "the count")?);
        if count == 0 {
            return Err(wrong("a run has at least one shard"));
        }
        if index == 0 || index > count {
            return Err(wrong(&format!(
                "shards are numbered from 1 to {count}, so {index} is none of them"
            )));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, parsed: Result<(u32, u32), &str>) {
        match (text.parse::<Shard>(), parsed) {
            (Ok(shard), Ok((index, count))) => {
                assert_eq!((shard.index, shard.count), (index, count), "{text}");
                assert_eq!(shard.to_string(), format!("{index}/{count}"));
            }
            (Err(e), Err(words)) => assert!(e.to_string().contains(words), "{text}: {e}"),
            (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn a_shard_is_written_i_of_n_and_nothing_else_is_one() {
        check("1/1", Ok((1, 1)));
        check("2/4", Ok((2, 4)));
        check("3/2", Err("numbered from 1 to 2, so 3 is none"));
        check("0/4", Err("numbered from 1 to 4, so 0 is none"));
        check("1/0", Err("at least one shard"));
        check("2", Err("write it I/N"));
        check("a/4", Err("\"a\" is not a whole number"));
        check("1/-4", Err("\"-4\" is not a whole number"));
    }

    #[test]
    fn every_id_is_in_exactly_one_shard_and_the_shards_share_the_cases() {
        let ids: Vec<String> = (0..2_000).map(|i| format!("generated/7-{i}")).collect();
        for count in [1u32, 2, 3, 7] {
            let shards: Vec<Shard> = (1..=count).map(|index| Shard { index, count }).collect();
            let mut sizes = vec![0usize; count as usize];
            for id in &ids {
                let holders: Vec<&Shard> = shards.iter().filter(|s| s.keeps(id)).collect();
                assert_eq!(holders.len(), 1, "{id} among {count}");
                sizes[holders[0].index as usize - 1] += 1;
            }
            // a digest spreads the ids: no shard holds less than half its share
            let share = ids.len() / count as usize;
            assert!(sizes.iter().all(|&n| n * 2 > share), "{count}: {sizes:?}");
        }
        // the shard of an id is fixed: a change of digest or of byte order
        // would move cases between the shards of runs already split
        assert_eq!(of("calls/unknown-tool", 4), of("calls/unknown-tool", 4));
        assert_eq!(
            [
                "calls/unknown-tool",
                "generated/7-1",
                "generated-boundary/7-1"
            ]
            .map(|id| of(id, 5)),
            [PINNED[0], PINNED[1], PINNED[2]]
        );
    }

    const PINNED: [u32; 3] = [2, 0, 2];
}
