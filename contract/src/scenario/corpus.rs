//! The corpus on disk: case files grouped by suite, loaded with their ids
//! checked, and written back in one canonical layout (so regenerating
//! expectations produces minimal diffs).
//!
//! A case file is `corpus/cases/<suite>/<group>.json`:
//! `{"suite", "group", "description", "cases": [{"name", "description",
//! "requirements", "scenario", "expect"}]}`; a case's id is `group/name`.
//! The suite is an id of [`suites::all`]; scenarios and observations stay
//! JSON here, each suite decodes its own, and loading a file checks every
//! scenario with its suite's [`SuiteDef::check_scenario`].

use crate::suites::{self, SuiteDef};
use crate::Error;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One case file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CaseFile {
    /// The id of its suite (`"core"`), one of [`suites::all`].
    pub suite: String,
    pub group: String,
    pub description: String,
    pub cases: Vec<Case>,
}

/// One conformance case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Case {
    pub name: String,
    pub description: String,
    /// SPEC.md ids this case checks.
    pub requirements: Vec<String>,
    /// In the format of the file's suite.
    pub scenario: Json,
    /// The reference's observation; absent only in a case not yet blessed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Json>,
}

impl CaseFile {
    /// The id of a case of this file.
    pub fn id(&self, case: &Case) -> String {
        format!("{}/{}", self.group, case.name)
    }

    /// The suite of this file, if its id is one of [`suites::all`] (it is,
    /// in a file [`parse`] or [`load_file`] returned).
    pub fn suite_def(&self) -> Option<&'static dyn SuiteDef> {
        suites::get(&self.suite)
    }

    /// Checks the suite id and every scenario; `Err` names `origin` (the
    /// file), and the case for a scenario of the wrong form.
    pub fn check(&self, origin: &str) -> Result<&'static dyn SuiteDef, Error> {
        let suite = self.suite_def().ok_or_else(|| {
            let known: Vec<&str> = suites::all().iter().map(|s| s.id()).collect();
            Error::scenario(format!(
                "{origin}: unknown suite {:?} (the suites are {})",
                self.suite,
                known.join(", ")
            ))
        })?;
        for case in &self.cases {
            suite.check_scenario(&case.scenario).map_err(|e| {
                Error::scenario(format!(
                    "{origin}: case {}: not a {} scenario: {e}",
                    self.id(case),
                    suite.id()
                ))
            })?;
        }
        Ok(suite)
    }
}

/// A case file's text, parsed and checked ([`CaseFile::check`]); `origin`
/// names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<CaseFile, Error> {
    let file: CaseFile =
        serde_json::from_str(text).map_err(|e| Error::scenario(format!("{origin}: {e}")))?;
    file.check(origin)?;
    Ok(file)
}

/// Every case file under `dir` (recursively), sorted by path.
pub fn load_dir(dir: &Path) -> Result<Vec<(PathBuf, CaseFile)>, Error> {
    let mut paths = Vec::new();
    collect(dir, &mut paths)?;
    paths.sort();
    let mut files = Vec::new();
    let mut ids: BTreeMap<String, PathBuf> = BTreeMap::new();
    for path in paths {
        let file = load_file(&path)?;
        for case in &file.cases {
            let id = file.id(case);
            if let Some(first) = ids.insert(id.clone(), path.clone()) {
                return Err(Error::scenario(format!(
                    "case id {id} appears in {} and {}",
                    first.display(),
                    path.display()
                )));
            }
        }
        files.push((path, file));
    }
    Ok(files)
}

/// One case file, checked ([`CaseFile::check`]).
pub fn load_file(path: &Path) -> Result<CaseFile, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::scenario(format!("{}: {e}", path.display())))?;
    parse(&text, &path.display().to_string())
}

/// The canonical text of a case file.
pub fn to_text(file: &CaseFile) -> Result<String, Error> {
    let mut text =
        serde_json::to_string_pretty(file).map_err(|e| Error::scenario(e.to_string()))?;
    text.push('\n');
    Ok(text)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| Error::scenario(format!("{}: {e}", dir.display())))?;
    for entry in entries {
        let path = entry.map_err(|e| Error::scenario(e.to_string()))?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "json") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(suite: &str, scenario: &str) -> String {
        format!(
            r#"{{"suite": "{suite}", "group": "g", "description": "", "cases": [
                {{"name": "c", "description": "", "requirements": [], "scenario": {scenario}}}]}}"#
        )
    }

    #[test]
    fn a_case_file_names_a_known_suite_and_holds_its_scenarios() {
        let ok = parse(&file("core", r#"{"calls": [{"call": 1}]}"#), "a.json").unwrap();
        assert_eq!(ok.suite_def().map(|s| s.id()), Some("core"));
        assert!(ok.cases[0].expect.is_none());
        let err = parse(&file("pipeline-x", "{}"), "cases/x/g.json")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cases/x/g.json") && err.contains("unknown suite \"pipeline-x\""),
            "{err}"
        );
        assert!(err.contains("core, boundary"), "{err}");
        let err = parse(&file("boundary", r#"{"calls": 1}"#), "b.json")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("b.json: case g/c: not a boundary scenario"),
            "{err}"
        );
    }

    #[test]
    fn the_canonical_text_keeps_the_json_as_written() {
        let text = file(
            "core",
            r#"{"calls": [{"call": {"$": "object", "props": {"b": 1, "a": 2}}}]}"#,
        );
        let parsed = parse(&text, "a.json").unwrap();
        let again = parse(&to_text(&parsed).unwrap(), "a.json").unwrap();
        assert_eq!(parsed, again);
        assert!(to_text(&parsed).unwrap().find("\"b\"") < to_text(&parsed).unwrap().find("\"a\""));
    }
}
