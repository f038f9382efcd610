//! The versions view: one package at several versions side by side, per
//! suite, the requirements whose grade differs between them first (with
//! what each version's cases found), the unchanged ones folded below. A
//! release's effect on the contract reads as a short list, not as two
//! grids to compare by eye.

use super::{class, cut, findings_about, frame, legend, level, mark, version_order, Family, Site};
use crate::matrix::{Matrix, Requirement, Row};
use maud::{html, Markup};

/// The first finding of `row` about `requirement`, quoted short.
fn first_finding(row: &Row, requirement: &str) -> Option<String> {
    let found = findings_about(&row.cases, Some(requirement));
    found
        .first()
        .map(|f| format!("{} ({} case(s))", cut(&f.example, 200), f.cases.len()))
}

fn grade_cell(m: &Matrix, row: &Row, r: &Requirement) -> Markup {
    let g = row.grade(&r.id);
    let anchor = if matches!(g, crate::matrix::Grade::Fail | crate::matrix::Grade::Warn) {
        r.id.clone()
    } else {
        format!("r-{}", r.id)
    };
    html! {
        td.g {
            span class={ "mark " (class(g)) } aria-hidden="true" { (mark(g)) } " "
            a href={ "../" (m.suite) "/" (row.runtime.id) ".html#" (anchor) } { (g.name()) }
        }
    }
}

/// A table's head: the requirement, then a column per version.
fn versions_head(rows: &[&Row]) -> Markup {
    html! {
        thead { tr {
            th scope="col" { "requirement" }
            @for row in rows { th scope="col" { (row.runtime.version) } }
        } }
    }
}

fn suite_part(m: &Matrix, rows: &[&Row]) -> Markup {
    let changed: Vec<&Requirement> = m
        .requirements
        .iter()
        .filter(|r| {
            let first = rows.first().map(|row| row.grade(&r.id));
            rows.iter().any(|row| Some(row.grade(&r.id)) != first)
        })
        .collect();
    let unchanged: Vec<&Requirement> = m
        .requirements
        .iter()
        .filter(|r| !changed.iter().any(|c| c.id == r.id))
        .collect();
    html! {
        section id={ "suite-" (m.suite) } {
            h2 { "The " a href={ "../" (m.suite) "/index.html" } { (m.suite) } " suite" }
            table.list {
                thead { tr { th scope="col" { "version" } th scope="col" { "runtime" } th scope="col" { "MUST passed" } } }
                tbody {
                    @for row in rows {
                        @let (p, a) = row.must_passed(&m.requirements);
                        tr { td { strong { (row.runtime.version) } } td { a href={ "../" (m.suite) "/" (row.runtime.id) ".html" } { (row.runtime.id) } } td.g { (p) "/" (a) } }
                    }
                }
            }
            h3 { (changed.len()) " requirement(s) graded differently" }
            @if changed.is_empty() { p { "Every requirement has the same grade at every version." } }
            @else {
                table.list {
                    (versions_head(rows))
                    tbody {
                        @for r in &changed {
                            tr.changed data-requirement=(r.id) {
                                td { code { (r.id) } " " (level(r.level)) br; span.muted { (cut(&r.text, 180)) } }
                                @for row in rows { (grade_cell(m, row, r)) }
                            }
                            tr {
                                td { span.sr { "what each version's cases found" } }
                                @for row in rows {
                                    td { @if let Some(f) = first_finding(row, &r.id) { span.muted { (f) } } }
                                }
                            }
                        }
                    }
                }
            }
            details {
                summary { (unchanged.len()) " requirement(s) with the same grade at every version" }
                table.list {
                    (versions_head(rows))
                    tbody {
                        @for r in &unchanged {
                            tr data-requirement=(r.id) {
                                td { code { (r.id) } " " (level(r.level)) }
                                @for row in rows { (grade_cell(m, row, r)) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The page of `family`.
pub(super) fn page(site: &Site, family: &Family) -> String {
    let mut parts = Vec::new();
    let mut single = Vec::new();
    for suite in &site.suites {
        let m = suite.matrix;
        let mut rows: Vec<&Row> = m
            .rows
            .iter()
            .filter(|r| r.runtime.package == family.package)
            .collect();
        rows.sort_by(|a, b| version_order(&a.runtime.version, &b.runtime.version));
        match rows.len() {
            0 => {}
            1 => single.push((m, rows[0])),
            _ => parts.push(suite_part(m, &rows)),
        }
    }
    let versions = family.versions();
    let body = html! {
        h1 { code { (family.package) } " at " (versions.join(", ")) }
        p.meta { "The same runtime at several versions: per suite, the requirements whose grade changed between them, with what each version's cases found. Open a grade for its cases." }
        (legend())
        @for p in &parts { (p) }
        @for (m, row) in &single {
            p { "In the " a href={ "../" (m.suite) "/index.html" } { (m.suite) } " suite only at " a href={ "../" (m.suite) "/" (row.runtime.id) ".html" } { (row.runtime.version) } "." }
        }
    };
    frame(
        &format!("toolgate: {} across versions", family.package),
        "../",
        &[(String::new(), format!("{} versions", family.package))],
        body,
    )
}
