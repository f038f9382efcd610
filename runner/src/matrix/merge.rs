//! A matrix made in parts: `toolgate matrix --runtime ID --out DIR` on one
//! machine (or CI job) per runtime, then `toolgate report merge
//! DIR/matrix.json ... --out matrix` joins the parts' `matrix.json` into
//! the matrix one run of every runtime writes: the rows in the runtimes
//! file's order, and the page, table and badges written from it. Parts of
//! another suite, toolgate or runtimes file, parts that left out other
//! cases, a runtime given twice and a runtime missing are refused, each
//! naming the file.

use super::{Matrix, Row};
use crate::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Reads a `matrix.json`, checking it against the matrix schema.
pub fn read(path: &Path) -> Result<Matrix, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::file(path, e))?;
    let json: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::file(path, format!("not a JSON matrix: {e}")))?;
    super::validate_json(&json)
        .map_err(|e| Error::file(path, format!("not a toolgate matrix: {e}")))?;
    serde_json::from_value(json).map_err(|e| Error::file(path, format!("not a matrix: {e}")))
}

/// Joins `parts` (each with the file it came from) into one matrix of
/// every runtime of their runtimes file. Its exit code is [`exit_code`].
pub fn merge(parts: Vec<(PathBuf, Matrix)>) -> Result<Matrix, Error> {
    let (first_path, first) = parts
        .first()
        .ok_or_else(|| Error::usage("report merge: no matrix given"))?;
    let refuse = |path: &Path, why: String| Err(Error::usage(format!("{}: {why}", path.display())));
    let mut rows: BTreeMap<String, (Row, &Path)> = BTreeMap::new();
    let mut machines: Vec<&str> = Vec::new();
    let mut duration = 0.0;
    let mut generated = first.generated.as_str();
    for (path, part) in &parts {
        let differs = if part.toolgate != first.toolgate {
            Some(format!(
                "written by toolgate {}, not {}",
                part.toolgate, first.toolgate
            ))
        } else if part.suite != first.suite {
            Some(format!("of the {} suite, not {}", part.suite, first.suite))
        } else if part.runtimes != first.runtimes {
            Some("made from another runtimes file".to_string())
        } else if part.requirements != first.requirements {
            Some("graded on other requirements".to_string())
        } else if part.excluded != first.excluded {
            Some(format!(
                "with other cases left out ({}, not {})",
                excluded_text(&part.excluded),
                excluded_text(&first.excluded)
            ))
        } else {
            None
        };
        if let Some(why) = differs {
            return refuse(
                path,
                format!(
                    "not a part of the matrix of {}: {why}",
                    first_path.display()
                ),
            );
        }
        for row in &part.rows {
            let id = row.runtime.id.clone();
            if let Some((_, other)) = rows.insert(id.clone(), (row.clone(), path)) {
                return refuse(
                    path,
                    format!("runtime {id} is given twice (also {})", other.display()),
                );
            }
        }
        if !machines.contains(&part.machine.as_str()) {
            machines.push(&part.machine);
        }
        duration += part.duration_secs;
        // RFC 3339 in UTC to the second: text order is time order
        generated = generated.max(part.generated.as_str());
    }
    let missing: Vec<&str> = first
        .runtimes
        .iter()
        .filter(|id| !rows.contains_key(*id))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(Error::usage(format!(
            "report merge: no part has runtime {} (toolgate matrix --runtime ID writes one)",
            missing.join(", ")
        )));
    }
    let mut ordered = Vec::new();
    for id in &first.runtimes {
        if let Some((row, _)) = rows.remove(id) {
            ordered.push(row);
        }
    }
    if let Some((id, (_, path))) = rows.into_iter().next() {
        return refuse(path, format!("runtime {id} is not in the runtimes file"));
    }
    Ok(Matrix {
        toolgate: first.toolgate.clone(),
        suite: first.suite.clone(),
        generated: generated.to_string(),
        machine: machines.join("; "),
        duration_secs: duration,
        runtimes: first.runtimes.clone(),
        excluded: first.excluded.clone(),
        requirements: first.requirements.clone(),
        rows: ordered,
    })
}

/// `--exclude` globs as a merge's refusal names them.
fn excluded_text(globs: &[String]) -> String {
    if globs.is_empty() {
        "none".to_string()
    } else {
        globs.join(" ")
    }
}

/// The exit code of the matrix: the worst of its rows' runs.
pub fn exit_code(matrix: &Matrix) -> i32 {
    matrix.rows.iter().map(|r| r.exit_code).max().unwrap_or(0)
}
