//! The `actions` suite's structure layer at its worst: action texts built
//! to the bound of 8,192 bytes (and at 1,024, to see the growth) that make
//! its strict parser work hardest (as many members as fit, whose duplicate
//! names are looked for; strings of escapes; an integer of thousands of
//! digits; nesting to the depth bound over and over), each measured twice
//! in the same run so that results read as ratios:
//! `structure::validate_bytes(text)` and `serde_json` parsing the same text
//! into a value (which looks for no duplicate and keeps the last). And a
//! whole case on the reference, seed 002's worked example 1 on a fresh
//! SQLite database (four tools, a reserve transaction), per case.
//!
//! `cargo bench -p toolgate-benches --bench actions`. Criterion ids:
//! `actions/<family>/<bytes>`, `actions_serde_json/<family>/<bytes>`,
//! `actions_case/worked-example-1`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::json;
use std::hint::black_box;
use std::time::Duration;
use toolgate_actions::reference::observe;
use toolgate_actions::spec::ActionsScenario;
use toolgate_actions::structure::validate_bytes;

/// One hostile text of about `bytes` bytes (never more), and what the
/// structure layer answers.
fn text(family: &str, bytes: usize) -> String {
    let fill = |unit: &dyn Fn(usize) -> String, head: &str, tail: &str| {
        let mut out = head.to_string();
        let mut i = 0;
        loop {
            let next = unit(i);
            if out.len() + next.len() + tail.len() > bytes {
                break;
            }
            out.push_str(&next);
            i += 1;
        }
        out.push_str(tail);
        out
    };
    match family {
        // a forged field holding as many distinct members as fit: each new
        // name is compared with every earlier one
        "members" => fill(
            &|i| format!("{}\"m{i}\":0", if i == 0 { "" } else { "," }),
            "{\"kind\":\"tool\",\"name\":\"stock\",\"args\":{\"item_id\":\"camera\"},\"x\":{",
            "}}",
        ),
        // a query of \u escapes, each decoded
        "escapes" => fill(
            &|_| "\\u00e9".to_string(),
            "{\"kind\":\"tool\",\"name\":\"search\",\"args\":{\"query\":\"",
            "\"}}",
        ),
        // a quantity of thousands of digits
        "digits" => fill(
            &|_| "9".to_string(),
            "{\"kind\":\"tool\",\"name\":\"reserve\",\"args\":{\"item_id\":\"camera\",\"expected_revision\":0,\"idempotency_key\":\"k\",\"quantity\":",
            "}}",
        ),
        // nesting to the depth bound, again and again
        _ => fill(
            &|i| format!("{}{}{}", if i == 0 { "" } else { "," }, "[".repeat(14), "]".repeat(14)),
            "{\"kind\":\"finish\",\"status\":\"reserved\",\"x\":[",
            "]}",
        ),
    }
}

const FAMILIES: [&str; 4] = ["members", "escapes", "digits", "depth"];

fn structure(c: &mut Criterion) {
    for family in FAMILIES {
        for bytes in [1024, 8192] {
            let case = text(family, bytes);
            assert!(
                case.len() <= bytes,
                "{family} {bytes}: {} bytes",
                case.len()
            );
            // every family is strict JSON (serde_json refuses `digits`: an
            // integer past f64's range is out of range to it)
            let verdict = validate_bytes(case.as_bytes());
            assert!(
                verdict.as_ref().err().and_then(|r| r.json).is_none(),
                "{family} {bytes}: {verdict:?}"
            );
            let id = BenchmarkId::new(family, bytes);
            let mut group = c.benchmark_group("actions");
            group.throughput(Throughput::Bytes(case.len() as u64));
            group.bench_with_input(id.clone(), &case, |b, case| {
                b.iter(|| validate_bytes(black_box(case.as_bytes())))
            });
            group.finish();
            let mut group = c.benchmark_group("actions_serde_json");
            group.throughput(Throughput::Bytes(case.len() as u64));
            group.bench_with_input(id, &case, |b, case| {
                b.iter_with_large_drop(|| {
                    serde_json::from_slice::<serde_json::Value>(black_box(case.as_bytes()))
                })
            });
            group.finish();
            drop(verdict);
        }
    }
}

fn whole_case(c: &mut Criterion) {
    let policy = [
        r#"{"kind":"tool","name":"search","args":{"query":"camera"}}"#,
        r#"{"kind":"tool","name":"document","args":{"item_id":"camera"}}"#,
        r#"{"kind":"tool","name":"stock","args":{"item_id":"camera"}}"#,
        r#"{"kind":"tool","name":"reserve","args":{"item_id":"camera","quantity":1,"expected_revision":0,"idempotency_key":"reserve-camera:camera:1"}}"#,
        r#"{"kind":"finish","status":"reserved"}"#,
    ];
    let scenario: ActionsScenario = serde_json::from_value(json!({
        "items": [{"id": "camera", "title": "Camera kit", "text": "- body and lens", "available": 3, "revision": 0}],
        "runs": [{"task": {"id": "reserve-camera", "query": "camera", "mode": "reserve", "quantity": 1,
                           "allow_write": true, "max_tool_attempts": 8},
                  "policy": policy}]
    }))
    .expect("worked example 1");
    let mut group = c.benchmark_group("actions_case");
    group.sample_size(20);
    group.bench_function("worked-example-1", |b| {
        b.iter(|| observe(black_box(&scenario)).expect("observed"))
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .without_plots()
}

criterion_group! {
    name = benches;
    config = config();
    targets = structure, whole_case
}
criterion_main!(benches);
