//! One SVG badge per runtime, in the two-part style READMEs use: the suite
//! on the left, how many MUST requirements pass on the right, red when one
//! fails, yellow when only SHOULD ones do, green otherwise.

use super::{Grade, Matrix, Row, Weight};

/// Approximate width of text in the badge's 11px font.
fn width(text: &str) -> usize {
    text.chars().count() * 7 + 10
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The badge of `row`.
pub fn svg(matrix: &Matrix, row: &Row) -> String {
    let (passed, applicable) = row.must_passed(&matrix.requirements);
    let graded = |level: Weight, grade: Grade| {
        matrix
            .requirements
            .iter()
            .any(|r| r.level == level && row.grade(&r.id) == grade)
    };
    let color = if graded(Weight::Must, Grade::Fail) {
        "#e05d44"
    } else if graded(Weight::Should, Grade::Warn) {
        "#dfb317"
    } else {
        "#4c1"
    };
    let left = format!("toolgate {}", matrix.suite);
    let right = format!("{passed}/{applicable} MUST");
    let (lw, rw) = (width(&left), width(&right));
    let total = lw + rw;
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" aria-label="{l}: {r}">
<title>{l}: {r} ({name} {version})</title>
<rect width="{lw}" height="20" fill="#555"/><rect x="{lw}" width="{rw}" height="20" fill="{color}"/>
<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">
<text x="{lx}" y="14">{l}</text><text x="{rx}" y="14">{r}</text>
</g>
</svg>
"##,
        l = escape(&left),
        r = escape(&right),
        name = escape(&row.runtime.name),
        version = escape(&row.runtime.version),
        lx = lw / 2,
        rx = lw + rw / 2,
    )
}
