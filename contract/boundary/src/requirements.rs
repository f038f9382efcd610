//! The boundary suite's requirement ids and their levels. Their texts are
//! SPEC.md's `## boundary` section; `contract/boundary/tests/boundary.rs` checks the
//! two agree.

use toolgate_suite::Level;

pub const LINK_01: &str = "BOUNDARY-LINK-01";
pub const RUN_01: &str = "BOUNDARY-RUN-01";
pub const UNK_01: &str = "BOUNDARY-UNK-01";
pub const VAL_01: &str = "BOUNDARY-VAL-01";
pub const ERR_01: &str = "BOUNDARY-ERR-01";
pub const TURN_01: &str = "BOUNDARY-TURN-01";
pub const OUT_01: &str = "BOUNDARY-OUT-01";
pub const CAN_01: &str = "BOUNDARY-CAN-01";
pub const PROC_01: &str = "BOUNDARY-PROC-01";
pub const FLAG_01: &str = "BOUNDARY-FLAG-01";
pub const SIZE_01: &str = "BOUNDARY-SIZE-01";
pub const ARGS_01: &str = "BOUNDARY-ARGS-01";
pub const CAN_02: &str = "BOUNDARY-CAN-02";
pub const CAN_03: &str = "BOUNDARY-CAN-03";
pub const DUP_01: &str = "BOUNDARY-DUP-01";
pub const TIME_01: &str = "BOUNDARY-TIME-01";

/// Every requirement with its level, in SPEC.md's order.
pub const ALL: &[(&str, Level)] = &[
    (LINK_01, Level::Must),
    (RUN_01, Level::Must),
    (UNK_01, Level::Must),
    (VAL_01, Level::Must),
    (ERR_01, Level::Must),
    (TURN_01, Level::Must),
    (OUT_01, Level::Must),
    (CAN_01, Level::Must),
    (PROC_01, Level::Must),
    (FLAG_01, Level::Should),
    (SIZE_01, Level::Should),
    (ARGS_01, Level::Should),
    (CAN_02, Level::Should),
    (CAN_03, Level::Should),
    (DUP_01, Level::Should),
    (TIME_01, Level::Should),
];

/// The level of `id` (an unknown id weighs as a MUST).
pub fn level(id: &str) -> Level {
    ALL.iter()
        .find(|(r, _)| *r == id)
        .map_or(Level::Must, |(_, l)| *l)
}
