//! The matrix as one static HTML page: requirements down, runtimes across,
//! each cell a `<details>` that opens on what happened in the cases behind
//! it (statuses, the violations in words, the measured figures against
//! their bounds, the command that reproduces each case). Each cell has an
//! id (`cell-<runtime>-<requirement>`), and a link to it opens it: the one
//! script of the page does only that, so the page reads the same without
//! scripts, in any browser and in a CI artifact viewer.

use super::{CaseResult, Grade, Matrix, Row, Weight};
use maud::{html, Markup, PreEscaped, DOCTYPE};

const STYLE: &str = r#"
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem; color: #1b1f24; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; }
p.meta { color: #57606a; margin: 0 0 1rem; }
table#grid { border-collapse: collapse; }
#grid th, #grid td { border: 1px solid #d0d7de; padding: .3rem .45rem; vertical-align: top; }
#grid thead th { background: #f6f8fa; position: sticky; top: 0; }
#grid th.req { text-align: left; max-width: 28rem; font-weight: normal; }
#grid th.req code { font-weight: 600; }
td.cell { min-width: 6.5rem; }
td.pass { background: #dafbe1; } td.fail { background: #ffebe9; }
td.warn { background: #fff8c5; } td.na { background: #eaeef2; } td.untested { background: #fff; }
details > summary { cursor: pointer; font-weight: 600; }
details[open] { min-width: 24rem; }
.case { margin: .4rem 0; padding-top: .3rem; border-top: 1px dashed #d0d7de; }
.case code, pre { font-size: 12px; }
pre { white-space: pre-wrap; background: #f6f8fa; padding: .3rem; margin: .2rem 0; }
.level { font-size: 12px; color: #57606a; }
ul.figures { margin: .2rem 0; padding-left: 1.2rem; }
"#;

fn class(grade: Grade) -> &'static str {
    match grade {
        Grade::Pass => "pass",
        Grade::Warn => "warn",
        Grade::Fail => "fail",
        Grade::NotApplicable => "na",
        Grade::Untested => "untested",
    }
}

fn mark(grade: Grade) -> &'static str {
    match grade {
        Grade::Pass => "✓ pass",
        Grade::Warn => "⚠ warn",
        Grade::Fail => "✗ fail",
        Grade::NotApplicable => "n/a",
        Grade::Untested => "untested",
    }
}

fn figure(value: f64, unit: &str) -> String {
    match unit {
        "bytes" if value >= 1_048_576.0 => format!("{:.1} MiB", value / 1_048_576.0),
        "bytes" if value >= 1024.0 => format!("{:.1} KiB", value / 1024.0),
        "bytes" => format!("{value:.0} B"),
        "ms" => format!("{value:.1} ms"),
        other => format!("{value} {other}"),
    }
}

fn case_details(case: &CaseResult, requirement: &str) -> Markup {
    html! {
        div.case data-case=(case.id) {
            code { (case.id) } " — " strong { (case.status) }
            @if case.expected { " (expected by the baseline)" }
            @for v in &case.violations {
                @if v.requirement.as_deref() == Some(requirement) || v.requirement.is_none() {
                    pre { (v.requirement.as_deref().unwrap_or("unnamed")) ": " (v.message) }
                }
            }
            @if let Some(m) = &case.message { pre { (m) } }
            @if !case.measures.is_empty() {
                ul.figures {
                    @for m in &case.measures {
                        li { (m.name) ": " (figure(m.value, &m.unit))
                            @if let Some(b) = m.bound { " (bound " (figure(b, &m.unit)) ")" } }
                    }
                }
            }
            div { "reproduce: " code { (case.reproduce) } }
        }
    }
}

fn cell(row: &Row, requirement: &str) -> Markup {
    let Some(cell) = row.cells.get(requirement) else {
        return html! { td.cell.untested { "untested" } };
    };
    let cases: Vec<&CaseResult> = cell
        .cases
        .iter()
        .filter_map(|id| row.cases.iter().find(|c| c.id == *id))
        .collect();
    html! {
        td id=(cell_id(&row.runtime.id, requirement)) class={ "cell " (class(cell.grade)) } data-runtime=(row.runtime.id) data-requirement=(requirement) data-grade=(cell.grade.name()) {
            details {
                summary { (mark(cell.grade)) }
                p { (cases.len()) " case(s) on " (row.runtime.name) " " (row.runtime.version) }
                @for c in &cases { (case_details(c, requirement)) }
            }
        }
    }
}

/// The id of a cell, for links to it.
pub fn cell_id(runtime: &str, requirement: &str) -> String {
    format!("cell-{runtime}-{requirement}")
}

/// Opens the cell the page's address names (`index.html#cell-...`).
const OPEN_LINKED_CELL: &str = "addEventListener('DOMContentLoaded', () => {\n  const id = decodeURIComponent(location.hash.slice(1));\n  const cell = id && document.getElementById(id);\n  const details = cell && cell.querySelector('details');\n  if (details) { details.open = true; cell.scrollIntoView(); }\n});";

/// The page.
pub fn page(matrix: &Matrix) -> String {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                title { "toolgate compliance matrix: " (matrix.suite) }
                style { (PreEscaped(STYLE)) }
                script { (PreEscaped(OPEN_LINKED_CELL)) }
            }
            body {
                h1 { "toolgate compliance matrix: the " code { (matrix.suite) } " suite" }
                p.meta {
                    "toolgate " (matrix.toolgate) ", generated " (matrix.generated) " on " (matrix.machine)
                    " in " (format!("{:.0}", matrix.duration_secs)) " s. "
                    "MUST requirements fail a runtime; SHOULD requirements warn. Open a cell for what happened, the figures, and the command that reproduces it."
                }
                table #grid {
                    thead {
                        tr {
                            th { "requirement" }
                            @for row in &matrix.rows {
                                th data-runtime=(row.runtime.id) {
                                    (row.runtime.name) br; code { (row.runtime.package) "@" (row.runtime.version) }
                                }
                            }
                        }
                    }
                    tbody {
                        @for r in &matrix.requirements {
                            tr data-requirement=(r.id) {
                                th.req {
                                    code { (r.id) } " "
                                    span.level { (match r.level { Weight::Must => "MUST", Weight::Should => "SHOULD" }) }
                                    br; (r.text)
                                }
                                @for row in &matrix.rows { (cell(row, &r.id)) }
                            }
                        }
                    }
                }
                h2 { "Runtimes" }
                ul {
                    @for row in &matrix.rows {
                        li data-runtime=(row.runtime.id) {
                            strong { (row.runtime.name) } " (" code { (row.implementation) } "): "
                            @for (status, n) in &row.summary { (n) " " (status) "; " }
                            (format!("{:.1}", row.duration_secs)) " s. Adapter: " code { (row.runtime.adapter) }
                            @if let Some(notes) = &row.runtime.notes { br; (notes) }
                        }
                    }
                }
            }
        }
    };
    markup.into_string()
}
