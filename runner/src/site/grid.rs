//! A suite's grid: a row per runtime (grouped by language, in the runtimes
//! file's order), a column per requirement under its short id (the
//! sentence shows on hover or focus, and in the list below the grid), a
//! mark and a case count per cell. A cell's details open in place, floating
//! over the grid: its cases' statuses, the findings about the requirement,
//! and a link to the runtime's page, where everything is.

use super::{
    class, counts, cut, findings_about, frame, legend, level, mark, tally, Site, SuiteView,
};
use crate::matrix::{Grade, Row, Weight};
use maud::{html, Markup};

/// Columns past which the headers turn on their side and the counts hide.
const UPRIGHT_COLUMNS: usize = 18;
/// Findings a cell's details quote before pointing at the runtime's page.
const QUOTED: usize = 3;

/// The id of a cell, for links to it.
pub fn cell_id(runtime: &str, requirement: &str) -> String {
    format!("cell-{runtime}-{requirement}")
}

/// The languages of a suite's rows, in order of first appearance.
fn languages<'m>(suite: &SuiteView<'m>) -> Vec<&'m str> {
    let mut out: Vec<&str> = Vec::new();
    for row in &suite.matrix.rows {
        let l = language(row);
        if !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

pub(super) fn language(row: &Row) -> &str {
    row.runtime.language.as_deref().unwrap_or("other")
}

fn cell(suite: &SuiteView, row: &Row, requirement: &str, right: bool) -> Markup {
    let m = suite.matrix;
    let side = if right { "right" } else { "left" };
    let Some(cell) = row.cells.get(requirement) else {
        return html! { td id=(cell_id(&row.runtime.id, requirement)) class={ "untested " (side) } data-grade="untested" { span aria-hidden="true" { "?" } span.sr { "no case" } } };
    };
    let cases = suite.cell_cases(row, requirement);
    let findings = findings_about(cases.iter().copied(), Some(requirement));
    let broken: Vec<&str> = cases
        .iter()
        .filter(|c| matches!(c.status.as_str(), "timeout" | "crash" | "error"))
        .map(|c| c.id.as_str())
        .collect();
    let grade = cell.grade;
    let short = suite.short(requirement);
    let name = format!("{} {}", row.runtime.name, row.runtime.version);
    let anchor = match grade {
        Grade::Fail | Grade::Warn => requirement.to_string(),
        _ => format!("r-{requirement}"),
    };
    html! {
        td id=(cell_id(&row.runtime.id, requirement)) class={ (class(grade)) " " (side) } data-grade=(grade.name()) {
            details {
                summary {
                    span aria-hidden="true" { (mark(grade)) }
                    span.n aria-hidden="true" { (cases.len()) }
                    span.sr { (name) ", " (short) ": " (grade.name()) ", " (cases.len()) " cases" }
                }
                div.pop {
                    p { strong { (name) } " · " code { (requirement) } " " (grade.name()) }
                    p.muted { (cases.len()) " case(s): " (counts(cases.iter().map(|c| c.status.as_str()))) }
                    @if !findings.is_empty() {
                        ul {
                            @for f in findings.iter().take(QUOTED) {
                                li { (cut(&f.example, 160)) " " span.muted { "(" (f.cases.len()) " case(s)" @if f.expected { ", expected" } ")" } }
                            }
                            @if findings.len() > QUOTED { li.muted { (findings.len() - QUOTED) " more finding(s)" } }
                        }
                    }
                    @if !broken.is_empty() {
                        p { "Did not finish: " @for (i, id) in broken.iter().take(QUOTED).enumerate() { @if i > 0 { ", " } code { (id) } } @if broken.len() > QUOTED { " …" } }
                    }
                    p { a href={ (row.runtime.id) ".html#" (anchor) } { "Cases and reproduce commands on " (m.suite) " / " (row.runtime.id) } }
                }
            }
        }
    }
}

/// The page of one suite's grid.
pub(super) fn page(site: &Site, suite: &SuiteView) -> String {
    let m = suite.matrix;
    let columns = m.requirements.len();
    let rotated = columns > UPRIGHT_COLUMNS;
    let table_class = if rotated {
        "grid rotated narrow"
    } else {
        "grid"
    };
    let langs = languages(suite);
    let half = columns / 2;
    let family_links: Vec<_> = site
        .families
        .iter()
        .filter(|f| f.members.iter().any(|(s, _, _)| *s == m.suite))
        .collect();
    let body = html! {
        h1 { "The " code { (m.suite) } " suite: " (m.rows.len()) " runtimes, " (columns) " requirements" }
        p.meta {
            "toolgate " (m.toolgate) ", generated " (m.generated) " on " (m.machine) " in " (format!("{:.0}", m.duration_secs)) " s. "
            "A row is a runtime driven through its own execution path; a column is a requirement (MUST upright, "
            em { "SHOULD" } " slanted; hover or focus an id for its sentence). Open a cell for its cases."
        }
        @if let Some(left_out) = crate::matrix::left_out(m) {
            p.meta { (left_out.replace('`', "")) }
        }
        (legend())
        div.controls hidden {
            span { "Language:" }
            @for l in &langs { button type="button" data-language=(l) aria-pressed="false" { (l) } }
            label { "Order: "
                select {
                    option value="file" { "as listed" }
                    option value="passed" { "most MUST passed" }
                }
            }
        }
        div.grid-box {
            table class=(table_class) style={ "--cols: " (columns) } {
                caption.sr { "The " (m.suite) " suite: each runtime's grade on each requirement" }
                colgroup { col.rt; @for _ in &m.requirements { col; } }
                thead {
                    tr {
                        th scope="col" { "runtime" }
                        @for (i, r) in m.requirements.iter().enumerate() {
                            th scope="col" class={ "req " (if r.level == Weight::Must { "must" } else { "should" }) " " (if i < half { "left" } else { "right" }) } {
                                a href={ "#req-" (r.id) } aria-describedby={ "tip-" (r.id) } { (suite.short(&r.id)) }
                                span.tip role="tooltip" id={ "tip-" (r.id) } { code { (r.id) } " " (level(r.level)) ": " (r.text) }
                            }
                        }
                    }
                }
                @for l in &langs {
                    tbody data-language=(l) {
                        tr.group { th scope="rowgroup" colspan=(columns + 1) {
                            (l) " · " (m.rows.iter().filter(|r| language(r) == *l).count()) " runtime(s)"
                        } }
                        @for (order, row) in m.rows.iter().enumerate().filter(|(_, r)| language(r) == *l) {
                            @let (passed, applicable) = row.must_passed(&m.requirements);
                            tr data-runtime=(row.runtime.id) data-order=(order) data-passed=(passed) data-applicable=(applicable) {
                                th scope="row" title={ (row.runtime.name) " " (row.runtime.version) " (" (row.runtime.package) "), " (passed) "/" (applicable) " MUST passed" } {
                                    a href={ (row.runtime.id) ".html" } { (row.runtime.name) }
                                    " " span.ver { (row.runtime.version) }
                                    " " span.lang { (passed) "/" (applicable) }
                                }
                                @for (i, r) in m.requirements.iter().enumerate() {
                                    (cell(suite, row, &r.id, i >= half))
                                }
                            }
                        }
                    }
                }
            }
        }
        h2 { "Runtimes" }
        table.list {
            thead { tr { th scope="col" { "runtime" } th scope="col" { "package" } th scope="col" { "language" } th scope="col" { "MUST passed" } th scope="col" { "cases" } } }
            tbody {
                @for row in &m.rows {
                    @let (passed, applicable) = row.must_passed(&m.requirements);
                    tr {
                        td { a href={ (row.runtime.id) ".html" } { (row.runtime.name) " " (row.runtime.version) } }
                        td { code { (row.runtime.package) "@" (row.runtime.version) } }
                        td { (language(row)) }
                        td.g { (passed) "/" (applicable) }
                        td { (tally(row.summary.iter().map(|(s, n)| (s.as_str(), *n)))) }
                    }
                }
            }
        }
        @if !family_links.is_empty() {
            h2 { "Versions" }
            ul {
                @for f in &family_links {
                    li { a href={ "../versions/" (f.slug) ".html" } { code { (f.package) } } " at "
                        (f.members.iter().filter(|(s, _, _)| *s == m.suite).map(|(_, _, v)| v.as_str()).collect::<Vec<_>>().join(", ")) }
                }
            }
        }
        h2 { "Requirements" }
        dl.reqs {
            @for r in &m.requirements {
                dt id={ "req-" (r.id) } { code { (r.id) } " " (level(r.level)) }
                dd { (r.text) }
            }
        }
    };
    frame(
        &format!("toolgate: the {} suite", m.suite),
        "../",
        &[(String::new(), m.suite.clone())],
        body,
    )
}
