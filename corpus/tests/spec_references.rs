//! Ties SPEC.md to the tests: every requirement names at least one test,
//! every named test exists and is a `#[test]`, and requirement ids are
//! unique.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The source file a reference `file::test` points into, searched for in
/// the repository (SPEC.md names the checks of every crate, so this test
/// reads beyond its own): `src/<module path>` a module of a suite crate
/// (`src/actions/structure` is `contract/actions/src/structure.rs`,
/// `src/bigint` is `contract/core/src/bigint.rs`), `proptests/<file>` a
/// property test, otherwise a test file of one of the suite crates. The
/// reference must name exactly one file.
fn source_of(repo: &Path, file: &str) -> PathBuf {
    let mut candidates = Vec::new();
    if let Some(test) = file.strip_prefix("proptests/") {
        candidates.push(repo.join("proptests/tests").join(format!("{test}.rs")));
    } else {
        let crates = std::fs::read_dir(repo.join("contract"))
            .unwrap_or_else(|e| panic!("contract/: {e}"))
            .flatten()
            .map(|entry| entry.path());
        for crate_dir in crates {
            match file.strip_prefix("src/") {
                Some(module) => {
                    candidates.push(crate_dir.join("src").join(format!("{module}.rs")));
                    // `src/actions/structure` in the crate `actions`
                    if let Some((name, inner)) = module.split_once('/') {
                        if crate_dir.file_name().is_some_and(|n| n == name) {
                            candidates.push(crate_dir.join("src").join(format!("{inner}.rs")));
                        }
                    }
                }
                None => candidates.push(crate_dir.join("tests").join(format!("{file}.rs"))),
            }
        }
    }
    let found: Vec<PathBuf> = candidates.into_iter().filter(|p| p.is_file()).collect();
    match found.as_slice() {
        [one] => one.clone(),
        [] => panic!("{file}: no such source file"),
        many => panic!("{file}: names several files: {many:?}"),
    }
}

/// Checks one requirement line; returns its id.
fn check(repo: &Path, line: &str) -> String {
    let id = line
        .trim_start_matches("- **")
        .split("**")
        .next()
        .unwrap_or_default()
        .to_string();
    let (_, refs) = line
        .split_once("Checked by:")
        .unwrap_or_else(|| panic!("{id} names no test"));
    let refs: Vec<&str> = refs.split('`').skip(1).step_by(2).collect();
    assert!(!refs.is_empty(), "{id} names no test");
    for r in refs {
        let (file, test) = r
            .rsplit_once("::")
            .unwrap_or_else(|| panic!("{id}: malformed reference {r}"));
        let path = source_of(repo, file);
        let source = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{id}: {r}: {}: {e}", path.display()));
        let lines: Vec<&str> = source.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.trim_start().starts_with(&format!("fn {test}(")))
            .unwrap_or_else(|| panic!("{id}: no fn {test} in {}", path.display()));
        let attribute = lines[..at]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//"));
        assert_eq!(
            attribute.map(|l| l.trim()),
            Some("#[test]"),
            "{id}: {r} is not a #[test]"
        );
    }
    id
}

#[test]
fn every_requirement_names_tests_that_exist() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let spec = toolgate_corpus::SPEC;
    let mut ids = BTreeSet::new();
    for line in spec.lines().filter(|l| {
        l.starts_with("- **CORE-") || l.starts_with("- **BOUNDARY-") || l.starts_with("- **WS-")
    }) {
        let id = check(&repo, line);
        assert!(ids.insert(id.clone()), "{id} appears twice");
    }
    assert!(ids.len() >= 60, "only {} requirements found", ids.len());
}
