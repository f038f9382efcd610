//! The matrix page in a real headless browser (Debian's Chromium): what a
//! person sees there is the grid (a row per requirement, a column per
//! runtime, a grade in every cell), and a cell opened by a link shows what
//! happened, the figures and the command that reproduces it. Both for a
//! page written by the matrix module, and for the checked-in `matrix/`.
//!
//! Needs `chromium` (or `TOOLGATE_CHROMIUM` naming one); without it these
//! tests say so and pass, unless `TOOLGATE_REQUIRE_CHROMIUM=1` (as `.ci/run`
//! sets after installing it), where they fail.

use std::path::{Path, PathBuf};
use std::process::Command;
use toolgate_runner::matrix::{
    html, row, write_all, CaseResult, Matrix, Measure, Requirement, RuntimeEntry, RuntimesFile,
    Violated, Weight,
};

fn chromium() -> Option<PathBuf> {
    let candidates = std::env::var_os("TOOLGATE_CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(PathBuf::from));
    for c in candidates {
        if c.exists() {
            return Some(c);
        }
    }
    assert!(
        std::env::var_os("TOOLGATE_REQUIRE_CHROMIUM").is_none(),
        "TOOLGATE_REQUIRE_CHROMIUM is set but no chromium was found"
    );
    eprintln!("not run: no chromium (apt-get install chromium; TOOLGATE_REQUIRE_CHROMIUM=1 to fail instead)");
    None
}

/// The DOM Chromium holds after loading `url` (scripts run).
fn dom(browser: &Path, url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.path().display()),
            "--dump-dom",
            url,
        ])
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The element whose id is `id`, as serialized, up to its closing tag.
fn element<'a>(dom: &'a str, id: &str, tag: &str) -> &'a str {
    let start = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id}"));
    let open = dom[..start].rfind(&format!("<{tag}")).unwrap();
    let end = dom[start..].find(&format!("</{tag}>")).unwrap() + start;
    &dom[open..end]
}

fn entry(id: &str) -> RuntimeEntry {
    RuntimeEntry {
        id: id.into(),
        name: format!("Runtime {id}"),
        package: format!("pkg-{id}"),
        version: "1.2.3".into(),
        adapter: "node adapter.mjs".into(),
        suites: vec!["boundary".into()],
        baseline: None,
        notes: None,
    }
}

fn case(id: &str, status: &str, about: &str, violated: Option<&str>) -> CaseResult {
    CaseResult {
        id: id.into(),
        status: status.into(),
        about: vec![about.into()],
        violations: violated
            .map(|r| {
                vec![Violated {
                    requirement: Some(r.to_string()),
                    message: format!("{id} broke {r}"),
                }]
            })
            .unwrap_or_default(),
        measures: vec![Measure {
            name: "wall time".into(),
            value: 12.5,
            unit: "ms".into(),
            bound: None,
        }],
        message: None,
        expected: false,
        reproduce: format!("toolgate run --case {id}"),
    }
}

#[test]
fn a_person_sees_the_grid_and_an_opened_cell() {
    let Some(browser) = chromium() else { return };
    let requirements = vec![
        Requirement {
            id: "BOUNDARY-LINK-01".into(),
            level: Weight::Must,
            text: "one result per call".into(),
        },
        Requirement {
            id: "BOUNDARY-SIZE-01".into(),
            level: Weight::Should,
            text: "bounded results".into(),
        },
    ];
    let rows = vec![
        row(
            entry("good"),
            "good 1.2.3".into(),
            1.0,
            &requirements,
            vec![
                case("t/link", "pass", "BOUNDARY-LINK-01", None),
                case("t/size", "pass", "BOUNDARY-SIZE-01", None),
            ],
        ),
        row(
            entry("bad"),
            "bad 1.2.3".into(),
            2.0,
            &requirements,
            vec![
                case(
                    "t/link",
                    "fail",
                    "BOUNDARY-LINK-01",
                    Some("BOUNDARY-LINK-01"),
                ),
                case(
                    "t/size",
                    "warn",
                    "BOUNDARY-SIZE-01",
                    Some("BOUNDARY-SIZE-01"),
                ),
            ],
        ),
    ];
    let matrix = Matrix {
        toolgate: "0.0.0".into(),
        suite: "boundary".into(),
        generated: "2026-12-01T00:00:00Z".into(),
        machine: "test".into(),
        duration_secs: 3.0,
        runtimes: vec!["good".into(), "bad".into()],
        requirements,
        rows,
    };
    let dir = tempfile::tempdir().unwrap();
    write_all(&matrix, dir.path()).unwrap();
    let page = dir.path().join("index.html");
    let cell = html::cell_id("bad", "BOUNDARY-LINK-01");
    let seen = dom(&browser, &format!("file://{}#{cell}", page.display()));
    // the grid: a column per runtime, a row per requirement, graded cells
    let grid = element(&seen, "grid", "table");
    assert_eq!(grid.matches("<th data-runtime=").count(), 2, "{grid}");
    assert_eq!(grid.matches("<tr data-requirement=").count(), 2, "{grid}");
    assert_eq!(grid.matches("data-grade=\"pass\"").count(), 2, "{grid}");
    assert_eq!(grid.matches("data-grade=\"fail\"").count(), 1, "{grid}");
    assert_eq!(grid.matches("data-grade=\"warn\"").count(), 1, "{grid}");
    // the linked cell is open and says what happened and how to reproduce it
    let opened = element(&seen, &cell, "td");
    assert!(opened.contains("<details open=\"\">"), "{opened}");
    assert!(opened.contains("t/link broke BOUNDARY-LINK-01"), "{opened}");
    assert!(opened.contains("toolgate run --case t/link"), "{opened}");
    assert!(opened.contains("wall time: 12.5 ms"), "{opened}");
    // the others stay closed
    let closed = element(&seen, &html::cell_id("good", "BOUNDARY-LINK-01"), "td");
    assert!(!closed.contains("<details open"), "{closed}");
    // the JSON keeps its schema
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("matrix.json")).unwrap())
            .unwrap();
    toolgate_runner::matrix::validate_json(&json).unwrap();
    // the badge and the table were written beside it
    assert!(std::fs::read_to_string(dir.path().join("badges/bad.svg"))
        .unwrap()
        .contains("0/1 MUST"));
    assert!(std::fs::read_to_string(dir.path().join("matrix.md"))
        .unwrap()
        .contains("| `BOUNDARY-LINK-01` MUST | ✅ | ❌ |"));
}

#[test]
fn the_checked_in_matrix_page_shows_every_runtime_and_requirement() {
    let Some(browser) = chromium() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let runtimes = RuntimesFile::load(&root.join("matrix/runtimes.json")).unwrap();
    let page = root.join("matrix/index.html");
    let seen = dom(&browser, &format!("file://{}", page.display()));
    let grid = element(&seen, "grid", "table");
    for r in &runtimes.runtimes {
        assert!(
            grid.contains(&format!("<th data-runtime=\"{}\"", r.id)),
            "the page has no column for {} (rerun `toolgate matrix`)",
            r.id
        );
    }
    let requirements = toolgate_runner::matrix::run::requirements("boundary");
    assert!(requirements.len() >= 16);
    for r in &requirements {
        assert!(
            grid.contains(&format!("<tr data-requirement=\"{}\"", r.id)),
            "the page has no row for {}",
            r.id
        );
    }
    assert_eq!(
        grid.matches("<td id=\"cell-").count(),
        runtimes.runtimes.len() * requirements.len()
    );
}
