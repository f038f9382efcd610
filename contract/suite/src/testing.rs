//! For the unit tests of this crate and of the suites built on it: a
//! seeded generator and the characters whose UTF-16 and UTF-8 orders
//! disagree.

/// xorshift64*: deterministic inputs without a dependency; the closure
/// returns a number below its bound.
pub fn rng(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed | 1;
    move |bound| {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % bound.max(1)
    }
}

/// ASCII, two- and three-byte UTF-8, the high BMP (which sorts after astral
/// characters in UTF-16, before them in UTF-8) and astral characters, two
/// sharing their high surrogate.
pub const ORDER_CHARS: [char; 9] = [
    'a',
    'b',
    'é',
    '€',
    '\u{E000}',
    '\u{FFFF}',
    '😀',
    '😁',
    '\u{10FFFF}',
];
