//! Taking a measurement as [`BenchPlan`] says (the same steps every
//! adapter follows, runner/BENCH.md), and its statistics as criterion
//! gives them for flat sampling: per-call times, median, median absolute
//! deviation, mean, standard deviation and Tukey's outliers.

use crate::protocol::{BenchPlan, BenchSample};
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// The fewest samples a measurement takes, however slow the call.
pub const MIN_SAMPLES: u32 = 5;

/// What [`measure`] took: the first call alone, then the samples (none
/// when the first call was over the cap).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    pub first_nanos: u64,
    pub samples: Vec<BenchSample>,
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Times `call` by `plan`: the first call; warm-up calls until
/// `warmup_ms` have passed since the start (their mean estimates a call);
/// then the samples, each of the same number of calls.
pub fn measure<E>(plan: &BenchPlan, mut call: impl FnMut() -> Result<(), E>) -> Result<Taken, E> {
    let start = Instant::now();
    call()?;
    let first = start.elapsed();
    if first > Duration::from_millis(plan.cap_ms) {
        return Ok(Taken {
            first_nanos: nanos(first),
            samples: Vec::new(),
        });
    }
    let warmup = Duration::from_millis(plan.warmup_ms);
    let mut calls: u64 = 1;
    while start.elapsed() < warmup {
        call()?;
        calls += 1;
    }
    let estimate = nanos(start.elapsed()) / calls;
    let (count, per_sample) = sample_shape(plan, estimate);
    let mut samples = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let t = Instant::now();
        for _ in 0..per_sample {
            call()?;
        }
        samples.push(BenchSample {
            iterations: per_sample,
            nanos: nanos(t.elapsed()),
        });
    }
    Ok(Taken {
        first_nanos: nanos(first),
        samples,
    })
}

/// How many samples, of how many calls each, for a call estimated at
/// `estimate_nanos`: `samples` of about `measure_ms / samples` each, but
/// no more samples than fit in twice `measure_ms` (at least
/// [`MIN_SAMPLES`]).
pub fn sample_shape(plan: &BenchPlan, estimate_nanos: u64) -> (u32, u64) {
    let estimate = estimate_nanos.max(1);
    let measure = plan.measure_ms.saturating_mul(1_000_000);
    let fit = u32::try_from(measure.saturating_mul(2) / estimate).unwrap_or(u32::MAX);
    let count = plan.samples.min(fit).max(MIN_SAMPLES);
    let per_sample = (measure / u64::from(count) / estimate).max(1);
    (count, per_sample)
}

/// Outliers by Tukey's fences, as criterion counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outliers {
    pub low_severe: u32,
    pub low_mild: u32,
    pub high_mild: u32,
    pub high_severe: u32,
}

/// The statistics of a measurement, in nanoseconds per call.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub samples: u32,
    pub iterations: u64,
    pub median_ns: f64,
    /// Median absolute deviation, scaled by 1.4826 (criterion's).
    pub mad_ns: f64,
    pub mean_ns: f64,
    pub std_dev_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub outliers: Outliers,
}

/// The `q`-th quantile of sorted values, by linear interpolation.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return f64::NAN;
    };
    let at = q * last as f64;
    let below = at.floor() as usize;
    let above = at.ceil() as usize;
    let (lo, hi) = (sorted[below.min(last)], sorted[above.min(last)]);
    lo + (hi - lo) * (at - below as f64)
}

impl Stats {
    /// The statistics of `samples`; None when there are none.
    pub fn of(samples: &[BenchSample]) -> Option<Stats> {
        let mut per_call: Vec<f64> = samples
            .iter()
            .filter(|s| s.iterations > 0)
            .map(|s| s.nanos as f64 / s.iterations as f64)
            .collect();
        if per_call.is_empty() {
            return None;
        }
        per_call.sort_by(f64::total_cmp);
        let n = per_call.len() as f64;
        let median = quantile(&per_call, 0.5);
        let mut deviations: Vec<f64> = per_call.iter().map(|x| (x - median).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        let mean = per_call.iter().sum::<f64>() / n;
        let variance = if per_call.len() > 1 {
            per_call.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        let (q1, q3) = (quantile(&per_call, 0.25), quantile(&per_call, 0.75));
        let iqr = q3 - q1;
        let mut outliers = Outliers::default();
        for &x in &per_call {
            if x < q1 - 3.0 * iqr {
                outliers.low_severe += 1;
            } else if x < q1 - 1.5 * iqr {
                outliers.low_mild += 1;
            } else if x > q3 + 3.0 * iqr {
                outliers.high_severe += 1;
            } else if x > q3 + 1.5 * iqr {
                outliers.high_mild += 1;
            }
        }
        Some(Stats {
            samples: u32::try_from(per_call.len()).unwrap_or(u32::MAX),
            iterations: samples.iter().map(|s| s.iterations).sum(),
            median_ns: median,
            mad_ns: quantile(&deviations, 0.5) * 1.4826,
            mean_ns: mean,
            std_dev_ns: variance.sqrt(),
            min_ns: per_call[0],
            max_ns: per_call[per_call.len() - 1],
            outliers,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> BenchPlan {
        BenchPlan {
            warmup_ms: 0,
            measure_ms: 10,
            samples: 20,
            cap_ms: 1_000,
        }
    }

    fn sample(iterations: u64, nanos: u64) -> BenchSample {
        BenchSample { iterations, nanos }
    }

    #[test]
    fn statistics_are_per_call_with_criterion_s_fences() {
        let samples: Vec<_> = [10, 11, 12, 13, 14, 15, 16, 17, 18, 100]
            .into_iter()
            .map(|n| sample(2, 2 * n))
            .collect();
        let s = Stats::of(&samples).unwrap();
        assert_eq!(s.samples, 10);
        assert_eq!(s.iterations, 20);
        assert_eq!(s.median_ns, 14.5);
        assert_eq!((s.min_ns, s.max_ns), (10.0, 100.0));
        // q1 = 12.25, q3 = 16.75, iqr 4.5: 100 is past q3 + 3 iqr
        assert_eq!(
            s.outliers,
            Outliers {
                high_severe: 1,
                ..Outliers::default()
            }
        );
        assert!((s.mean_ns - 22.6).abs() < 1e-9);
        assert!((s.mad_ns - 2.5 * 1.4826).abs() < 1e-9);
        assert_eq!(Stats::of(&[]), None);
    }

    #[test]
    fn the_sample_shape_fits_the_measurement_time() {
        // 1 µs a call: 20 samples of 500 calls make 10 ms
        assert_eq!(sample_shape(&plan(), 1_000), (20, 500));
        // 4 ms a call: 5 fit in twice 10 ms, one call each
        assert_eq!(sample_shape(&plan(), 4_000_000), (5, 1));
        // slower than the whole measurement: still the fewest samples
        assert_eq!(sample_shape(&plan(), 1_000_000_000), (MIN_SAMPLES, 1));
    }

    #[test]
    fn a_first_call_over_the_cap_ends_the_measurement() {
        let plan = BenchPlan {
            cap_ms: 1,
            ..plan()
        };
        let mut calls = 0;
        let taken = measure::<()>(&plan, || {
            calls += 1;
            std::thread::sleep(Duration::from_millis(3));
            Ok(())
        })
        .unwrap();
        assert_eq!(calls, 1);
        assert!(taken.samples.is_empty());
        assert!(taken.first_nanos >= 3_000_000);
        // a failing call ends it too, with its error
        assert_eq!(measure(&plan, || Err("broken")), Err("broken"));
    }
}
