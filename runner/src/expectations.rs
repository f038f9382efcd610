//! The expected-failures baseline (`--expected-failures <file>`): the cases
//! an implementation is known to fail, optionally with the requirements it
//! fails them on. A listed failure does not fail the run, an unlisted one
//! does, and a listed case that passes fails the run as stale, so the file
//! only ever shrinks.
//!
//! The format is a text file, one case per line:
//!
//! ```text
//! # comments and blank lines are ignored
//! calls/unknown-tool
//! serializer-budgets/depth-33 CORE-SER-03 CORE-SER-05
//! ```

use crate::outcome::{CaseOutcome, Expectation};
use crate::Error;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

/// The parsed file: case id → the requirements listed (empty: any).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expectations {
    entries: BTreeMap<String, BTreeSet<String>>,
}

impl Expectations {
    pub fn load(path: &Path) -> Result<Expectations, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
        Expectations::parse(&text).map_err(|e| Error::usage(format!("{}: {e}", path.display())))
    }

    pub fn parse(text: &str) -> Result<Expectations, String> {
        let mut entries = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            let mut words = line.split_whitespace();
            let Some(id) = words.next() else { continue };
            let requirements: BTreeSet<String> = words.map(str::to_string).collect();
            if let Some(bad) = requirements
                .iter()
                .find(|r| !(r.starts_with("CORE-") || r.starts_with("BOUNDARY-")))
            {
                return Err(format!(
                    "line {}: {bad:?} is not a requirement id (CORE-… or BOUNDARY-…)",
                    n + 1
                ));
            }
            if entries.insert(id.to_string(), requirements).is_some() {
                return Err(format!("line {}: {id} is listed twice", n + 1));
            }
        }
        Ok(Expectations { entries })
    }

    /// Fails on ids that name no case at all (a typo would otherwise make a
    /// silent baseline).
    pub fn check_ids(&self, known: &HashSet<&str>) -> Result<(), Error> {
        let unknown: Vec<&str> = self
            .entries
            .keys()
            .map(String::as_str)
            .filter(|id| !known.contains(id))
            .collect();
        if unknown.is_empty() {
            Ok(())
        } else {
            Err(Error::usage(format!(
                "--expected-failures lists unknown case id(s): {}",
                unknown.join(", ")
            )))
        }
    }

    /// Marks each outcome of a listed case.
    pub fn apply(&self, outcomes: &mut [CaseOutcome]) {
        for outcome in outcomes {
            let Some(listed) = self.entries.get(&outcome.id) else {
                continue;
            };
            outcome.expectation = if outcome.status.is_failure() {
                let unlisted: Vec<String> = outcome
                    .requirements
                    .iter()
                    .filter(|r| !listed.is_empty() && !listed.contains(*r))
                    .cloned()
                    .collect();
                Some(if unlisted.is_empty() {
                    Expectation::Expected
                } else {
                    Expectation::Unexpected { unlisted }
                })
            } else if outcome.status == crate::outcome::Status::Pass {
                Some(Expectation::Stale)
            } else {
                None
            };
        }
    }

    /// The baseline of a run's failures, in the file format.
    pub fn render(outcomes: &[CaseOutcome]) -> String {
        let mut text = String::from(
            "# toolgate expected failures: one case id per line, optionally the\n\
             # requirement ids it is expected to violate. Remove a line once the\n\
             # case passes (a passing listed case fails the run as stale).\n",
        );
        for o in outcomes.iter().filter(|o| o.status.is_failure()) {
            text.push_str(&o.id);
            for r in &o.requirements {
                text.push(' ');
                text.push_str(r);
            }
            text.push('\n');
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{CaseOutcome, Status};
    use toolgate_contract::scenario::Suite;

    fn outcome(id: &str, status: Status, requirements: &[&str]) -> CaseOutcome {
        CaseOutcome {
            id: id.into(),
            suite: Suite::Core,
            status,
            not_run: false,
            duration_ms: 0.0,
            requirements: requirements.iter().map(|r| r.to_string()).collect(),
            violations: Vec::new(),
            message: None,
            diff: None,
            stderr: String::new(),
            reproduce: String::new(),
            expectation: None,
            shrunk: None,
        }
    }

    fn check(file: &str, mut o: CaseOutcome, expected: Option<Expectation>, fails_run: bool) {
        let e = Expectations::parse(file).expect("parses");
        e.apply(std::slice::from_mut(&mut o));
        assert_eq!(o.expectation, expected, "{}", o.id);
        assert_eq!(o.fails_the_run(), fails_run, "{}", o.id);
    }

    #[test]
    fn listed_unlisted_partial_and_stale() {
        let file = "# baseline\na/x\nb/y CORE-SER-03  # why\n";
        check(
            file,
            outcome("a/x", Status::Fail, &["CORE-VAL-01"]),
            Some(Expectation::Expected),
            false,
        );
        check(
            file,
            outcome("a/x", Status::Timeout, &[]),
            Some(Expectation::Expected),
            false,
        );
        check(
            file,
            outcome("b/y", Status::Fail, &["CORE-SER-03"]),
            Some(Expectation::Expected),
            false,
        );
        check(
            file,
            outcome("b/y", Status::Fail, &["CORE-SER-03", "CORE-SER-05"]),
            Some(Expectation::Unexpected {
                unlisted: vec!["CORE-SER-05".into()],
            }),
            true,
        );
        check(
            file,
            outcome("a/x", Status::Pass, &[]),
            Some(Expectation::Stale),
            true,
        );
        check(file, outcome("c/z", Status::Fail, &[]), None, true);
        check(file, outcome("c/z", Status::Pass, &[]), None, false);
        check(file, outcome("a/x", Status::Skip, &[]), None, false);
    }

    #[test]
    fn malformed_files_are_refused_with_the_line() {
        let err = Expectations::parse("a/x\na/x\n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
        let err = Expectations::parse("a/x SER-03\n").unwrap_err();
        assert!(err.contains("not a requirement id"), "{err}");
    }

    #[test]
    fn a_rendered_baseline_parses_back() {
        let outcomes = [
            outcome("a/x", Status::Fail, &["CORE-VAL-01"]),
            outcome("b/y", Status::Pass, &[]),
        ];
        let e = Expectations::parse(&Expectations::render(&outcomes)).unwrap();
        assert_eq!(e.entries.len(), 1);
        assert_eq!(
            e.entries["a/x"],
            BTreeSet::from(["CORE-VAL-01".to_string()])
        );
    }
}
