//! The matrix as a Markdown table for the README: runtimes across,
//! requirements down, one mark per cell, then each runtime's case counts.

use super::{Grade, Matrix, Weight};
use std::fmt::Write as _;

fn mark(grade: Grade) -> &'static str {
    match grade {
        Grade::Pass => "✅",
        Grade::Warn => "⚠️",
        Grade::Fail => "❌",
        Grade::NotApplicable => "n/a",
        Grade::Untested => "·",
    }
}

/// The table (and its legend).
pub fn table(matrix: &Matrix) -> String {
    let mut out = String::new();
    let _ = write!(out, "| requirement |");
    for row in &matrix.rows {
        let _ = write!(
            out,
            " {} `{}` |",
            row.runtime.name.replace('|', "\\|"),
            row.runtime.version
        );
    }
    out.push_str("\n|---|");
    for _ in &matrix.rows {
        out.push_str(":-:|");
    }
    out.push('\n');
    for r in &matrix.requirements {
        let level = match r.level {
            Weight::Must => "MUST",
            Weight::Should => "SHOULD",
        };
        let _ = write!(out, "| `{}` {level} |", r.id);
        for row in &matrix.rows {
            let grade = row.grade(&r.id);
            let _ = write!(out, " {} |", mark(grade));
        }
        out.push('\n');
    }
    out.push_str("| cases |");
    for row in &matrix.rows {
        let counts: Vec<String> = row
            .summary
            .iter()
            .map(|(status, n)| format!("{n} {status}"))
            .collect();
        let _ = write!(out, " {} |", counts.join(", "));
    }
    let _ = write!(
        out,
        "\n\n✅ pass · ❌ a MUST requirement fails · ⚠️ a SHOULD requirement fails · n/a the runtime cannot express it · \
         toolgate {}, {}, {} ({:.0} s).\n",
        matrix.toolgate, matrix.generated, matrix.machine, matrix.duration_secs
    );
    if let Some(left_out) = super::left_out(matrix) {
        let _ = writeln!(out, "\n{left_out}");
    }
    out
}
