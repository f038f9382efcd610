//! toolgate's language-neutral corpus, embedded: the case files of every
//! suite with their expected observations ([`embedded`]), the JSON Schemas
//! of their scenarios and observations ([`schema`]), and SPEC.md, the
//! numbered requirements ([`SPEC`]). The suites take their schemas from
//! here and the runner its cases, so that every crate builds from its own
//! directory.
//!
//! The files stay plain JSON and Markdown under `corpus/`, for adapters in
//! any language to read; `README.md` beside them is their format.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
    )
)]

pub mod case_file;

pub use case_file::{Case, CaseFile};
use include_dir::{include_dir, Dir};
use toolgate_suite::{Error, SuiteDef};

/// The case files, `<suite>/<group>.json`.
static CASES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/cases");

/// The minimized findings of the fuzz targets, `<target>/<name>`, each
/// replayed by its suite's tests (a `README.md` says what each was).
static REGRESSIONS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/regressions");

/// SPEC.md: every suite's numbered requirements, each naming its checks.
pub const SPEC: &str = include_str!("../SPEC.md");

/// The JSON Schemas of the suites' scenarios and observations, and of a
/// case file, as text (`schema/<name>.schema.json`).
pub mod schema {
    /// The core suite's scenarios.
    pub const CORE_SCENARIO: &str = include_str!("../schema/scenario.schema.json");
    /// The core suite's observations.
    pub const CORE_OBSERVATION: &str = include_str!("../schema/observation.schema.json");
    pub const BOUNDARY_SCENARIO: &str = include_str!("../schema/boundary-scenario.schema.json");
    pub const BOUNDARY_OBSERVATION: &str =
        include_str!("../schema/boundary-observation.schema.json");
    pub const PIPELINE_SCENARIO: &str = include_str!("../schema/pipeline-scenario.schema.json");
    pub const PIPELINE_OBSERVATION: &str =
        include_str!("../schema/pipeline-observation.schema.json");
    pub const WORKSPACE_SCENARIO: &str = include_str!("../schema/workspace-scenario.schema.json");
    pub const WORKSPACE_OBSERVATION: &str =
        include_str!("../schema/workspace-observation.schema.json");
    pub const ACTIONS_SCENARIO: &str = include_str!("../schema/actions-scenario.schema.json");
    pub const ACTIONS_OBSERVATION: &str = include_str!("../schema/actions-observation.schema.json");
    /// A case file (it refers to the scenario and observation schemas by
    /// their file names).
    pub const CASE_FILE: &str = include_str!("../schema/case-file.schema.json");

    /// Every schema with its file name, for a validator that resolves one
    /// file's `$ref` to another.
    pub const ALL: [(&str, &str); 11] = [
        ("scenario.schema.json", CORE_SCENARIO),
        ("observation.schema.json", CORE_OBSERVATION),
        ("boundary-scenario.schema.json", BOUNDARY_SCENARIO),
        ("boundary-observation.schema.json", BOUNDARY_OBSERVATION),
        ("pipeline-scenario.schema.json", PIPELINE_SCENARIO),
        ("pipeline-observation.schema.json", PIPELINE_OBSERVATION),
        ("workspace-scenario.schema.json", WORKSPACE_SCENARIO),
        ("workspace-observation.schema.json", WORKSPACE_OBSERVATION),
        ("actions-scenario.schema.json", ACTIONS_SCENARIO),
        ("actions-observation.schema.json", ACTIONS_OBSERVATION),
        ("case-file.schema.json", CASE_FILE),
    ];
}

/// The text of every embedded case file, with its path under `cases/`,
/// sorted by path.
pub fn case_texts() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    let mut open = vec![&CASES];
    while let Some(dir) = open.pop() {
        for file in dir.files() {
            let path = file.path().display().to_string();
            if let (true, Some(text)) = (path.ends_with(".json"), file.contents_utf8()) {
                out.push((path, text));
            }
        }
        open.extend(dir.dirs());
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The committed regressions of fuzz target `target`: each file's name and
/// bytes, sorted by name (the `README.md` files left out).
pub fn regressions(target: &str) -> Vec<(String, &'static [u8])> {
    let mut out: Vec<(String, &'static [u8])> = REGRESSIONS
        .get_dir(target)
        .into_iter()
        .flat_map(|dir| dir.files())
        .filter(|f| f.path().extension().is_none_or(|x| x != "md"))
        .map(|f| (f.path().display().to_string(), f.contents()))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// What a fuzz target's replay under `cargo test` runs besides random
/// bytes: the seeds `seeds` makes of each case of `suite` (named by case
/// id), then the target's committed regressions.
pub fn fuzz_inputs(
    suite: &'static dyn SuiteDef,
    target: &str,
    seeds: impl Fn(&serde_json::Value) -> Vec<Vec<u8>>,
) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut inputs = Vec::new();
    for (_, file) in of_suite(suite)? {
        for case in &file.cases {
            for seed in seeds(&case.scenario) {
                inputs.push((file.id(case), seed));
            }
        }
    }
    for (name, data) in regressions(target) {
        inputs.push((name, data.to_vec()));
    }
    Ok(inputs)
}

/// The seed most suite targets take of a case: its scenario, as the target
/// reads JSON.
pub fn scenario_seed(scenario: &serde_json::Value) -> Vec<Vec<u8>> {
    vec![scenario.to_string().into_bytes()]
}

/// A fuzz target's oracle as `cargo test` runs it
/// ([`toolgate_suite::fuzzing::replay`]): on `random` inputs of seeded
/// bytes, then on its [`fuzz_inputs`]. Returns how many inputs were
/// checked (not skipped); an error when the cases do not load or fewer
/// than `min_checked` were, so that an oracle cannot silently test nothing.
pub fn fuzz_replay(
    suite: &'static dyn SuiteDef,
    target: &str,
    oracle: fn(&[u8]) -> toolgate_suite::fuzzing::Verdict,
    seeds: impl Fn(&serde_json::Value) -> Vec<Vec<u8>>,
    random: usize,
    min_checked: usize,
) -> Result<usize, String> {
    let inputs = fuzz_inputs(suite, target, seeds).map_err(|e| e.to_string())?;
    let named = inputs
        .iter()
        .map(|(name, data)| (name.clone(), data.as_slice()));
    let checked = toolgate_suite::fuzzing::replay(oracle, 0x7001_6a7e, random, named);
    if checked < min_checked {
        return Err(format!("{target}: only {checked} inputs were checked"));
    }
    Ok(checked)
}

/// Every embedded case file, parsed and checked against `suites` (a file
/// of another suite is an error), sorted by path; no case id appears twice.
pub fn embedded(suites: &[&'static dyn SuiteDef]) -> Result<Vec<(String, CaseFile)>, Error> {
    parse_all(case_texts(), suites)
}

/// The embedded case files under `cases/<suite id>/`, parsed and checked by
/// their suite: what a suite's own tests replay.
pub fn of_suite(suite: &'static dyn SuiteDef) -> Result<Vec<(String, CaseFile)>, Error> {
    let prefix = format!("{}/", suite.id());
    let texts = case_texts()
        .into_iter()
        .filter(|(path, _)| path.starts_with(&prefix));
    parse_all(texts, &[suite])
}

fn parse_all(
    texts: impl IntoIterator<Item = (String, &'static str)>,
    suites: &[&'static dyn SuiteDef],
) -> Result<Vec<(String, CaseFile)>, Error> {
    let mut files = Vec::new();
    for (path, text) in texts {
        let origin = format!("embedded corpus file {path}");
        files.push((path, case_file::parse(text, &origin, suites)?));
    }
    case_file::unique_ids(files.iter().map(|(path, file)| (path.clone(), file)))?;
    Ok(files)
}
