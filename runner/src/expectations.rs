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
//! generated/* CORE-CAN-01 CORE-CAN-06
//! ```
//!
//! An id with `*`, `?` or `[` is a glob over case ids (as `--case` reads
//! them: `*` crosses `/`). Generated cases change ids with the seed and the
//! count, so a known divergence is baselined for them by requirement: a glob
//! must list requirement ids, and a failing case it matches is expected only
//! when every violation names a requirement and all of them are listed. An
//! exact entry wins over globs. A glob that matches no failure is not stale
//! (a run of other seeds may simply not meet the divergence); exact entries
//! are.
//!
//! A line starting with `~` lists a case that may pass or fail, the same
//! way each time it fails: a race the implementation's design allows (an
//! MCP server over stdio may start a tool before the client's cancellation
//! reaches it). Its failure is expected; its pass is not stale. Use it only
//! with a comment saying which race.
//!
//! A case that only warns (it breaks SHOULD requirements only) is not a
//! failure, so a listed one is neither expected nor stale; under
//! `--strict` it is `fail`, and the file applies to it like to any failure.

use crate::outcome::{CaseOutcome, Expectation};
use crate::Error;
use globset::{Glob, GlobMatcher};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;
use toolgate_contract::suites;

/// The parsed file: case id → the requirements listed (empty: any), and the
/// glob entries in file order.
#[derive(Debug, Clone, Default)]
pub struct Expectations {
    entries: BTreeMap<String, Entry>,
    globs: Vec<GlobEntry>,
}

/// An exact entry: the requirements listed (empty: any), and whether the
/// case may also pass (`~`).
#[derive(Debug, Clone, Default)]
struct Entry {
    requirements: BTreeSet<String>,
    may_pass: bool,
}

#[derive(Debug, Clone)]
struct GlobEntry {
    pattern: String,
    matcher: GlobMatcher,
    requirements: BTreeSet<String>,
}

/// The group of a generated case's id (`generated`, `generated-boundary`).
fn generated_group(id: &str) -> Option<&str> {
    let (group, _) = id.split_once('/')?;
    (group == crate::generate::GROUP
        || group
            .strip_prefix(crate::generate::GROUP)
            .is_some_and(|s| s.starts_with('-')))
    .then_some(group)
}

fn is_glob(id: &str) -> bool {
    id.contains(['*', '?', '['])
}

impl Expectations {
    pub fn load(path: &Path) -> Result<Expectations, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
        Expectations::parse(&text).map_err(|e| Error::usage(format!("{}: {e}", path.display())))
    }

    pub fn parse(text: &str) -> Result<Expectations, String> {
        let mut entries = BTreeMap::new();
        let mut globs: Vec<GlobEntry> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            let mut words = line.split_whitespace().peekable();
            let may_pass = words.peek() == Some(&"~");
            if may_pass {
                words.next();
            }
            let Some(id) = words.next() else {
                if may_pass {
                    return Err(format!("line {}: `~` needs a case id", n + 1));
                }
                continue;
            };
            let requirements: BTreeSet<String> = words.map(str::to_string).collect();
            if let Some(bad) = requirements
                .iter()
                .find(|r| suites::of_requirement(r).is_none())
            {
                let prefixes: Vec<String> = suites::all()
                    .iter()
                    .map(|s| format!("{}…", s.requirement_prefix()))
                    .collect();
                return Err(format!(
                    "line {}: {bad:?} is not a requirement id ({})",
                    n + 1,
                    prefixes.join(", ")
                ));
            }
            if is_glob(id) {
                if may_pass {
                    return Err(format!(
                        "line {}: `~` takes a case id, not a glob (a glob is never stale)",
                        n + 1
                    ));
                }
                if requirements.is_empty() {
                    return Err(format!(
                        "line {}: the glob {id} must list the requirement ids it expects \
                         (a glob without them would hide any failure)",
                        n + 1
                    ));
                }
                if globs.iter().any(|g| g.pattern == id) {
                    return Err(format!("line {}: {id} is listed twice", n + 1));
                }
                let matcher = Glob::new(id)
                    .map_err(|e| format!("line {}: {id}: {e}", n + 1))?
                    .compile_matcher();
                globs.push(GlobEntry {
                    pattern: id.to_string(),
                    matcher,
                    requirements,
                });
                continue;
            }
            let entry = Entry {
                requirements,
                may_pass,
            };
            if entries.insert(id.to_string(), entry).is_some() {
                return Err(format!("line {}: {id} is listed twice", n + 1));
            }
        }
        Ok(Expectations { entries, globs })
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
            outcome.expectation = self.expectation(outcome);
        }
    }

    /// Whether this baseline expects `outcome`'s failure as it is.
    pub fn expects(&self, outcome: &CaseOutcome) -> bool {
        self.expectation(outcome) == Some(Expectation::Expected)
    }

    fn expectation(&self, outcome: &CaseOutcome) -> Option<Expectation> {
        let Some(entry) = self.entries.get(&outcome.id) else {
            return self.by_glob(outcome);
        };
        let listed = &entry.requirements;
        if outcome.status.is_failure() {
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
        } else if outcome.status == crate::outcome::Status::Pass && !entry.may_pass {
            Some(Expectation::Stale)
        } else {
            None
        }
    }

    /// A failure expected by a glob entry: all its violations named, and
    /// every id listed by one glob that matches it. A failure the matching
    /// globs do not cover is unexpected, naming what they miss.
    fn by_glob(&self, outcome: &CaseOutcome) -> Option<Expectation> {
        if !outcome.status.is_failure() {
            return None;
        }
        let matching: Vec<&GlobEntry> = self
            .globs
            .iter()
            .filter(|g| g.matcher.is_match(&outcome.id))
            .collect();
        if matching.is_empty() {
            return None;
        }
        let all_named = !outcome.violations.is_empty()
            && outcome.violations.iter().all(|v| v.requirement.is_some());
        if all_named
            && matching.iter().any(|g| {
                outcome
                    .requirements
                    .iter()
                    .all(|r| g.requirements.contains(r))
            })
        {
            return Some(Expectation::Expected);
        }
        // name what the closest glob misses (or the unnamed difference)
        let unlisted: Vec<String> = if all_named {
            let best = matching.iter().min_by_key(|g| {
                outcome
                    .requirements
                    .iter()
                    .filter(|r| !g.requirements.contains(*r))
                    .count()
            });
            outcome
                .requirements
                .iter()
                .filter(|r| best.is_some_and(|g| !g.requirements.contains(*r)))
                .cloned()
                .collect()
        } else {
            vec!["(a difference no requirement names)".to_string()]
        };
        Some(Expectation::Unexpected { unlisted })
    }

    /// The baseline of a run's failures, in the file format.
    pub fn render(outcomes: &[CaseOutcome]) -> String {
        let mut text = String::from(
            "# toolgate expected failures: one case id per line, optionally the\n\
             # requirement ids it is expected to violate. Remove a line once the\n\
             # case passes (a passing listed case fails the run as stale).\n",
        );
        // generated ids change with the seed and the count: their failures
        // are baselined by a glob over their group, with every requirement
        // they broke, which the same command with any seed accepts
        let mut generated: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
            std::collections::BTreeMap::new();
        let mut unnamed: Vec<&str> = Vec::new();
        for o in outcomes.iter().filter(|o| o.status.is_failure()) {
            if let Some(group) = generated_group(&o.id) {
                let named = generated.entry(group).or_default();
                named.extend(o.requirements.iter().map(String::as_str));
                if o.requirements.is_empty() || o.violations.iter().any(|v| v.requirement.is_none())
                {
                    unnamed.push(&o.id);
                }
                continue;
            }
            text.push_str(&o.id);
            for r in &o.requirements {
                text.push(' ');
                text.push_str(r);
            }
            text.push('\n');
        }
        for (group, named) in generated.iter().filter(|(_, n)| !n.is_empty()) {
            text.push_str(group);
            text.push_str("/*");
            for r in named {
                text.push(' ');
                text.push_str(r);
            }
            text.push('\n');
        }
        for id in unnamed {
            text.push_str(&format!(
                "# {id}: a difference no requirement names, which no glob can expect\n"
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{CaseOutcome, Status};

    fn outcome(id: &str, status: Status, requirements: &[&str]) -> CaseOutcome {
        CaseOutcome {
            requirements: requirements.iter().map(|r| r.to_string()).collect(),
            ..crate::outcome::sample(id, status)
        }
    }

    fn check(file: &str, mut o: CaseOutcome, expected: Option<Expectation>, fails_run: bool) {
        let e = Expectations::parse(file).expect("parses");
        e.apply(std::slice::from_mut(&mut o));
        assert_eq!(o.expectation, expected, "{}", o.id);
        assert_eq!(o.fails_the_run(), fails_run, "{}", o.id);
    }

    #[test]
    fn a_racy_entry_expects_its_failure_and_forgives_its_pass() {
        let file = "# a race\n~ a/x BOUNDARY-CAN-01\n";
        check(
            file,
            outcome("a/x", Status::Fail, &["BOUNDARY-CAN-01"]),
            Some(Expectation::Expected),
            false,
        );
        check(file, outcome("a/x", Status::Pass, &[]), None, false);
        check(
            file,
            outcome("a/x", Status::Fail, &["BOUNDARY-RUN-01"]),
            Some(Expectation::Unexpected {
                unlisted: vec!["BOUNDARY-RUN-01".into()],
            }),
            true,
        );
        assert!(Expectations::parse("~\n").is_err());
        assert!(Expectations::parse("~ a/* BOUNDARY-CAN-01\n").is_err());
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
        // a warning is not a failure (without --strict): listed, it is
        // neither expected nor stale; n/a is like skip
        check(
            file,
            outcome("a/x", Status::Warn, &["CORE-VAL-01"]),
            None,
            false,
        );
        check(
            file,
            outcome("a/x", Status::NotApplicable, &[]),
            None,
            false,
        );
    }

    fn named(mut o: CaseOutcome) -> CaseOutcome {
        o.violations = o
            .requirements
            .iter()
            .map(|r| crate::outcome::Finding {
                requirement: Some(r.clone()),
                level: None,
                message: String::new(),
            })
            .collect();
        o
    }

    #[test]
    fn a_baseline_written_after_a_generated_run_takes_any_seed() {
        let fail = |id: &str, reqs: &[&str]| named(outcome(id, Status::Fail, reqs));
        let written = Expectations::render(&[
            fail("calls/exact", &["CORE-VAL-01"]),
            fail(
                "generated-boundary/11-3",
                &["BOUNDARY-TURN-01", "BOUNDARY-UNK-01"],
            ),
            fail(
                "generated-boundary/11-9",
                &["BOUNDARY-ERR-01", "BOUNDARY-TURN-01"],
            ),
            fail("generated/11-4", &["CORE-CAN-01"]),
            outcome("generated/11-5", Status::Fail, &[]),
        ]);
        assert!(written.contains("\ncalls/exact CORE-VAL-01\n"), "{written}");
        assert!(
            written.contains(
                "\ngenerated-boundary/* BOUNDARY-ERR-01 BOUNDARY-TURN-01 BOUNDARY-UNK-01\n"
            ),
            "{written}"
        );
        assert!(written.contains("\ngenerated/* CORE-CAN-01\n"), "{written}");
        assert!(
            written
                .lines()
                .filter(|l| !l.starts_with('#'))
                .all(|l| !l.contains("11-")),
            "no seed-specific entry: {written}"
        );
        assert!(written.contains("# generated/11-5: a difference no requirement names"));
        let e = Expectations::parse(&written).expect("the written baseline loads");
        // no generated id of this run need be known to the next
        let known: HashSet<&str> = ["calls/exact"].into_iter().collect();
        assert!(e.check_ids(&known).is_ok());
        // another seed's failure on those requirements is expected
        let mut other = [fail(
            "generated-boundary/12-40",
            &["BOUNDARY-UNK-01", "BOUNDARY-TURN-01"],
        )];
        e.apply(&mut other);
        assert_eq!(other[0].expectation, Some(Expectation::Expected));
        let mut new = [fail("generated-boundary/12-41", &["BOUNDARY-RUN-01"])];
        e.apply(&mut new);
        assert!(matches!(
            new[0].expectation,
            Some(Expectation::Unexpected { .. })
        ));
    }

    #[test]
    fn globs_expect_generated_failures_by_requirement() {
        let file = "generated/* CORE-CAN-01 CORE-CAN-06\ncalls/exact\n";
        let fail = |id: &str, reqs: &[&str]| named(outcome(id, Status::Fail, reqs));
        check(
            file,
            fail("generated/7-27", &["CORE-CAN-01"]),
            Some(Expectation::Expected),
            false,
        );
        check(
            file,
            fail("generated/7-27", &["CORE-CAN-01", "CORE-CAN-06"]),
            Some(Expectation::Expected),
            false,
        );
        check(
            file,
            fail("generated/7-9", &["CORE-CAN-01", "CORE-SER-08"]),
            Some(Expectation::Unexpected {
                unlisted: vec!["CORE-SER-08".into()],
            }),
            true,
        );
        // an unnamed difference is never covered by a glob
        let mut unnamed = outcome("generated/7-3", Status::Fail, &[]);
        unnamed.violations.push(crate::outcome::Finding {
            requirement: None,
            level: None,
            message: "differs".into(),
        });
        check(
            file,
            unnamed,
            Some(Expectation::Unexpected {
                unlisted: vec!["(a difference no requirement names)".into()],
            }),
            true,
        );
        // a timeout names nothing either
        check(
            file,
            outcome("generated/7-4", Status::Timeout, &[]),
            Some(Expectation::Unexpected {
                unlisted: vec!["(a difference no requirement names)".into()],
            }),
            true,
        );
        // a passing generated case is not stale; a glob crosses `/`
        check(
            file,
            outcome("generated/7-5", Status::Pass, &[]),
            None,
            false,
        );
        check(
            "*/7-* CORE-CAN-01\n",
            fail("generated/7-6", &["CORE-CAN-01"]),
            Some(Expectation::Expected),
            false,
        );
        // the exact entry wins over the glob
        check(
            "calls/* CORE-CAN-01\ncalls/exact CORE-SER-08\n",
            fail("calls/exact", &["CORE-CAN-01"]),
            Some(Expectation::Unexpected {
                unlisted: vec!["CORE-CAN-01".into()],
            }),
            true,
        );
    }

    #[test]
    fn a_glob_without_requirements_is_refused() {
        let err = Expectations::parse("generated/*\n").unwrap_err();
        assert!(err.contains("must list the requirement ids"), "{err}");
        let err = Expectations::parse("g/* CORE-CAN-01\ng/* CORE-CAN-06\n").unwrap_err();
        assert!(err.contains("line 2"), "{err}");
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
            e.entries["a/x"].requirements,
            BTreeSet::from(["CORE-VAL-01".to_string()])
        );
    }
}
