//! `toolgate init`: the files a team needs to gate its runtime, written into
//! its repository: a shim (or, for the core suite, an implementation entry)
//! with the places to fill marked `TOOLGATE:`, an empty expected-failures
//! baseline, and a GitHub Actions workflow that runs the gate. It never
//! overwrites a file: if any of them exists, nothing is written and the
//! error names it.

use crate::Error;
use std::path::{Path, PathBuf};

/// The language of the team's runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    Node,
    Python,
}

/// One file `init` writes: its path under the repository and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub path: PathBuf,
    pub text: &'static str,
}

/// What `init` writes for `lang` and `suite` under `root` (the team's
/// repository), and the command that runs the gate from there.
pub fn plan(root: &Path, lang: Lang, suite: &str) -> Result<(Vec<Planned>, String), Error> {
    let dir = root.join("toolgate");
    let file = |path: PathBuf, text| Planned { path, text };
    let baseline = file(
        dir.join("expected-failures.txt"),
        include_str!("../templates/expected-failures.txt"),
    );
    let workflow = |text| file(root.join(".github/workflows/toolgate.yml"), text);
    let gate = |impl_command: &str| {
        format!(
            "toolgate run --suite {suite} --impl \"{impl_command}\" --expected-failures toolgate/expected-failures.txt"
        )
    };
    match (lang, suite) {
        (Lang::Node, "boundary") => Ok((
            vec![
                file(dir.join("shim.mjs"), include_str!("../templates/boundary-shim.mjs")),
                baseline,
                workflow(include_str!("../templates/workflow-node.yml")),
            ],
            gate("node_modules/.bin/toolgate-boundary-adapter --runtime toolgate"),
        )),
        (Lang::Python, "boundary") => Ok((
            vec![
                file(dir.join("shim.py"), include_str!("../templates/boundary-shim.py")),
                baseline,
                workflow(include_str!("../templates/workflow-python.yml")),
            ],
            gate("python -m toolgate_adapter --shim toolgate"),
        )),
        (Lang::Node, "core") => Ok((
            vec![
                file(
                    dir.join("implementation.mjs"),
                    include_str!("../templates/core-implementation.mjs"),
                ),
                baseline,
                workflow(include_str!("../templates/workflow-node-core.yml")),
            ],
            gate("node_modules/.bin/toolgate-node-adapter --module toolgate/implementation.mjs"),
        )),
        (Lang::Python, "core") => Err(Error::usage(
            "the core suite has no Python adapter: its contract is JavaScript's (CONTRACT.md); \
             write an adapter to runner/PROTOCOL.md, or gate a Python runtime on the boundary suite \
             (--suite boundary)",
        )),
        (_, other) => Err(Error::usage(format!(
            "toolgate init writes shims for the boundary and core suites, not {other:?}; \
             the other suites have their adapters in this repository (adapters/)"
        ))),
    }
}

/// Writes `planned`, refusing (and writing nothing) when any of the files
/// exists.
pub fn write(planned: &[Planned]) -> Result<(), Error> {
    if let Some(existing) = planned.iter().find(|p| p.path.exists()) {
        return Err(Error::usage(format!(
            "{} exists: toolgate init never overwrites a file; move it aside, \
             or init into another folder with --dir",
            existing.path.display()
        )));
    }
    for p in planned {
        if let Some(parent) = p.path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::file(parent, e))?;
        }
        std::fs::write(&p.path, p.text).map_err(|e| Error::file(&p.path, e))?;
    }
    Ok(())
}
