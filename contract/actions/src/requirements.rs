//! The `ACT-*` requirement ids of SPEC.md's `actions` section. Every one is
//! a MUST: the seed's contract has no advisory part.

use toolgate_suite::Level;

/// Every requirement of the suite, in SPEC.md's order.
pub const ALL: [&str; 27] = [
    "ACT-JSON-01",
    "ACT-JSON-02",
    "ACT-JSON-03",
    "ACT-JSON-04",
    "ACT-SHAPE-01",
    "ACT-SHAPE-02",
    "ACT-SHAPE-03",
    "ACT-TYPE-01",
    "ACT-TYPE-02",
    "ACT-TYPE-03",
    "ACT-TYPE-04",
    "ACT-AUTH-01",
    "ACT-AUTH-02",
    "ACT-AUTH-03",
    "ACT-AUTH-04",
    "ACT-AUTH-05",
    "ACT-AUTH-06",
    "ACT-AUTH-07",
    "ACT-BUDGET-01",
    "ACT-EFFECT-01",
    "ACT-EFFECT-02",
    "ACT-EFFECT-03",
    "ACT-EFFECT-04",
    "ACT-TOOL-01",
    "ACT-DATA-01",
    "ACT-STATUS-01",
    "ACT-CONC-01",
];

/// The level of `requirement`.
pub fn level(_requirement: &str) -> Level {
    Level::Must
}
