//! The workspace suite's reference: the path boundary `workspace_path`
//! against path depth and symlink chain length, on the in-memory model
//! (`ModelFs`) and on the disk (`RealFs`); and the `read` tool (boundary,
//! open, streamed decode and truncation) on files of 1 KiB to 1 GiB, with
//! two baselines in the same run: the whole-buffer read the reference did
//! before it streamed, and reading the bytes alone (the I/O floor). The
//! baselines take the file's path as it is; the tool also checks the path
//! (two `realpath`s, a few µs), which dominates at 1 KiB.
//!
//! `cargo bench -p toolgate-benches --bench workspace`.
//! Criterion ids: `workspace_path/{model,real}_{depth,links}/<n>` and
//! `workspace_read/<text>_{stream,whole,bytes_only}/<bytes>`.
//! Besides the times it prints, per read file, the bytes read by one call
//! (`/proc/self/io` `rchar` delta) and its peak heap (a counting
//! allocator), and an FNV-1a of the result to compare with the JavaScript
//! tools' (`adapters/node/workspace/read-bench.mjs`). The whole-buffer
//! baseline stops at 64 MiB: at 1 GiB it holds about 6 GB (measured
//! 2026-12-02: 5.65-6.08 GB), more than a laptop may have.
//! `TOOLGATE_BENCH_FAMILIES=path,read` limits the run to one part;
//! `TOOLGATE_BENCH_QUICK=1` (and criterion's test mode, `cargo test
//! --benches`) stops the reads at 1 MiB and measures for less time.
//! Trees and files are made before their measured loops, in temporary
//! directories removed after.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use std::hint::black_box;
use std::time::Duration;
use toolgate_benches::heap_count::Counting;
use toolgate_benches::workspace::{
    chain_tree, depth_tree, fnv1a, measure, read_bytes_only, read_whole, Text, TextFile, Tree,
    CHAINS, DEPTHS, FILE_SIZES, MODEL_BASE,
};
use toolgate_workspace::boundary::{workspace_path, RealFs};
use toolgate_workspace::tools::read;

#[global_allocator]
static ALLOCATOR: Counting = Counting(std::alloc::System);

/// The largest file the whole-buffer baseline reads (it holds the file
/// and its UTF-16 text: about 6 bytes a byte).
const WHOLE_BUFFER_MAX: u64 = 64 << 20;

fn quick() -> bool {
    std::env::var("TOOLGATE_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Criterion's own rule: without `--bench`, or with `--test`, each routine
/// runs once (`cargo test --benches`).
fn test_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--test")
}

fn wanted(part: &str) -> bool {
    std::env::var("TOOLGATE_BENCH_FAMILIES").map_or(true, |v| v.split(',').any(|p| p == part))
}

/// One boundary case on both filesystems.
fn boundary_case(c: &mut Criterion, kind: &str, n: usize, tree: Tree) {
    let mut group = c.benchmark_group("workspace_path");
    let model = tree.model();
    let root = format!("{MODEL_BASE}/ws");
    let expected = format!("{root}/{}", tree.candidate);
    assert_eq!(
        workspace_path(&model, &root, &tree.candidate, false),
        Ok(expected),
        "model {kind} {n}"
    );
    group.bench_with_input(BenchmarkId::new(format!("model_{kind}"), n), &n, |b, _| {
        b.iter(|| workspace_path(black_box(&model), &root, &tree.candidate, false))
    });
    let base = tree.disk();
    let root = format!("{}/ws", base.path());
    let expected = format!("{root}/{}", tree.candidate);
    assert_eq!(
        workspace_path(&RealFs, &root, &tree.candidate, false),
        Ok(expected),
        "disk {kind} {n}"
    );
    group.bench_with_input(BenchmarkId::new(format!("real_{kind}"), n), &n, |b, _| {
        b.iter(|| workspace_path(&RealFs, black_box(&root), &tree.candidate, false))
    });
    group.finish();
    drop(base);
}

fn boundary(c: &mut Criterion) {
    if !wanted("path") {
        return;
    }
    for &depth in DEPTHS {
        boundary_case(c, "depth", depth, depth_tree(depth));
    }
    for &links in CHAINS {
        boundary_case(c, "links", links, chain_tree(links));
    }
}

fn reads(c: &mut Criterion) {
    if !wanted("read") {
        return;
    }
    let largest = if quick() || test_mode() {
        1 << 20
    } else {
        u64::MAX
    };
    for text in Text::ALL {
        for &size in FILE_SIZES.iter().filter(|&&s| s <= largest) {
            // written once, outside the measured loops, removed after
            let file = TextFile::new(text, size).unwrap_or_else(|e| panic!("{e}"));
            let input = file.input();
            let path = file.path();
            let (result, peak, bytes) = measure(|| read(&file.root, Some(&input)));
            let units = result.text().units();
            let whole = size <= WHOLE_BUFFER_MAX;
            let (_, whole_peak, whole_bytes) = if whole {
                measure(|| read_whole(&path))
            } else {
                (Default::default(), 0, 0)
            };
            println!(
                "read {} {size}: {} units, fnv1a {:08x}, isError {}, bytes read {}, peak heap {} B; \
                 whole-buffer baseline: bytes read {}, peak heap {} B; {}",
                text.name(),
                units.len(),
                fnv1a(units),
                serde_json::to_value(&result).is_ok_and(|v| v["isError"] == true),
                bytes,
                peak,
                whole_bytes,
                whole_peak,
                file.base(),
            );
            let mut group = c.benchmark_group("workspace_read");
            group.throughput(Throughput::Bytes(size));
            if size >= 64 << 20 {
                group
                    .sampling_mode(SamplingMode::Flat)
                    .sample_size(10)
                    .warm_up_time(Duration::from_millis(100))
                    .measurement_time(Duration::from_secs(1));
            }
            let name = text.name();
            group.bench_with_input(
                BenchmarkId::new(format!("{name}_stream"), size),
                &size,
                |b, _| b.iter(|| read(black_box(&file.root), Some(&input))),
            );
            if whole {
                group.bench_with_input(
                    BenchmarkId::new(format!("{name}_whole"), size),
                    &size,
                    |b, _| b.iter_with_large_drop(|| read_whole(black_box(&path))),
                );
            }
            group.bench_with_input(
                BenchmarkId::new(format!("{name}_bytes_only"), size),
                &size,
                |b, _| b.iter(|| read_bytes_only(black_box(&path))),
            );
            group.finish();
            drop(file);
        }
    }
}

fn config() -> Criterion {
    let (warm_up, measurement) = if quick() {
        (Duration::from_millis(200), Duration::from_millis(500))
    } else {
        (Duration::from_millis(500), Duration::from_secs(2))
    };
    Criterion::default()
        .warm_up_time(warm_up)
        .measurement_time(measurement)
        .sample_size(20)
        .without_plots()
}

criterion_group! {
    name = benches;
    config = config();
    targets = boundary, reads
}

criterion_main!(benches);
