//! `toolgate bench`: the cost of the hostile families (runner/BENCH.md) on
//! any implementation, timed inside its own process, at growing sizes,
//! with a verdict per family (bounded or growing, and how), ratios to the
//! reference measured in the same run and to the implementation's own
//! plain JSON serializer, and the reports (`report.rs`: terminal, JSON,
//! Markdown; `plot.rs`: SVG).
//!
//! The reference is always measured first, in this process
//! (`reference.rs`); each `--impl` adapter must announce the `bench`
//! capability, and is restarted before each family so that what one
//! family left in its memory does not weigh on the next. A family stops
//! at the first size whose first call exceeds the time cap, whose peak
//! memory exceeds the memory cap, or that fails (an error, a timeout, a
//! crash): what was measured before stays, and the stop is reported.

pub mod growth;
pub mod plot;
mod reference;
pub mod report;
pub mod sampling;

use crate::adapter::{self, Adapter, BenchRan};
use crate::protocol::{BenchPlan, BenchRequest, Hello, Measured};
use crate::subject::Ran;
use crate::Error;
use growth::{fit, Fit};
use sampling::Stats;
use serde::{Deserialize, Serialize};
use std::time::Duration;
use toolgate_benches::calls::{catalogue, BenchFamily};

pub use reference::ReferenceBench;

/// The family every implementation measures first: its own language's
/// plain JSON serializer on BENCH.md's 4 KiB value.
pub const BASELINE: &str = "json_baseline";

/// What `toolgate bench` was asked.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Adapter commands, measured after the reference, in this order.
    pub implementations: Vec<String>,
    /// Family names (empty: every family).
    pub families: Vec<String>,
    /// No size above this.
    pub max_size: Option<u64>,
    pub plan: BenchPlan,
    /// A family stops once a call's peak memory grew by more than this.
    pub memory_cap: u64,
    /// How long an adapter may take to build a value at one size, on top of
    /// the time the plan may take.
    pub build_timeout: Duration,
    pub start_timeout: Duration,
}

/// How one size went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PointStatus {
    Measured,
    /// The first call exceeded the time cap: the family stops here.
    OverTimeCap,
    /// Measured, but the peak memory exceeded the cap: the family stops.
    OverMemoryCap,
    /// The implementation cannot build this family.
    Skipped,
    /// No reply within the request's deadline (the adapter is killed):
    /// the family stops here.
    TimedOut,
    /// An error or a crash: the family stops here.
    Failed,
}

/// One family at one size on one implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Point {
    pub size: u64,
    pub status: PointStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stats: Option<Stats>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_length: Option<u64>,
    /// Whether the first call's result text equals the reference's (for
    /// implementations of the core contract, whose results are the same
    /// text byte for byte).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_matches_reference: Option<bool>,
    /// Median over the reference's median at this size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_reference: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The first call rejected with this error (timed all the same).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
    /// The first call's result text (kept for the comparison, not written).
    #[serde(skip)]
    pub output: Option<String>,
}

impl Point {
    fn stopped(size: u64, status: PointStatus, message: String) -> Point {
        Point {
            size,
            status,
            build_ns: None,
            first_ns: None,
            stats: None,
            peak_bytes: None,
            memory: None,
            output_length: None,
            output_matches_reference: None,
            vs_reference: None,
            message: Some(message),
            rejected: None,
            output: None,
        }
    }

    /// A measurement as a point, its status judged against the caps.
    fn of(size: u64, m: Measured, memory_cap: u64) -> Point {
        let stats = Stats::of(&m.samples);
        let status = if stats.is_none() {
            PointStatus::OverTimeCap
        } else if m.peak_bytes.is_some_and(|p| p > memory_cap) {
            PointStatus::OverMemoryCap
        } else {
            PointStatus::Measured
        };
        Point {
            size,
            status,
            build_ns: Some(m.build_nanos),
            first_ns: Some(m.first_nanos),
            stats,
            peak_bytes: m.peak_bytes,
            memory: m.memory,
            output_length: m.output_length,
            output_matches_reference: None,
            vs_reference: None,
            message: None,
            rejected: m.rejected,
            output: m.output,
        }
    }

    /// The time fitted for this point: the median, or for a stop over the
    /// time cap, the first call (at least that costly).
    pub fn time_ns(&self) -> Option<f64> {
        match (&self.stats, self.status.clone()) {
            (Some(s), _) => Some(s.median_ns),
            (None, PointStatus::OverTimeCap) => self.first_ns.map(|n| n as f64),
            _ => None,
        }
    }

    fn stops_family(&self) -> bool {
        !matches!(self.status, PointStatus::Measured | PointStatus::Skipped)
    }
}

/// The verdict on one family for one implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    #[serde(flatten)]
    pub fit: Fit,
    /// The size where the family stopped, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_because: Option<String>,
    /// At the largest size both measured: median over the reference's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_reference: Option<f64>,
    /// At the largest size measured: median over this implementation's
    /// own [`BASELINE`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_baseline: Option<f64>,
    /// Some size's result text differs from the reference's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub output_differs: bool,
}

/// One family on one implementation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FamilyResult {
    pub family: String,
    pub kind: String,
    pub unit: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturates_at: Option<u64>,
    pub points: Vec<Point>,
    pub verdict: Verdict,
}

/// One implementation's measurements.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImplementationResult {
    /// `name version` as its handshake says.
    pub label: String,
    pub name: String,
    pub version: String,
    pub language: String,
    /// The adapter command; None for the reference in process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its plain JSON serializer on the 4 KiB value.
    pub baseline: Point,
    pub families: Vec<FamilyResult>,
    /// Why nothing (more) was measured, when the adapter gave out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// What one `toolgate bench` measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchReport {
    pub toolgate: String,
    /// RFC 3339, UTC.
    pub date: String,
    pub machine: Machine,
    pub plan: BenchPlan,
    pub memory_cap: u64,
    pub implementations: Vec<ImplementationResult>,
}

/// Where it ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Machine {
    pub os: String,
    pub arch: String,
    pub cpus: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
}

impl Machine {
    pub fn this() -> Machine {
        // the model name of the first processor, where Linux says it
        let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        });
        Machine {
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpu,
        }
    }
}

/// Something that times families at sizes: the reference or an adapter.
pub trait Bencher {
    fn hello(&self) -> &Hello;
    fn command(&self) -> Option<&str>;
    /// Times `family` at `size`; `Err` when it failed (the family stops).
    fn bench(&mut self, request: &BenchRequest) -> Result<BenchOutcome, String>;
    /// Called before each family.
    fn next_family(&mut self) {}
    /// Why the implementation can measure nothing more, if so.
    fn gave_up(&self) -> Option<String> {
        None
    }
}

/// A measurement, or the implementation's reason not to take it.
pub enum BenchOutcome {
    Measured(Measured),
    Skipped(String),
    /// No reply in time: says how long was waited.
    TimedOut(String),
}

/// An adapter as a [`Bencher`].
pub struct AdapterBencher {
    adapter: Adapter,
    build_timeout: Duration,
    gave_up: Option<String>,
}

impl AdapterBencher {
    /// Starts the adapter; it must announce `bench`.
    pub fn start(command: &str, options: &BenchOptions) -> Result<AdapterBencher, Error> {
        let adapter = Adapter::start(adapter::Options {
            command: command.to_string(),
            timeout: options.build_timeout,
            start_timeout: options.start_timeout,
            max_restarts: 1_000,
        })?;
        if !adapter.times_calls() {
            return Err(Error::usage(format!(
                "--impl {command:?}: the adapter does not announce the capability \"bench\" \
                 (runner/BENCH.md), so it cannot time calls in its process"
            )));
        }
        Ok(AdapterBencher {
            adapter,
            build_timeout: options.build_timeout,
            gave_up: None,
        })
    }
}

/// The longest a bench request may take: the build, then at most the
/// cap for the first call, the warm-up (which may end with one call over
/// it), and twice the measurement time or the slowest samples.
fn request_timeout(plan: &BenchPlan, build: Duration) -> Duration {
    let cap = Duration::from_millis(plan.cap_ms);
    let samples = u32::max(plan.samples, sampling::MIN_SAMPLES);
    build
        + cap * 2
        + Duration::from_millis(plan.warmup_ms)
        + Duration::from_millis(plan.measure_ms) * 2
        + cap * samples
}

impl Bencher for AdapterBencher {
    fn hello(&self) -> &Hello {
        crate::subject::Subject::hello(&self.adapter)
    }

    fn command(&self) -> Option<&str> {
        crate::subject::Subject::command(&self.adapter)
    }

    fn bench(&mut self, request: &BenchRequest) -> Result<BenchOutcome, String> {
        let timeout = request_timeout(&request.plan, self.build_timeout);
        match self.adapter.bench(request, timeout) {
            BenchRan::Measured(m) => Ok(BenchOutcome::Measured(m)),
            BenchRan::Skipped(reason) => Ok(BenchOutcome::Skipped(reason)),
            BenchRan::Failed(ran, stderr) => {
                let mut message = match ran {
                    Ran::Timeout(d) => {
                        return Ok(BenchOutcome::TimedOut(format!(
                            "no reply within {:.0} s",
                            d.as_secs_f64()
                        )))
                    }
                    Ran::Crash(m) | Ran::Error(m) | Ran::Skipped(m) | Ran::NotApplicable(m) => m,
                    Ran::NotRun(m) => {
                        self.gave_up = Some(m.clone());
                        m
                    }
                    Ran::Observed(_) => "an observation instead of a measurement".into(),
                };
                let stderr = stderr.trim();
                if !stderr.is_empty() {
                    let cut =
                        adapter::floor_char_boundary(stderr, stderr.len().saturating_sub(600));
                    message.push_str(&format!("\nadapter stderr (end):\n{}", &stderr[cut..]));
                }
                Err(message)
            }
        }
    }

    fn next_family(&mut self) {
        self.adapter.recycle();
    }

    fn gave_up(&self) -> Option<String> {
        self.gave_up.clone()
    }
}

impl Drop for AdapterBencher {
    fn drop(&mut self) {
        crate::subject::Subject::finish(&mut self.adapter);
    }
}

/// The families chosen, in catalogue order.
pub fn chosen_families(names: &[String]) -> Result<Vec<BenchFamily>, Error> {
    let all = catalogue();
    for name in names {
        if !all.iter().any(|f| f.name == name) {
            let known: Vec<&str> = all.iter().map(|f| f.name).collect();
            return Err(Error::usage(format!(
                "--family {name:?}: no such family (known: {})",
                known.join(", ")
            )));
        }
    }
    Ok(all
        .into_iter()
        .filter(|f| names.is_empty() || names.iter().any(|n| n == f.name))
        .collect())
}

fn point_of(outcome: Result<BenchOutcome, String>, size: u64, memory_cap: u64) -> Point {
    match outcome {
        Ok(BenchOutcome::Measured(m)) => Point::of(size, m, memory_cap),
        Ok(BenchOutcome::Skipped(reason)) => Point::stopped(size, PointStatus::Skipped, reason),
        Ok(BenchOutcome::TimedOut(message)) => Point::stopped(size, PointStatus::TimedOut, message),
        Err(message) => Point::stopped(size, PointStatus::Failed, message),
    }
}

/// Measures every chosen family on `bencher`, reporting each point to
/// `progress` as it comes.
pub fn measure_implementation(
    bencher: &mut dyn Bencher,
    families: &[BenchFamily],
    options: &BenchOptions,
    progress: &mut dyn FnMut(&str, &Point),
) -> ImplementationResult {
    let hello = bencher.hello().clone();
    let request = |family: &str, size| BenchRequest {
        family: family.to_string(),
        size,
        plan: options.plan,
    };
    let baseline = point_of(
        bencher.bench(&request(BASELINE, 4096)),
        4096,
        options.memory_cap,
    );
    progress(BASELINE, &baseline);
    let mut results = Vec::new();
    for family in families {
        if bencher.gave_up().is_some() || crate::run::interrupted() {
            break;
        }
        bencher.next_family();
        let mut points = Vec::new();
        for &size in family.sizes {
            if options.max_size.is_some_and(|max| size > max) {
                break;
            }
            if crate::run::interrupted() {
                break;
            }
            let point = point_of(
                bencher.bench(&request(family.name, size)),
                size,
                options.memory_cap,
            );
            progress(family.name, &point);
            let stop = point.stops_family();
            points.push(point);
            if stop {
                break;
            }
        }
        results.push(FamilyResult {
            family: family.name.to_string(),
            kind: family.kind.name().to_string(),
            unit: family.unit.to_string(),
            saturates_at: family.saturates_at,
            verdict: verdict_of(&points, family.saturates_at, &baseline),
            points,
        });
    }
    ImplementationResult {
        label: format!(
            "{} {}",
            hello.implementation.name, hello.implementation.version
        ),
        name: hello.implementation.name,
        version: hello.implementation.version,
        language: hello.implementation.language,
        command: bencher.command().map(str::to_string),
        baseline,
        families: results,
        failure: bencher.gave_up(),
    }
}

fn verdict_of(points: &[Point], saturates_at: Option<u64>, baseline: &Point) -> Verdict {
    let timed: Vec<(u64, f64)> = points
        .iter()
        .filter_map(|p| p.time_ns().map(|t| (p.size, t)))
        .collect();
    let stop = points.iter().find(|p| p.stops_family());
    let last_median = points
        .iter()
        .rev()
        .find_map(|p| p.stats.as_ref().map(|s| s.median_ns));
    Verdict {
        fit: fit(&timed, saturates_at),
        stopped_at: stop.map(|p| p.size),
        stopped_because: stop.map(|p| match p.status {
            PointStatus::OverTimeCap => "over the time cap".to_string(),
            PointStatus::OverMemoryCap => "over the memory cap".to_string(),
            PointStatus::TimedOut => p.message.clone().unwrap_or_else(|| "timed out".into()),
            _ => p.message.clone().unwrap_or_else(|| "failed".into()),
        }),
        vs_reference: None,
        vs_baseline: match (last_median, baseline.stats.as_ref()) {
            (Some(t), Some(b)) if b.median_ns > 0.0 => Some(t / b.median_ns),
            _ => None,
        },
        output_differs: false,
    }
}

/// Sets every implementation's ratios to the reference (the first
/// implementation) and, for implementations of the core contract, whether
/// their result texts equal the reference's.
pub fn compare_with_reference(implementations: &mut [ImplementationResult], core: &[bool]) {
    let Some((reference, others)) = implementations.split_first_mut() else {
        return;
    };
    for (implementation, &is_core) in others.iter_mut().zip(core.iter().skip(1)) {
        for family in &mut implementation.families {
            let Some(theirs) = reference
                .families
                .iter()
                .find(|f| f.family == family.family)
            else {
                continue;
            };
            let mut largest_both = None;
            for point in &mut family.points {
                let Some(reference_point) = theirs.points.iter().find(|p| p.size == point.size)
                else {
                    continue;
                };
                if let (Some(a), Some(b)) = (&point.stats, &reference_point.stats) {
                    if b.median_ns > 0.0 {
                        let ratio = a.median_ns / b.median_ns;
                        point.vs_reference = Some(ratio);
                        largest_both = Some(ratio);
                    }
                }
                if is_core {
                    if let (Some(a), Some(b)) = (&point.output, &reference_point.output) {
                        let same = a == b;
                        point.output_matches_reference = Some(same);
                        family.verdict.output_differs |= !same;
                    }
                }
            }
            family.verdict.vs_reference = largest_both;
        }
    }
}

/// Runs `toolgate bench`: the reference, then each adapter.
pub fn run_bench(
    options: &BenchOptions,
    progress: &mut dyn FnMut(&str, &str, &Point),
) -> Result<BenchReport, Error> {
    let families = chosen_families(&options.families)?;
    let mut implementations = Vec::new();
    let mut core = Vec::new();
    {
        let mut reference = ReferenceBench::new();
        let label = "toolgate-reference".to_string();
        implementations.push(measure_implementation(
            &mut reference,
            &families,
            options,
            &mut |f, p| progress(&label, f, p),
        ));
        core.push(true);
    }
    for command in &options.implementations {
        let mut bencher = AdapterBencher::start(command, options)?;
        let hello = bencher.hello().clone();
        let label = format!(
            "{} {}",
            hello.implementation.name, hello.implementation.version
        );
        core.push(hello.suites.iter().any(|s| s == "core"));
        implementations.push(measure_implementation(
            &mut bencher,
            &families,
            options,
            &mut |f, p| progress(&label, f, p),
        ));
    }
    compare_with_reference(&mut implementations, &core);
    Ok(BenchReport {
        toolgate: env!("CARGO_PKG_VERSION").to_string(),
        date: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
        machine: Machine::this(),
        plan: options.plan,
        memory_cap: options.memory_cap,
        implementations,
    })
}

/// 1 when an implementation gave out (or could not time its JSON
/// baseline), or a core implementation's result differs from the
/// reference's; else 0. A family stopped by a cap, a timeout, an error or
/// a crash at a hostile size is a finding of the report, not a failure of
/// the run.
pub fn exit_code(report: &BenchReport) -> u8 {
    let bad = report.implementations.iter().any(|i| {
        i.failure.is_some()
            || i.baseline.status != PointStatus::Measured
            || i.families.iter().any(|f| f.verdict.output_differs)
    });
    u8::from(bad)
}
