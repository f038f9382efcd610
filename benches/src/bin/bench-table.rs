//! Prints the Markdown tables of the benchmarks from criterion's saved
//! estimates.
//!
//! The serializer (`benches/serializer.rs`): every family at every size
//! with its median, its ratio to the serde_json baseline and, for the
//! long-key families, to their read floor; then per family the flatness
//! (median at the largest size / median at the smallest size that already
//! hits a budget, or for the long-key families the smallest size whose keys
//! reach the 4097-code-point comparison window, where their work stops
//! growing) and the worst median against the serde_json baseline; then the
//! long-key families against their read floor.
//!
//! The validation reference (`benches/validation.rs`): every family at
//! every size with the size of the arguments' text, the reference's median,
//! the median of serde_json parsing the same text in the same run, their
//! ratio and what the reference answers; then per family the ratio at the
//! largest size and the worst.
//!
//! ```sh
//! cargo bench -p toolgate-benches
//! cargo run --release -p toolgate-benches --bin bench-table [-- --criterion-dir DIR]
//! ```
//!
//! The directory defaults to `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`,
//! else the workspace's `target/criterion`. Which size first hits a budget
//! is found by building and serializing the family's small inputs once.
//! A table whose benchmarks were not run is left out.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use toolgate_benches::{budget_hit, families, validation};

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

/// One of a benchmark's saved JSON files, if it was run.
fn saved(dir: &Path, id: &[&str], file: &str) -> Option<serde_json::Value> {
    let mut path = dir.to_path_buf();
    path.extend(id);
    path.push("new");
    path.push(file);
    let text = std::fs::read_to_string(&path).ok()?;
    serde_json::from_str(&text).ok()
}

/// The median of one benchmark in nanoseconds, if it was run.
fn median(dir: &Path, id: &[&str]) -> Option<f64> {
    saved(dir, id, "estimates.json")?
        .get("median")?
        .get("point_estimate")?
        .as_f64()
}

/// The bytes a benchmark declared as its throughput.
fn bytes(dir: &Path, id: &[&str]) -> Option<u64> {
    saved(dir, id, "benchmark.json")?
        .get("throughput")?
        .get("Bytes")?
        .as_u64()
}

/// A ratio with two decimals, or two significant digits below 0.1.
fn ratio(r: f64) -> String {
    if r >= 0.1 {
        format!("{r:.2}")
    } else {
        format!("{r:.1e}")
    }
}

fn size_text(bytes: u64) -> String {
    let b = bytes as f64;
    match bytes {
        n if n < 1 << 10 => format!("{n} B"),
        n if n < 1 << 20 => format!("{:.1} KiB", b / 1024.0),
        _ => format!("{:.1} MiB", b / (1024.0 * 1024.0)),
    }
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
    let serializer = serializer_tables(&dir);
    if serializer {
        println!();
    }
    let validation = validation_tables(&dir);
    if !serializer && !validation {
        eprintln!(
            "no estimates in {} (run `cargo bench -p toolgate-benches` first, or pass --criterion-dir)",
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The serializer's tables, if its baseline was measured.
fn serializer_tables(dir: &Path) -> bool {
    let Some(serde) = median(dir, &["baseline", "serde_json_4k"]) else {
        return false;
    };
    let memcpy = median(dir, &["baseline", "memcpy_4k"]);

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
        let mut saturated: Option<(u64, f64)> = None;
        let mut searching = true;
        for &size in family.sizes {
            let id = size.to_string();
            let Some(m) = median(dir, &["serializer", family.name, &id]) else {
                continue;
            };
            if family
                .floor
                .as_ref()
                .is_some_and(|f| size >= f.saturates_from)
                && saturated.is_none()
            {
                saturated = Some((size, m));
            }
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
        // a long-key family's work grows with its keys until they reach the
        // comparison window, after the first budget hit: its flatness is
        // measured from there
        let from = match saturated {
            Some(s) => Flatness::Saturated(s),
            None => first_hit.map_or(Flatness::None, Flatness::FirstHit),
        };
        summary.push((family.name, from, largest, at_largest, worst));
    }

    println!("\n| family | flatness measured from | largest size | flatness | worst median | worst × serde_json | flat ≤ {FLATNESS_GOAL} | ≤ {SERDE_GOAL}× serde |");
    println!("|---|---:|---:|---:|---:|---:|---|---|");
    let mut overall: Option<(&str, f64)> = None;
    let mut all_flat = true;
    for (name, from, largest, at_largest, worst) in &summary {
        let ratio = worst / serde;
        if overall.is_none_or(|(_, r)| ratio > r) {
            overall = Some((name, ratio));
        }
        let (hit, flatness) = match from {
            Flatness::FirstHit((size, m)) => (
                format!("{size}, first hitting a budget ({})", time(*m)),
                Some(at_largest / m),
            ),
            Flatness::Saturated((size, m)) => (
                format!(
                    "{size}, keys reach the 4097-code-point window ({})",
                    time(*m)
                ),
                Some(at_largest / m),
            ),
            Flatness::None => ("-".to_string(), None),
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
    floor_table(dir, serde);
    if let Some((name, ratio)) = overall {
        println!(
            "\nWorst family: {name}, {ratio:.1}× the serde_json baseline (goal ≤ {SERDE_GOAL}). Every family flat within {FLATNESS_GOAL}: {}.",
            if all_flat { "yes" } else { "no" }
        );
    }
    true
}

/// Where a family's flatness is measured from: the first size that hits a
/// budget, or (long-key families) the first size whose keys reach the
/// comparison window, with the median there.
enum Flatness {
    FirstHit((u64, f64)),
    Saturated((u64, f64)),
    None,
}

/// The long-key families against their read floor: per size the family's
/// median, its ratio to serde_json and to the read floor of the same input
/// (one scan of every key's first 4097 code points, measured in the same
/// run), and the bytes that floor reads.
fn floor_table(dir: &Path, serde: f64) {
    let mut header = false;
    for family in families() {
        let Some(floor) = family.floor else {
            continue;
        };
        for &size in family.sizes {
            let id = size.to_string();
            let (Some(m), Some(f)) = (
                median(dir, &["serializer", family.name, &id]),
                median(dir, &["read_floor", family.name, &id]),
            ) else {
                continue;
            };
            if !header {
                println!(
                    "\nLong keys against their read floor (flatness is measured from the marked size on, \
                     where the keys reach the 4097-code-point comparison window).\n"
                );
                println!("| family | size | median | × serde_json | read floor | floor reads | × read floor |");
                println!("|---|---:|---:|---:|---:|---:|---:|");
                header = true;
            }
            let mark = if size == floor.saturates_from {
                " (flatness from)"
            } else {
                ""
            };
            println!(
                "| {} | {size} {}{mark} | {} | {:.2} | {} | {} | {:.2} |",
                family.name,
                family.unit,
                time(m),
                m / serde,
                time(f),
                bytes(dir, &["read_floor", family.name, &id]).map_or("-".to_string(), size_text),
                m / f,
            );
        }
    }
}

/// One case of the validation bench, as measured.
struct Row {
    family: &'static str,
    unit: &'static str,
    size: u64,
    text: Option<u64>,
    reference: f64,
    serde: f64,
    answer: validation::Answer,
}

/// The validation bench's tables, if any of it was measured.
fn validation_tables(dir: &Path) -> bool {
    let mut rows = Vec::new();
    for family in validation::families() {
        for &n in family.sizes {
            let n_text = n.to_string();
            let reference = ["validation", family.name, &n_text];
            let baseline = ["validation_serde_json", family.name, &n_text];
            let (Some(r), Some(p)) = (median(dir, &reference), median(dir, &baseline)) else {
                continue;
            };
            rows.push(Row {
                family: family.name,
                unit: family.unit,
                size: n,
                text: bytes(dir, &baseline),
                reference: r,
                serde: p,
                answer: (family.answer)(n),
            });
        }
    }
    if rows.is_empty() {
        return false;
    }
    println!(
        "Validation (pi-ai 0.85.0's `validateToolArguments`, `pipeline::validation`) against \
         `serde_json` parsing the same arguments' text into a value, in the same run.\n"
    );
    println!("| family | size | text | reference | serde_json parse | × serde_json | reference answers |");
    println!("|---|---:|---:|---:|---:|---:|---|");
    for row in &rows {
        println!(
            "| {} | {} {} | {} | {} | {} | {} | {} |",
            row.family,
            row.size,
            row.unit,
            row.text.map_or("-".to_string(), size_text),
            time(row.reference),
            time(row.serde),
            ratio(row.reference / row.serde),
            row.answer.describe()
        );
    }
    println!("\n| family | largest size | × serde_json there | worst × serde_json |");
    println!("|---|---:|---:|---:|");
    for family in validation::families() {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.family == family.name).collect();
        let Some(last) = mine.last() else {
            continue;
        };
        let worst = mine
            .iter()
            .map(|r| r.reference / r.serde)
            .fold(0.0, f64::max);
        println!(
            "| {} | {} ({}) | {} | {} |",
            family.name,
            last.size,
            time(last.reference),
            ratio(last.reference / last.serde),
            ratio(worst)
        );
    }
    true
}
