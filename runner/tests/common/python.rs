//! Whether a Python virtual environment a gate test needs is there: the
//! test says why not and passes, unless `TOOLGATE_REQUIRE_PYTHON=1` (as
//! `.ci/run` sets), where it fails.

use std::path::Path;
use std::process::Command;

/// Whether `python` runs and imports `modules` (a comma-separated list);
/// `build` is the command that makes the environment.
pub fn ready(python: &Path, modules: &str, build: &str) -> bool {
    let why = if !python.exists() {
        format!("{} is missing", python.display())
    } else {
        match Command::new(python)
            .args(["-c", &format!("import {modules}")])
            .output()
        {
            Ok(o) if o.status.success() => return true,
            Ok(o) => format!(
                "{} cannot import {modules}: {}",
                python.display(),
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => format!("{} does not run: {e}", python.display()),
        }
    };
    assert!(
        std::env::var_os("TOOLGATE_REQUIRE_PYTHON").is_none(),
        "TOOLGATE_REQUIRE_PYTHON is set but the Python gate cannot run: {why}; \
         run `{build}` from the repository root"
    );
    eprintln!("not run: {why}; run `{build}` (set TOOLGATE_REQUIRE_PYTHON=1 to fail instead)");
    false
}
