//! Helpers the runner's gate tests share: where the Node adapters are,
//! whether Node is there, and the verdict on a mutant's run.

#![allow(dead_code)]

pub mod mutants;

use std::path::{Path, PathBuf};
use std::process::Command;

/// `adapters/node`.
pub fn node_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../adapters/node")
}

/// Whether `node` is on the PATH; without it a test says so and passes,
/// unless `TOOLGATE_REQUIRE_NODE=1` (as `.ci/run` sets), where it fails.
pub fn node_available() -> bool {
    let found = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("TOOLGATE_REQUIRE_NODE").is_none(),
            "TOOLGATE_REQUIRE_NODE is set but `node` is not on the PATH"
        );
        eprintln!(
            "skipped: `node` is not on the PATH (set TOOLGATE_REQUIRE_NODE=1 to fail instead)"
        );
    }
    found
}
