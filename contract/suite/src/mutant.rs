//! Deliberate breakages of observations, as data: how every suite's judge
//! is itself tested. A suite's mutant takes the reference's observation of
//! a scenario and breaks it as an implementation would (a result lost, a
//! refused call run, a failure read as a success...); [`Expect`] is what
//! the judge must name for it, and its suite's properties hold the judge to
//! that on every corpus, generated and fuzzed scenario the mutant fits.

use crate::Violation;
use std::collections::BTreeSet;

/// What a judge must name for a mutant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// These requirements and no other (a difference no predicate names
    /// counts as another).
    Exactly(&'static [&'static str]),
    /// Every one of these, maybe among others (an attribution: a rejection
    /// charged to the call that caused it names that call's requirement
    /// and the turn's).
    EveryOf(&'static [&'static str]),
    /// At least one of these (where what breaks depends on the scenario).
    AnyOf(&'static [&'static str]),
    /// This one, maybe among others (a requirement the mutant reads from
    /// the scenario).
    Includes(&'static str),
    /// Nothing: the mutant changes what is never compared.
    Nothing,
}

impl Expect {
    /// Whether a judge that found `violations` kept this promise.
    pub fn kept_by(&self, violations: &[Violation]) -> bool {
        let named: BTreeSet<Option<&str>> = violations
            .iter()
            .map(|v| v.requirement.as_deref())
            .collect();
        let has = |r: &str| named.contains(&Some(r));
        match *self {
            Expect::Exactly(wanted) => named == wanted.iter().map(|r| Some(*r)).collect(),
            Expect::EveryOf(wanted) => wanted.iter().all(|r| has(r)),
            Expect::AnyOf(wanted) => wanted.iter().any(|r| has(r)),
            Expect::Includes(wanted) => has(wanted),
            Expect::Nothing => named.is_empty(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(expect: Expect, named: &[Option<&str>], kept: bool) {
        let violations: Vec<Violation> = named
            .iter()
            .map(|r| match r {
                Some(r) => Violation::named(r, "x"),
                None => Violation::unnamed("x"),
            })
            .collect();
        assert_eq!(expect.kept_by(&violations), kept, "{expect:?} on {named:?}");
    }

    #[test]
    fn each_promise_is_kept_only_by_what_it_says() {
        let (a, b) = (Some("A-01"), Some("B-01"));
        check(Expect::Exactly(&["A-01"]), &[a, a], true);
        check(Expect::Exactly(&["A-01"]), &[a, b], false);
        check(Expect::Exactly(&["A-01"]), &[a, None], false);
        check(Expect::Exactly(&["A-01", "B-01"]), &[b, a], true);
        check(Expect::EveryOf(&["A-01", "B-01"]), &[a, b, None], true);
        check(Expect::EveryOf(&["A-01", "B-01"]), &[a], false);
        check(Expect::AnyOf(&["A-01", "B-01"]), &[b], true);
        check(Expect::AnyOf(&["A-01", "B-01"]), &[None], false);
        check(Expect::Includes("A-01"), &[b, a], true);
        check(Expect::Includes("A-01"), &[b], false);
        check(Expect::Nothing, &[], true);
        check(Expect::Nothing, &[None], false);
    }
}
