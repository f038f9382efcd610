//! `toolgate matrix`: one suite run on a list of runtimes (a checked-in
//! file: `matrix/runtimes.json`), graded into a runtimes × requirements
//! grid and written as a Markdown table for the README (`markdown.rs`),
//! JSON (`runner/schema/matrix.schema.json`, what `toolgate site` builds
//! the compliance site from) and one SVG badge per runtime (`badge.rs`).
//! This module holds the data model and how a cell is graded; it knows no
//! suite's insides, only the statuses, the violated requirement ids and
//! their levels.

pub mod badge;
pub mod markdown;
pub mod merge;
pub mod run;

use crate::Error;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
pub use toolgate_suite::Measure;

/// One entry of the runtimes file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RuntimeEntry {
    /// Short, unique, used in file names (`ai-7`).
    pub id: String,
    /// What people call it (`Vercel AI SDK`).
    pub name: String,
    /// The package under test and its exact version.
    pub package: String,
    pub version: String,
    /// The adapter command, run from the repository root.
    pub adapter: String,
    pub suites: Vec<String>,
    /// The expected-failures baseline, relative to the runtimes file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<PathBuf>,
    /// Where its shim says which execution path is driven.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The language its users write (`JavaScript`, `Python`): the site
    /// groups and filters runtimes by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Its shim's README, relative to the folder the adapter runs from (the
    /// repository root): the site lists the runtime's source lines it
    /// cites.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readme: Option<PathBuf>,
    /// The command that builds its adapter, run from the repository root
    /// before the runtime is gated (a Rust runtime's `cargo build`; a
    /// JavaScript or Python runtime's packages are installed by
    /// `.ci/install` instead). `toolgate matrix` never runs it:
    /// `.ci/parts matrix-part` and `.ci/run` do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
}

/// The runtimes file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RuntimesFile {
    pub description: String,
    pub runtimes: Vec<RuntimeEntry>,
}

impl RuntimesFile {
    /// Reads and checks a runtimes file (ids unique and usable in file
    /// names).
    pub fn load(path: &Path) -> Result<RuntimesFile, Error> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::usage(format!("{}: {e}", path.display())))?;
        let file: RuntimesFile = serde_json::from_str(&text)
            .map_err(|e| Error::usage(format!("{}: {e}", path.display())))?;
        let mut seen = std::collections::BTreeSet::new();
        for r in &file.runtimes {
            let usable = !r.id.is_empty()
                && r.id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_');
            if !usable {
                return Err(Error::usage(format!(
                    "{}: runtime id {:?} must be letters, digits, `-`, `.` or `_`",
                    path.display(),
                    r.id
                )));
            }
            if !seen.insert(r.id.clone()) {
                return Err(Error::usage(format!(
                    "{}: runtime id {} appears twice",
                    path.display(),
                    r.id
                )));
            }
        }
        Ok(file)
    }
}

/// How a requirement weighs (from its suite).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Weight {
    Must,
    Should,
}

/// A requirement, a row of the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Requirement {
    pub id: String,
    pub level: Weight,
    pub text: String,
}

/// A requirement a case violated (`None`: a difference no check names).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Violated {
    pub requirement: Option<String>,
    pub message: String,
}

/// One case as a runtime did it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseResult {
    pub id: String,
    /// The runner's status name (`pass`, `fail`, `warn`, `n/a`, `skip`,
    /// `error`, `timeout`, `crash`).
    pub status: String,
    /// The requirements the case is about (its case file).
    pub about: Vec<String>,
    /// The requirements it violated, each with what happened.
    pub violations: Vec<Violated>,
    /// What it measured, with the bounds.
    pub measures: Vec<Measure>,
    /// Why it was n/a, skipped, or broke.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Whether the baseline expected it to fail.
    pub expected: bool,
    pub reproduce: String,
}

/// The grade of one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum Grade {
    Pass,
    /// Only SHOULD violations.
    Warn,
    Fail,
    /// Every case about it was not applicable to the runtime.
    #[serde(rename = "n/a")]
    NotApplicable,
    /// No case about it ran (skipped, errors).
    Untested,
}

impl Grade {
    pub fn name(self) -> &'static str {
        match self {
            Grade::Pass => "pass",
            Grade::Warn => "warn",
            Grade::Fail => "fail",
            Grade::NotApplicable => "n/a",
            Grade::Untested => "untested",
        }
    }
}

/// One cell: a runtime against a requirement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cell {
    pub grade: Grade,
    /// The ids of the cases behind the grade (about it, or violating it).
    pub cases: Vec<String>,
}

/// One runtime's row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub runtime: RuntimeEntry,
    /// The adapter's own name and version, from its handshake.
    pub implementation: String,
    pub duration_secs: f64,
    pub cells: BTreeMap<String, Cell>,
    pub cases: Vec<CaseResult>,
    /// Counts of case statuses.
    pub summary: BTreeMap<String, usize>,
    /// The exit code of the runtime's run (`toolgate run`'s: 1 when a
    /// case failed that its baseline does not expect, or passed one it
    /// does), so that a merge of parts fails as the whole matrix would.
    #[serde(default)]
    pub exit_code: i32,
}

impl Row {
    /// Its grade on `requirement` (untested when no cell holds it).
    pub fn grade(&self, requirement: &str) -> Grade {
        self.cells
            .get(requirement)
            .map_or(Grade::Untested, |c| c.grade)
    }

    /// Its MUST requirements of `requirements` passed, and those applicable
    /// (graded pass, warn or fail): what its badge says.
    pub fn must_passed(&self, requirements: &[Requirement]) -> (usize, usize) {
        let must = requirements.iter().filter(|r| r.level == Weight::Must);
        let grades: Vec<Grade> = must.map(|r| self.grade(&r.id)).collect();
        let passed = grades.iter().filter(|g| **g == Grade::Pass).count();
        let applicable = grades
            .iter()
            .filter(|g| !matches!(g, Grade::NotApplicable | Grade::Untested))
            .count();
        (passed, applicable)
    }
}

/// The whole matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Matrix {
    pub toolgate: String,
    pub suite: String,
    /// When it was generated (RFC 3339, UTC), and on what machine.
    pub generated: String,
    pub machine: String,
    pub duration_secs: f64,
    /// The ids of every runtime of the runtimes file, in its order (the
    /// rows may be fewer: `--runtime`); what a merge of parts must cover.
    #[serde(default)]
    pub runtimes: Vec<String>,
    /// The case globs left out of every row (`toolgate matrix --exclude`):
    /// cells are graded on the cases that ran, and the table and the page
    /// say what was left out ([`left_out`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded: Vec<String>,
    pub requirements: Vec<Requirement>,
    pub rows: Vec<Row>,
}

/// The sentence the table and the page say when cases were left out of
/// every row: which, and how that bears on the cells.
pub fn left_out(matrix: &Matrix) -> Option<String> {
    if matrix.excluded.is_empty() {
        return None;
    }
    let globs: Vec<String> = matrix.excluded.iter().map(|g| format!("`{g}`")).collect();
    Some(format!(
        "Left out of every row (--exclude): {}. Each cell is graded on the cases that ran, so it \
         may pass here where the whole matrix's fails; one that only those cases decide shows · \
         (untested).",
        globs.join(", ")
    ))
}

/// Grades one cell from a runtime's cases.
pub fn grade(requirement: &Requirement, cases: &[CaseResult]) -> Cell {
    let mut behind = Vec::new();
    let mut grade = Grade::Untested;
    let mut applicable = false;
    let mut not_applicable = false;
    for c in cases {
        let violated = c
            .violations
            .iter()
            .any(|v| v.requirement.as_deref() == Some(requirement.id.as_str()));
        let about = c.about.contains(&requirement.id);
        if !violated && !about {
            continue;
        }
        behind.push(c.id.clone());
        match c.status.as_str() {
            "n/a" => not_applicable = true,
            "pass" | "fail" | "warn" | "timeout" | "crash" => {
                applicable = true;
                let g = if violated || matches!(c.status.as_str(), "timeout" | "crash") {
                    match requirement.level {
                        Weight::Must => Grade::Fail,
                        Weight::Should => Grade::Warn,
                    }
                } else {
                    Grade::Pass
                };
                grade = match (grade, g) {
                    (Grade::Untested, g) => g,
                    (a, b) => a.max(b),
                };
            }
            _ => {}
        }
    }
    if !applicable && not_applicable {
        grade = Grade::NotApplicable;
    }
    Cell {
        grade,
        cases: behind,
    }
}

/// A row from a runtime's cases.
pub fn row(
    runtime: RuntimeEntry,
    implementation: String,
    duration_secs: f64,
    requirements: &[Requirement],
    cases: Vec<CaseResult>,
) -> Row {
    let cells = requirements
        .iter()
        .map(|r| (r.id.clone(), grade(r, &cases)))
        .collect();
    let mut summary = BTreeMap::new();
    for c in &cases {
        *summary.entry(c.status.clone()).or_insert(0) += 1;
    }
    Row {
        runtime,
        implementation,
        duration_secs,
        cells,
        cases,
        summary,
        exit_code: 0,
    }
}

const MATRIX_SCHEMA: &str = include_str!("../../schema/matrix.schema.json");

/// Checks a matrix's JSON against `runner/schema/matrix.schema.json`; the
/// error names the first few places that do not match.
pub fn validate_json(matrix: &serde_json::Value) -> Result<(), String> {
    static VALIDATOR: std::sync::OnceLock<Result<jsonschema::Validator, String>> =
        std::sync::OnceLock::new();
    let validator = VALIDATOR
        .get_or_init(|| {
            let schema: serde_json::Value = serde_json::from_str(MATRIX_SCHEMA)
                .map_err(|e| format!("the matrix schema: {e}"))?;
            jsonschema::options()
                .offline()
                .build(&schema)
                .map_err(|e| format!("the matrix schema: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)?;
    toolgate_suite::schema_errors(validator, matrix)
}

/// Writes every output of `matrix` under `dir`: `matrix.md`,
/// `matrix.json`, `badges/<id>.svg` (the pages are `toolgate site`'s).
pub fn write_all(matrix: &Matrix, dir: &Path) -> Result<(), Error> {
    let io = |what: &Path, e: std::io::Error| Error::usage(format!("{}: {e}", what.display()));
    std::fs::create_dir_all(dir.join("badges")).map_err(|e| io(dir, e))?;
    let write = |name: PathBuf, text: String| std::fs::write(&name, text).map_err(|e| io(&name, e));
    write(dir.join("matrix.md"), markdown::table(matrix))?;
    let json = serde_json::to_string_pretty(matrix)
        .map_err(|e| Error::usage(format!("matrix JSON: {e}")))?;
    write(dir.join("matrix.json"), json + "\n")?;
    for row in &matrix.rows {
        write(
            dir.join("badges").join(format!("{}.svg", row.runtime.id)),
            badge::svg(matrix, row),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requirement(id: &str, level: Weight) -> Requirement {
        Requirement {
            id: id.into(),
            level,
            text: String::new(),
        }
    }

    fn case(id: &str, status: &str, about: &[&str], violated: &[&str]) -> CaseResult {
        CaseResult {
            id: id.into(),
            status: status.into(),
            about: about.iter().map(|s| s.to_string()).collect(),
            violations: violated
                .iter()
                .map(|v| Violated {
                    requirement: Some(v.to_string()),
                    message: "broke".to_string(),
                })
                .collect(),
            measures: Vec::new(),
            message: None,
            expected: false,
            reproduce: String::new(),
        }
    }

    fn check(level: Weight, cases: &[CaseResult], want: Grade) {
        let cell = grade(&requirement("R", level), cases);
        assert_eq!(cell.grade, want, "{cases:?}");
    }

    #[test]
    fn the_json_schema_refuses_what_the_matrix_never_writes() {
        let matrix = Matrix {
            toolgate: "0".into(),
            suite: "boundary".into(),
            generated: "2026-12-01T00:00:00Z".into(),
            machine: "test".into(),
            duration_secs: 1.0,
            runtimes: Vec::new(),
            excluded: Vec::new(),
            requirements: vec![requirement("R", Weight::Must)],
            rows: Vec::new(),
        };
        let mut json = serde_json::to_value(&matrix).unwrap();
        validate_json(&json).unwrap();
        // nothing left out: no key, and no sentence saying so
        assert!(json.get("excluded").is_none());
        assert_eq!(left_out(&matrix), None);
        let partial = Matrix {
            excluded: vec!["boundary-outputs/*".into()],
            ..matrix.clone()
        };
        validate_json(&serde_json::to_value(&partial).unwrap()).unwrap();
        assert!(markdown::table(&partial)
            .contains("Left out of every row (--exclude): `boundary-outputs/*`"));
        json["excluded"] = serde_json::json!([]);
        assert!(
            validate_json(&json).is_err(),
            "an empty list is never written"
        );
        json.as_object_mut().unwrap().remove("excluded");
        json["requirements"][0]["level"] = "maybe".into();
        assert!(validate_json(&json).is_err());
    }

    #[test]
    fn a_cell_takes_the_worst_grade_of_its_cases() {
        check(Weight::Must, &[case("a", "pass", &["R"], &[])], Grade::Pass);
        check(
            Weight::Must,
            &[
                case("a", "pass", &["R"], &[]),
                case("b", "fail", &[], &["R"]),
            ],
            Grade::Fail,
        );
        check(
            Weight::Should,
            &[case("a", "warn", &["R"], &["R"])],
            Grade::Warn,
        );
        check(
            Weight::Must,
            &[case("a", "fail", &["R"], &["OTHER"])],
            Grade::Pass,
        );
        check(
            Weight::Must,
            &[case("a", "n/a", &["R"], &[])],
            Grade::NotApplicable,
        );
        check(
            Weight::Must,
            &[
                case("a", "n/a", &["R"], &[]),
                case("b", "pass", &["R"], &[]),
            ],
            Grade::Pass,
        );
        check(
            Weight::Must,
            &[case("a", "skip", &["R"], &[])],
            Grade::Untested,
        );
        check(
            Weight::Must,
            &[case("a", "timeout", &["R"], &[])],
            Grade::Fail,
        );
        check(Weight::Must, &[], Grade::Untested);
    }
}
