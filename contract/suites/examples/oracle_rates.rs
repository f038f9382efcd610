//! How fast each fuzz oracle runs without a fuzzer, and which inputs set
//! its pace: every target's oracle on the same seeded random inputs (as
//! the suites' replay tests make them) and on its seed corpus, timed one
//! input at a time. It prints inputs per second and the share of the time
//! the slowest 1% of inputs took: a fuzzer's exec/s is bounded by these
//! (libFuzzer's instrumentation only slows them further).
//!
//!   cargo run --profile test -p toolgate-suites --example oracle_rates [inputs] [seed]

use std::time::{Duration, Instant};
use toolgate_corpus::{fuzz_inputs, scenario_seed};
use toolgate_suite::fuzzing::Verdict;
use toolgate_suite::testing::rng;

type Oracle = fn(&[u8]) -> Verdict;

fn workspace_seed(scenario: &serde_json::Value) -> Vec<Vec<u8>> {
    toolgate_workspace::fuzz_oracle::seed(scenario).map_or_else(Vec::new, scenario_seed)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let inputs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(2000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let targets: [(&str, &str, Oracle); 8] = [
        (
            "boundary",
            "boundary",
            toolgate_boundary::fuzz_oracle::boundary,
        ),
        (
            "boundary_fast",
            "boundary",
            toolgate_boundary::fuzz_oracle::boundary_fast,
        ),
        (
            "pipeline_fast",
            "pipeline",
            toolgate_pipeline::fuzz_oracle::pipeline_fast,
        ),
        (
            "pipeline",
            "pipeline",
            toolgate_pipeline::fuzz_oracle::pipeline,
        ),
        (
            "workspace",
            "workspace",
            toolgate_workspace::fuzz_oracle::workspace,
        ),
        ("actions", "actions", toolgate_actions::fuzz_oracle::actions),
        (
            "serializer",
            "core",
            toolgate_core::fuzzing::oracles::serializer,
        ),
        (
            "scenario",
            "core",
            toolgate_core::fuzzing::oracles::scenario,
        ),
    ];
    let only: Vec<String> = std::env::var("TARGETS")
        .map(|t| t.split(',').map(str::to_string).collect())
        .unwrap_or_default();
    println!("| target | inputs | checked | inputs/s | slowest 1% of inputs: share of time | slowest input |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (target, suite, oracle) in targets {
        if !only.is_empty() && !only.iter().any(|o| o == target) {
            continue;
        }
        let mut next = rng(seed);
        let mut data: Vec<Vec<u8>> = (0..inputs)
            .map(|_| {
                let len = next(2048);
                // a byte is a number below 256
                (0..len).map(|_| next(256) as u8).collect()
            })
            .collect();
        let def = toolgate_suites::get(suite).expect("a suite of the list");
        let seeds = if target == "workspace" {
            fuzz_inputs(def, target, workspace_seed)
        } else {
            fuzz_inputs(def, target, scenario_seed)
        };
        data.extend(seeds.expect("the corpus loads").into_iter().map(|(_, d)| d));
        let mut times: Vec<Duration> = Vec::with_capacity(data.len());
        let mut checked = 0;
        for d in &data {
            let t = Instant::now();
            if oracle(d) == Verdict::Checked {
                checked += 1;
            }
            times.push(t.elapsed());
        }
        let total: Duration = times.iter().sum();
        times.sort_unstable();
        let top = times.len().div_ceil(100);
        let slow: Duration = times.iter().rev().take(top).sum();
        println!(
            "| {target} | {} | {checked} | {:.0} | {:.0}% | {:.1} ms |",
            data.len(),
            data.len() as f64 / total.as_secs_f64(),
            100.0 * slow.as_secs_f64() / total.as_secs_f64(),
            times.last().map_or(0.0, |t| t.as_secs_f64() * 1e3),
        );
    }
}
