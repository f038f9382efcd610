//! The corpus on disk: case files grouped by suite, loaded with their ids
//! checked, and written back in one canonical layout (so regenerating
//! expectations produces minimal diffs).
//!
//! A case file is `corpus/cases/<suite>/<group>.json`:
//! `{"suite", "group", "description", "cases": [{"name", "description",
//! "requirements", "scenario", "expect"}]}`; a case's id is `group/name`.

use super::observation::Observation;
use super::spec::{Scenario, Suite};
use crate::Error;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One case file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CaseFile {
    pub suite: Suite,
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
    pub scenario: Scenario,
    /// The reference's observation; absent only in a case not yet blessed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Observation>,
}

impl CaseFile {
    /// The id of a case of this file.
    pub fn id(&self, case: &Case) -> String {
        format!("{}/{}", self.group, case.name)
    }
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

/// One case file.
pub fn load_file(path: &Path) -> Result<CaseFile, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::scenario(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| Error::scenario(format!("{}: {e}", path.display())))
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
