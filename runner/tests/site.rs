//! The compliance site (`toolgate site`) built from synthetic matrices
//! with the suites' real requirements: 20 runtimes in two languages on the
//! boundary suite's 16 requirements (the size the grid must fit on a
//! 1280-px screen), and one package at two versions in two suites (the
//! versions view). What the pages hold is checked here in their HTML; what
//! a person sees is checked in Debian's headless Chromium by
//! `runner/site-test/browser.mjs` (no sideways scrolling at 1280 px and on
//! a phone, every link and fragment resolved, cells opening, no serious
//! axe-core violation, the grid page's weight), whose screenshots land in
//! `target/tmp/site-screenshots/`.
//!
//! The browser part needs `chromium` (or `TOOLGATE_CHROMIUM`) and
//! `npm ci` in `runner/site-test`; without them it says so and passes,
//! unless `TOOLGATE_REQUIRE_CHROMIUM=1` (as `.ci/run` sets), where it fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use toolgate_runner::matrix::{
    row, run::requirements, CaseResult, Matrix, Requirement, RuntimeEntry, Violated,
};
use toolgate_runner::site;

const README: &str = "# A shim\n\nThe loop runs in `node_modules/agent/dist/index.js:120`.\n";

fn entry(id: &str, package: &str, version: &str, language: &str, suite: &str) -> RuntimeEntry {
    RuntimeEntry {
        id: id.into(),
        name: format!("Agent {id}"),
        package: package.into(),
        version: version.into(),
        adapter: format!("node shim.mjs --runtime {id}"),
        suites: vec![suite.into()],
        baseline: None,
        notes: None,
        language: Some(language.into()),
        readme: Some(PathBuf::from("README.md")),
        build: None,
    }
}

/// A number from 0 to 99 that depends on every part of `parts`, the same
/// on every run (FNV-1a).
fn roll(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for p in parts {
        for b in p.bytes().chain([0]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
        }
    }
    h % 100
}

/// Three cases per requirement: mostly passing, some failing on the
/// requirement (one message shared by several cases, so that the runtime
/// page groups them), some n/a, skipped or timed out, some with a
/// difference no requirement names.
fn cases(runtime: &str, requirements: &[Requirement], failing: &[&str]) -> Vec<CaseResult> {
    let mut out = Vec::new();
    for r in requirements {
        for k in 0..3 {
            let id = format!("{}/{}-{k}", r.id.to_lowercase(), runtime);
            let dice = roll(&[runtime, &r.id, &k.to_string()]);
            let forced = failing.contains(&r.id.as_str());
            let (status, violations) = if forced || dice < 12 {
                let message = if k == 2 {
                    format!("{runtime} answered {dice} ms late")
                } else {
                    "the result is not linked to its call".to_string()
                };
                let status = if r.level == toolgate_runner::matrix::Weight::Must {
                    "fail"
                } else {
                    "warn"
                };
                (
                    status,
                    vec![Violated {
                        requirement: Some(r.id.clone()),
                        message,
                    }],
                )
            } else if dice < 16 {
                ("n/a", Vec::new())
            } else if dice < 18 {
                ("skip", Vec::new())
            } else if dice < 19 {
                ("timeout", Vec::new())
            } else if dice < 21 {
                (
                    "fail",
                    vec![Violated {
                        requirement: None,
                        message: "an extra event after the run ended".into(),
                    }],
                )
            } else {
                ("pass", Vec::new())
            };
            out.push(CaseResult {
                id: id.clone(),
                status: status.into(),
                about: vec![r.id.clone()],
                violations,
                measures: Vec::new(),
                message: (status == "skip").then(|| "the adapter cannot do this".into()),
                expected: false,
                reproduce: format!("toolgate run --case {id}"),
            });
        }
    }
    out
}

fn matrix(suite: &str, rows: Vec<(RuntimeEntry, Vec<&str>)>) -> Matrix {
    let requirements: Vec<Requirement> = requirements(suite);
    let rows: Vec<_> = rows
        .into_iter()
        .map(|(e, failing)| {
            let id = e.id.clone();
            row(
                e,
                format!("shim {id}"),
                1.5,
                &requirements,
                cases(&id, &requirements, &failing),
            )
        })
        .collect();
    Matrix {
        toolgate: "0.1.0".into(),
        suite: suite.into(),
        generated: "2026-12-06T00:00:00Z".into(),
        machine: "test".into(),
        duration_secs: 30.0,
        runtimes: rows.iter().map(|r| r.runtime.id.clone()).collect(),
        excluded: Vec::new(),
        requirements,
        rows,
    }
}

/// 20 boundary runtimes (12 JavaScript, 8 Python; `rt-01` and `rt-02` one
/// package at 1.0.0 and 2.0.0), and that package at both versions in the
/// pipeline suite. 2.0.0 fails `BOUNDARY-LINK-01`, which 1.0.0 passes.
fn synthetic() -> Vec<Matrix> {
    let mut boundary = Vec::new();
    for i in 1..=20 {
        let id = format!("rt-{i:02}");
        let language = if i <= 12 { "JavaScript" } else { "Python" };
        let (package, version) = match i {
            1 => ("synthetic-agent".to_string(), "1.0.0"),
            2 => ("synthetic-agent".to_string(), "2.0.0"),
            _ => (format!("agent-{i}"), "3.1.4"),
        };
        let failing = if i == 2 {
            vec!["BOUNDARY-LINK-01"]
        } else {
            vec![]
        };
        boundary.push((entry(&id, &package, version, language, "boundary"), failing));
    }
    let mut boundary = matrix("boundary", boundary);
    // 1.0.0 passes what 2.0.0 fails: the versions view must show it
    passes(&mut boundary, 0, "BOUNDARY-LINK-01");
    let mut pipeline = matrix(
        "pipeline",
        vec![
            (
                entry(
                    "agent-1.0",
                    "synthetic-agent",
                    "1.0.0",
                    "JavaScript",
                    "pipeline",
                ),
                vec![],
            ),
            (
                entry(
                    "agent-2.0",
                    "synthetic-agent",
                    "2.0.0",
                    "JavaScript",
                    "pipeline",
                ),
                vec!["PIPE-LOOKUP-01"],
            ),
        ],
    );
    passes(&mut pipeline, 0, "PIPE-LOOKUP-01");
    vec![boundary, pipeline]
}

/// Makes every case of row `index` about `requirement` pass, and grades
/// the row again.
fn passes(m: &mut Matrix, index: usize, requirement: &str) {
    let r = &mut m.rows[index];
    for c in r
        .cases
        .iter_mut()
        .filter(|c| c.about.iter().any(|a| a == requirement))
    {
        c.status = "pass".into();
        c.violations.clear();
    }
    let again = row(
        r.runtime.clone(),
        r.implementation.clone(),
        r.duration_secs,
        &m.requirements,
        r.cases.clone(),
    );
    m.rows[index] = again;
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn the_site_holds_a_grid_per_suite_a_page_per_runtime_and_the_versions() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("README.md"), README).unwrap();
    // kept after the test (CI keeps it as an artifact, beside the
    // screenshots): the synthetic site to look at
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("site-synthetic");
    let _ = std::fs::remove_dir_all(&out);
    let matrices = synthetic();
    let written = site::build(&matrices, root.path(), &out).unwrap();
    // a grid per suite, under the weight a person's connection allows
    for (suite, bytes) in &written.grids {
        assert!(*bytes < 500 * 1024, "{suite}: {bytes} bytes");
    }
    let grid = read(&out, "boundary/index.html");
    assert_eq!(grid.matches("<tr data-runtime=").count(), 20);
    assert_eq!(grid.matches(" class=\"req ").count(), 16);
    assert_eq!(grid.matches("<td id=\"cell-").count(), 20 * 16);
    assert!(
        grid.contains("<tbody data-language=\"Python\">"),
        "rows grouped by language"
    );
    assert!(grid.contains(">LINK-01</a>"), "short ids head the columns");
    assert!(
        grid.contains("id=\"req-BOUNDARY-LINK-01\""),
        "the sentences are listed"
    );
    // the runtime page: each difference once, with its cases
    let page = read(&out, "boundary/rt-02.html");
    let section = &page[page
        .find("<section id=\"BOUNDARY-LINK-01\">")
        .expect("a section per failing requirement")..];
    let section = &section[..section.find("</section>").unwrap()];
    assert_eq!(
        section
            .matches("the result is not linked to its call")
            .count(),
        1,
        "one finding for the cases sharing a difference: {section}"
    );
    assert!(section.contains("2 case(s)"), "{section}");
    assert!(page.contains("toolgate run --case boundary-link-01/rt-02-0"));
    assert!(
        page.contains("node_modules/agent/dist/index.js:120"),
        "the README's citation"
    );
    assert!(page.contains("../versions/synthetic-agent.html"));
    // the versions view: both suites, the changed requirement first
    let versions = read(&out, "versions/synthetic-agent.html");
    for suite in ["boundary", "pipeline"] {
        assert!(
            versions.contains(&format!("id=\"suite-{suite}\"")),
            "{suite}"
        );
    }
    assert!(versions.contains("<tr class=\"changed\" data-requirement=\"BOUNDARY-LINK-01\">"));
    assert!(versions.contains("<tr class=\"changed\" data-requirement=\"PIPE-LOOKUP-01\">"));
    // the landing page links every suite
    let landing = read(&out, "index.html");
    assert!(
        landing.contains("href=\"boundary/index.html\"")
            && landing.contains("href=\"pipeline/index.html\"")
    );
    // a README that cannot be read is said, not fatal
    let elsewhere = tempfile::tempdir().unwrap();
    site::build(&matrices, elsewhere.path(), &elsewhere.path().join("site")).unwrap();
    assert!(
        read(&elsewhere.path().join("site"), "boundary/rt-01.html").contains("could not be read")
    );
    // refused: no matrix, two of one suite
    let refused = site::build(&[], root.path(), &out).unwrap_err().to_string();
    assert!(refused.contains("at least one"), "{refused}");
    let twice = [matrices[0].clone(), matrices[0].clone()];
    let refused = site::build(&twice, root.path(), &out)
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("two matrices of the boundary suite"),
        "{refused}"
    );

    browser_checks(&out);
}

fn chromium() -> Option<PathBuf> {
    let candidates = std::env::var_os("TOOLGATE_CHROMIUM")
        .map(PathBuf::from)
        .into_iter()
        .chain(["/usr/bin/chromium", "/usr/bin/chromium-browser"].map(PathBuf::from));
    let test = Path::new(env!("CARGO_MANIFEST_DIR")).join("site-test/node_modules/playwright-core");
    let found = candidates.into_iter().find(|c| c.exists());
    if let (Some(browser), true) = (&found, test.exists()) {
        return Some(browser.clone());
    }
    assert!(
        std::env::var_os("TOOLGATE_REQUIRE_CHROMIUM").is_none(),
        "TOOLGATE_REQUIRE_CHROMIUM is set but chromium ({found:?}) or runner/site-test's packages (npm ci there) are missing"
    );
    eprintln!("not run: no chromium or no runner/site-test/node_modules (apt-get install chromium; npm ci in runner/site-test; TOOLGATE_REQUIRE_CHROMIUM=1 to fail instead)");
    None
}

/// The site in a real browser (runner/site-test/browser.mjs).
fn browser_checks(site: &Path) {
    let Some(browser) = chromium() else { return };
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("site-screenshots");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("site-test/browser.mjs");
    let out = Command::new("node")
        .arg(&script)
        .arg(site)
        .args(["--shots"])
        .arg(&shots)
        .args([
            "--rows",
            "boundary=20",
            "--rows",
            "pipeline=2",
            "--max-grid-kb",
            "500",
        ])
        .env("TOOLGATE_CHROMIUM", &browser)
        .output()
        .expect("node runs");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{said}");
    assert!(out.status.success(), "the site in Chromium:\n{said}");
}
