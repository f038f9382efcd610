//! Prints what generated scenarios end as, to see the strategies reach
//! every family: `cargo run -p toolgate-proptests --example histogram [n]`.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::collections::BTreeMap;
use toolgate_core::scenario::observation::{Outcome, Registered};
use toolgate_core::scenario::observe;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(500);
    let mut runner = TestRunner::deterministic();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let started = std::time::Instant::now();
    for _ in 0..n {
        let Ok(tree) = toolgate_proptests::strategy::plan().new_tree(&mut runner) else {
            continue;
        };
        let (scenario, _) = tree.current().render();
        let Ok(o) = observe(&scenario) else {
            *counts.entry("oracle error".into()).or_default() += 1;
            continue;
        };
        for r in &o.registrations {
            let k = match &r.outcome {
                Registered::Ok => "registration ok".to_string(),
                Registered::ContractError(c) => format!("registration {c}"),
                Registered::Rejected(_) => "registration rejected".to_string(),
            };
            *counts.entry(k).or_default() += 1;
        }
        for c in &o.calls {
            let k = match &c.outcome {
                Outcome::Result(r) if !r.is_error => {
                    if r.content.ends_with("\n[Tool output truncated]") {
                        "result success truncated".into()
                    } else {
                        "result success".into()
                    }
                }
                Outcome::Result(r) => {
                    let code = serde_json::from_str::<serde_json::Value>(&r.content)
                        .ok()
                        .and_then(|v| {
                            v.pointer("/error/code")
                                .and_then(|c| c.as_str())
                                .map(str::to_string)
                        })
                        .unwrap_or_else(|| "truncated".into());
                    format!("result {code}")
                }
                Outcome::Cancelled(_) => "cancelled".into(),
                Outcome::ContractError(c) => format!("contract {c}"),
                Outcome::NonRecoverable(_) => "non-recoverable".into(),
                Outcome::Pending => "pending".into(),
                Outcome::Rejected(_) => "rejected".into(),
            };
            *counts.entry(k).or_default() += 1;
        }
    }
    for (k, v) in counts {
        println!("{v:6}  {k}");
    }
    println!("{n} scenarios in {:.2?}", started.elapsed());
}
