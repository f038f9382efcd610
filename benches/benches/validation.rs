//! The pipeline suite's validation reference (pi-ai 0.85.0's
//! `validateToolArguments` with TypeBox 1.3.7) on hostile arguments, up to
//! 10^6 keys and 10^5 levels, each case measured twice in the same run so
//! that results read as ratios: `validate_tool_arguments(schema, arguments)`
//! and `serde_json` parsing the same arguments' JSON text into a value.
//!
//! `cargo bench -p toolgate-benches --bench validation`, then
//! `cargo run --release -p toolgate-benches --bin bench-table` for the table.
//! Criterion ids: `validation/<family>/<size>` (the reference) and
//! `validation_serde_json/<family>/<size>` (the baseline).
//! `TOOLGATE_BENCH_FAMILIES=a,b` limits the run to some families;
//! `TOOLGATE_BENCH_QUICK=1` stops at 10^5 and measures for less time. Under
//! `cargo test` (criterion's test mode: each routine once) the sizes stop
//! at 10^5 too.
//!
//! The baseline parses without serde_json's recursion limit of 128
//! (`disable_recursion_limit`, feature `unbounded_depth`): its parser and
//! `Value`'s drop then recurse once per level, so the whole bench runs on a
//! thread with a 1 GiB stack (reserved, touched only as deep as it goes)
//! rather than through `serde_stacker`, whose stack switching would be
//! measured with the parse. Outputs are dropped outside the measured loop
//! (`iter_with_large_drop`) on both sides.

use criterion::{criterion_group, BenchmarkId, Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};
use toolgate_benches::validation::{dismantle, families, parse};
use toolgate_pipeline::validation::validate_tool_arguments;

/// The stack of the thread the bench runs on.
const STACK: usize = 1 << 30;

fn quick() -> bool {
    std::env::var("TOOLGATE_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Criterion's own rule: without `--bench`, or with `--test`, each routine
/// runs once (`cargo test --benches`).
fn test_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test")
}

fn validation(c: &mut Criterion) {
    let only: Option<Vec<String>> = std::env::var("TOOLGATE_BENCH_FAMILIES")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let largest = if quick() || test_mode() {
        100_000
    } else {
        u64::MAX
    };
    for family in families() {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == family.name))
        {
            continue;
        }
        for &size in family.sizes.iter().filter(|&&s| s <= largest) {
            // built outside the measured loops, dropped before the next size
            let case = (family.build)(size);
            let started = Instant::now();
            let answer = case.answer();
            let once = started.elapsed();
            assert_eq!(answer, (family.answer)(size), "{} {size}", family.name);
            let started = Instant::now();
            let parsed = parse(&case.text).expect("the arguments' text parses");
            let once = once.max(started.elapsed());
            dismantle(parsed);
            let slow = once > Duration::from_millis(5);
            let id = BenchmarkId::new(family.name, size);
            let bytes = Throughput::Bytes(case.text.len() as u64);
            {
                let mut group = c.benchmark_group("validation");
                configure(&mut group, slow, bytes.clone());
                group.bench_with_input(id.clone(), &case, |b, case| {
                    b.iter_with_large_drop(|| {
                        validate_tool_arguments(
                            "probe",
                            black_box(&case.schema),
                            black_box(&case.arguments),
                        )
                    })
                });
                group.finish();
            }
            {
                let mut group = c.benchmark_group("validation_serde_json");
                configure(&mut group, slow, bytes);
                group.bench_with_input(id, &case.text, |b, text| {
                    b.iter_with_large_drop(|| parse(black_box(text)))
                });
                group.finish();
            }
            dismantle(case.arguments);
        }
    }
}

/// Cases whose one run takes more than 5 ms are sampled flat (the same
/// iterations per sample, ten samples) rather than 1, 2, ..., n
/// iterations, which would take minutes at 10^6.
fn configure(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    slow: bool,
    bytes: Throughput,
) {
    group.throughput(bytes);
    if slow {
        group.sampling_mode(SamplingMode::Flat).sample_size(10);
    } else {
        group.sampling_mode(SamplingMode::Auto).sample_size(20);
    }
}

fn config() -> Criterion {
    let (warm_up, measurement) = if quick() {
        (Duration::from_millis(200), Duration::from_millis(500))
    } else {
        (Duration::from_millis(500), Duration::from_secs(1))
    };
    Criterion::default()
        .warm_up_time(warm_up)
        .measurement_time(measurement)
        .without_plots()
}

criterion_group! {
    name = benches;
    config = config();
    targets = validation
}

fn main() {
    let run = std::thread::Builder::new()
        .name("validation-bench".to_owned())
        .stack_size(STACK)
        .spawn(|| {
            benches();
            Criterion::default().configure_from_args().final_summary();
        })
        .expect("a thread with a 1 GiB stack");
    if run.join().is_err() {
        std::process::exit(101);
    }
}
