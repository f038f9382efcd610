//! `toolgate bench`'s reports: the terminal table, the JSON (checked
//! against `runner/schema/bench.schema.json` before it is written) and the
//! Markdown table of verdicts, written with the plots into one folder.

use super::{BenchReport, FamilyResult, ImplementationResult, Point, PointStatus};
use crate::Error;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::OnceLock;

const BENCH_SCHEMA: &str = include_str!("../../schema/bench.schema.json");

/// Checks a report's JSON against `runner/schema/bench.schema.json`.
pub fn validate(value: &serde_json::Value) -> Result<(), String> {
    static VALIDATOR: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    let validator = VALIDATOR.get_or_init(|| {
        let schema: serde_json::Value =
            serde_json::from_str(BENCH_SCHEMA).map_err(|e| e.to_string())?;
        jsonschema::options()
            .offline()
            .build(&schema)
            .map_err(|e| e.to_string())
    });
    match validator {
        Ok(v) => toolgate_suite::schema_errors(v, value),
        Err(e) => Err(format!("the bench schema is broken (a toolgate bug): {e}")),
    }
}

/// An earlier run's report.json, checked against its schema.
pub fn read(path: &Path) -> Result<BenchReport, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| Error::file(path, e))?;
    validate(&value).map_err(|e| Error::file(path, format!("not a bench report: {e}")))?;
    serde_json::from_value(value).map_err(|e| Error::file(path, e))
}

/// A duration in nanoseconds, with a unit that keeps three digits.
pub fn duration(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    if value < 10.0 {
        format!("{value:.2} {unit}")
    } else if value < 100.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// Bytes with a binary unit.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn ratio(r: Option<f64>) -> String {
    match r {
        Some(r) if r >= 100.0 => format!("{r:.0}×"),
        Some(r) if r >= 0.1 => format!("{r:.2}×"),
        Some(r) => format!("{r:.1e}×"),
        None => "-".into(),
    }
}

/// One point as the tables show it.
pub fn point_cell(p: &Point) -> String {
    let cell = point_time(p);
    match &p.rejected {
        Some(_) => format!("{cell} (rejects)"),
        None => cell,
    }
}

fn point_time(p: &Point) -> String {
    match (&p.status, &p.stats) {
        (PointStatus::Measured, Some(s)) => duration(s.median_ns),
        (PointStatus::OverMemoryCap, Some(s)) => format!("{} (memory cap)", duration(s.median_ns)),
        (PointStatus::OverTimeCap, _) => {
            format!(
                "> cap ({})",
                p.first_ns.map_or("-".into(), |n| duration(n as f64))
            )
        }
        (PointStatus::Skipped, _) => "skipped".into(),
        (PointStatus::TimedOut, _) => "timed out".into(),
        _ => "failed".into(),
    }
}

/// The verdict in words: `flat from 1000 (1.02×)`, `linear (slope 0.98)`.
pub fn verdict_words(f: &FamilyResult) -> String {
    let v = &f.verdict;
    let mut words = v.fit.growth.name().to_string();
    if let (Some(slope), Some(from), Some(to)) = (v.fit.slope, v.fit.from, v.fit.to) {
        let _ = write!(words, " (slope {slope:.2}, {from}–{to})");
    }
    if let (Some(at), Some(why)) = (v.stopped_at, &v.stopped_because) {
        let why = why.lines().next().unwrap_or_default();
        let _ = write!(words, "; stopped at {at}: {why}");
    }
    if v.output_differs {
        words.push_str("; output differs from the reference");
    }
    if let Some(p) = f.points.iter().find(|p| p.rejected.is_some()) {
        let why = p.rejected.as_deref().unwrap_or_default();
        let _ = write!(
            words,
            "; rejects from {}: {}",
            p.size,
            why.lines().next().unwrap_or_default()
        );
    }
    words
}

/// The terminal summary: per implementation, a line per family.
pub fn terminal(report: &BenchReport) -> String {
    let mut out = String::new();
    for i in &report.implementations {
        let _ = writeln!(
            out,
            "{} ({}): JSON baseline {}",
            i.label,
            i.language,
            i.baseline
                .stats
                .as_ref()
                .map_or("-".into(), |s| duration(s.median_ns))
        );
        for f in &i.families {
            let largest = f.points.iter().rev().find(|p| p.stats.is_some());
            let _ = writeln!(
                out,
                "  {:<18} {:<11} largest {:>10} {:>10}  vs reference {:>8}  vs JSON baseline {:>8}",
                f.family,
                f.verdict.fit.growth.name(),
                largest.map_or("-".into(), |p| p.size.to_string()),
                largest.map_or("-".into(), point_cell),
                ratio(f.verdict.vs_reference),
                ratio(f.verdict.vs_baseline),
            );
            if let (Some(at), Some(why)) = (f.verdict.stopped_at, &f.verdict.stopped_because) {
                let _ = writeln!(
                    out,
                    "      stopped at {at}: {}",
                    why.lines().next().unwrap_or_default()
                );
            }
            if f.verdict.output_differs {
                let _ = writeln!(out, "      output differs from the reference's");
            }
            if let Some(p) = f.points.iter().find(|p| p.rejected.is_some()) {
                let why = p.rejected.as_deref().unwrap_or_default();
                let _ = writeln!(
                    out,
                    "      rejects from {}: {}",
                    p.size,
                    why.lines().next().unwrap_or_default()
                );
            }
            if let Some(skip) = f.points.iter().find(|p| p.status == PointStatus::Skipped) {
                let why = skip.message.as_deref().unwrap_or_default();
                let _ = writeln!(
                    out,
                    "      skipped from {}: {}",
                    skip.size,
                    why.lines().next().unwrap_or_default()
                );
            }
        }
        if let Some(why) = &i.failure {
            let _ = writeln!(out, "  gave up: {why}");
        }
    }
    out
}

fn escape_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown report: the verdicts (families down, implementations
/// across), then each implementation's medians per size.
pub fn markdown(report: &BenchReport) -> String {
    let mut out = String::new();
    let m = &report.machine;
    let _ = writeln!(
        out,
        "Measured {} on {} ({} {}, {} CPUs) by toolgate {}; plan: warm-up {} ms, {} samples over {} ms, time cap {} ms, memory cap {}.\n",
        report.date,
        m.cpu.as_deref().unwrap_or("an unnamed CPU"),
        m.os,
        m.arch,
        m.cpus,
        report.toolgate,
        report.plan.warmup_ms,
        report.plan.samples,
        report.plan.measure_ms,
        report.plan.cap_ms,
        bytes(report.memory_cap),
    );
    let families: Vec<&FamilyResult> = report
        .implementations
        .first()
        .map(|i| i.families.iter().collect())
        .unwrap_or_default();
    let _ = write!(out, "| family |");
    for i in &report.implementations {
        let _ = write!(out, " {} |", escape_cell(&i.label));
    }
    let _ = write!(out, "\n|---|");
    for _ in &report.implementations {
        let _ = write!(out, "---|");
    }
    out.push('\n');
    for f in families {
        let _ = write!(out, "| `{}` ({}) |", f.family, f.unit);
        for i in &report.implementations {
            let cell =
                i.families
                    .iter()
                    .find(|g| g.family == f.family)
                    .map_or("-".to_string(), |g| {
                        let largest = g.points.iter().rev().find(|p| p.stats.is_some());
                        let skipped = g.points.iter().find(|p| p.status == PointStatus::Skipped);
                        if let (None, Some(skip)) = (largest, skipped) {
                            let why = skip.message.as_deref().unwrap_or_default();
                            return format!("skipped: {}", why.lines().next().unwrap_or_default());
                        }
                        let mut cell = format!(
                            "**{}**{}",
                            g.verdict.fit.growth.name(),
                            largest.map_or(String::new(), |p| format!(
                                ", {} at {}",
                                point_cell(p),
                                p.size
                            ))
                        );
                        if g.verdict.vs_reference.is_some() {
                            let _ = write!(cell, ", {} ref", ratio(g.verdict.vs_reference));
                        }
                        if let Some(at) = g.verdict.stopped_at {
                            let _ = write!(cell, ", stopped at {at}");
                        }
                        if g.verdict.output_differs {
                            cell.push_str(", output differs");
                        }
                        cell
                    });
            let _ = write!(out, " {} |", escape_cell(&cell));
        }
        out.push('\n');
    }
    out.push_str("\nA verdict is the log-log slope of the median against the size (flat < 0.06 ≤ log < 0.5 ≤ linear < 1.3 ≤ worse), fitted from the size where the family's work saturates for an implementation within the contract's budgets; \"ref\" is the median over the reference's at the largest size both measured.\n");
    for i in &report.implementations {
        out.push_str(&implementation_table(i));
    }
    out
}

fn implementation_table(i: &ImplementationResult) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n### {} ({})\n\nJSON baseline (the language's plain serializer, 4 KiB): {}.\n",
        escape_cell(&i.label),
        i.language,
        i.baseline
            .stats
            .as_ref()
            .map_or("-".into(), |s| duration(s.median_ns))
    );
    out.push_str("| family | size | median | ± MAD | vs reference | peak memory | verdict |\n|---|---:|---:|---:|---:|---:|---|\n");
    for f in &i.families {
        for (n, p) in f.points.iter().enumerate() {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                if n == 0 {
                    format!("`{}`", f.family)
                } else {
                    String::new()
                },
                p.size,
                escape_cell(&point_cell(p)),
                p.stats.as_ref().map_or("-".into(), |s| duration(s.mad_ns)),
                ratio(p.vs_reference),
                p.peak_bytes.map_or("-".into(), |b| format!(
                    "{} ({})",
                    bytes(b),
                    p.memory.as_deref().unwrap_or("?")
                )),
                if n + 1 == f.points.len() {
                    escape_cell(&verdict_words(f))
                } else {
                    String::new()
                },
            );
        }
    }
    if let Some(why) = &i.failure {
        let _ = writeln!(out, "\nGave up: {}", escape_cell(why));
    }
    out
}

/// Writes `report.json` (after checking it against its schema),
/// `report.md` and the plots into `dir`.
pub fn write_all(report: &BenchReport, dir: &Path) -> Result<Vec<std::path::PathBuf>, Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::file(dir, e))?;
    let json = dir.join("report.json");
    let value = serde_json::to_value(report).map_err(|e| Error::file(&json, e))?;
    validate(&value).map_err(|e| {
        Error::file(
            &json,
            format!(
                "the report does not match runner/schema/bench.schema.json (a toolgate bug): {e}"
            ),
        )
    })?;
    let mut written = Vec::new();
    let text = serde_json::to_string_pretty(&value).map_err(|e| Error::file(&json, e))?;
    std::fs::write(&json, text + "\n").map_err(|e| Error::file(&json, e))?;
    written.push(json);
    let md = dir.join("report.md");
    std::fs::write(&md, markdown(report)).map_err(|e| Error::file(&md, e))?;
    written.push(md);
    written.extend(super::plot::write_plots(report, dir)?);
    Ok(written)
}
