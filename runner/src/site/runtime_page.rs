//! A runtime's page in one suite: what it is (package, version, language,
//! the execution path its shim drives), its badge, its other versions,
//! every failing requirement with its findings grouped (the same
//! difference once, with the cases that showed it and the command that
//! reproduces each), the cases that did not run, a line per requirement,
//! and the runtime's source lines its shim's README cites.

use super::grid::{cell_id, language};
use super::{class, counts, findings_about, frame, level, mark, tally, Site, SuiteView};
use crate::findings::Finding;
use crate::matrix::{CaseResult, Grade, Requirement, Row};
use maud::{html, Markup};

fn case_line(case: Option<&CaseResult>, id: &str) -> Markup {
    html! {
        li {
            code { (id) }
            @if let Some(c) = case {
                " " span class={ "mark " (status_class(&c.status)) } { (c.status) }
                @if c.expected { " (expected by the baseline)" }
                @if let Some(m) = &c.message { " — " (m) }
                br; span.muted { "reproduce: " } code { (c.reproduce) }
            }
        }
    }
}

fn status_class(status: &str) -> &'static str {
    match status {
        "pass" => "pass",
        "warn" => "warn",
        "n/a" | "skip" => "na",
        "fail" | "timeout" | "crash" | "error" => "fail",
        _ => "untested",
    }
}

fn finding(f: &Finding, row: &Row, css: &str) -> Markup {
    let case = |id: &str| row.cases.iter().find(|c| c.id == id);
    html! {
        div class={ "finding " (css) } {
            pre { (f.example) }
            details {
                summary { (f.cases.len()) " case(s)" @if f.expected { ", each expected by the baseline" } }
                ul { @for id in &f.cases { (case_line(case(id), id)) } }
            }
        }
    }
}

fn failing(suite: &SuiteView, row: &Row, r: &Requirement) -> Markup {
    let grade = row.grade(&r.id);
    let findings = findings_about(&row.cases, Some(&r.id));
    let unfinished: Vec<&CaseResult> = suite
        .cell_cases(row, &r.id)
        .into_iter()
        .filter(|c| matches!(c.status.as_str(), "timeout" | "crash"))
        .collect();
    html! {
        section id=(r.id) {
            h3 { span class={ "mark " (class(grade)) } aria-hidden="true" { (mark(grade)) } " " code { (r.id) } " " (level(r.level)) ": " (grade.name()) }
            p { (r.text) }
            @for f in &findings { (finding(f, row, class(grade))) }
            @if !unfinished.is_empty() {
                div class={ "finding " (class(grade)) } {
                    p { "Cases about it that did not finish:" }
                    ul { @for c in &unfinished { (case_line(Some(c), &c.id)) } }
                }
            }
        }
    }
}

/// The page of `row` in `suite`.
pub(super) fn page(site: &Site, suite: &SuiteView, row: &Row) -> String {
    let m = suite.matrix;
    let rt = &row.runtime;
    let (passed, applicable) = row.must_passed(&m.requirements);
    let mut broken: Vec<&Requirement> = m
        .requirements
        .iter()
        .filter(|r| matches!(row.grade(&r.id), Grade::Fail | Grade::Warn))
        .collect();
    broken.sort_by_key(|r| std::cmp::Reverse(row.grade(&r.id)));
    let unnamed = findings_about(&row.cases, None);
    let not_run: Vec<&CaseResult> = row
        .cases
        .iter()
        .filter(|c| matches!(c.status.as_str(), "skip" | "error"))
        .collect();
    let family = site.family_of(&rt.package);
    let citations = rt.readme.as_ref().and_then(|p| site.citations.get(p));
    let command = format!("toolgate run --suite {} --impl \"{}\"", m.suite, rt.adapter);
    let body = html! {
        h1 { (rt.name) " " (rt.version) }
        p { img.badge src={ "badges/" (rt.id) ".svg" } alt={ "toolgate " (m.suite) ": " (passed) "/" (applicable) " MUST" }; }
        table.list {
            tbody {
                tr { th scope="row" { "package" } td { code { (rt.package) "@" (rt.version) } } }
                tr { th scope="row" { "language" } td { (language(row)) } }
                tr { th scope="row" { "suite" } td { a href="index.html" { (m.suite) } " (toolgate " (m.toolgate) ", " (m.generated) ")" } }
                tr { th scope="row" { "adapter (its handshake)" } td { code { (row.implementation) } } }
                tr { th scope="row" { "adapter command" } td { code { (rt.adapter) } } }
                @if let Some(notes) = &rt.notes { tr { th scope="row" { "execution path" } td { (notes) } } }
                tr { th scope="row" { "MUST requirements passed" } td { (passed) " of " (applicable) " applicable" } }
                tr { th scope="row" { "cases" } td { (tally(row.summary.iter().map(|(s, n)| (s.as_str(), *n)))) " in " (format!("{:.1}", row.duration_secs)) " s" } }
            }
        }
        @if let Some(f) = family {
            h2 { "Versions" }
            p {
                a href={ "../versions/" (f.slug) ".html" } { "What changed between the versions of " code { (f.package) } }
            }
            ul {
                @for (s, id, v) in &f.members {
                    li {
                        @if *s == m.suite && *id == rt.id { strong { (v) " (this page)" } }
                        @else { a href={ "../" (s) "/" (id) ".html" } { (v) } }
                        " in the " (s) " suite"
                    }
                }
            }
        }
        h2 { "Failing requirements (" (broken.len()) ")" }
        @if broken.is_empty() { p { "None: every applicable requirement passed." } }
        @for r in &broken { (failing(suite, row, r)) }
        @if !unnamed.is_empty() {
            h2 { "Differences no requirement names (" (unnamed.len()) ")" }
            @for f in &unnamed { (finding(f, row, "fail")) }
        }
        @if !not_run.is_empty() {
            h2 { "Cases that did not run (" (not_run.len()) ")" }
            details {
                summary { (counts(not_run.iter().map(|c| c.status.as_str()))) }
                ul { @for c in &not_run { (case_line(Some(c), &c.id)) } }
            }
        }
        h2 { "Every requirement" }
        table.list {
            thead { tr { th scope="col" { "requirement" } th scope="col" { "grade" } th scope="col" { "cases" } } }
            tbody {
                @for r in &m.requirements {
                    @let grade = row.grade(&r.id);
                    @let cases = suite.cell_cases(row, &r.id);
                    tr id={ "r-" (r.id) } {
                        td { code { (r.id) } " " (level(r.level)) }
                        td.g {
                            span class={ "mark " (class(grade)) } aria-hidden="true" { (mark(grade)) } " "
                            a href={ "index.html#" (cell_id(&rt.id, &r.id)) } { (grade.name()) }
                        }
                        td { (counts(cases.iter().map(|c| c.status.as_str()))) }
                    }
                }
            }
        }
        @if let (Some(readme), Some(found)) = (&rt.readme, citations) {
            @match found {
                Ok(cites) => {
                    h2 { "Source lines its shim's README cites (" (cites.len()) ")" }
                    p.muted { "From " a href={ (site.repository) "/blob/main/" (readme.display()) } { code { (readme.display()) } } ": where the runtime's own code does what the cells show." }
                    @if cites.is_empty() { p { "The README cites no source line." } }
                    ul.cites {
                        @for c in cites {
                            li {
                                @for (i, p) in c.places.iter().enumerate() { @if i > 0 { ", " } code { (p) } }
                                " — " (c.text) " "
                                a href={ (site.repository) "/blob/main/" (readme.display()) "#L" (c.line) } { "(README line " (c.line) ")" }
                            }
                        }
                    }
                }
                Err(why) => {
                    h2 { "Source lines its shim's README cites" }
                    p { "Its README could not be read when the site was built: " code { (why) } }
                }
            }
        }
        h2 { "Reproduce" }
        p { "The whole suite on this runtime, from the repository root:" }
        pre { (command) }
        @if let Some(b) = &rt.baseline {
            p { "Its baseline of known failures is " code { (b.display()) } ", beside the runtimes file; give it with " code { "--expected-failures" } " to fail only on what changed." }
        }
        p { "Each case above gives its own command." }
    };
    frame(
        &format!(
            "toolgate: {} {} on the {} suite",
            rt.name, rt.version, m.suite
        ),
        "../",
        &[
            ("index.html".into(), m.suite.clone()),
            (String::new(), format!("{} {}", rt.name, rt.version)),
        ],
        body,
    )
}
