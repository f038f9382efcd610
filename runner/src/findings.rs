//! A run's failures grouped by finding: one requirement and the same
//! difference, shown once with the cases it was seen in. A runtime change
//! that shifts many transcripts the same way is one finding of many cases,
//! not hundreds of diffs; an expected finding (every case of it listed in
//! the baseline) takes one line.

use crate::outcome::{CaseOutcome, Expectation};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One finding: a requirement (or an unnamed difference) and what differed,
/// with the cases that showed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub requirement: Option<String>,
    /// The first case's message (its first line).
    pub example: String,
    pub cases: Vec<String>,
    /// Every case of it is an expected failure.
    pub expected: bool,
}

/// A message with what varies between cases of one difference masked: the
/// digits of call ids, sizes and times.
pub fn key(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    let mut out = String::with_capacity(line.len());
    let mut in_digits = false;
    for c in line.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    out
}

/// The findings of `cases` (failures and warnings), the most cases first,
/// those not expected before those expected.
pub fn group(cases: &[CaseOutcome]) -> Vec<Finding> {
    let mut by_key: BTreeMap<(Option<String>, String), Finding> = BTreeMap::new();
    for c in cases.iter().filter(|c| !c.violations.is_empty()) {
        let expected = c.expectation == Some(Expectation::Expected);
        for v in &c.violations {
            let entry = by_key
                .entry((v.requirement.clone(), key(&v.message)))
                .or_insert_with(|| Finding {
                    requirement: v.requirement.clone(),
                    example: v.message.lines().next().unwrap_or_default().to_string(),
                    cases: Vec::new(),
                    expected: true,
                });
            if entry.cases.last() != Some(&c.id) {
                entry.cases.push(c.id.clone());
            }
            entry.expected &= expected;
        }
    }
    let mut all: Vec<Finding> = by_key.into_values().collect();
    all.sort_by(|a, b| {
        a.expected
            .cmp(&b.expected)
            .then(b.cases.len().cmp(&a.cases.len()))
    });
    all
}

/// How many case ids a finding lists before "+N more".
const LISTED: usize = 8;
/// How many characters of a finding's message a line shows.
const SHOWN: usize = 200;

/// The findings as text: each unexpected one with its cases, each expected
/// one on one line.
pub fn text(findings: &[Finding]) -> String {
    let mut out = String::new();
    let (expected, unexpected): (Vec<&Finding>, Vec<&Finding>) =
        findings.iter().partition(|f| f.expected);
    if !unexpected.is_empty() {
        let _ = writeln!(out, "findings ({}):", unexpected.len());
        for f in unexpected {
            let _ = writeln!(out, "  {}", line(f));
            let mut ids: Vec<String> = f.cases.iter().take(LISTED).cloned().collect();
            if f.cases.len() > LISTED {
                ids.push(format!("+{} more", f.cases.len() - LISTED));
            }
            let _ = writeln!(out, "      {}", ids.join(", "));
        }
    }
    if !expected.is_empty() {
        let _ = writeln!(
            out,
            "expected findings ({}, listed in the baseline; --verbose shows each case):",
            expected.len()
        );
        for f in expected {
            let _ = writeln!(out, "  {}", line(f));
        }
    }
    out
}

fn line(f: &Finding) -> String {
    let mut message = f.example.clone();
    if message.chars().count() > SHOWN {
        message = message.chars().take(SHOWN).collect::<String>() + "…";
    }
    let cases = match f.cases.len() {
        1 => "1 case".to_string(),
        n => format!("{n} cases"),
    };
    match &f.requirement {
        Some(r) => format!("{cases}: {r}: {message}"),
        None => format!("{cases}: unnamed difference: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{CaseOutcome, Finding as Violation, Status};

    fn failing(id: &str, violations: &[(&str, &str)], expected: bool) -> CaseOutcome {
        CaseOutcome {
            requirements: violations.iter().map(|(r, _)| r.to_string()).collect(),
            violations: violations
                .iter()
                .map(|(r, m)| Violation {
                    requirement: Some(r.to_string()),
                    level: None,
                    message: m.to_string(),
                })
                .collect(),
            expectation: expected.then_some(Expectation::Expected),
            ..crate::outcome::sample(id, Status::Fail)
        }
    }

    #[test]
    fn one_difference_in_many_cases_is_one_finding() {
        let shifted = "a system message precedes the user message at entry 0";
        let cases = vec![
            failing("p/a", &[("PIPE-ORDER-01", shifted)], false),
            failing("p/b", &[("PIPE-ORDER-01", shifted)], false),
            failing(
                "p/c",
                &[
                    ("PIPE-ORDER-01", shifted),
                    ("PIPE-RESULT-05", "call call_2: no details"),
                ],
                false,
            ),
            failing("b/x", &[("BOUNDARY-UNK-01", "call call_1: rejected")], true),
            failing("b/y", &[("BOUNDARY-UNK-01", "call call_7: rejected")], true),
        ];
        let found = group(&cases);
        assert_eq!(found.len(), 3, "{found:#?}");
        assert_eq!(found[0].cases, vec!["p/a", "p/b", "p/c"]);
        assert!(!found[0].expected);
        assert_eq!(found[1].cases, vec!["p/c"]);
        // call ids differ, the difference does not; every case expected
        assert_eq!(found[2].cases, vec!["b/x", "b/y"]);
        assert!(found[2].expected);
        let shown = text(&found);
        assert!(
            shown.contains("3 cases: PIPE-ORDER-01: a system message"),
            "{shown}"
        );
        assert!(shown.contains("      p/a, p/b, p/c\n"), "{shown}");
        assert!(shown.contains("expected findings (1"), "{shown}");
        assert!(
            !shown.contains("b/x"),
            "an expected finding is one line: {shown}"
        );
    }

    #[test]
    fn a_finding_with_an_unexpected_case_is_not_expected() {
        let cases = vec![
            failing("b/x", &[("BOUNDARY-ERR-01", "threw")], true),
            failing("b/y", &[("BOUNDARY-ERR-01", "threw")], false),
        ];
        assert!(!group(&cases)[0].expected);
    }
}
