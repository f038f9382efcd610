//! The serializer's worst cases at growing sizes, and two baselines measured
//! in the same run so that results read as ratios: `serde_json::to_string`
//! of a plain value whose text is about 4 KiB, and a 4 KiB memory copy.
//!
//! `cargo bench -p toolgate-benches`, then
//! `cargo run --release -p toolgate-benches --bin bench-table` for the table.
//! Criterion ids: `baseline/<name>`, `serializer/<family>/<size>`, and for
//! the long-key families `read_floor/<family>/<size>`: the time to read once
//! what any exact serializer must read of the same input (see
//! `toolgate_benches::ReadFloor`).
//! `TOOLGATE_BENCH_FAMILIES=a,b` limits the run to some families.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use toolgate_benches::{baseline_value, families};
use toolgate_core::serializer::MAX_STEPS;

fn baselines(c: &mut Criterion) {
    let mut group = c.benchmark_group("baseline");
    let value = baseline_value();
    let text_len = serde_json::to_string(&value).map_or(0, |s| s.len());
    group.throughput(Throughput::Bytes(text_len as u64));
    group.bench_function("serde_json_4k", |b| {
        b.iter(|| serde_json::to_string(black_box(&value)))
    });
    let src = vec![0x5Au8; 4096];
    let mut dst = vec![0u8; 4096];
    group.throughput(Throughput::Bytes(4096));
    group.bench_function("memcpy_4k", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        })
    });
    group.finish();
}

fn serializer(c: &mut Criterion) {
    let only = only_families();
    let mut group = c.benchmark_group("serializer");
    for family in families() {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == family.name))
        {
            continue;
        }
        for &size in family.sizes {
            // built outside the measured loop, dropped before the next size
            let input = (family.build)(size);
            let prepared = input.prepare();
            let first = prepared.run();
            assert!(first.content.chars().count() <= 4096, "{}", family.name);
            assert!(first.steps <= MAX_STEPS, "{} {size}", family.name);
            group.bench_with_input(BenchmarkId::new(family.name, size), &prepared, |b, p| {
                b.iter(|| p.run())
            });
        }
    }
    group.finish();
}

/// The read floor of each long-key family at each of its sizes: one scan of
/// every key's first 4097 code points (`ReadFloor::scan`), what any exact
/// serializer must read of that input.
fn read_floor(c: &mut Criterion) {
    let only = only_families();
    let mut group = c.benchmark_group("read_floor");
    for family in families() {
        let Some(floor) = family.floor else {
            continue;
        };
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == family.name))
        {
            continue;
        }
        for &size in family.sizes {
            let keys = (floor.build)(size);
            group.throughput(Throughput::Bytes(keys.bytes_read() as u64));
            group.bench_with_input(BenchmarkId::new(family.name, size), &keys, |b, k| {
                b.iter(|| k.scan())
            });
        }
    }
    group.finish();
}

/// The families named by `TOOLGATE_BENCH_FAMILIES`, if it is set.
fn only_families() -> Option<Vec<String>> {
    std::env::var("TOOLGATE_BENCH_FAMILIES")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect())
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
        .without_plots()
}

criterion_group! {
    name = benches;
    config = config();
    targets = baselines, serializer, read_floor
}
criterion_main!(benches);
