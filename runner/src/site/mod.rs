//! `toolgate site`: the compliance site, one static folder built from the
//! matrices of every suite that has one (each `toolgate matrix` run's
//! `matrix.json`). It holds a landing page (`landing.rs`), a grid per suite
//! (`grid.rs`: runtimes down, short requirement ids across, a compact mark
//! per cell whose details open in place), a page per runtime and suite
//! (`runtime_page.rs`: its failing requirements with their findings
//! grouped, the source lines its shim's README cites, the commands that
//! reproduce each case) and a versions view per package seen at several
//! versions (`versions.rs`: what changed between them). Pages share one
//! style sheet and one small script (`assets.rs`); every page reads the same
//! without scripts, which only filter, sort and open a linked cell.
//!
//! This module loads the matrices, works out what the pages share (short
//! ids, the packages' versions, the README citations) and writes the
//! folder; it knows no suite's insides.

mod assets;
mod citations;
mod grid;
mod landing;
mod runtime_page;
mod versions;

use crate::matrix::{merge, CaseResult, Grade, Matrix, Requirement, Row, Weight};
use crate::Error;
use maud::{html, Markup, DOCTYPE};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

pub use citations::{cited, Citation};

/// Reads a matrix: a `matrix.json` file, or a folder holding one (what
/// `toolgate matrix --out` and `report merge --out` write).
pub fn read_matrix(path: &Path) -> Result<Matrix, Error> {
    let file = if path.is_dir() {
        path.join("matrix.json")
    } else {
        path.to_path_buf()
    };
    merge::read(&file)
}

/// What was written, for the command's last line and the tests.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub pages: Vec<PathBuf>,
    /// The grid page of each suite and its weight with the shared style
    /// sheet and script, in bytes.
    pub grids: Vec<(String, u64)>,
}

/// Builds the site of `matrices` into `out` (created; files of the same
/// names overwritten). `root` is where the runtimes' README paths are read
/// from (the repository root the adapters run from); a README that cannot
/// be read is said on its runtime's page.
pub fn build(matrices: &[Matrix], root: &Path, out: &Path) -> Result<Written, Error> {
    if matrices.is_empty() {
        return Err(Error::usage("toolgate site needs at least one matrix.json"));
    }
    let mut seen = std::collections::BTreeSet::new();
    for m in matrices {
        if !seen.insert(m.suite.as_str()) {
            return Err(Error::usage(format!(
                "two matrices of the {} suite: give one matrix.json per suite",
                m.suite
            )));
        }
        if m.suite.is_empty()
            || !m
                .suite
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(Error::usage(format!(
                "a matrix's suite {:?} cannot name a folder",
                m.suite
            )));
        }
        // (a runtime's page is <suite>/<id>.html, beside the grid's)
        if let Some(row) = m.rows.iter().find(|r| r.runtime.id == "index") {
            return Err(Error::usage(format!(
                "the {} matrix has a runtime named {:?}, the name of the suite's grid page",
                m.suite, row.runtime.id
            )));
        }
    }
    let site = Site::new(matrices, root);
    let mut writer = Writer {
        out: out.to_path_buf(),
        pages: Vec::new(),
    };
    writer.write("site.css", assets::STYLE.to_string())?;
    writer.write("site.js", assets::SCRIPT.to_string())?;
    writer.write("index.html", landing::page(&site))?;
    let mut grids = Vec::new();
    for suite in &site.suites {
        let m = suite.matrix;
        let grid = grid::page(&site, suite);
        grids.push((
            m.suite.clone(),
            (grid.len() + assets::STYLE.len() + assets::SCRIPT.len()) as u64,
        ));
        writer.write(&format!("{}/index.html", m.suite), grid)?;
        for row in &m.rows {
            writer.write(
                &format!("{}/badges/{}.svg", m.suite, row.runtime.id),
                crate::matrix::badge::svg(m, row),
            )?;
            writer.write(
                &format!("{}/{}.html", m.suite, row.runtime.id),
                runtime_page::page(&site, suite, row),
            )?;
        }
    }
    for family in &site.families {
        writer.write(
            &format!("versions/{}.html", family.slug),
            versions::page(&site, family),
        )?;
    }
    Ok(Written {
        pages: writer.pages,
        grids,
    })
}

struct Writer {
    out: PathBuf,
    pages: Vec<PathBuf>,
}

impl Writer {
    fn write(&mut self, name: &str, text: String) -> Result<(), Error> {
        let path = self.out.join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
        }
        std::fs::write(&path, text).map_err(|e| Error::file(&path, e))?;
        self.pages.push(path);
        Ok(())
    }
}

/// Everything the pages share.
pub(crate) struct Site<'a> {
    pub suites: Vec<SuiteView<'a>>,
    /// Packages seen at two versions or more, over every suite.
    pub families: Vec<Family>,
    /// Each runtime's README citations (or why the README could not be
    /// read), by README path.
    pub citations: HashMap<PathBuf, Result<Vec<Citation>, String>>,
    /// Where the repository's files are browsed (README links).
    pub repository: &'static str,
}

/// One suite's matrix with what its pages compute once.
pub(crate) struct SuiteView<'a> {
    pub matrix: &'a Matrix,
    /// Each requirement's id without the prefix every id of the suite
    /// shares (`LINK-01` for `BOUNDARY-LINK-01`), by full id.
    pub short: BTreeMap<String, String>,
    /// Each row's cases by id, by runtime id.
    pub cases: HashMap<&'a str, HashMap<&'a str, &'a CaseResult>>,
}

/// A package at several versions (in one suite or several).
pub(crate) struct Family {
    pub package: String,
    pub slug: String,
    /// `(suite, runtime id, version)`, by suite then version.
    pub members: Vec<(String, String, String)>,
}

impl Family {
    /// Its versions, oldest first, each once.
    pub fn versions(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.members.iter().map(|(_, _, v)| v.as_str()).collect();
        v.sort_by(|a, b| version_order(a, b));
        v.dedup();
        v
    }
}

impl<'a> Site<'a> {
    fn new(matrices: &'a [Matrix], root: &Path) -> Site<'a> {
        let suites = matrices
            .iter()
            .map(|m| SuiteView {
                matrix: m,
                short: short_ids(&m.requirements),
                cases: m
                    .rows
                    .iter()
                    .map(|r| {
                        let by_id = r.cases.iter().map(|c| (c.id.as_str(), c)).collect();
                        (r.runtime.id.as_str(), by_id)
                    })
                    .collect(),
            })
            .collect();
        let mut citations = HashMap::new();
        for m in matrices {
            for row in &m.rows {
                let Some(readme) = &row.runtime.readme else {
                    continue;
                };
                if citations.contains_key(readme) {
                    continue;
                }
                // (a README that cannot be read is said on the runtime's
                // page: the site of a long matrix run is not lost to it)
                let path = root.join(readme);
                let found = std::fs::read_to_string(&path)
                    .map(|text| cited(&text))
                    .map_err(|e| format!("{}: {e}", path.display()));
                citations.insert(readme.clone(), found);
            }
        }
        Site {
            suites,
            families: families(matrices),
            citations,
            repository: env!("CARGO_PKG_REPOSITORY"),
        }
    }

    /// The other suites' and versions' pages of `row`'s package, as
    /// `(suite, runtime id, version)`.
    pub fn family_of(&self, package: &str) -> Option<&Family> {
        self.families.iter().find(|f| f.package == package)
    }
}

/// The packages with two versions or more.
fn families(matrices: &[Matrix]) -> Vec<Family> {
    let mut by_package: BTreeMap<&str, Vec<(String, String, String)>> = BTreeMap::new();
    for m in matrices {
        for row in &m.rows {
            by_package.entry(&row.runtime.package).or_default().push((
                m.suite.clone(),
                row.runtime.id.clone(),
                row.runtime.version.clone(),
            ));
        }
    }
    let mut out = Vec::new();
    for (package, mut members) in by_package {
        members.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| version_order(&a.2, &b.2))
                .then_with(|| a.1.cmp(&b.1))
        });
        let family = Family {
            package: package.to_string(),
            slug: slug(package),
            members,
        };
        if family.versions().len() >= 2 {
            out.push(family);
        }
    }
    out
}

/// Orders versions by their numbers (`0.85.0` before `1.6.0`, `1.10`
/// after `1.9`), then as text.
pub(crate) fn version_order(a: &str, b: &str) -> std::cmp::Ordering {
    let numbers = |v: &str| -> Vec<u64> {
        v.split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap_or(u64::MAX))
            .collect()
    };
    numbers(a).cmp(&numbers(b)).then_with(|| a.cmp(b))
}

/// A package name as a file name: `@scope/name` → `scope-name`.
pub(crate) fn slug(package: &str) -> String {
    let mut out = String::new();
    for c in package.chars() {
        if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() {
        "package".into()
    } else {
        out
    }
}

/// Each id without the prefix (up to and with a `-`) that every id of
/// `requirements` shares; an id the cut would leave empty keeps its whole
/// text.
fn short_ids(requirements: &[Requirement]) -> BTreeMap<String, String> {
    let first = requirements.first().map(|r| r.id.as_str()).unwrap_or("");
    let prefix = match first.find('-') {
        Some(at) if requirements.iter().all(|r| r.id.starts_with(&first[..=at])) => &first[..=at],
        _ => "",
    };
    requirements
        .iter()
        .map(|r| {
            let short = r.id.strip_prefix(prefix).filter(|s| !s.is_empty());
            (r.id.clone(), short.unwrap_or(&r.id).to_string())
        })
        .collect()
}

impl SuiteView<'_> {
    pub fn short<'s>(&'s self, id: &'s str) -> &'s str {
        self.short.get(id).map_or(id, String::as_str)
    }

    /// The cases behind `row`'s cell of `requirement` (none without a cell).
    pub fn cell_cases(&self, row: &Row, requirement: &str) -> Vec<&CaseResult> {
        let (Some(cell), Some(cases)) = (
            row.cells.get(requirement),
            self.cases.get(row.runtime.id.as_str()),
        ) else {
            return Vec::new();
        };
        cell.cases
            .iter()
            .filter_map(|id| cases.get(id.as_str()).copied())
            .collect()
    }
}

/// The findings of `cases` about `requirement` (`None`: the differences no
/// requirement names), grouped as a run's are.
pub(crate) fn findings_about<'c>(
    cases: impl IntoIterator<Item = &'c CaseResult>,
    requirement: Option<&str>,
) -> Vec<crate::findings::Finding> {
    crate::findings::group_seen(cases.into_iter().map(|c| {
        crate::findings::Seen {
            case: &c.id,
            expected: c.expected,
            violations: c
                .violations
                .iter()
                .filter(|v| v.requirement.as_deref() == requirement)
                .map(|v| (v.requirement.as_deref(), v.message.as_str()))
                .collect(),
        }
    }))
}

pub(crate) fn class(grade: Grade) -> &'static str {
    match grade {
        Grade::Pass => "pass",
        Grade::Warn => "warn",
        Grade::Fail => "fail",
        Grade::NotApplicable => "na",
        Grade::Untested => "untested",
    }
}

/// A grade's mark: a symbol that reads without colour.
pub(crate) fn mark(grade: Grade) -> &'static str {
    match grade {
        Grade::Pass => "✓",
        Grade::Warn => "!",
        Grade::Fail => "✗",
        Grade::NotApplicable => "–",
        Grade::Untested => "?",
    }
}

pub(crate) fn level(level: Weight) -> &'static str {
    match level {
        Weight::Must => "MUST",
        Weight::Should => "SHOULD",
    }
}

/// Counts of statuses, as `3 pass, 1 fail`, most common first.
pub(crate) fn counts<'c>(statuses: impl IntoIterator<Item = &'c str>) -> String {
    tally(statuses.into_iter().map(|s| (s, 1)))
}

/// [`counts`] of statuses already counted (a row's summary).
pub(crate) fn tally<'c>(counted: impl IntoIterator<Item = (&'c str, usize)>) -> String {
    let mut by: BTreeMap<&str, usize> = BTreeMap::new();
    for (s, n) in counted {
        *by.entry(s).or_insert(0) += n;
    }
    let mut all: Vec<(&str, usize)> = by.into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    all.iter()
        .map(|(s, n)| format!("{n} {s}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Text cut to `n` characters, with an ellipsis when cut.
pub(crate) fn cut(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The frame of every page: the shared style sheet and script (`up` is the
/// path from the page's folder to the site's root: `""` or `"../"`), a
/// breadcrumb, and the content.
pub(crate) fn frame(title: &str, up: &str, crumbs: &[(String, String)], body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href={ (up) "site.css" };
                script src={ (up) "site.js" } defer {}
            }
            body {
                @if !crumbs.is_empty() {
                    nav.crumbs aria-label="breadcrumb" {
                        a href={ (up) "index.html" } { "toolgate compliance" }
                        @for (href, text) in crumbs {
                            " › "
                            @if href.is_empty() { span aria-current="page" { (text) } } @else { a href=(href) { (text) } }
                        }
                    }
                }
                main { (body) }
                footer { "Made by " a href=(env!("CARGO_PKG_REPOSITORY")) { "toolgate" } " " (env!("CARGO_PKG_VERSION")) "." }
            }
        }
    }
    .into_string()
}

/// The legend of the marks, shared by the grid and versions pages.
pub(crate) fn legend() -> Markup {
    html! {
        p.legend {
            @for g in [Grade::Pass, Grade::Warn, Grade::Fail, Grade::NotApplicable, Grade::Untested] {
                span class={ "mark " (class(g)) } aria-hidden="true" { (mark(g)) }
                " " (match g {
                    Grade::Pass => "pass",
                    Grade::Warn => "a SHOULD broken",
                    Grade::Fail => "a MUST broken",
                    Grade::NotApplicable => "not applicable",
                    Grade::Untested => "no case ran",
                }) "  "
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requirement(id: &str) -> Requirement {
        Requirement {
            id: id.into(),
            level: Weight::Must,
            text: String::new(),
        }
    }

    #[test]
    fn short_ids_drop_the_prefix_every_id_shares() {
        let short = short_ids(&[
            requirement("BOUNDARY-LINK-01"),
            requirement("BOUNDARY-RUN-01"),
        ]);
        assert_eq!(short["BOUNDARY-LINK-01"], "LINK-01");
        let mixed = short_ids(&[requirement("A-1"), requirement("B-1")]);
        assert_eq!(mixed["A-1"], "A-1");
        let bare = short_ids(&[requirement("X-"), requirement("X-2")]);
        assert_eq!(bare["X-"], "X-");
        assert_eq!(bare["X-2"], "2");
    }

    #[test]
    fn versions_order_by_their_numbers() {
        let mut v = vec!["1.10.0", "0.85.0", "1.6.0", "1.9.2"];
        v.sort_by(|a, b| version_order(a, b));
        assert_eq!(v, ["0.85.0", "1.6.0", "1.9.2", "1.10.0"]);
    }

    #[test]
    fn a_package_name_becomes_a_file_name() {
        assert_eq!(
            slug("@earendil-works/pi-agent-core"),
            "earendil-works-pi-agent-core"
        );
        assert_eq!(slug("pydantic-ai-slim"), "pydantic-ai-slim");
        assert_eq!(slug("@@"), "package");
    }

    #[test]
    fn counts_put_the_most_common_status_first() {
        assert_eq!(counts(["pass", "fail", "pass"]), "2 pass, 1 fail");
        assert_eq!(counts([]), "");
    }
}
