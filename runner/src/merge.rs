//! `toolgate report merge`: the JSON reports of a run's shards (`--shard
//! I/N`, on as many machines) joined into the report the whole run would
//! have written: its cases in the run's order, its summary and exit code
//! counted again, its Markdown and JUnit written from it. Reports that are
//! not the shards of one run (another toolgate, implementation, seed,
//! corpus or filter), a shard given twice and a shard missing are refused,
//! each with a message that names the file.

use crate::report::{RunReport, Summary};
use crate::shard::Shard;
use crate::Error;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Reads a JSON run report, checking it against the report schema.
pub fn read(path: &Path) -> Result<RunReport, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::file(path, format!("not a JSON report: {e}")))?;
    if json.get("rows").is_some() {
        return Err(Error::file(
            path,
            "a matrix's JSON: merge matrices with --out DIR",
        ));
    }
    crate::report::validate_json(&json)
        .map_err(|e| Error::file(path, format!("not a toolgate run report: {e}")))?;
    serde_json::from_value(json).map_err(|e| Error::file(path, format!("not a run report: {e}")))
}

/// Joins the shard reports `parts` (each with the file it came from) into
/// the whole run's report.
pub fn merge(mut parts: Vec<(PathBuf, RunReport)>) -> Result<RunReport, Error> {
    parts.sort_by_key(|(_, r)| r.shard.map(|s| s.index));
    let (first_path, first) = parts
        .first()
        .ok_or_else(|| Error::usage("report merge: no report given"))?;
    let refuse = |path: &Path, why: String| Err(Error::usage(format!("{}: {why}", path.display())));
    let mut shards: BTreeMap<u32, &Path> = BTreeMap::new();
    let Some(count) = first.shard.map(|s| s.count) else {
        return refuse(first_path, not_a_shard());
    };
    for (path, report) in &parts {
        let Some(shard) = report.shard else {
            return refuse(path, not_a_shard());
        };
        if let Some(why) = other_run(first, report) {
            return refuse(
                path,
                format!("not a shard of the run of {}: {why}", first_path.display()),
            );
        }
        if shard.count != count {
            return refuse(
                path,
                format!(
                    "shard {shard} of a run split in {}, {} is of one split in {count}",
                    shard.count,
                    first_path.display()
                ),
            );
        }
        if let Some(other) = shards.insert(shard.index, path) {
            return refuse(
                path,
                format!("shard {shard} is given twice (also {})", other.display()),
            );
        }
    }
    let missing: Vec<String> = (1..=count)
        .filter(|i| !shards.contains_key(i))
        .map(|index| Shard { index, count }.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(Error::usage(format!(
            "report merge: shard{} {} of the run missing",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", ")
        )));
    }
    let cases_in_run = first.plan.cases;
    // the merged report is the first shard's, with every shard's cases
    let mut merged: Option<RunReport> = None;
    let mut placed = BTreeMap::new();
    let (mut duration, mut restarts, mut stderr) = (0.0, 0, String::new());
    for (path, mut report) in parts {
        duration += report.duration_secs;
        restarts += report.restarts;
        if !report.adapter_stderr.is_empty() {
            let shard = report.shard.map(|s| s.to_string()).unwrap_or_default();
            let _ = writeln!(
                stderr,
                "shard {shard}:\n{}",
                report.adapter_stderr.trim_end()
            );
        }
        let cases = std::mem::take(&mut report.cases);
        merged.get_or_insert(report);
        for mut case in cases {
            let Some(position) = case.position.take() else {
                return refuse(
                    &path,
                    format!("case {} has no position in the run", case.id),
                );
            };
            if position >= cases_in_run as u64 {
                return refuse(
                    &path,
                    format!(
                        "case {} is at {position}, past the run's {cases_in_run} cases",
                        case.id
                    ),
                );
            }
            if let Some(other) = placed.insert(position, case) {
                return refuse(&path, format!("a second case at {position} ({})", other.id));
            }
        }
    }
    if placed.len() != cases_in_run {
        return Err(Error::usage(format!(
            "report merge: the shards hold {} cases, the run {cases_in_run} (a report was cut or edited)",
            placed.len(),
        )));
    }
    let mut merged = merged.ok_or_else(|| Error::usage("report merge: no report given"))?;
    merged.cases = placed.into_values().collect();
    merged.summary = Summary::of(&merged.cases);
    merged.exit_code = merged.summary.exit_code();
    merged.duration_secs = duration;
    merged.restarts = restarts;
    merged.adapter_stderr = stderr;
    merged.shard = None;
    Ok(merged)
}

fn not_a_shard() -> String {
    "a whole run's report, not a shard's (run with --shard I/N)".into()
}

/// How `other` is not of the same run as `first`, if it is not.
fn other_run(first: &RunReport, other: &RunReport) -> Option<String> {
    if other.toolgate != first.toolgate {
        return Some(format!(
            "written by toolgate {}, not {}",
            other.toolgate, first.toolgate
        ));
    }
    if other.implementation != first.implementation || other.command != first.command {
        return Some(format!(
            "of {} {} ({}), not {} {}",
            other.implementation.name,
            other.implementation.version,
            other.command.as_deref().unwrap_or("the built-in reference"),
            first.implementation.name,
            first.implementation.version,
        ));
    }
    if other.seed != first.seed {
        return Some(format!(
            "generated with seed {}, not {}",
            other.seed.map_or("none".into(), |s| s.to_string()),
            first.seed.map_or("none".into(), |s| s.to_string())
        ));
    }
    let (a, b) = (&first.plan, &other.plan);
    if b.strict != a.strict {
        return Some(format!("--strict {}, not {}", b.strict, a.strict));
    }
    if b.baseline != a.baseline {
        return Some("run with another --expected-failures file".into());
    }
    if b.cases != a.cases || b.digest != a.digest {
        return Some(format!(
            "its run holds other cases ({} of digest {}, not {} of {}): another corpus, filter or --generate",
            b.cases,
            b.digest.get(..12).unwrap_or(&b.digest),
            a.cases,
            a.digest.get(..12).unwrap_or(&a.digest)
        ));
    }
    None
}
