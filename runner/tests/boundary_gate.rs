//! The boundary suite's gate against a real JavaScript runtime: the suite's
//! positive control, `adapters/node/runtimes/toolgate-wall` (an executor that
//! keeps the whole wall), passes every boundary case under `--strict`, and
//! every deliberately broken copy of it listed in its `mutants.json` is
//! caught by the cases about the requirements it breaks, the gate naming
//! exactly those the mutant lists.
//!
//! Needs Node 20 and `npm ci` in the wall's folder (`.ci/run` does both).
//! Without them these tests say so and pass, unless `TOOLGATE_REQUIRE_NODE=1`,
//! where they fail.

use common::mutants::Mutant;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;
use toolgate_runner::cases;
use toolgate_runner::outcome::Status;
use toolgate_runner::run::{run, RunOptions};

mod common;

use common::node_dir;

fn wall_dir() -> PathBuf {
    node_dir().join("runtimes/toolgate-wall")
}

/// Whether node and the wall's packages are there; fails under
/// `TOOLGATE_REQUIRE_NODE` when they are not.
fn ready() -> bool {
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let installed = wall_dir().join("node_modules/ajv").exists();
    if node && installed {
        return true;
    }
    let why = if node {
        format!("run `npm ci` in {}", wall_dir().display())
    } else {
        "`node` is not on the PATH".to_string()
    };
    assert!(
        std::env::var_os("TOOLGATE_REQUIRE_NODE").is_none(),
        "TOOLGATE_REQUIRE_NODE is set but the boundary gate cannot run: {why}"
    );
    eprintln!("not run: {why} (set TOOLGATE_REQUIRE_NODE=1 to fail instead)");
    false
}

/// The tests of this file take turns: each runs Node adapters whose SHOULD
/// bounds (1 s) are judged under `--strict`, and three at once on a 2-core
/// machine would measure the machine, not the wall.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn turn() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// The boundary adapter's command on the shim in `runtime`.
fn adapter_command(runtime: &Path) -> String {
    format!(
        "node {} --runtime {}",
        shell_words::quote(
            &node_dir()
                .join("boundary/adapter.mjs")
                .display()
                .to_string()
        ),
        shell_words::quote(&runtime.display().to_string())
    )
}

fn options(runtime: &Path) -> RunOptions {
    RunOptions {
        strict: true,
        ..common::gate_options(
            adapter_command(runtime),
            "boundary",
            Duration::from_secs(60),
        )
    }
}

#[test]
fn the_wall_passes_every_boundary_case_strictly() {
    let _turn = turn();
    if !ready() {
        return;
    }
    let report = run(&options(&wall_dir())).expect("the gate runs");
    let bad: Vec<String> = report
        .cases
        .iter()
        .filter(|c| c.status != Status::Pass)
        .map(|c| format!("{} {}: {:?}", c.id, c.status.name(), c.violations))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert_eq!(report.exit_code, 0);
    assert!(report.cases.len() >= 80, "{} cases", report.cases.len());
}

#[test]
fn every_mutant_of_the_wall_is_caught_naming_exactly_its_requirements() {
    let _turn = turn();
    if !ready() {
        return;
    }
    let source = std::fs::read_to_string(wall_dir().join("shim.mjs")).unwrap();
    let mutants = common::mutants::load(&wall_dir().join("mutants.json"));
    let corpus = common::corpus_of("boundary");
    // every MUST requirement of the suite is seen failing on some broken wall
    common::mutants::cover_every_must(&mutants, &corpus, 9);
    let tmp = tempfile::tempdir().unwrap();
    let problems = common::mutants::check_all(&mutants, |m| {
        check_mutant(m, &source, tmp.path(), &corpus).err()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Attribution (SPEC.md `## boundary`, how a violation is attributed): a
/// wall that rejects the whole turn on an unknown tool, on refused
/// arguments, on a throw or on the abort is charged exactly the
/// requirements its `attribution-mutants.json` entry lists, over the whole
/// corpus: the call's own requirement and TURN-01, never one a case merely
/// contains.
#[test]
fn every_attribution_mutant_of_the_wall_names_exactly_its_requirements() {
    let _turn = turn();
    if !ready() {
        return;
    }
    let source = std::fs::read_to_string(wall_dir().join("shim.mjs")).unwrap();
    let mutants = common::mutants::load(&wall_dir().join("attribution-mutants.json"));
    assert!(mutants.len() >= 4, "{} attribution mutants", mutants.len());
    let tmp = tempfile::tempdir().unwrap();
    let problems = common::mutants::check_all(&mutants, |m| {
        let dir = match mutated_wall(m, &source, tmp.path()) {
            Ok(dir) => dir,
            Err(e) => return Some(e),
        };
        let report = match run(&options(&dir)) {
            Ok(report) => report,
            Err(e) => return Some(format!("{}: {e}", m.name)),
        };
        common::mutants::verdict(&m.name, &m.requirements, &report)
            .or_else(|| common::mutants::exactly(&m.name, &m.requirements, &report).err())
    });
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Runs the boundary cases about `m`'s requirements on a mutated copy of
/// the wall: caught, naming exactly the requirements it lists (over those
/// cases), as the Python and Rust walls' gates judge theirs.
fn check_mutant(
    m: &Mutant,
    source: &str,
    tmp: &Path,
    corpus: &[cases::RunCase],
) -> Result<(), String> {
    let about = common::mutants::cases_about(m, corpus)?;
    let dir = mutated_wall(m, source, tmp)?;
    let report = run(&RunOptions {
        cases: about,
        ..options(&dir)
    })
    .map_err(|e| format!("{}: the gate did not run: {e}", m.name))?;
    common::mutants::caught_exactly(m, &report)
}

/// A copy of the wall with `m` applied, in `tmp/<name>`.
fn mutated_wall(m: &Mutant, source: &str, tmp: &Path) -> Result<PathBuf, String> {
    let mutated = m.apply(source, "shim.mjs")?;
    let dir = tmp.join(&m.name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("shim.mjs"), mutated).unwrap();
    std::fs::copy(wall_dir().join("package.json"), dir.join("package.json")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(wall_dir().join("node_modules"), dir.join("node_modules")).unwrap();
    Ok(dir)
}

/// Generated boundary cases: the wall passes them; a mutant fails one,
/// which is shrunk, saved as a case file, and fails the same way replayed.
#[test]
fn generated_cases_pass_the_wall_and_catch_a_mutant_shrunk_and_replayed() {
    let _turn = turn();
    if !ready() {
        return;
    }
    let generated = |runtime: &Path, save_dir: &Path| RunOptions {
        no_corpus: true,
        generate: 60,
        // a seed whose 60 cases the mutant below fails (the generator's
        // choices moved with the number/set/bytes families)
        seed: Some(20261202),
        shrink_steps: 64,
        max_shrinks: 1,
        save_dir: save_dir.to_path_buf(),
        ..options(runtime)
    };
    let tmp = tempfile::tempdir().unwrap();
    let report = run(&generated(&wall_dir(), tmp.path())).expect("the gate runs");
    assert_eq!(report.cases.len(), 60);
    let bad: Vec<String> = report
        .cases
        .iter()
        .filter(|c| c.status != Status::Pass || !c.id.starts_with("generated-boundary/"))
        .map(|c| format!("{} {}: {:?}", c.id, c.status.name(), c.violations))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));

    let source = std::fs::read_to_string(wall_dir().join("shim.mjs")).unwrap();
    let mutants = common::mutants::load(&wall_dir().join("mutants.json"));
    let m = mutants
        .iter()
        .find(|m| m.name == "output-as-string")
        .expect("the mutant output-as-string");
    let dir = mutated_wall(m, &source, tmp.path()).unwrap();
    let saved = tmp.path().join("failures");
    let report = run(&generated(&dir, &saved)).expect("the gate runs");
    let shrunk = report.cases.iter().find_map(|c| {
        c.shrunk
            .as_ref()
            .and_then(|s| s.saved.clone())
            .map(|f| (c, f))
    });
    let (case, file) = shrunk.expect("a generated failure, shrunk and saved");
    assert!(
        case.requirements.contains(&"BOUNDARY-RUN-01".to_string()),
        "{:?}",
        case.violations
    );
    let replay = run(&RunOptions {
        case_files: vec![PathBuf::from(&file)],
        ..options(&dir)
    })
    .expect("the saved case replays");
    assert_eq!(replay.cases.len(), 1);
    assert_eq!(replay.cases[0].status, Status::Fail);
    assert!(replay.cases[0]
        .requirements
        .contains(&"BOUNDARY-RUN-01".to_string()));
}

/// The matrix as a campaign across runtimes: `--generate` runs the same
/// generated cases (one seed) on every row; a baseline it writes records
/// each failure's fingerprint and expects the same run; a failure on the
/// listed requirements whose fingerprint the baseline does not list is
/// `changed` and fails the matrix. Made one runtime at a time (one CI job
/// each) and merged, the matrix is the one made at once.
#[test]
fn the_matrix_runs_one_seed_on_every_row_and_its_baselines_catch_a_changed_failure() {
    use toolgate_runner::matrix::merge as matrix_merge;
    use toolgate_runner::matrix::run::{run_matrix, MatrixOptions};
    let _turn = turn();
    if !ready() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(wall_dir().join("shim.mjs")).unwrap();
    let mutants = common::mutants::load(&wall_dir().join("mutants.json"));
    let m = mutants
        .iter()
        .find(|m| m.name == "output-as-string")
        .expect("the mutant output-as-string");
    let broken = mutated_wall(m, &source, tmp.path()).unwrap();
    let runtimes = tmp.path().join("runtimes.json");
    let entry = |id: &str, dir: &Path| {
        serde_json::json!({
            "id": id, "name": id, "package": "toolgate-wall", "version": "1.0.0",
            "adapter": adapter_command(dir), "suites": ["boundary"], "baseline": format!("{id}.txt"),
        })
    };
    std::fs::write(
        &runtimes,
        serde_json::json!({
            "description": "the wall and a broken copy",
            "runtimes": [entry("wall", &wall_dir()), entry("broken", &broken)],
        })
        .to_string(),
    )
    .unwrap();
    let options = |write_baselines: bool, generate: u64| MatrixOptions {
        program: "toolgate".into(),
        runtimes: runtimes.clone(),
        only: Vec::new(),
        out: tmp.path().join("out"),
        write_baselines,
        timeout: Duration::from_secs(60),
        progress: false,
        // both rows at once: what is compared is what each row holds
        jobs: 2,
        jobs_per_runtime: 1,
        generate,
        seed: Some(20261202),
        exclude: Vec::new(),
    };
    // what CI leaves out of its matrix (.ci/run): the whole matrix runs them
    let huge = |o: MatrixOptions| MatrixOptions {
        exclude: vec!["*999000*".into(), "*/huge-arguments-*".into()],
        ..o
    };
    let (written, exit) = run_matrix(&options(true, 8)).expect("the matrix runs");
    assert_eq!(exit, 0);
    let generated = |row: usize| -> Vec<String> {
        written.rows[row]
            .cases
            .iter()
            .map(|c| c.id.clone())
            .filter(|id| id.starts_with("generated-boundary/"))
            .collect()
    };
    assert_eq!(generated(0).len(), 8);
    assert_eq!(generated(0), generated(1), "one seed for every row");
    let baseline = std::fs::read_to_string(tmp.path().join("broken.txt")).unwrap();
    let listed: Vec<&str> = baseline
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("generated"))
        .collect();
    assert!(!listed.is_empty(), "{baseline}");
    assert!(listed.iter().all(|l| l.contains(" @")), "{baseline}");

    let (whole, exit) = run_matrix(&huge(options(false, 8))).expect("the matrix runs");
    assert_eq!(
        exit, 0,
        "the written baselines expect the run they came from, less the cases left out"
    );
    // cases left out are not run, named by the matrix and on its table; a
    // baseline entry of theirs is not stale
    let left_out = |id: &str| id.contains("999000") || id.contains("/huge-arguments-");
    assert!(written.rows[1].cases.iter().any(|c| left_out(&c.id)));
    assert!(whole
        .rows
        .iter()
        .all(|r| !r.cases.iter().any(|c| left_out(&c.id))));
    assert_eq!(whole.excluded, huge(options(false, 8)).exclude);
    assert!(
        toolgate_runner::matrix::markdown::table(&whole).contains("`*999000*`"),
        "the table says what it left out"
    );
    let bad = MatrixOptions {
        exclude: vec!["boundary-no-such-group/*".into()],
        ..options(false, 0)
    };
    let e = run_matrix(&bad).unwrap_err().to_string();
    assert!(e.contains("no case of the boundary suite"), "{e}");
    let e = run_matrix(&huge(options(true, 0))).unwrap_err().to_string();
    assert!(e.contains("--write-baselines"), "{e}");
    // one runtime per job, each written and read back, then merged
    let mut parts = Vec::new();
    for (id, jobs_per_runtime) in [("broken", 2), ("wall", 1)] {
        let part = MatrixOptions {
            only: vec![id.into()],
            jobs_per_runtime,
            ..huge(options(false, 8))
        };
        let (matrix, exit) = run_matrix(&part).expect("the matrix runs");
        assert_eq!(exit, 0);
        let dir = tmp.path().join(format!("part-{id}"));
        toolgate_runner::matrix::write_all(&matrix, &dir).unwrap();
        let path = dir.join("matrix.json");
        parts.push((path.clone(), matrix_merge::read(&path).unwrap()));
    }
    let merged = matrix_merge::merge(parts.clone()).unwrap();
    let timeless = |mut m: toolgate_runner::matrix::Matrix| {
        m.generated = String::new();
        m.duration_secs = 0.0;
        // what a case measured (its wall time, its memory) is a time too
        for row in &mut m.rows {
            row.duration_secs = 0.0;
            for case in &mut row.cases {
                for measure in &mut case.measures {
                    measure.value = 0.0;
                }
            }
        }
        m
    };
    let (whole, merged) = (timeless(whole), timeless(merged));
    let json = |m: &toolgate_runner::matrix::Matrix| serde_json::to_string_pretty(m).unwrap();
    let (a, b) = (json(&whole), json(&merged));
    if let Some((x, y)) = a.lines().zip(b.lines()).find(|(x, y)| x != y) {
        panic!("the merged matrix differs from the whole one: {x} / {y}");
    }
    assert_eq!(a.len(), b.len());
    let (a, b) = (tmp.path().join("whole"), tmp.path().join("merged"));
    toolgate_runner::matrix::write_all(&whole, &a).unwrap();
    toolgate_runner::matrix::write_all(&merged, &b).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    toolgate_runner::site::build(std::slice::from_ref(&whole), root, &a.join("site")).unwrap();
    toolgate_runner::site::build(std::slice::from_ref(&merged), root, &b.join("site")).unwrap();
    for file in [
        "site/index.html",
        "site/boundary/index.html",
        "site/boundary/wall.html",
        "site/boundary/broken.html",
        "matrix.md",
        "badges/wall.svg",
        "badges/broken.svg",
    ] {
        let read = |dir: &Path| std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(
            read(&a) == read(&b),
            "{file} differs between the whole and the merged matrix"
        );
    }
    assert_eq!(matrix_merge::exit_code(&merged), exit);
    let missing = matrix_merge::merge(parts[..1].to_vec()).unwrap_err();
    assert!(
        missing.to_string().contains("no part has runtime wall"),
        "{missing}"
    );
    let twice = matrix_merge::merge(vec![parts[0].clone(), parts[0].clone()]).unwrap_err();
    assert!(
        twice.to_string().contains("runtime broken is given twice"),
        "{twice}"
    );
    let mut whole_part = parts[1].clone();
    whole_part.1.excluded.clear();
    let other = matrix_merge::merge(vec![parts[0].clone(), whole_part]).unwrap_err();
    assert!(
        other
            .to_string()
            .contains("with other cases left out (none, not"),
        "{other}"
    );

    // the same case failing on the same requirements, but not as recorded
    let first = listed[0];
    let at = first.find(" @").unwrap();
    let changed_line = format!("{} @000000000000", &first[..at]);
    std::fs::write(
        tmp.path().join("broken.txt"),
        baseline.replacen(first, &changed_line, 1),
    )
    .unwrap();
    let only_broken = MatrixOptions {
        only: vec!["broken".into()],
        ..options(false, 0)
    };
    let (matrix, exit) = run_matrix(&only_broken).expect("the matrix runs");
    assert_eq!(exit, 1, "a changed failure fails the matrix");
    // and its part: a merge of it would fail as well
    assert_eq!(matrix_merge::exit_code(&matrix), 1);
    let id = first.split_whitespace().next().unwrap();
    let case = matrix.rows[0].cases.iter().find(|c| c.id == id).unwrap();
    assert!(
        !case.expected,
        "{id} is not the failure the baseline recorded"
    );
    let others = matrix.rows[0]
        .cases
        .iter()
        .filter(|c| c.id != id && c.status == "fail")
        .all(|c| c.expected);
    assert!(others, "only the changed case is unexpected");
}
