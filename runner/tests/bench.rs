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
use toolgate_runner::bench::growth::Growth;
use toolgate_runner::bench::{
    self, measure_implementation, report, AdapterBencher, BenchOptions, BenchReport, FamilyResult,
    PointStatus,
};
use toolgate_runner::protocol::BenchPlan;

const FAMILIES: [&str; 3] = ["wide_array", "string_ascii", "long_keys"];

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

fn node_adapter(module: Option<&Path>) -> String {
    let mut command = format!(
        "node {}",
        shell_words::quote(&common::node_dir().join("adapter.mjs").display().to_string())
    );
    if let Some(module) = module {
        command.push_str(&format!(
            " --module {}",
            shell_words::quote(&module.display().to_string())
        ));
    }
    command
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
    let o = options(vec![node_adapter(None)], &FAMILIES);
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
        // the reference's work saturates: flat from there
        let reference = family(&report, 0, name);
        assert_eq!(
            reference.verdict.fit.growth,
            Growth::Flat,
            "{name}: {reference:?}"
        );
        // the JavaScript implementation: the same text at every size, and
        // not growing with the size (a JIT's noise may leave it short of
        // flat, never near linear)
        let js = family(&report, 1, name);
        assert!(
            js.points
                .iter()
                .all(|p| p.output_matches_reference == Some(true)),
            "{name}: {js:?}"
        );
        assert!(!js.verdict.output_differs);
        assert!(
            js.verdict.fit.slope.unwrap() < 0.3,
            "{name} grows on the JavaScript implementation: {:?}",
            js.verdict.fit
        );
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
fn every_unbounded_mutant_is_reported_growing() {
    if !common::node_available() {
        return;
    }
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
        let mut bencher = AdapterBencher::start(&node_adapter(Some(&path)), &o).unwrap();
        let chosen = bench::chosen_families(&o.families).unwrap();
        let result = measure_implementation(&mut bencher, &chosen, &o, &mut |_, _| {});
        for f in &result.families {
            if f.verdict.fit.growth.bounded() != Some(false) {
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
