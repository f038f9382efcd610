//! `toolgate bench` end to end (runner/BENCH.md): the reference and the
//! JavaScript implementation of the core contract measured through the
//! protocol's `bench` request, their result texts equal byte for byte at
//! every size, the report within its schema and drawn; and every
//! deliberately unbounded copy of the JavaScript implementation in
//! `adapters/node/bench-mutants.json` (same output, a cost that grows with
//! the input) reported as growing on the families it names, where the
//! implementation itself is not.
//!
//! Small sizes and short measurements keep this under a minute; the
//! figures of README's performance section come from `toolgate bench` with
//! its defaults, in release.

mod common;

use serde::Deserialize;
use std::path::Path;
use std::time::Duration;
use toolgate_runner::bench::growth::{self, Growth};
use toolgate_runner::bench::{
    self, measure_implementation, report, AdapterBencher, BenchOptions, BenchReport, FamilyResult,
    PointStatus,
};
use toolgate_runner::protocol::BenchPlan;

const FAMILIES: [&str; 3] = ["wide_array", "string_ascii", "long_keys"];

/// The tests of this file time calls: one at a time, so that they do not
/// measure each other.
static TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn timing() -> std::sync::MutexGuard<'static, ()> {
    TIMING.lock().unwrap_or_else(|e| e.into_inner())
}

fn options(implementations: Vec<String>, families: &[&str]) -> BenchOptions {
    BenchOptions {
        implementations,
        families: families.iter().map(|f| f.to_string()).collect(),
        max_size: Some(100_000),
        plan: BenchPlan {
            warmup_ms: 20,
            measure_ms: 100,
            samples: 10,
            cap_ms: 10_000,
        },
        memory_cap: 4 << 30,
        build_timeout: Duration::from_secs(60),
        start_timeout: Duration::from_secs(30),
    }
}

fn family<'r>(report: &'r BenchReport, implementation: usize, name: &str) -> &'r FamilyResult {
    report.implementations[implementation]
        .families
        .iter()
        .find(|f| f.family == name)
        .unwrap_or_else(|| panic!("no {name} in implementation {implementation}"))
}

/// Checks what every report must hold, and writes it (the schema is
/// checked on the way); returns the files written.
fn check(report: &BenchReport, dir: &Path) -> Vec<std::path::PathBuf> {
    for i in &report.implementations {
        assert!(i.failure.is_none(), "{}: {:?}", i.label, i.failure);
        assert_eq!(i.baseline.status, PointStatus::Measured, "{}", i.label);
    }
    report::write_all(report, dir).unwrap()
}

#[test]
fn the_reference_and_the_javascript_implementation_agree_and_stay_bounded() {
    if !common::node_available() {
        return;
    }
    let _one_at_a_time = timing();
    let o = options(vec![common::node_adapter(None)], &FAMILIES);
    let report = bench::run_bench(&o, &mut |_, _, _| {}).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let written = check(&report, dir.path());
    assert_eq!(report.implementations.len(), 2);
    assert_eq!(report.implementations[1].language, "javascript");
    for name in FAMILIES {
        let sizes: Vec<u64> = toolgate_benches::calls::bench_family(name)
            .unwrap()
            .sizes
            .iter()
            .copied()
            .filter(|&s| s <= 100_000)
            .collect();
        for implementation in 0..2 {
            let f = family(&report, implementation, name);
            let measured: Vec<u64> = f
                .points
                .iter()
                .filter(|p| p.status == PointStatus::Measured)
                .map(|p| p.size)
                .collect();
            assert_eq!(measured, sizes, "{name} on {implementation}");
        }
        // neither grows like the size from where the work saturates: flat
        // on a quiet machine, but a busy one (CI runs test binaries beside
        // builds) may move a median by half, a slope of 0.2 over one
        // decade, and V8's strings add their own steps (the JavaScript
        // long_keys doubles from 10^4 to 10^5 units, then stays); the
        // unbounded mutants below are linear (0.9 and more)
        for (implementation, who) in [(0, "the reference"), (1, "the JavaScript implementation")] {
            let fit = family(&report, implementation, name).verdict.fit;
            assert!(
                fit.slope.unwrap() < growth::LINEAR,
                "{name} grows on {who}: {fit:?}"
            );
            assert_ne!(fit.growth, Growth::Unknown);
        }
        // the JavaScript implementation's text is the reference's at every size
        let js = family(&report, 1, name);
        let matches: Vec<Option<bool>> = js
            .points
            .iter()
            .map(|p| p.output_matches_reference)
            .collect();
        assert!(
            matches.iter().all(|m| *m == Some(true)),
            "{name}: {matches:?}"
        );
        assert!(!js.verdict.output_differs);
        assert!(js.verdict.vs_reference.is_some() && js.verdict.vs_baseline.is_some());
    }
    assert_eq!(bench::exit_code(&report), 0);
    // report.json, report.md and one plot per family, naming both
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "report.json",
            "report.md",
            "wide_array.svg",
            "string_ascii.svg",
            "long_keys.svg"
        ]
    );
    let svg = std::fs::read_to_string(dir.path().join("long_keys.svg")).unwrap();
    assert!(
        svg.starts_with("<svg")
            && svg.contains("toolgate-reference")
            && svg.contains("toolgate-core")
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    report::validate(&json).unwrap();
}

#[derive(Deserialize)]
struct Mutant {
    name: String,
    find: String,
    replace: String,
    growing: Vec<String>,
}

#[test]
fn every_unbounded_mutant_is_reported_growing_linearly() {
    if !common::node_available() {
        return;
    }
    let _one_at_a_time = timing();
    let dir = common::node_dir();
    let source = std::fs::read_to_string(dir.join("toolgate-core.mjs")).unwrap();
    let mutants: Vec<Mutant> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bench-mutants.json")).unwrap())
            .unwrap();
    assert!(mutants.len() >= 3);
    let tmp = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    for m in &mutants {
        assert_eq!(
            source.matches(&m.find).count(),
            1,
            "{}: `find` must occur once",
            m.name
        );
        let path = tmp.path().join(format!("{}.mjs", m.name));
        std::fs::write(&path, source.replacen(&m.find, &m.replace, 1)).unwrap();
        let families: Vec<&str> = m.growing.iter().map(String::as_str).collect();
        let o = options(vec![], &families);
        let mut bencher = AdapterBencher::start(&common::node_adapter(Some(&path)), &o).unwrap();
        let chosen = bench::chosen_families(&o.families).unwrap();
        let result = measure_implementation(&mut bencher, &chosen, &o, &mut |_, _| {});
        for f in &result.families {
            if !matches!(f.verdict.fit.growth, Growth::Linear | Growth::Worse) {
                problems.push(format!(
                    "{}: {} reported {:?}",
                    m.name, f.family, f.verdict.fit
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "mutants not reported growing:\n{}",
        problems.join("\n")
    );
}

#[test]
fn an_adapter_that_does_not_time_calls_is_refused_with_a_clear_error() {
    let command = env!("CARGO_BIN_EXE_toolgate-reference-adapter").to_string();
    let o = options(vec![command], &["wide_array"]);
    let error = match AdapterBencher::start(&o.implementations[0], &o) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(
        error.contains("does not announce the capability \"bench\""),
        "{error}"
    );
}

#[test]
fn the_schema_refuses_a_report_without_its_verdicts() {
    let _one_at_a_time = timing();
    let o = BenchOptions {
        max_size: Some(100),
        ..options(vec![], &["wide_object"])
    };
    let report = bench::run_bench(&o, &mut |_, _, _| {}).unwrap();
    let mut json = serde_json::to_value(&report).unwrap();
    report::validate(&json).unwrap();
    json["implementations"][0]["families"][0]
        .as_object_mut()
        .unwrap()
        .remove("verdict");
    assert!(report::validate(&json).unwrap_err().contains("verdict"));
}

#[test]
fn every_family_is_built_alike_in_javascript() {
    if !common::node_available() {
        return;
    }
    let _one_at_a_time = timing();
    // the smallest size of every family, each call's result text compared
    // with the reference's: a builder of bench.mjs that drifts from
    // benches/src/calls.rs shows here
    let mut o = options(vec![common::node_adapter(None)], &[]);
    // every family's smallest size (shared_paths starts at 2^7 paths)
    o.max_size = Some(128);
    o.plan = BenchPlan {
        warmup_ms: 0,
        measure_ms: 1,
        samples: 1,
        cap_ms: 10_000,
    };
    let report = bench::run_bench(&o, &mut |_, _, _| {}).unwrap();
    let js = &report.implementations[1];
    assert_eq!(
        js.families.len(),
        toolgate_benches::calls::catalogue().len()
    );
    for f in &js.families {
        assert!(!f.points.is_empty(), "{}", f.family);
        for p in &f.points {
            assert_eq!(p.status, PointStatus::Measured, "{} {}", f.family, p.size);
            assert_eq!(
                p.output_matches_reference,
                Some(true),
                "{} {}",
                f.family,
                p.size
            );
        }
    }
}

fn shim(runtime: &str) -> String {
    format!(
        "node {} --runtime {}",
        shell_words::quote(
            &common::node_dir()
                .join("boundary/adapter.mjs")
                .display()
                .to_string()
        ),
        shell_words::quote(
            &common::node_dir()
                .join("runtimes")
                .join(runtime)
                .display()
                .to_string()
        )
    )
}

#[test]
fn a_runtime_is_timed_through_its_shim_and_a_shim_that_cannot_be_says_why() {
    if !common::node_available() {
        return;
    }
    let _one_at_a_time = timing();
    let mut o = options(vec![], &["wide_object", "many_calls"]);
    o.max_size = Some(1_000);
    let chosen = bench::chosen_families(&o.families).unwrap();
    // toolgate-wall, the boundary suite's own executor (npm ci'd by .ci/run)
    let mut wall = AdapterBencher::start(&shim("toolgate-wall"), &o).unwrap();
    let result = measure_implementation(&mut wall, &chosen, &o, &mut |_, _| {});
    assert!(result.failure.is_none(), "{:?}", result.failure);
    for f in &result.families {
        assert!(
            f.points
                .iter()
                .all(|p| p.status == PointStatus::Measured && p.output_length.is_some()),
            "{}: {:?}",
            f.family,
            f.points
        );
    }
    // a runtime whose turn rejects is timed all the same, the rejection
    // reported: ai 7.0.173 walks a deep result recursively
    let mut deep = o.clone();
    deep.families = vec!["deep_nest".into()];
    deep.max_size = Some(10_000);
    let chosen_deep = bench::chosen_families(&deep.families).unwrap();
    let mut ai = AdapterBencher::start(&shim("ai-7"), &deep).unwrap();
    let result = measure_implementation(&mut ai, &chosen_deep, &deep, &mut |_, _| {});
    let points = &result.families[0].points;
    let last = points.last().unwrap();
    assert_eq!(
        (last.size, &last.status),
        (10_000, &PointStatus::Measured),
        "{points:?}"
    );
    assert!(
        last.rejected
            .as_deref()
            .is_some_and(|r| r.starts_with("RangeError")),
        "{points:?}"
    );
    assert!(points[0].rejected.is_none() && points[0].output_length.is_some());
    // the MCP shim over stdio starts a server per turn: not timed, and
    // every family says so
    let mut stdio = AdapterBencher::start(&shim("mcp-sdk-stdio"), &o).unwrap();
    let result = measure_implementation(&mut stdio, &chosen, &o, &mut |_, _| {});
    for f in &result.families {
        assert!(
            f.points.iter().all(|p| p.status == PointStatus::Skipped
                && p.message
                    .as_deref()
                    .is_some_and(|m| m.contains("not timed"))),
            "{}: {:?}",
            f.family,
            f.points
        );
    }
}
