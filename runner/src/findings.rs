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

/// A message's first line with what varies between cases of one
/// difference, and between runs and machines, masked: digit runs (call
/// ids, sizes, times) become `#`, and so do hexadecimal addresses
/// (`0x7f3a…`) and generated names (a word of six or more letters and
/// digits mixed: a temporary file's `26c8f0475c5b`); absolute paths
/// (`/work/x/y`, `file:///…`, two segments or more) become `<path>`, so a
/// checkout in another folder shows the same difference.
pub fn key(message: &str) -> String {
    let line = message.lines().next().unwrap_or_default();
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    // where a path or an address may begin: not inside a word
    let at_boundary = |i: usize| i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    while i < chars.len() {
        let c = chars[i];
        if at_boundary(i) {
            if let Some(end) = path_end(&chars, i) {
                out.push_str("<path>");
                i = end;
                continue;
            }
            if c == '0'
                && matches!(chars.get(i + 1), Some('x' | 'X'))
                && chars.get(i + 2).is_some_and(char::is_ascii_hexdigit)
            {
                i += 2;
                while chars.get(i).is_some_and(char::is_ascii_hexdigit) {
                    i += 1;
                }
                out.push('#');
                continue;
            }
            // a generated name: six or more letters and digits, mixed (a
            // temporary file's `26c8f0475c5b…`, a `tmp3k2j9x_`)
            let word = chars[i..]
                .iter()
                .position(|c| !c.is_ascii_alphanumeric())
                .map_or(chars.len(), |n| i + n);
            let mixed = chars[i..word].iter().any(char::is_ascii_digit)
                && chars[i..word].iter().any(char::is_ascii_alphabetic);
            if word - i >= 6 && mixed {
                out.push('#');
                i = word;
                continue;
            }
        }
        if c.is_ascii_digit() {
            out.push('#');
            while chars.get(i).is_some_and(char::is_ascii_digit) {
                i += 1;
            }
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The end of an absolute path starting at `i` (`/a/b…` or `file:///…`),
/// if one starts there: it runs to a space, a quote, a bracket, a comma or
/// a colon (a `:line:col` suffix is digits, masked after it).
fn path_end(chars: &[char], i: usize) -> Option<usize> {
    const SCHEME: [char; 7] = ['f', 'i', 'l', 'e', ':', '/', '/'];
    let start = if chars[i..].starts_with(&SCHEME) {
        i + SCHEME.len()
    } else {
        i
    };
    if chars.get(start) != Some(&'/') {
        return None;
    }
    let stop = |c: &char| {
        c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '(' | ')' | '[' | ']' | ',' | ':')
    };
    let end = chars[start..]
        .iter()
        .position(stop)
        .map_or(chars.len(), |n| start + n);
    let segments = chars[start..end]
        .split(|c| *c == '/')
        .filter(|s| !s.is_empty())
        .count();
    (segments >= 2).then_some(end)
}

/// What a failing case's failure is, in 12 hexadecimal digits: its status
/// and each violation that fails it (its requirement and [`key`]), sorted.
/// SHOULD violations are left out while a MUST one fails the case: a
/// warning that comes and goes with the machine's load must not make the
/// same failure look changed. A baseline records it (`@…`) so that a
/// different failure on the same case and requirements is reported as
/// changed, not as expected.
pub fn fingerprint(case: &CaseOutcome) -> String {
    use sha2::{Digest, Sha256};
    let mut lines: Vec<String> = case
        .violations
        .iter()
        .filter(|v| case.is_failing(v))
        .map(|v| {
            format!(
                "{}\t{}",
                v.requirement.as_deref().unwrap_or("-"),
                key(&v.message)
            )
        })
        .collect();
    lines.sort();
    lines.dedup();
    let mut hash = Sha256::new();
    hash.update(case.status.name().as_bytes());
    for line in &lines {
        hash.update(b"\n");
        hash.update(line.as_bytes());
    }
    crate::report::hex(&hash.finalize()[..6])
}

/// One case as a grouping sees it: its id, whether its baseline expects
/// its failure, and each violation's requirement and message. A run's
/// outcomes and a matrix's case results are both grouped through it.
pub struct Seen<'a> {
    pub case: &'a str,
    pub expected: bool,
    pub violations: Vec<(Option<&'a str>, &'a str)>,
}

/// The findings of `cases` (failures and warnings), the most cases first,
/// those not expected before those expected.
pub fn group(cases: &[CaseOutcome]) -> Vec<Finding> {
    group_seen(cases.iter().map(|c| {
        Seen {
            case: &c.id,
            expected: c.expectation == Some(Expectation::Expected),
            violations: c
                .violations
                .iter()
                .map(|v| (v.requirement.as_deref(), v.message.as_str()))
                .collect(),
        }
    }))
}

/// [`group`] over any cases.
pub fn group_seen<'a>(cases: impl IntoIterator<Item = Seen<'a>>) -> Vec<Finding> {
    let mut by_key: BTreeMap<(Option<&str>, String), Finding> = BTreeMap::new();
    for c in cases {
        for (requirement, message) in &c.violations {
            let entry = by_key
                .entry((*requirement, key(message)))
                .or_insert_with(|| Finding {
                    requirement: requirement.map(str::to_string),
                    example: message.lines().next().unwrap_or_default().to_string(),
                    cases: Vec::new(),
                    expected: true,
                });
            if entry.cases.last().map(String::as_str) != Some(c.case) {
                entry.cases.push(c.case.to_string());
            }
            entry.expected &= c.expected;
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
    use toolgate_suite::Level;

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
    fn what_varies_between_runs_and_machines_is_masked() {
        let cases = [
            (
                "Error: Tool ghost not found at file:///work/main/adapters/x/node_modules/a.js:428:2465",
                "Error: Tool ghost not found at <path>:#:#",
            ),
            (
                "ENOENT: no such file, open '/tmp/tg-aB3xYz/notes.txt'",
                "ENOENT: no such file, open '<path>'",
            ),
            (
                "<function read at 0x7f3a9c0d1e2b> took 1234 ms",
                "<function read at #> took # ms",
            ),
            // a lone `/` word, `n/a` and a one-segment path are text
            ("n/a: 3 / 4 of /dev", "n/a: # / # of /dev"),
            (
                "rename $BASE/ws.26c8f0475c5b57a214fd4c0112006b78.tmp as call_12",
                "rename $BASE/ws.#.tmp as call_#",
            ),
        ];
        for (message, masked) in cases {
            assert_eq!(key(message), masked, "{message}");
        }
    }

    #[test]
    fn a_fingerprint_is_the_failure_not_its_warnings_or_its_folder() {
        let at = |folder: &str| {
            failing(
                "b/x",
                &[(
                    "BOUNDARY-ERR-01",
                    &format!("rejected: Error: boom at {folder}/a.js:1:2"),
                )],
                false,
            )
        };
        let here = fingerprint(&at("/work/main"));
        assert_eq!(here.len(), 12);
        assert_eq!(fingerprint(&at("/home/ci/checkout")), here);
        // a SHOULD warning beside the failure does not change it
        let mut warned = at("/work/main");
        warned.violations.push(Violation {
            requirement: Some("BOUNDARY-ARGS-01".into()),
            level: Some(Level::Should),
            message: "took 1.3 s".into(),
        });
        assert_eq!(fingerprint(&warned), here);
        // another error, another requirement or another status does
        let other = failing(
            "b/x",
            &[("BOUNDARY-ERR-01", "rejected: Error: bang")],
            false,
        );
        assert_ne!(fingerprint(&other), here);
        let mut timed_out = at("/work/main");
        timed_out.status = Status::Timeout;
        assert_ne!(fingerprint(&timed_out), here);
        let mut turn = at("/work/main");
        turn.violations[0].requirement = Some("BOUNDARY-TURN-01".into());
        assert_ne!(fingerprint(&turn), here);
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
