//! Prints the Markdown table of the serializer benchmarks from criterion's
//! saved estimates: every family at every size with its median and its
//! ratio to the serde_json baseline, then per family the flatness (median at
//! the largest size / median at the smallest size that already hits a
//! budget) and the worst median against the serde_json baseline.
//!
//! ```sh
//! cargo bench -p toolgate-benches
//! cargo run --release -p toolgate-benches --bin bench-table [-- --criterion-dir DIR]
//! ```
//!
//! The directory defaults to `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`,
//! else the workspace's `target/criterion`. Which size first hits a budget
//! is found by building and serializing the family's small inputs once.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use toolgate_benches::{budget_hit, families};

/// Flatness goal of the issue.
const FLATNESS_GOAL: f64 = 1.5;
/// Worst median against serde_json: goal of the issue.
const SERDE_GOAL: f64 = 3.0;

fn default_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/criterion")
}

/// The median of one benchmark in nanoseconds, if it was run.
fn median(dir: &Path, id: &[&str]) -> Option<f64> {
    let mut path = dir.to_path_buf();
    path.extend(id);
    path.push("new/estimates.json");
    let text = std::fs::read_to_string(&path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value.get("median")?.get("point_estimate")?.as_f64()
}

fn time(ns: f64) -> String {
    match ns {
        n if n < 1e3 => format!("{n:.0} ns"),
        n if n < 1e6 => format!("{:.2} µs", n / 1e3),
        n if n < 1e9 => format!("{:.2} ms", n / 1e6),
        n => format!("{:.2} s", n / 1e9),
    }
}

fn mark(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "**no**"
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut dir = default_dir();
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--criterion-dir", Some(d)) => dir = PathBuf::from(d),
            _ => {
                eprintln!("usage: bench-table [--criterion-dir DIR]");
                return ExitCode::FAILURE;
            }
        }
    }
    let Some(serde) = median(&dir, &["baseline", "serde_json_4k"]) else {
        eprintln!(
            "no baseline in {} (run `cargo bench -p toolgate-benches` first, or pass --criterion-dir)",
            dir.display()
        );
        return ExitCode::FAILURE;
    };
    let memcpy = median(&dir, &["baseline", "memcpy_4k"]);

    println!(
        "Baselines: `serde_json::to_string` of a ~4 KiB value {}; 4 KiB memory copy {}.\n",
        time(serde),
        memcpy.map_or("-".to_string(), time)
    );
    println!("| family | size | median | × serde_json | budget hit |");
    println!("|---|---:|---:|---:|---|");
    let mut summary = Vec::new();
    for family in families() {
        let mut rows = Vec::new();
        let mut first_hit: Option<(u64, f64)> = None;
        let mut searching = true;
        for &size in family.sizes {
            let Some(m) = median(&dir, &["serializer", family.name, &size.to_string()]) else {
                continue;
            };
            // budgets are monotone in size here: build only until the first hit
            let budget = if searching {
                let out = (family.build)(size).prepare().run();
                let hit = budget_hit(&out);
                if out.truncated {
                    searching = false;
                    first_hit = Some((size, m));
                }
                hit.to_string()
            } else {
                "(same)".to_string()
            };
            rows.push((size, m));
            println!(
                "| {} | {size} {} | {} | {:.2} | {budget} |",
                family.name,
                family.unit,
                time(m),
                m / serde
            );
        }
        let Some(&(largest, at_largest)) = rows.last() else {
            continue;
        };
        let worst = rows.iter().map(|&(_, m)| m).fold(0.0, f64::max);
        summary.push((family.name, first_hit, largest, at_largest, worst));
    }

    println!("\n| family | first size hitting a budget | largest size | flatness | worst median | worst × serde_json | flat ≤ {FLATNESS_GOAL} | ≤ {SERDE_GOAL}× serde |");
    println!("|---|---:|---:|---:|---:|---:|---|---|");
    let mut overall: Option<(&str, f64)> = None;
    let mut all_flat = true;
    for (name, first_hit, largest, at_largest, worst) in &summary {
        let ratio = worst / serde;
        if overall.is_none_or(|(_, r)| ratio > r) {
            overall = Some((name, ratio));
        }
        let (hit, flatness) = match first_hit {
            Some((size, m)) => (format!("{size} ({})", time(*m)), Some(at_largest / m)),
            None => ("-".to_string(), None),
        };
        all_flat &= flatness.is_none_or(|f| f <= FLATNESS_GOAL);
        println!(
            "| {name} | {hit} | {largest} ({}) | {} | {} | {ratio:.1} | {} | {} |",
            time(*at_largest),
            flatness.map_or("-".to_string(), |f| format!("{f:.2}")),
            time(*worst),
            mark(flatness.is_none_or(|f| f <= FLATNESS_GOAL)),
            mark(ratio <= SERDE_GOAL),
        );
    }
    if let Some((name, ratio)) = overall {
        println!(
            "\nWorst family: {name}, {ratio:.1}× the serde_json baseline (goal ≤ {SERDE_GOAL}). Every family flat within {FLATNESS_GOAL}: {}.",
            if all_flat { "yes" } else { "no" }
        );
    }
    ExitCode::SUCCESS
}
