//! `toolgate init`, as a team would use it: it writes the shim skeleton,
//! the baseline and the workflow into an empty repository, refuses (writing
//! nothing) where a file exists, and its output runs as is: the skeleton
//! filled with a tiny runtime (the tool loops of `examples/`, with their
//! baselines) is gated green by the command init prints, the kit installed
//! from its built artifact for Node, the kit's Python environment for
//! Python.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Runs `program` with `args` in `dir`.
fn run_in(dir: &Path, program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// `toolgate init` in `dir` with `args`: its exit code, stdout and stderr.
fn init(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = run_in(
        dir,
        env!("CARGO_BIN_EXE_toolgate"),
        &[&["init"], args].concat(),
    );
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// The command init printed to run the gate (its last line), split into
/// words, the adapter's `python` replaced by `python` when given.
fn gate_command(stdout: &str, python: Option<&Path>) -> Vec<String> {
    let line = stdout.lines().last().unwrap_or_default().trim();
    let mut words = shell_words::split(line).unwrap();
    if let (Some(python), Some(i)) = (
        python,
        words.iter().position(|w| w.starts_with("python -m")),
    ) {
        words[i] = words[i].replacen("python", &python.display().to_string(), 1);
    }
    words
}

/// Fills the skeleton `shim` as a team would: the block between the
/// `TOOLGATE: begin` and `end` markers replaced by `body`, and the
/// `notApplicable` line by `not_applicable`.
fn fill(shim: &Path, body: &str, not_applicable: (&str, &str)) {
    let text = std::fs::read_to_string(shim).unwrap();
    let begin = text.find("TOOLGATE: begin").unwrap();
    let begin = text[..begin].rfind('\n').unwrap() + 1;
    let end = text.find("TOOLGATE: end").unwrap();
    let end = end + text[end..].find('\n').unwrap() + 1;
    let filled = format!("{}{body}{}", &text[..begin], &text[end..]);
    assert!(
        filled.contains(not_applicable.0),
        "no {:?} in the skeleton",
        not_applicable.0
    );
    std::fs::write(shim, filled.replacen(not_applicable.0, not_applicable.1, 1)).unwrap();
}

/// The gate, run from `dir` as init printed it, passes.
fn check_gate(dir: &Path, command: &[String]) {
    let args: Vec<&str> = command.iter().skip(1).map(String::as_str).collect();
    let out = run_in(
        dir,
        env!("CARGO_BIN_EXE_toolgate"),
        &[&args[..], &["--no-progress"]].concat(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The Node kit installed into `dir` from its built artifact, as init's
/// next step says: `npm pack`, then `npm install -D` of the tarball.
fn install_kit(dir: &Path) {
    let tarball = run_in(
        &repo().join("adapters/node"),
        "npm",
        &[
            "pack",
            "--silent",
            "--pack-destination",
            &dir.display().to_string(),
        ],
    );
    assert!(
        tarball.status.success(),
        "{}",
        String::from_utf8_lossy(&tarball.stderr)
    );
    let name = String::from_utf8_lossy(&tarball.stdout).trim().to_string();
    let package = r#"{"name": "team", "private": true, "type": "module"}"#;
    std::fs::write(dir.join("package.json"), package).unwrap();
    let tarball = format!("./{name}");
    let args = [
        "install",
        "--silent",
        "--no-audit",
        "--no-fund",
        "-D",
        tarball.as_str(),
    ];
    let installed = run_in(dir, "npm", &args);
    assert!(
        installed.status.success(),
        "{}",
        String::from_utf8_lossy(&installed.stderr)
    );
}

#[test]
fn init_writes_the_skeleton_and_never_overwrites_a_file() {
    let repo_dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = init(repo_dir.path(), &["--lang", "node"]);
    assert_eq!(code, 0, "{stderr}");
    for file in [
        "toolgate/shim.mjs",
        "toolgate/expected-failures.txt",
        ".github/workflows/toolgate.yml",
    ] {
        assert!(repo_dir.path().join(file).is_file(), "{file} not written");
        assert!(stdout.contains(file), "{file} not said: {stdout}");
    }
    // a second init refuses, naming the file, and leaves the first's alone
    std::fs::write(repo_dir.path().join("toolgate/shim.mjs"), "mine").unwrap();
    let (code, _, stderr) = init(repo_dir.path(), &["--lang", "python"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("expected-failures.txt exists") && stderr.contains("never overwrites"),
        "{stderr}"
    );
    assert!(
        !repo_dir.path().join("toolgate/shim.py").exists(),
        "a refused init wrote shim.py"
    );
    assert_eq!(
        std::fs::read_to_string(repo_dir.path().join("toolgate/shim.mjs")).unwrap(),
        "mine"
    );
    // what it cannot write is said, not guessed
    let (code, _, stderr) = init(
        tempfile::tempdir().unwrap().path(),
        &["--lang", "python", "--suite", "core"],
    );
    assert_eq!(code, 2);
    assert!(stderr.contains("no Python adapter"), "{stderr}");
}

#[test]
fn a_node_skeleton_filled_with_a_tool_loop_is_gated_green_through_the_packed_kit() {
    if !common::node_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = init(dir.path(), &["--lang", "node"]);
    assert_eq!(code, 0, "{stderr}");
    install_kit(dir.path());
    // the team's runtime: the example's loop, and its baseline
    let example = repo().join("examples/tool-loop-js");
    std::fs::copy(
        example.join("loop.mjs"),
        dir.path().join("toolgate/loop.mjs"),
    )
    .unwrap();
    std::fs::copy(
        example.join("expected-failures.txt"),
        dir.path().join("toolgate/expected-failures.txt"),
    )
    .unwrap();
    fill(
        &dir.path().join("toolgate/shim.mjs"),
        "  const { createLoop } = await import('./loop.mjs');\n\
         \x20 let loop;\n\
         \x20 try {\n\
         \x20   loop = createLoop(tools);\n\
         \x20 } catch (error) {\n\
         \x20   return { results: [], registrationError: { name: error.name, message: error.message }, notes: [] };\n\
         \x20 }\n\
         \x20 const results = await loop.runTurn(calls, { signal });\n\
         \x20 return { results: results.map((r) => ({ callId: r.callId, isError: r.isError, delivered: r.content })), notes: [] };\n",
        ("export const notApplicable = {};", "export const notApplicable = { progress: 'no progress channel' };"),
    );
    check_gate(dir.path(), &gate_command(&stdout, None));
}

#[test]
fn a_python_skeleton_filled_with_a_tool_loop_is_gated_green() {
    let python = repo().join("adapters/python/.venv/bin/python");
    if !common::python::ready(&python, "toolgate_adapter", "bash adapters/python/venvs.sh") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = init(dir.path(), &["--lang", "python"]);
    assert_eq!(code, 0, "{stderr}");
    let example = repo().join("examples/tool-loop-python");
    std::fs::copy(example.join("loop.py"), dir.path().join("toolgate/loop.py")).unwrap();
    std::fs::copy(
        example.join("expected-failures.txt"),
        dir.path().join("toolgate/expected-failures.txt"),
    )
    .unwrap();
    fill(
        &dir.path().join("toolgate/shim.py"),
        "    from loop import Loop\n\
         \n\
         \x20   from toolgate_adapter import RegistrationError, ResultSeen\n\
         \n\
         \x20   try:\n\
         \x20       loop = Loop(turn.tools)\n\
         \x20   except ValueError as error:\n\
         \x20       failure = RegistrationError(type(error).__name__, str(error))\n\
         \x20       return TurnOutcome(results=[], registration_error=failure, notes=[])\n\
         \x20   results = await loop.run_turn(turn.calls)\n\
         \x20   seen = [ResultSeen(call_id=r[\"call_id\"], is_error=r[\"is_error\"], delivered=r[\"content\"]) for r in results]\n\
         \x20   return TurnOutcome(results=seen, notes=[])\n",
        ("not_applicable: dict[str, str] = {}", "not_applicable = {\"progress\": \"no progress channel\"}"),
    );
    check_gate(dir.path(), &gate_command(&stdout, Some(&python)));
}

/// The core suite's skeleton re-exports the kit's own implementation, which
/// passes: as written, it is gated green on an empty baseline.
#[test]
fn the_core_skeleton_as_written_is_gated_green_through_the_packed_kit() {
    if !common::node_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = init(dir.path(), &["--lang", "node", "--suite", "core"]);
    assert_eq!(code, 0, "{stderr}");
    install_kit(dir.path());
    check_gate(dir.path(), &gate_command(&stdout, None));
}
