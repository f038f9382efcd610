//! Where the cases of a run come from and which are chosen: the corpus
//! (embedded in the binary, or a directory given with `--corpus`), replayed
//! case files (`--case-file`), filters by suite and id glob, and the
//! requirement texts of SPEC.md (also embedded) for reports and `explain`.

use crate::Error;
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use toolgate_corpus::case_file::{self, CaseFile};
use toolgate_corpus::SPEC;
use toolgate_suite::{self, SuiteDef};

/// One case ready to run.
#[derive(Debug, Clone)]
pub struct RunCase {
    pub id: String,
    pub suite: &'static dyn SuiteDef,
    pub description: String,
    /// The requirements the case is about (from its file); the violated ones
    /// come from the checks.
    pub requirements: Vec<String>,
    /// In the suite's scenario format.
    pub scenario: Json,
    /// The reference's observation: stored in the case, or computed.
    pub expect: Json,
    pub origin: Origin,
}

/// Where a case came from, which decides how to reproduce it.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    Corpus,
    CaseFile(PathBuf),
    Generated { seed: u64, index: u64 },
}

/// The corpus: the embedded one, or the case files under `dir`.
pub fn corpus(dir: Option<&Path>) -> Result<Vec<RunCase>, Error> {
    let suites = toolgate_suites::all();
    // both loads check that no case id appears twice
    let files: Vec<CaseFile> = match dir {
        Some(dir) => case_file::load_dir(dir, &suites)
            .map_err(|e| Error::usage(format!("--corpus {}: {e}", dir.display())))?
            .into_iter()
            .map(|(_, file)| file)
            .collect(),
        None => toolgate_corpus::embedded(&suites)
            .map_err(|e| Error::usage(e.to_string()))?
            .into_iter()
            .map(|(_, file)| file)
            .collect(),
    };
    let mut cases = Vec::new();
    for file in files {
        cases.extend(cases_of(&file, Origin::Corpus)?);
    }
    Ok(cases)
}

/// The cases of a case file given with `--case-file`.
pub fn case_file(path: &Path) -> Result<Vec<RunCase>, Error> {
    let file = case_file::load_file(path, &toolgate_suites::all())
        .map_err(|e| Error::usage(format!("--case-file {e}")))?;
    cases_of(&file, Origin::CaseFile(path.to_path_buf()))
}

fn cases_of(file: &CaseFile, origin: Origin) -> Result<Vec<RunCase>, Error> {
    // a loaded file names a known suite; checked again for files made in
    // memory
    let suite = file.suite_def(&toolgate_suites::all()).ok_or_else(|| {
        Error::usage(format!(
            "case file of group {}: unknown suite {:?}",
            file.group, file.suite
        ))
    })?;
    file.cases
        .iter()
        .map(|case| {
            let id = file.id(case);
            let expect = match &case.expect {
                Some(expect) => expect.clone(),
                // a case not yet blessed is judged against the reference
                None => suite
                    .observe(&case.scenario)
                    .map_err(|e| Error::usage(format!("case {id}: {e}")))?,
            };
            Ok(RunCase {
                id,
                suite,
                description: case.description.clone(),
                requirements: case.requirements.clone(),
                scenario: case.scenario.clone(),
                expect,
                origin: origin.clone(),
            })
        })
        .collect()
}

/// Which cases a run keeps: by suite id and by id globs.
#[derive(Debug, Default)]
pub struct Filter {
    pub suites: Vec<String>,
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl Filter {
    pub fn new(suites: &[String], include: &[String], exclude: &[String]) -> Result<Filter, Error> {
        if let Some(unknown) = suites.iter().find(|s| toolgate_suites::get(s).is_none()) {
            return Err(Error::usage(format!(
                "--suite {unknown}: no such suite (see toolgate list suites)"
            )));
        }
        let set = |globs: &[String], flag: &str| -> Result<Option<GlobSet>, Error> {
            if globs.is_empty() {
                return Ok(None);
            }
            let mut builder = GlobSetBuilder::new();
            for g in globs {
                // `*` crosses `/`: ids are `group/name`, and `*pending*`
                // should find pending cases in every group
                let glob = Glob::new(g).map_err(|e| Error::usage(format!("{flag} {g}: {e}")))?;
                builder.add(glob);
            }
            builder
                .build()
                .map(Some)
                .map_err(|e| Error::usage(format!("{flag}: {e}")))
        };
        Ok(Filter {
            suites: suites.to_vec(),
            include: set(include, "--case")?,
            exclude: set(exclude, "--exclude")?,
        })
    }

    /// Whether `--suite` chooses `suite` (no `--suite`: every suite).
    pub fn keeps_suite(&self, suite: &str) -> bool {
        self.suites.is_empty() || self.suites.iter().any(|s| s == suite)
    }

    pub fn keeps(&self, suite: &str, id: &str) -> bool {
        self.keeps_suite(suite)
            && self.include.as_ref().is_none_or(|g| g.is_match(id))
            && !self.exclude.as_ref().is_some_and(|g| g.is_match(id))
    }
}

/// The requirement ids of SPEC.md with their text (up to "Checked by"):
/// those of every suite, by its requirement prefix.
pub fn requirements() -> Vec<(String, String)> {
    SPEC.lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("- **")?;
            let (id, text) = rest.split_once("**")?;
            toolgate_suites::of_requirement(id)?;
            let text = text.split(" Checked by:").next().unwrap_or(text).trim();
            Some((id.to_string(), text.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(filter: &Filter, suite: &str, id: &str, kept: bool) {
        assert_eq!(filter.keeps(suite, id), kept, "{id}");
    }

    #[test]
    fn the_embedded_corpus_loads_with_unique_ids() {
        let cases = corpus(None).expect("embedded corpus");
        assert!(cases.len() > 300, "{} cases", cases.len());
        assert!(cases.iter().any(|c| c.suite.id() == "boundary"));
    }

    #[test]
    fn globs_match_whole_ids_and_star_crosses_groups() {
        let f = Filter::new(&[], &["calls/*".into()], &["calls/unknown*".into()]).unwrap();
        check(&f, "core", "calls/a-case", true);
        check(&f, "core", "calls/unknown-tool", false);
        check(&f, "core", "registry/a-case", false);
        let f = Filter::new(&[], &[], &["*pending*".into()]).unwrap();
        check(&f, "core", "cancellation/abort-when-pending", false);
        check(&f, "core", "calls/a-case", true);
        let f = Filter::new(&["boundary".into()], &[], &[]).unwrap();
        check(&f, "core", "calls/a-case", false);
        check(&f, "boundary", "boundary/x", true);
    }

    #[test]
    fn an_unknown_suite_is_a_usage_error() {
        let err = Filter::new(&["pipeline-x".into()], &[], &[]).unwrap_err();
        assert!(err.to_string().contains("--suite pipeline-x"), "{err}");
    }

    #[test]
    fn a_case_file_of_an_unknown_suite_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("odd.json");
        std::fs::write(
            &path,
            r#"{"suite": "pipeline-x", "group": "g", "description": "", "cases": []}"#,
        )
        .unwrap();
        let err = case_file(&path).unwrap_err().to_string();
        assert!(
            err.contains("odd.json") && err.contains("unknown suite \"pipeline-x\""),
            "{err}"
        );
        let err = corpus(Some(dir.path())).unwrap_err().to_string();
        assert!(
            err.contains("--corpus") && err.contains("odd.json"),
            "{err}"
        );
    }

    #[test]
    fn spec_requirements_are_read_with_their_text() {
        let reqs = requirements();
        assert!(reqs
            .iter()
            .any(|(id, t)| id == "CORE-SER-07" && !t.is_empty()));
        assert!(reqs.iter().any(|(id, _)| id == "BOUNDARY-LINK-01"));
        assert!(reqs.iter().all(|(_, t)| !t.contains("Checked by")));
    }
}
