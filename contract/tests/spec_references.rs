//! Ties SPEC.md to the tests: every requirement names at least one test,
//! every named test exists and is a `#[test]`, and requirement ids are
//! unique.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The source file a reference `file::test` points into: `src/<module>`
/// in this crate, `proptests/<file>` a property test of the proptests crate,
/// otherwise a test file of this crate.
fn source_of(crate_dir: &Path, file: &str) -> PathBuf {
    if let Some(module) = file.strip_prefix("src/") {
        return crate_dir.join("src").join(format!("{module}.rs"));
    }
    if let Some(test) = file.strip_prefix("proptests/") {
        return crate_dir
            .join("../proptests/tests")
            .join(format!("{test}.rs"));
    }
    crate_dir.join("tests").join(format!("{file}.rs"))
}

/// Checks one requirement line; returns its id.
fn check(crate_dir: &Path, line: &str) -> String {
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
        let path = source_of(crate_dir, file);
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
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = std::fs::read_to_string(crate_dir.join("../SPEC.md"))
        .expect("SPEC.md at the repository root");
    let mut ids = BTreeSet::new();
    for line in spec.lines().filter(|l| {
        l.starts_with("- **CORE-") || l.starts_with("- **BOUNDARY-") || l.starts_with("- **WS-")
    }) {
        let id = check(crate_dir, line);
        assert!(ids.insert(id.clone()), "{id} appears twice");
    }
    assert!(ids.len() >= 60, "only {} requirements found", ids.len());
}
