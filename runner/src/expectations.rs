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
//! boundary-failures/throws-a-string BOUNDARY-ERR-01 @3f9a0c1d2e4b
//! generated/* CORE-CAN-01 CORE-CAN-06
//! ```
//!
//! A word `@` + 12 hexadecimal digits is the fingerprint of the failure the
//! entry expects ([`crate::findings::fingerprint`]: its status and each
//! failing violation's requirement and first line, with digits, addresses
//! and paths masked). With fingerprints listed, a failure on the listed
//! requirements whose fingerprint is none of them is `changed`, and fails
//! the run: the runtime still fails the case, but differently (another
//! error, another lost result). Without, any failure on the requirements
//! is expected. Several fingerprints are the ways a case was seen to fail
//! when the runtime's design leaves which failure comes first to a race
//! (say which in a comment). `--write-expected-failures` writes them, and brings an
//! existing file up to date ([`Expectations::rewrite`]) keeping its
//! comments.
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
//! with a comment saying which race. Its fingerprints are every way the
//! race was seen to fail: a rewrite adds the run's to them.
//!
//! A case that only warns (it breaks SHOULD requirements only) is not a
//! failure, so a listed one is neither expected nor stale; under
//! `--strict` it is `fail`, and the file applies to it like to any failure.

use crate::findings::fingerprint;
use crate::outcome::{CaseOutcome, Expectation};
use crate::Error;
use globset::{Glob, GlobMatcher};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

/// The parsed file: case id → the requirements listed (empty: any), and the
/// glob entries in file order; and its lines, which a rewrite keeps.
#[derive(Debug, Clone, Default)]
pub struct Expectations {
    entries: BTreeMap<String, Entry>,
    globs: Vec<GlobEntry>,
    lines: Vec<Line>,
}

/// An exact entry: the requirements listed (empty: any), the failures'
/// fingerprints (empty: any), and whether the case may also pass (`~`).
#[derive(Debug, Clone, Default, PartialEq)]
struct Entry {
    requirements: BTreeSet<String>,
    fingerprints: BTreeSet<String>,
    may_pass: bool,
}

#[derive(Debug, Clone)]
struct GlobEntry {
    pattern: String,
    matcher: GlobMatcher,
    requirements: BTreeSet<String>,
}

/// A line of the file, as a rewrite needs it: an entry (by id, with the
/// comment after it) or anything else, verbatim.
#[derive(Debug, Clone)]
enum Line {
    Entry { id: String, comment: String },
    Glob { pattern: String, comment: String },
    Verbatim(String),
}

/// How many hexadecimal digits a fingerprint has (`findings::fingerprint`).
const FINGERPRINT_DIGITS: usize = 12;

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

/// An entry's line: `[~ ]id REQ… @fingerprint…`, and its comment.
fn entry_line(id: &str, entry: &Entry, comment: &str) -> String {
    let mut line = String::new();
    if entry.may_pass {
        line.push_str("~ ");
    }
    line.push_str(id);
    for r in &entry.requirements {
        line.push(' ');
        line.push_str(r);
    }
    for f in &entry.fingerprints {
        line.push_str(" @");
        line.push_str(f);
    }
    line.push_str(comment);
    line
}

fn glob_line(pattern: &str, requirements: &BTreeSet<String>, comment: &str) -> String {
    let mut line = pattern.to_string();
    for r in requirements {
        line.push(' ');
        line.push_str(r);
    }
    line.push_str(comment);
    line
}

impl Expectations {
    pub fn load(path: &Path) -> Result<Expectations, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
        Expectations::parse(&text).map_err(|e| Error::usage(format!("{}: {e}", path.display())))
    }

    pub fn parse(text: &str) -> Result<Expectations, String> {
        let mut entries = BTreeMap::new();
        let mut globs: Vec<GlobEntry> = Vec::new();
        let mut lines = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let (line, comment) = match raw.find('#') {
                Some(at) => (&raw[..at], raw[at..].to_string()),
                None => (raw, String::new()),
            };
            // the spaces before a trailing comment stay with it
            let comment = if comment.is_empty() {
                comment
            } else {
                format!("{}{comment}", &line[line.trim_end().len()..])
            };
            let line = line.trim();
            let mut words = line.split_whitespace().peekable();
            let may_pass = words.peek() == Some(&"~");
            if may_pass {
                words.next();
            }
            let Some(id) = words.next() else {
                if may_pass {
                    return Err(format!("line {}: `~` needs a case id", n + 1));
                }
                lines.push(Line::Verbatim(raw.to_string()));
                continue;
            };
            let (marks, requirements): (Vec<&str>, Vec<&str>) =
                words.partition(|w| w.starts_with('@'));
            let requirements: BTreeSet<String> =
                requirements.into_iter().map(str::to_string).collect();
            if let Some(bad) = requirements
                .iter()
                .find(|r| toolgate_suites::of_requirement(r).is_none())
            {
                let prefixes: Vec<String> = toolgate_suites::all()
                    .iter()
                    .map(|s| format!("{}…", s.requirement_prefix()))
                    .collect();
                return Err(format!(
                    "line {}: {bad:?} is not a requirement id ({})",
                    n + 1,
                    prefixes.join(", ")
                ));
            }
            let mut fingerprints = BTreeSet::new();
            for mark in marks {
                let digits = &mark[1..];
                if digits.len() != FINGERPRINT_DIGITS
                    || !digits
                        .chars()
                        .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
                {
                    return Err(format!(
                        "line {}: {mark:?} is not a fingerprint (`@` and {FINGERPRINT_DIGITS} \
                         lowercase hexadecimal digits, as --write-expected-failures writes them)",
                        n + 1
                    ));
                }
                fingerprints.insert(digits.to_string());
            }
            if is_glob(id) {
                if may_pass {
                    return Err(format!(
                        "line {}: `~` takes a case id, not a glob (a glob is never stale)",
                        n + 1
                    ));
                }
                if !fingerprints.is_empty() {
                    return Err(format!(
                        "line {}: a glob expects failures by requirement, not by fingerprint \
                         (its cases differ in what they do)",
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
                lines.push(Line::Glob {
                    pattern: id.to_string(),
                    comment,
                });
                continue;
            }
            let entry = Entry {
                requirements,
                fingerprints,
                may_pass,
            };
            if entries.insert(id.to_string(), entry).is_some() {
                return Err(format!("line {}: {id} is listed twice", n + 1));
            }
            lines.push(Line::Entry {
                id: id.to_string(),
                comment,
            });
        }
        Ok(Expectations {
            entries,
            globs,
            lines,
        })
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
                .failing_requirements()
                .into_iter()
                .filter(|r| !listed.is_empty() && !listed.contains(*r))
                .map(str::to_string)
                .collect();
            if !unlisted.is_empty() {
                return Some(Expectation::Unexpected { unlisted });
            }
            let seen = fingerprint(outcome);
            if !entry.fingerprints.is_empty() && !entry.fingerprints.contains(&seen) {
                return Some(Expectation::Changed {
                    fingerprint: seen,
                    listed: entry.fingerprints.iter().cloned().collect(),
                });
            }
            Some(Expectation::Expected)
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
        let failing = outcome.failing_requirements();
        if all_named
            && matching
                .iter()
                .any(|g| failing.iter().all(|r| g.requirements.contains(*r)))
        {
            return Some(Expectation::Expected);
        }
        // name what the closest glob misses (or the unnamed difference)
        let unlisted: Vec<String> = if all_named {
            let best = matching.iter().min_by_key(|g| {
                failing
                    .iter()
                    .filter(|r| !g.requirements.contains(**r))
                    .count()
            });
            failing
                .iter()
                .filter(|r| best.is_some_and(|g| !g.requirements.contains(**r)))
                .map(|r| r.to_string())
                .collect()
        } else {
            vec!["(a difference no requirement names)".to_string()]
        };
        Some(Expectation::Unexpected { unlisted })
    }

    /// The baseline of a run's failures, in the file format: every failure
    /// of a corpus case with its requirements and fingerprint, generated
    /// failures as a glob over their group with every requirement they
    /// broke (which the same command with any seed accepts).
    pub fn render(outcomes: &[CaseOutcome]) -> String {
        Expectations::default().rewrite(outcomes)
    }

    /// This baseline brought up to date with a run's `outcomes`, keeping
    /// its comments, its order and what still holds:
    /// - an entry whose case failed as listed stays as it is (a fingerprint
    ///   is added where it had none);
    /// - an entry whose case failed otherwise takes the run's requirements
    ///   and fingerprint; a racy one (`~`) adds them to what it lists, since
    ///   its race may go either way on the next run;
    /// - an entry whose case passed is removed, unless racy; one whose case
    ///   did not run stays;
    /// - a glob over a generated group takes the requirements of that
    ///   group's failures too;
    /// - failures no line expects are added at the end.
    pub fn rewrite(&self, outcomes: &[CaseOutcome]) -> String {
        let by_id: BTreeMap<&str, &CaseOutcome> =
            outcomes.iter().map(|o| (o.id.as_str(), o)).collect();
        // generated ids change with the seed and the count: their failures
        // are expected by a glob over their group
        let mut generated: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut unnamed: Vec<&str> = Vec::new();
        for o in outcomes.iter().filter(|o| o.status.is_failure()) {
            if let Some(group) = generated_group(&o.id) {
                generated
                    .entry(format!("{group}/*"))
                    .or_default()
                    .extend(o.failing_requirements().into_iter().map(str::to_string));
                if o.requirements.is_empty() || o.violations.iter().any(|v| v.requirement.is_none())
                {
                    unnamed.push(&o.id);
                }
            }
        }
        let mut text = String::new();
        if self.lines.is_empty() {
            text.push_str(
                "# toolgate expected failures: one case id per line, the requirement\n\
                 # ids it is expected to violate and the fingerprint of how (@…).\n\
                 # Remove a line once the case passes (a passing listed case fails the\n\
                 # run as stale); rewrite it with --write-expected-failures.\n",
            );
        }
        for line in &self.lines {
            match line {
                Line::Verbatim(raw) => {
                    text.push_str(raw);
                    text.push('\n');
                }
                Line::Glob { pattern, comment } => {
                    let mut requirements = self
                        .globs
                        .iter()
                        .find(|g| &g.pattern == pattern)
                        .map(|g| g.requirements.clone())
                        .unwrap_or_default();
                    if let Some(more) = generated.remove(pattern) {
                        requirements.extend(more);
                    }
                    text.push_str(&glob_line(pattern, &requirements, comment));
                    text.push('\n');
                }
                Line::Entry { id, comment } => {
                    let entry = &self.entries[id];
                    let Some(o) = by_id.get(id.as_str()) else {
                        text.push_str(&entry_line(id, entry, comment));
                        text.push('\n');
                        continue;
                    };
                    let mut entry = entry.clone();
                    if o.status.is_failure() {
                        let seen = fingerprint(o);
                        let failing = o.failing_requirements().into_iter().map(str::to_string);
                        if entry.may_pass {
                            entry.requirements.extend(failing);
                            entry.fingerprints.insert(seen);
                        } else if !self.expects(o) {
                            entry.requirements = failing.collect();
                            entry.fingerprints = BTreeSet::from([seen]);
                        } else if entry.fingerprints.is_empty() {
                            entry.fingerprints.insert(seen);
                        }
                    } else if o.status == crate::outcome::Status::Pass && !entry.may_pass {
                        continue;
                    }
                    text.push_str(&entry_line(id, &entry, comment));
                    text.push('\n');
                }
            }
        }
        for o in outcomes.iter().filter(|o| o.status.is_failure()) {
            if generated_group(&o.id).is_some() || self.entries.contains_key(&o.id) {
                continue;
            }
            // a failure a glob of this file already expects needs no line
            if !self.globs.is_empty() && self.expects(o) {
                continue;
            }
            let entry = Entry {
                requirements: o
                    .failing_requirements()
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
                fingerprints: BTreeSet::from([fingerprint(o)]),
                may_pass: false,
            };
            text.push_str(&entry_line(&o.id, &entry, ""));
            text.push('\n');
        }
        for (pattern, requirements) in generated.iter().filter(|(_, r)| !r.is_empty()) {
            text.push_str(&glob_line(pattern, requirements, ""));
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
        assert!(written.contains("\ncalls/exact CORE-VAL-01 @"), "{written}");
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

    fn failing_with(id: &str, violations: &[(&str, &str)]) -> CaseOutcome {
        CaseOutcome {
            requirements: violations.iter().map(|(r, _)| r.to_string()).collect(),
            violations: violations
                .iter()
                .map(|(r, m)| crate::outcome::Finding {
                    requirement: Some(r.to_string()),
                    level: Some(toolgate_suite::Level::Must),
                    message: m.to_string(),
                })
                .collect(),
            ..crate::outcome::sample(id, Status::Fail)
        }
    }

    /// The failure of mcp-sdk-stdio's racy abort case on a loaded CI
    /// machine: the tool that started after the abort (a MUST, listed) and
    /// an abort that took over 1 s (a SHOULD the baseline does not name).
    #[test]
    fn a_warning_beside_an_expected_failure_leaves_it_expected() {
        let started = failing_with(
            "c/abort",
            &[("BOUNDARY-CAN-01", "tool 1 started after the abort")],
        );
        let mut slow = started.clone();
        slow.requirements.push("BOUNDARY-CAN-02".into());
        slow.violations.push(crate::outcome::Finding {
            requirement: Some("BOUNDARY-CAN-02".into()),
            level: Some(toolgate_suite::Level::Should),
            message: "the turn ended 1312 ms after the abort".into(),
        });
        let seen = crate::findings::fingerprint(&started);
        assert_eq!(crate::findings::fingerprint(&slow), seen);
        assert_eq!(slow.failing_requirements(), ["BOUNDARY-CAN-01"]);
        for file in [
            format!("~ c/abort BOUNDARY-CAN-01 @{seen}\n"),
            "c/abort BOUNDARY-CAN-01\n".to_string(),
            "c/* BOUNDARY-CAN-01\n".to_string(),
        ] {
            check(&file, slow.clone(), Some(Expectation::Expected), false);
        }
        // what a rewrite lists is what fails the case, not the warning
        let rewritten = Expectations::parse("")
            .expect("parses")
            .rewrite(&[slow.clone()]);
        assert!(
            rewritten.contains(&format!("c/abort BOUNDARY-CAN-01 @{seen}\n")),
            "{rewritten}"
        );
        // a case that only warns is still judged on its SHOULDs under --strict
        let mut strict = slow.clone();
        strict.violations.remove(0);
        strict.requirements.remove(0);
        assert_eq!(strict.failing_requirements(), ["BOUNDARY-CAN-02"]);
        check(
            "c/abort BOUNDARY-CAN-01\n",
            strict,
            Some(Expectation::Unexpected {
                unlisted: vec!["BOUNDARY-CAN-02".into()],
            }),
            true,
        );
    }

    #[test]
    fn a_different_failure_on_the_same_requirements_is_changed() {
        let thrown = |text: &str| {
            failing_with(
                "b/throws",
                &[(
                    "BOUNDARY-ERR-01",
                    &format!("call call_1: the turn rejected: Error: {text}"),
                )],
            )
        };
        let seen = crate::findings::fingerprint(&thrown("boom"));
        let file = format!("b/throws BOUNDARY-ERR-01 @{seen}\n");
        check(&file, thrown("boom"), Some(Expectation::Expected), false);
        check(
            &file,
            thrown("tool not registered"),
            Some(Expectation::Changed {
                fingerprint: crate::findings::fingerprint(&thrown("tool not registered")),
                listed: vec![seen.clone()],
            }),
            true,
        );
        // without a fingerprint, any failure on the requirements is expected
        check(
            "b/throws BOUNDARY-ERR-01\n",
            thrown("tool not registered"),
            Some(Expectation::Expected),
            false,
        );
        // an unlisted requirement is reported as such, before any change
        let mut more = thrown("boom");
        more.requirements.push("BOUNDARY-TURN-01".into());
        check(
            &file,
            more,
            Some(Expectation::Unexpected {
                unlisted: vec!["BOUNDARY-TURN-01".into()],
            }),
            true,
        );
        // either of a race's failures
        let other = crate::findings::fingerprint(&thrown("other"));
        let racy = format!("~ b/throws BOUNDARY-ERR-01 @{seen} @{other}\n");
        check(&racy, thrown("other"), Some(Expectation::Expected), false);
        for bad in [
            "b/x @12",
            "b/x @ABCDEF012345",
            "g/* CORE-CAN-01 @0123456789ab",
        ] {
            assert!(Expectations::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_rewrite_keeps_comments_and_what_still_holds() {
        let err = |id: &str, text: &str| failing_with(id, &[("BOUNDARY-ERR-01", text)]);
        let old = err("b/kept", "threw: boom");
        let file = format!(
            "# header\n\
             # why b/kept fails\n\
             b/kept BOUNDARY-ERR-01 @{}  # from its source\n\
             b/changed BOUNDARY-ERR-01 @{}\n\
             b/plain BOUNDARY-ERR-01\n\
             b/fixed BOUNDARY-ERR-01\n\
             # the race\n\
             ~ b/racy BOUNDARY-ERR-01 @{}\n\
             b/not-run BOUNDARY-ERR-01\n\
             generated-boundary/* BOUNDARY-ERR-01\n",
            crate::findings::fingerprint(&old),
            crate::findings::fingerprint(&err("b/changed", "threw: old")),
            crate::findings::fingerprint(&err("b/racy", "threw: one way")),
        );
        let base = Expectations::parse(&file).unwrap();
        let outcomes = [
            old.clone(),
            err("b/changed", "threw: new"),
            err("b/plain", "threw: x"),
            outcome("b/fixed", Status::Pass, &[]),
            err("b/racy", "threw: the other way"),
            err("b/new", "threw: y"),
            err("generated-boundary/3-1", "threw"),
            named(outcome(
                "generated-boundary/3-2",
                Status::Fail,
                &["BOUNDARY-UNK-01"],
            )),
        ];
        let written = base.rewrite(&outcomes);
        let fp = |o: &CaseOutcome| crate::findings::fingerprint(o);
        let lines: Vec<&str> = written.lines().collect();
        assert_eq!(lines[0], "# header");
        assert_eq!(lines[1], "# why b/kept fails");
        assert_eq!(
            lines[2],
            format!("b/kept BOUNDARY-ERR-01 @{}  # from its source", fp(&old))
        );
        assert_eq!(
            lines[3],
            format!("b/changed BOUNDARY-ERR-01 @{}", fp(&outcomes[1]))
        );
        assert_eq!(
            lines[4],
            format!("b/plain BOUNDARY-ERR-01 @{}", fp(&outcomes[2]))
        );
        assert!(!written.contains("b/fixed"), "{written}");
        assert_eq!(lines[5], "# the race");
        let mut both = [fp(&err("b/racy", "threw: one way")), fp(&outcomes[4])];
        both.sort();
        assert_eq!(
            lines[6],
            format!("~ b/racy BOUNDARY-ERR-01 @{} @{}", both[0], both[1])
        );
        assert_eq!(lines[7], "b/not-run BOUNDARY-ERR-01");
        assert_eq!(
            lines[8],
            "generated-boundary/* BOUNDARY-ERR-01 BOUNDARY-UNK-01"
        );
        assert_eq!(
            lines[9],
            format!("b/new BOUNDARY-ERR-01 @{}", fp(&outcomes[5]))
        );
        assert_eq!(lines.len(), 10, "{written}");
        // what it wrote expects the run it was written from
        let again = Expectations::parse(&written).unwrap();
        let mut run = outcomes.clone();
        run[3] = outcome("b/fixed", Status::Pass, &[]);
        again.apply(&mut run);
        assert!(run.iter().all(|o| !o.fails_the_run()), "{run:#?}");
        // and a rewrite of what holds changes nothing
        assert_eq!(again.rewrite(&outcomes), written);
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
