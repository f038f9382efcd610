//! The pipeline suite's requirement ids and their levels. Their texts are
//! SPEC.md's `## pipeline` section, which says for each whether it is the
//! seed's word or pi 0.85.0's code; 0.85.0's quirks (behaviour the seed
//! contradicts or does not mention, kept because the code is the
//! authority) are SHOULD, so that a runtime keeping the seed's word is
//! warned, not failed.

use toolgate_suite::Level;

pub const LOOKUP_01: &str = "PIPE-LOOKUP-01";
pub const LOOKUP_02: &str = "PIPE-LOOKUP-02";
pub const LOOKUP_03: &str = "PIPE-LOOKUP-03";
pub const PREP_01: &str = "PIPE-PREP-01";
pub const PREP_02: &str = "PIPE-PREP-02";
pub const PREP_03: &str = "PIPE-PREP-03";
pub const PREP_04: &str = "PIPE-PREP-04";
pub const VAL_01: &str = "PIPE-VAL-01";
pub const VAL_02: &str = "PIPE-VAL-02";
pub const VAL_03: &str = "PIPE-VAL-03";
pub const VAL_04: &str = "PIPE-VAL-04";
pub const VAL_05: &str = "PIPE-VAL-05";
pub const VAL_06: &str = "PIPE-VAL-06";
pub const VAL_07: &str = "PIPE-VAL-07";
pub const VAL_08: &str = "PIPE-VAL-08";
pub const VAL_09: &str = "PIPE-VAL-09";
pub const VAL_10: &str = "PIPE-VAL-10";
pub const HOOK_01: &str = "PIPE-HOOK-01";
pub const HOOK_02: &str = "PIPE-HOOK-02";
pub const HOOK_03: &str = "PIPE-HOOK-03";
pub const HOOK_04: &str = "PIPE-HOOK-04";
pub const HOOK_05: &str = "PIPE-HOOK-05";
pub const HOOK_06: &str = "PIPE-HOOK-06";
pub const HOOK_07: &str = "PIPE-HOOK-07";
pub const HOOK_08: &str = "PIPE-HOOK-08";
pub const HOOK_09: &str = "PIPE-HOOK-09";
pub const HOOK_10: &str = "PIPE-HOOK-10";
pub const ORDER_01: &str = "PIPE-ORDER-01";
pub const ORDER_02: &str = "PIPE-ORDER-02";
pub const ORDER_03: &str = "PIPE-ORDER-03";
pub const ORDER_04: &str = "PIPE-ORDER-04";
pub const ORDER_05: &str = "PIPE-ORDER-05";
pub const ORDER_06: &str = "PIPE-ORDER-06";
pub const ORDER_07: &str = "PIPE-ORDER-07";
pub const ORDER_08: &str = "PIPE-ORDER-08";
pub const ORDER_09: &str = "PIPE-ORDER-09";
pub const ORDER_10: &str = "PIPE-ORDER-10";
pub const ABORT_01: &str = "PIPE-ABORT-01";
pub const ABORT_02: &str = "PIPE-ABORT-02";
pub const ABORT_03: &str = "PIPE-ABORT-03";
pub const ABORT_04: &str = "PIPE-ABORT-04";
pub const ABORT_05: &str = "PIPE-ABORT-05";
pub const ABORT_06: &str = "PIPE-ABORT-06";
pub const ABORT_07: &str = "PIPE-ABORT-07";
pub const RESULT_01: &str = "PIPE-RESULT-01";
pub const RESULT_02: &str = "PIPE-RESULT-02";
pub const RESULT_03: &str = "PIPE-RESULT-03";
pub const RESULT_04: &str = "PIPE-RESULT-04";
pub const RESULT_05: &str = "PIPE-RESULT-05";
pub const RESULT_06: &str = "PIPE-RESULT-06";
pub const RESULT_07: &str = "PIPE-RESULT-07";
pub const RESULT_08: &str = "PIPE-RESULT-08";
pub const RESULT_09: &str = "PIPE-RESULT-09";
pub const TERM_01: &str = "PIPE-TERM-01";
pub const TERM_02: &str = "PIPE-TERM-02";
pub const TERM_03: &str = "PIPE-TERM-03";
pub const TERM_04: &str = "PIPE-TERM-04";
pub const STOP_01: &str = "PIPE-STOP-01";
pub const STOP_02: &str = "PIPE-STOP-02";
pub const STOP_03: &str = "PIPE-STOP-03";
pub const QUEUE_01: &str = "PIPE-QUEUE-01";
pub const QUEUE_02: &str = "PIPE-QUEUE-02";
pub const QUEUE_03: &str = "PIPE-QUEUE-03";
pub const QUEUE_04: &str = "PIPE-QUEUE-04";

use Level::{Must, Should};

/// Every requirement with its level, in SPEC.md's order.
pub const ALL: &[(&str, Level)] = &[
    (LOOKUP_01, Must),
    (LOOKUP_02, Must),
    (LOOKUP_03, Should),
    (PREP_01, Must),
    (PREP_02, Must),
    (PREP_03, Should),
    (PREP_04, Must),
    (VAL_01, Must),
    (VAL_02, Must),
    (VAL_03, Must),
    (VAL_04, Must),
    (VAL_05, Must),
    (VAL_06, Must),
    (VAL_07, Should),
    (VAL_08, Should),
    (VAL_09, Must),
    (VAL_10, Should),
    (HOOK_01, Must),
    (HOOK_02, Must),
    (HOOK_03, Must),
    (HOOK_04, Should),
    (HOOK_05, Should),
    (HOOK_06, Must),
    (HOOK_07, Must),
    (HOOK_08, Should),
    (HOOK_09, Must),
    (HOOK_10, Should),
    (ORDER_01, Must),
    (ORDER_02, Must),
    (ORDER_03, Must),
    (ORDER_04, Must),
    (ORDER_05, Must),
    (ORDER_06, Must),
    (ORDER_07, Must),
    (ORDER_08, Must),
    (ORDER_09, Should),
    (ORDER_10, Should),
    (ABORT_01, Must),
    (ABORT_02, Should),
    (ABORT_03, Should),
    (ABORT_04, Must),
    (ABORT_05, Must),
    (ABORT_06, Must),
    (ABORT_07, Should),
    (RESULT_01, Must),
    (RESULT_02, Must),
    (RESULT_03, Should),
    (RESULT_04, Should),
    (RESULT_05, Must),
    (RESULT_06, Must),
    (RESULT_07, Must),
    (RESULT_08, Should),
    (RESULT_09, Should),
    (TERM_01, Must),
    (TERM_02, Must),
    (TERM_03, Should),
    (TERM_04, Should),
    (STOP_01, Must),
    (STOP_02, Must),
    (STOP_03, Must),
    (QUEUE_01, Must),
    (QUEUE_02, Must),
    (QUEUE_03, Should),
    (QUEUE_04, Should),
];

/// The level of `id` (an unknown id weighs as a MUST).
pub fn level(id: &str) -> Level {
    ALL.iter()
        .find(|(r, _)| *r == id)
        .map_or(Level::Must, |(_, l)| *l)
}
