//! How a family's cost grows with its size: the slope of log(median time)
//! against log(size), fitted by least squares over the sizes measured from
//! where the family's work saturates (for an implementation that keeps the
//! contract's budgets), and named.
//!
//! The slope of a cost `a + b·n` tends to 1, of `a + b·log n` to about 0.1
//! over three decades, of a constant to 0. The bounds below leave room for
//! the noise of medians that differ by a few percent from size to size
//! (cache sizes, allocation), which over three decades is a slope of about
//! 0.03.

use serde::{Deserialize, Serialize};

/// The named growth of a family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Growth {
    /// Slope below [`FLAT`]: bounded.
    Flat,
    /// Slope from [`FLAT`] to [`LINEAR`]: growing, slower than the size.
    Log,
    /// Slope from [`LINEAR`] to [`WORSE`].
    Linear,
    /// Slope above [`WORSE`].
    Worse,
    /// Fewer than two sizes measured from the saturation point.
    Unknown,
}

pub const FLAT: f64 = 0.06;
pub const LINEAR: f64 = 0.5;
pub const WORSE: f64 = 1.3;

impl Growth {
    pub fn name(self) -> &'static str {
        match self {
            Growth::Flat => "flat",
            Growth::Log => "log",
            Growth::Linear => "linear",
            Growth::Worse => "worse",
            Growth::Unknown => "unknown",
        }
    }

    /// Whether the family is bounded (its cost stops growing).
    pub fn bounded(self) -> Option<bool> {
        match self {
            Growth::Flat => Some(true),
            Growth::Unknown => None,
            _ => Some(false),
        }
    }

    fn of_slope(slope: f64) -> Growth {
        if slope < FLAT {
            Growth::Flat
        } else if slope < LINEAR {
            Growth::Log
        } else if slope < WORSE {
            Growth::Linear
        } else {
            Growth::Worse
        }
    }
}

/// A fitted growth.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fit {
    pub growth: Growth,
    /// The log-log slope (None with fewer than two points).
    pub slope: Option<f64>,
    /// The smallest size fitted.
    pub from: Option<u64>,
    /// The largest size fitted.
    pub to: Option<u64>,
    /// Median at the largest size over median at the smallest fitted.
    pub ratio: Option<f64>,
}

/// Fits `points` (size, median ns), keeping those at `saturates_at` and
/// above when at least two are there (else all of them). A stop at a size
/// (the cap exceeded, a crash) is a point too, at least as costly as its
/// first call: give it as such.
pub fn fit(points: &[(u64, f64)], saturates_at: Option<u64>) -> Fit {
    let usable: Vec<(u64, f64)> = points
        .iter()
        .copied()
        .filter(|&(n, t)| n > 0 && t > 0.0 && t.is_finite())
        .collect();
    let saturated: Vec<(u64, f64)> = match saturates_at {
        Some(from) => usable.iter().copied().filter(|&(n, _)| n >= from).collect(),
        None => usable.clone(),
    };
    let chosen = if saturated.len() >= 2 {
        saturated
    } else {
        usable
    };
    if chosen.len() < 2 {
        return Fit {
            growth: Growth::Unknown,
            slope: None,
            from: chosen.first().map(|p| p.0),
            to: chosen.last().map(|p| p.0),
            ratio: None,
        };
    }
    let xs: Vec<f64> = chosen.iter().map(|&(n, _)| (n as f64).ln()).collect();
    let ys: Vec<f64> = chosen.iter().map(|&(_, t)| t.ln()).collect();
    let k = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / k, ys.iter().sum::<f64>() / k);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let (first, last) = (chosen[0], chosen[chosen.len() - 1]);
    Fit {
        growth: Growth::of_slope(slope),
        slope: Some(slope),
        from: Some(first.0),
        to: Some(last.0),
        ratio: Some(last.1 / first.1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(f: impl Fn(f64) -> f64) -> Vec<(u64, f64)> {
        [100u64, 1_000, 10_000, 100_000, 1_000_000]
            .into_iter()
            .map(|n| (n, f(n as f64)))
            .collect()
    }

    #[test]
    fn shapes_are_named_by_their_slope() {
        let growth = |f: &dyn Fn(f64) -> f64, from| fit(&points(f), from).growth;
        assert_eq!(growth(&|_| 5_000.0, None), Growth::Flat);
        // noise of +-4% from size to size stays flat
        let noisy = |n: f64| {
            if (n.log10() as u64).is_multiple_of(2) {
                5_200.0
            } else {
                4_800.0
            }
        };
        assert_eq!(growth(&noisy, None), Growth::Flat);
        assert_eq!(growth(&|n| 300.0 * n.ln(), None), Growth::Log);
        assert_eq!(growth(&|n| 2_000.0 + 3.0 * n, None), Growth::Linear);
        assert_eq!(growth(&|n| n * n.ln(), None), Growth::Linear);
        assert_eq!(growth(&|n| n * n, None), Growth::Worse);
        // linear up to 10^3, then bounded: flat from there
        let saturating = |n: f64| 10.0 * n.min(1_000.0);
        assert_eq!(growth(&saturating, None), Growth::Log);
        let f = fit(&points(saturating), Some(1_000));
        assert_eq!(
            (f.growth, f.from, f.to),
            (Growth::Flat, Some(1_000), Some(1_000_000))
        );
        assert_eq!(f.ratio, Some(1.0));
    }

    #[test]
    fn one_point_is_unknown_and_a_lone_saturated_point_falls_back_to_all() {
        assert_eq!(fit(&[(100, 5.0)], None).growth, Growth::Unknown);
        let f = fit(&[(100, 5.0), (1_000, 50.0)], Some(1_000));
        assert_eq!((f.growth, f.from), (Growth::Linear, Some(100)));
        assert_eq!(fit(&[], None).growth, Growth::Unknown);
    }
}
