//! `toolgate bench`'s plots: one SVG per family, cost against size on
//! log-log axes, one line per implementation (the reference included), a
//! stop at the time cap drawn as a cross at the first call's time. Drawn
//! with plotters' SVG backend.

use super::{BenchReport, PointStatus};
use crate::Error;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// One colour per implementation, in report order (the reference first);
/// past twelve they repeat.
const COLOURS: [RGBColor; 12] = [
    RGBColor(0x1f, 0x3a, 0x93),
    RGBColor(0xd9, 0x5f, 0x02),
    RGBColor(0x1b, 0x9e, 0x77),
    RGBColor(0xe7, 0x29, 0x8a),
    RGBColor(0x66, 0x66, 0x66),
    RGBColor(0x75, 0x70, 0xb3),
    RGBColor(0xa6, 0x76, 0x1d),
    RGBColor(0x66, 0xa6, 0x1e),
    RGBColor(0x00, 0x00, 0x00),
    RGBColor(0xe6, 0xab, 0x02),
    RGBColor(0x17, 0xbe, 0xcf),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// A line of a plot: an implementation's label, its measured points and
/// the point where it stopped over the time cap.
struct Line {
    label: String,
    points: Vec<(f64, f64)>,
    capped: Option<(f64, f64)>,
}

/// The ranges of a log axis that hold `values`, widened to whole decades.
fn decades(values: impl Iterator<Item = f64>) -> Option<std::ops::Range<f64>> {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if hi <= 0.0 {
        return None;
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
    Some(lo..hi)
}

fn draw_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::file(path, format!("drawing the plot: {e}"))
}

/// Draws `family`'s plot into `path`; false when no implementation
/// measured it.
fn plot_family(report: &BenchReport, family: &str, unit: &str, path: &Path) -> Result<bool, Error> {
    let lines: Vec<Line> = report
        .implementations
        .iter()
        .filter_map(|i| {
            let f = i.families.iter().find(|f| f.family == family)?;
            let points = f
                .points
                .iter()
                .filter_map(|p| p.stats.as_ref().map(|s| (p.size as f64, s.median_ns)))
                .collect();
            let capped = f.points.iter().find_map(|p| match p.status {
                PointStatus::OverTimeCap => p.first_ns.map(|n| (p.size as f64, n as f64)),
                _ => None,
            });
            Some(Line {
                label: i.label.clone(),
                points,
                capped,
            })
        })
        .collect();
    let all = || {
        lines
            .iter()
            .flat_map(|l| l.points.iter().chain(l.capped.iter()))
    };
    let (Some(x), Some(y)) = (decades(all().map(|p| p.0)), decades(all().map(|p| p.1))) else {
        return Ok(false);
    };
    let root = SVGBackend::new(path, (720, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw_error(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{family}: time per call against size"),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x.log_scale(), y.log_scale())
        .map_err(|e| draw_error(path, e))?;
    chart
        .configure_mesh()
        .x_desc(unit)
        .y_desc("median time per call")
        .y_label_formatter(&|v| super::report::duration(*v))
        .x_label_formatter(&|v| format!("{v:e}"))
        .draw()
        .map_err(|e| draw_error(path, e))?;
    for (n, line) in lines.iter().enumerate() {
        let colour = COLOURS[n % COLOURS.len()];
        let style = ShapeStyle::from(&colour).stroke_width(2);
        chart
            .draw_series(LineSeries::new(line.points.iter().copied(), style))
            .map_err(|e| draw_error(path, e))?
            .label(line.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
        chart
            .draw_series(
                line.points
                    .iter()
                    .map(|&p| Circle::new(p, 3, colour.filled())),
            )
            .map_err(|e| draw_error(path, e))?;
        if let Some(p) = line.capped {
            chart
                .draw_series(std::iter::once(Cross::new(
                    p,
                    6,
                    ShapeStyle::from(&colour).stroke_width(2),
                )))
                .map_err(|e| draw_error(path, e))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| draw_error(path, e))?;
    root.present().map_err(|e| draw_error(path, e))?;
    Ok(true)
}

/// One `<family>.svg` per family measured, into `dir`.
pub fn write_plots(report: &BenchReport, dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut written = Vec::new();
    let Some(first) = report.implementations.first() else {
        return Ok(written);
    };
    for f in &first.families {
        let path = dir.join(format!("{}.svg", f.family));
        if plot_family(report, &f.family, &f.unit, &path)? {
            written.push(path);
        }
    }
    Ok(written)
}
