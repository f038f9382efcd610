//! Lints the corpus (`corpus/cases/`) against its schemas and SPEC.md:
//!
//! - every case file validates against `corpus/schema/case-file.schema.json`
//!   (which refers to the scenario and observation schemas beside it);
//! - the corpus loads, so case ids (`group/name`) are unique, and each file
//!   lives at `<suite>/<group>.json`;
//! - every requirement a case names is a SPEC.md requirement of the case's
//!   suite;
//! - every CORE and PIPE requirement is named by at least two cases of its
//!   suite, except those SPEC.md's `**No case can show**` paragraphs list;
//!   every BOUNDARY requirement by at least one boundary case;
//! - SPEC.md ends with a generated table of which cases name each
//!   requirement, and the table is current.
//!
//! To regenerate the table deliberately, run
//! `TOOLGATE_BLESS=1 cargo test -p toolgate-corpus --test lint`; like every bless, a run
//! that changed SPEC.md still fails, so a regeneration is never silent.

use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use toolgate_corpus::case_file::{load_dir, CaseFile};
use toolgate_suite::SuiteDef;

const BEGIN: &str = "<!-- coverage:begin -->";
const END: &str = "<!-- coverage:end -->";
/// The start of the `## core` paragraph that lists the exempt requirements.
const EXEMPTION: &str = "**No case can show**";
/// Where the schemas are registered, so `"$ref": "scenario.schema.json"`
/// resolves to the sibling file, as it does for any validator reading them
/// from one directory. Nothing is fetched.
const SCHEMA_BASE: &str = "file:///toolgate/corpus/schema/";
const SCHEMAS: [&str; 11] = [
    "scenario.schema.json",
    "observation.schema.json",
    "boundary-scenario.schema.json",
    "boundary-observation.schema.json",
    "pipeline-scenario.schema.json",
    "pipeline-observation.schema.json",
    "workspace-scenario.schema.json",
    "workspace-observation.schema.json",
    "actions-scenario.schema.json",
    "actions-observation.schema.json",
    "case-file.schema.json",
];
/// Schema errors listed per file; the rest are counted.
const MAX_ERRORS_PER_FILE: usize = 20;
/// Changed lines of the coverage table shown; the rest are counted.
const MAX_DIFF_LINES: usize = 40;

/// This crate's directory: the corpus.
fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cases_dir() -> PathBuf {
    crate_dir().join("cases")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Fails when a lint found problems, listing every one.
fn check(lint: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{lint}: {} problem(s)\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The requirements of SPEC.md, in order, and the exempt ones.
struct Spec {
    text: String,
    ids: Vec<String>,
    exempt: BTreeSet<String>,
}

/// Whether `id` has the requirement prefix of one of the suites.
fn is_requirement(id: &str) -> bool {
    toolgate_suites::all()
        .iter()
        .any(|s| id.starts_with(s.requirement_prefix()))
}

fn spec() -> Spec {
    let text = read(&crate_dir().join("SPEC.md"));
    let ids = text
        .lines()
        .filter_map(|l| l.strip_prefix("- **"))
        .filter_map(|l| l.split("**").next())
        .filter(|id| is_requirement(id))
        .map(str::to_string)
        .collect();
    // the paragraphs (of any suite's section) that start with EXEMPTION,
    // up to a blank line; `## core` must have one
    let core = text
        .split("\n## ")
        .find(|section| section.starts_with("core\n"))
        .expect("SPEC.md has a `## core` section");
    assert!(
        core.split("\n\n")
            .any(|p| p.trim_start().starts_with(EXEMPTION)),
        "SPEC.md's `## core` has no paragraph starting {EXEMPTION}"
    );
    let exempt = text
        .split("\n\n")
        .filter(|p| p.trim_start().starts_with(EXEMPTION))
        .flat_map(|p| p.split('`').skip(1).step_by(2))
        .filter(|t| is_requirement(t))
        .map(str::to_string)
        .collect();
    Spec { text, ids, exempt }
}

/// The corpus, loaded once; the loader refuses duplicate ids.
fn corpus() -> &'static [(PathBuf, CaseFile)] {
    static CORPUS: OnceLock<Vec<(PathBuf, CaseFile)>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        load_dir(&cases_dir(), &toolgate_suites::all())
            .unwrap_or_else(|e| panic!("the corpus does not load: {e}"))
    })
}

/// The suite with this id.
fn by_id(id: &str) -> &'static dyn SuiteDef {
    toolgate_suites::get(id).unwrap_or_else(|| panic!("no suite {id}"))
}

/// The suite of a loaded case file (the loader refuses unknown ids).
fn suite(file: &CaseFile) -> &'static dyn SuiteDef {
    toolgate_suites::get(&file.suite).unwrap_or_else(|| panic!("unknown suite {}", file.suite))
}

/// Every case naming each requirement id (ids of cases, in corpus order),
/// and the suite of each case.
fn coverage() -> BTreeMap<String, Vec<(&'static str, String)>> {
    let mut by_requirement: BTreeMap<String, Vec<(&'static str, String)>> = BTreeMap::new();
    for (_, file) in corpus() {
        for case in &file.cases {
            let id = file.id(case);
            let named: BTreeSet<&String> = case.requirements.iter().collect();
            for requirement in named {
                by_requirement
                    .entry(requirement.clone())
                    .or_default()
                    .push((suite(file).id(), id.clone()));
            }
        }
    }
    by_requirement
}

/// The `.json` files under `dir`, recursively, sorted.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "json") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(cases_dir())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The generated coverage section, markers included.
fn coverage_section(spec: &Spec) -> String {
    let cover = coverage();
    let mut s = format!(
        "{BEGIN}\n## Coverage by cases\n\n\
         Generated from `corpus/cases/` by `corpus/tests/lint.rs`, which\n\
         fails when this table is stale; regenerate it with\n\
         `TOOLGATE_BLESS=1 cargo test -p toolgate-corpus --test lint`.\n\n\
         | requirement | cases | case ids |\n|---|---|---|\n"
    );
    for id in &spec.ids {
        let cases = cover.get(id).map(Vec::as_slice).unwrap_or_default();
        let listed = if cases.is_empty() && spec.exempt.contains(id) {
            "exempt: no case can show it".to_string()
        } else {
            cases
                .iter()
                .map(|(_, c)| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        s.push_str(&format!("| {id} | {} | {listed} |\n", cases.len()));
    }
    s.push_str(END);
    s
}

/// Lines only in `old` (`-`) and only in `new` (`+`), the first
/// [`MAX_DIFF_LINES`] of them.
fn line_diff(old: &str, new: &str) -> Vec<String> {
    let (o, n): (BTreeSet<&str>, BTreeSet<&str>) = (old.lines().collect(), new.lines().collect());
    let gone = old
        .lines()
        .filter(|l| !n.contains(l))
        .map(|l| format!("  - {l}"));
    let added = new
        .lines()
        .filter(|l| !o.contains(l))
        .map(|l| format!("  + {l}"));
    let mut diff: Vec<String> = gone.chain(added).collect();
    let more = diff.len().saturating_sub(MAX_DIFF_LINES);
    if more > 0 {
        diff.truncate(MAX_DIFF_LINES);
        diff.push(format!("  ... and {more} more changed line(s)"));
    }
    diff
}

#[test]
fn every_case_file_matches_the_case_file_schema() {
    let dir = crate_dir().join("schema");
    let schema = |name: &str| -> Json {
        let path = dir.join(name);
        serde_json::from_str(&read(&path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let mut registry = jsonschema::Registry::new();
    for name in SCHEMAS {
        registry = registry
            .add(format!("{SCHEMA_BASE}{name}"), schema(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let registry = registry
        .prepare()
        .unwrap_or_else(|e| panic!("the schemas do not resolve: {e}"));
    let validator = |name: &str| {
        jsonschema::options()
            .offline()
            .with_registry(&registry)
            .with_base_uri(format!("{SCHEMA_BASE}{name}"))
            .build(&schema(name))
            .unwrap_or_else(|e| panic!("{name} is not a valid schema: {e}"))
    };
    // each schema is checked against the 2020-12 meta-schema when built
    for name in SCHEMAS {
        validator(name);
    }
    let case_file = validator("case-file.schema.json");
    let mut problems = Vec::new();
    for path in json_files(&cases_dir()) {
        let at = relative(&path);
        let instance: Json = match serde_json::from_str(&read(&path)) {
            Ok(v) => v,
            Err(e) => {
                problems.push(format!("{at}: not JSON: {e}"));
                continue;
            }
        };
        let errors: Vec<String> = case_file
            .iter_errors(&instance)
            .map(|e| format!("{at}: {}: {e}", e.instance_path()))
            .collect();
        let more = errors.len().saturating_sub(MAX_ERRORS_PER_FILE);
        problems.extend(errors.into_iter().take(MAX_ERRORS_PER_FILE));
        if more > 0 {
            problems.push(format!("{at}: {more} more schema error(s)"));
        }
    }
    check(
        "case files against corpus/schema/case-file.schema.json",
        &problems,
    );
}

#[test]
fn case_ids_are_unique_and_files_follow_the_layout() {
    let mut problems = Vec::new();
    for (path, file) in corpus() {
        let expected = cases_dir()
            .join(&file.suite)
            .join(format!("{}.json", file.group));
        if *path != expected {
            problems.push(format!(
                "{}: a {} case file of group `{}` belongs at {}",
                relative(path),
                file.suite,
                file.group,
                relative(&expected)
            ));
        }
        for case in &file.cases {
            if case.name.is_empty() || case.name.contains('/') {
                problems.push(format!(
                    "{}: case name {:?} must be non-empty without '/'",
                    relative(path),
                    case.name
                ));
            }
        }
    }
    check(
        "corpus layout (ids are unique: the corpus loads)",
        &problems,
    );
}

/// The course's own tests, as SPEC.md's table lists them: 49 rows, each
/// naming at least one case, every one of which exists.
#[test]
fn the_course_tests_table_names_existing_cases_for_every_test() {
    let spec = read(&crate_dir().join("SPEC.md"));
    let section = spec
        .split("\n## The course's own tests\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("SPEC.md has a `## The course's own tests` section");
    let ids: BTreeSet<String> = corpus()
        .iter()
        .flat_map(|(_, f)| {
            f.cases
                .iter()
                .map(move |c| format!("{}/{}", f.group, c.name))
        })
        .collect();
    let mut problems = Vec::new();
    let rows: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| course test"))
        .collect();
    if rows.len() != 49 {
        problems.push(format!("{} rows, the course has 49 tests", rows.len()));
    }
    for row in rows {
        let cells: Vec<&str> = row.split(" | ").collect();
        let named: Vec<&str> = cells
            .get(1)
            .map(|c| c.split('`').skip(1).step_by(2).collect())
            .unwrap_or_default();
        if named.is_empty() {
            problems.push(format!("no case for: {row}"));
        }
        for id in named {
            if !ids.contains(id) {
                problems.push(format!("{id} is not a case (row: {})", cells[0]));
            }
        }
    }
    check("SPEC.md's table of the course's tests", &problems);
}

#[test]
fn every_named_requirement_is_a_spec_requirement_of_the_case_suite() {
    let spec = spec();
    let known: BTreeSet<&String> = spec.ids.iter().collect();
    let mut problems = Vec::new();
    for (path, file) in corpus() {
        for case in &file.cases {
            let id = file.id(case);
            if case.requirements.is_empty() {
                problems.push(format!("{id} ({}) names no requirement", relative(path)));
            }
            for r in &case.requirements {
                if !known.contains(r) {
                    problems.push(format!("{id} names {r}, which SPEC.md does not have"));
                } else if !r.starts_with(suite(file).requirement_prefix()) {
                    problems.push(format!("{id} is a {} case but names {r}", file.suite));
                }
            }
        }
    }
    check("requirements named by cases", &problems);
}

/// Every requirement of `suite` is named by at least two of its cases,
/// unless SPEC.md exempts it (an {EXEMPTION} paragraph of its section).
fn two_cases_each_unless_exempt(suite: &dyn SuiteDef) {
    let spec = spec();
    let cover = coverage();
    let prefix = suite.requirement_prefix();
    let mut problems: Vec<String> = spec
        .exempt
        .iter()
        .filter(|id| id.starts_with(prefix) && !spec.ids.contains(id))
        .map(|id| format!("{id} is exempt but SPEC.md has no such requirement"))
        .collect();
    for id in spec.ids.iter().filter(|id| id.starts_with(prefix)) {
        if spec.exempt.contains(id) {
            continue;
        }
        let cases: Vec<&String> = cover
            .get(id)
            .into_iter()
            .flatten()
            .filter(|(of, _)| *of == suite.id())
            .map(|(_, c)| c)
            .collect();
        if cases.len() < 2 {
            problems.push(format!(
                "{id} is named by {} {} case(s){}, needs at least 2 (or, if no case can \
                 show it, an entry in SPEC.md's {EXEMPTION} paragraph)",
                cases.len(),
                suite.id(),
                if cases.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({})",
                        cases
                            .iter()
                            .map(|c| c.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            ));
        }
    }
    check(&format!("coverage of {prefix}* requirements"), &problems);
}

#[test]
fn every_core_requirement_is_named_by_two_core_cases_unless_exempt() {
    two_cases_each_unless_exempt(by_id("core"));
}

#[test]
fn every_pipeline_requirement_is_named_by_two_pipeline_cases_unless_exempt() {
    two_cases_each_unless_exempt(by_id("pipeline"));
}

#[test]
fn every_actions_requirement_is_named_by_two_actions_cases_unless_exempt() {
    two_cases_each_unless_exempt(by_id("actions"));
}

#[test]
fn every_boundary_requirement_is_named_by_a_boundary_case() {
    let spec = spec();
    let cover = coverage();
    let problems: Vec<String> = spec
        .ids
        .iter()
        .filter(|id| id.starts_with("BOUNDARY-"))
        .filter(|id| {
            !cover
                .get(*id)
                .into_iter()
                .flatten()
                .any(|(suite, _)| *suite == "boundary")
        })
        .map(|id| format!("{id} is named by no boundary case"))
        .collect();
    check("coverage of BOUNDARY requirements", &problems);
}

#[test]
fn spec_coverage_table_is_current() {
    let spec = spec();
    let fresh = coverage_section(&spec);
    let bless = std::env::var_os("TOOLGATE_BLESS").is_some_and(|v| v == "1");
    let current = match (spec.text.find(BEGIN), spec.text.find(END)) {
        (Some(b), Some(e)) if b < e => Some((b, e + END.len())),
        (None, None) => None,
        _ => panic!("SPEC.md has one coverage marker without the other, or in the wrong order"),
    };
    let (old, updated) = match current {
        Some((b, e)) => (
            spec.text[b..e].to_string(),
            format!("{}{fresh}{}", &spec.text[..b], &spec.text[e..]),
        ),
        None => (
            String::new(),
            format!("{}\n\n{fresh}\n", spec.text.trim_end_matches('\n')),
        ),
    };
    if old == fresh {
        return;
    }
    let mut problems = line_diff(&old, &fresh);
    if bless {
        // written whole then renamed, so no reader sees half a SPEC.md
        let path = crate_dir().join("SPEC.md");
        let tmp = crate_dir().join("SPEC.md.corpus_lint.tmp");
        std::fs::write(&tmp, &updated).unwrap_or_else(|e| panic!("{}: {e}", tmp.display()));
        std::fs::rename(&tmp, &path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        problems.insert(
            0,
            "regenerated SPEC.md's coverage table (blessed now; rerun without TOOLGATE_BLESS)"
                .to_string(),
        );
    } else {
        problems.insert(
            0,
            "SPEC.md's coverage table is stale; rerun with TOOLGATE_BLESS=1 \
             (`TOOLGATE_BLESS=1 cargo test -p toolgate-corpus --test lint`) to regenerate it"
                .to_string(),
        );
    }
    check("SPEC.md coverage table", &problems);
}
