//! The case-file format: case files grouped by suite, loaded with their ids
//! checked, and written back in one canonical layout (so regenerating
//! expectations produces minimal diffs).
//!
//! A case file is `cases/<suite>/<group>.json`:
//! `{"suite", "group", "description", "cases": [{"name", "description",
//! "requirements", "scenario", "expect"}]}`; a case's id is `group/name`.
//! The suite is the id of one of the suites a caller passes (the runner
//! passes every suite); scenarios and observations stay JSON here, each
//! suite decodes its own, and loading a file checks every scenario with its
//! suite's [`SuiteDef::check_scenario`].

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toolgate_suite::{Error, SuiteDef};

/// One case file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CaseFile {
    /// The id of its suite (`"core"`).
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

    /// The suite of this file among `suites`, if its id is one of them (it
    /// is, in a file [`parse`] or [`load_file`] returned for `suites`).
    pub fn suite_def(&self, suites: &[&'static dyn SuiteDef]) -> Option<&'static dyn SuiteDef> {
        suites.iter().copied().find(|s| s.id() == self.suite)
    }

    /// Checks the suite id against `suites` and every scenario; `Err` names
    /// `origin` (the file), and the case for a scenario of the wrong form.
    pub fn check(
        &self,
        origin: &str,
        suites: &[&'static dyn SuiteDef],
    ) -> Result<&'static dyn SuiteDef, Error> {
        let suite = self.suite_def(suites).ok_or_else(|| {
            let known: Vec<&str> = suites.iter().map(|s| s.id()).collect();
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

/// A case file's text, parsed and checked against `suites`
/// ([`CaseFile::check`]); `origin` names it in errors.
pub fn parse(
    text: &str,
    origin: &str,
    suites: &[&'static dyn SuiteDef],
) -> Result<CaseFile, Error> {
    let file: CaseFile =
        serde_json::from_str(text).map_err(|e| Error::scenario(format!("{origin}: {e}")))?;
    file.check(origin, suites)?;
    Ok(file)
}

/// Every case file under `dir` (recursively), sorted by path, each checked
/// against `suites`; no case id appears twice.
pub fn load_dir(
    dir: &Path,
    suites: &[&'static dyn SuiteDef],
) -> Result<Vec<(PathBuf, CaseFile)>, Error> {
    let mut paths = Vec::new();
    collect(dir, &mut paths)?;
    paths.sort();
    let mut files = Vec::new();
    for path in paths {
        let file = load_file(&path, suites)?;
        files.push((path, file));
    }
    unique_ids(
        files
            .iter()
            .map(|(path, file)| (path.display().to_string(), file)),
    )?;
    Ok(files)
}

/// Fails, naming both files, when a case id appears twice among `files`
/// (each with where it came from).
pub fn unique_ids<'a>(
    files: impl IntoIterator<Item = (String, &'a CaseFile)>,
) -> Result<(), Error> {
    let mut ids: BTreeMap<String, String> = BTreeMap::new();
    for (path, file) in files {
        for case in &file.cases {
            let id = file.id(case);
            if let Some(first) = ids.insert(id.clone(), path.clone()) {
                return Err(Error::scenario(format!(
                    "case id {id} appears in {first} and {path}"
                )));
            }
        }
    }
    Ok(())
}

/// One case file, checked against `suites` ([`CaseFile::check`]).
pub fn load_file(path: &Path, suites: &[&'static dyn SuiteDef]) -> Result<CaseFile, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::scenario(format!("{}: {e}", path.display())))?;
    parse(&text, &path.display().to_string(), suites)
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
