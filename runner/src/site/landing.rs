//! The landing page: what is measured, in two sentences, and a card per
//! suite linking its grid, with each runtime's MUST count; the versions
//! views below.

use super::{frame, Site};
use crate::matrix::Weight;
use maud::html;

pub(super) fn page(site: &Site) -> String {
    let body = html! {
        h1 { "toolgate compliance" }
        p {
            "Each runtime below is run through its own tool-call path by a small shim, and what it does with hostile, failing, cancelled and oversized tool calls is judged against a suite's numbered requirements. "
            "A MUST requirement broken fails the runtime's cell, a SHOULD one warns; every cell opens on its cases and the command that reproduces each."
        }
        div.cards {
            @for suite in &site.suites {
                @let m = suite.matrix;
                @let musts = m.requirements.iter().filter(|r| r.level == Weight::Must).count();
                section.card {
                    h2 { a href={ (m.suite) "/index.html" } { "The " (m.suite) " suite" } }
                    p.muted { (m.rows.len()) " runtime(s), " (m.requirements.len()) " requirements (" (musts) " MUST); generated " (m.generated) "." }
                    ul {
                        @for row in &m.rows {
                            @let (passed, applicable) = row.must_passed(&m.requirements);
                            li {
                                a href={ (m.suite) "/" (row.runtime.id) ".html" } { (row.runtime.name) " " (row.runtime.version) }
                                " — " (passed) "/" (applicable) " MUST"
                            }
                        }
                    }
                }
            }
        }
        @if !site.families.is_empty() {
            h2 { "Versions" }
            ul {
                @for f in &site.families {
                    li { a href={ "versions/" (f.slug) ".html" } { code { (f.package) } } ": " (f.versions().join(" beside ")) }
                }
            }
        }
    };
    frame("toolgate compliance", "", &[], body)
}
