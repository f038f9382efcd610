//! The core suite's fuzz oracles: one function per target, taking the
//! fuzzer's bytes, panicking on a bug (that is how libFuzzer learns of one)
//! and otherwise saying whether the input could be checked. The fuzz
//! targets in `fuzz/` are one call each; `tests/fuzz_oracles.rs` runs the
//! same functions on seeded bytes, the seed corpora and the committed
//! regressions under `cargo test`. The other suites' oracles are in their
//! crates (`fuzz_oracle`), over `toolgate_suite::fuzzing`.
//!
//! Inputs that start with `{` are read as a scenario in JSON (that is how
//! the corpus cases become seeds); anything else drives the structure-aware
//! generator.

// An oracle reports a bug by panicking: that is the fuzzing protocol.
#![allow(clippy::panic)]

use super::generate::Generator;
use super::graph::output_graph;
use crate::api::{execute_tool_call, Decision, FnTool, Output, ToolRegistry};
use crate::constants::{MAX_ENTRIES, MAX_NODES, MAX_STRING_CHARS};
use crate::model::{Heap, Runtime, Trace};
use crate::scenario::observation::{Observation, Registered};
use crate::scenario::oracle::{observe_keeping, registration_steps, RegistrationSteps};
use crate::scenario::{build_with, checks, invariants, observe_with, Limits, Scenario};
use crate::serializer::{serialize, MAX_STEPS};
use crate::{AbortSignal, ErrorKind};
use arbitrary::Unstructured;
use serde_json::{json, Value as Json};
pub use toolgate_suite::fuzzing::{Verdict, MAX_INPUT};

/// Reads a scenario: JSON when the input starts with `{`, else generated
/// by `generate`.
fn scenario_from(
    data: &[u8],
    generate: impl FnOnce(&mut Unstructured<'_>) -> arbitrary::Result<Json>,
) -> Option<Scenario> {
    if data.len() > MAX_INPUT {
        return None;
    }
    let json = if data.first() == Some(&b'{') {
        serde_json::from_slice(data).ok()?
    } else {
        let mut u = Unstructured::new(data);
        generate(&mut u).ok()?
    };
    serde_json::from_value(json).ok()
}

fn show(scenario: &Scenario) -> String {
    serde_json::to_string(scenario).unwrap_or_default()
}

/// The serializer target: an output graph built straight from the bytes
/// (`graph`), its first nodes and one more value serialized as roots, each
/// keeping the budgets, the step bound and the content invariants, the
/// first giving the same bytes twice.
pub fn serializer(data: &[u8]) -> Verdict {
    if data.len() > MAX_INPUT {
        return Verdict::Skipped("oversized");
    }
    let mut u = Unstructured::new(data);
    let Ok(Some(graph)) = output_graph(&mut u) else {
        return Verdict::Skipped("outside the model");
    };
    serialized_within_budgets(&graph.heap, graph.roots, || {
        let mut shown = format!("{:?}", graph.heap);
        shown.truncate(4000);
        shown
    });
    Verdict::Checked
}

/// The serializer through the scenario format: every node of a scenario
/// (JSON, as the corpus's cases are the seeds, or generated) serialized as
/// a root, as [`serializer`] checks them. Slower per input (JSON, a
/// scenario and its builder come first), but it starts from the corpus.
pub fn serializer_scenario(data: &[u8]) -> Verdict {
    let Some(scenario) = scenario_from(data, |u| {
        let mut g = Generator::new(u);
        g.named_nodes()?;
        let root = g.value(4)?;
        Ok(json!({"nodes": g.into_nodes(), "registrations": [root]}))
    }) else {
        return Verdict::Skipped("not a scenario");
    };
    let Ok(built) = build_with(&scenario, Limits::FUZZ) else {
        return Verdict::Skipped("outside the model");
    };
    // the roots: what a scenario registers or calls with, then its first nodes
    let nodes = (0..built.heap.len().min(8))
        .map(|i| crate::model::Value::Ref(crate::model::NodeId(i as u32)));
    let roots = built
        .registrations
        .iter()
        .chain(&built.calls)
        .cloned()
        .chain(nodes)
        .collect();
    serialized_within_budgets(&built.heap, roots, || show(&scenario));
    Verdict::Checked
}

/// Serializes each root of `heap` and panics, naming the requirement and
/// showing the input (`show`), on two different serializations of the
/// first (CORE-SER-17), a step count or budget use above its bound
/// (CORE-SER-16), or a content that breaks the invariants.
fn serialized_within_budgets(
    heap: &Heap,
    roots: Vec<crate::model::Value>,
    show: impl Fn() -> String,
) {
    for (i, root) in roots.iter().enumerate() {
        let rt = Runtime::new(heap, AbortSignal::new(), Trace::default());
        let first = serialize(&rt, root);
        if i == 0 {
            let again = serialize(
                &Runtime::new(heap, AbortSignal::new(), Trace::default()),
                root,
            );
            assert!(
                first == again,
                "CORE-SER-17: two serializations differ\n{}",
                show()
            );
        }
        if let Ok(out) = first {
            assert!(
                out.steps <= MAX_STEPS,
                "CORE-SER-16: {} steps\n{}",
                out.steps,
                show()
            );
            assert!(
                out.usage.nodes <= MAX_NODES
                    && out.usage.entries <= MAX_ENTRIES
                    && out.usage.string_chars <= MAX_STRING_CHARS,
                "CORE-SER-16: usage {:?}\n{}",
                out.usage,
                show()
            );
            if let Err(e) = invariants::content(&out.content, true) {
                panic!("{e}\n{}", show());
            }
        }
    }
}

/// A registry of one tool `t` (the Rust API) that echoes its arguments.
fn echo_registry() -> Option<ToolRegistry> {
    let tool = FnTool::new(
        "t",
        "echoes its arguments",
        |args| Ok(Decision::Accept(args.clone())),
        |value, _| async move { Ok(Output::Json(value)) },
    );
    ToolRegistry::with_tools(vec![tool.into_tool()]).ok()
}

/// Runs a future that never waits (the echo tool is synchronous).
fn run_now<F: std::future::Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(futures::task::noop_waker_ref());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(out) => Some(out),
        std::task::Poll::Pending => None,
    }
}

/// The call-snapshot target: bytes parsed as JSON are a call, both for the
/// Rust API (plain JSON) and for the model (a value in the scenario
/// grammar) against a registry with one tool `t`.
pub fn call(data: &[u8]) -> Verdict {
    if data.len() > MAX_INPUT {
        return Verdict::Skipped("oversized");
    }
    let Ok(value) = serde_json::from_slice::<Json>(data) else {
        return Verdict::Skipped("not JSON");
    };
    if let Some(registry) = echo_registry() {
        match run_now(execute_tool_call(&registry, &value, &AbortSignal::new())) {
            Some(Ok(result)) => {
                if let Err(e) = invariants::content(&result.content, !result.is_error) {
                    panic!("{e}\ncall: {value}");
                }
                let call_id = value.get("id").and_then(Json::as_str).unwrap_or_default();
                assert_eq!(
                    result.id.to_string_lossy(),
                    format!("tool-result-{call_id}"),
                    "CORE-RES-01\ncall: {value}"
                );
            }
            Some(Err(e)) => assert!(
                matches!(
                    e.kind(),
                    ErrorKind::Contract(crate::ContractCode::InvalidToolCall)
                ),
                "the Rust API rejected a call with {e}\ncall: {value}"
            ),
            None => panic!("the echo tool left the call pending\ncall: {value}"),
        }
    }
    let scenario = json!({
        "nodes": {
            "tool": {"$": "object", "props": {"name": "t", "description": "d",
                "validate": {"$": "function", "returns": {"$": "object", "props": {"ok": true, "value": 1}}},
                "execute": {"$": "function", "returns": "done"}}}
        },
        "registrations": [{"$": "array", "items": [{"ref": "tool"}]}],
        "calls": [{"call": value}]
    });
    let Ok(scenario) = serde_json::from_value::<Scenario>(scenario) else {
        return Verdict::Skipped("not a scenario");
    };
    observed_consistently(&scenario)
}

/// Observes twice and checks the invariants and the checks' consistency.
/// The second observation decodes the scenario again, so a decoding that
/// is not deterministic is caught too; the checks reuse the first's.
fn observed_consistently(scenario: &Scenario) -> Verdict {
    let Ok((observed, built)) = observe_keeping(scenario, Limits::FUZZ) else {
        return Verdict::Skipped("outside the model");
    };
    let again = observe_with(scenario, Limits::FUZZ).ok();
    assert!(
        again.as_ref() == Some(&observed),
        "CORE-SER-17: two observations differ\n{}",
        show(scenario)
    );
    let problems = invariants::check(scenario, &observed);
    assert!(
        problems.is_empty(),
        "{}\n{}",
        problems.join("\n"),
        show(scenario)
    );
    let violations = checks::check_core_built(scenario, built, &observed, &observed);
    assert!(
        violations.is_empty(),
        "an observation differs from itself: {violations:?}\n{}",
        show(scenario)
    );
    // the observation survives its own JSON form, as adapters send it
    let text = serde_json::to_string(&observed).unwrap_or_default();
    let parsed: Option<Observation> = serde_json::from_str(&text).ok();
    assert!(
        parsed.as_ref() == Some(&observed),
        "the observation does not round-trip through JSON\n{text}"
    );
    Verdict::Checked
}

/// The registry target: registrations one after another; a failed one
/// leaves the names as they were, a successful one only appends, and names
/// stay unique.
pub fn registry(data: &[u8]) -> Verdict {
    let Some(mut scenario) = scenario_from(data, |u| {
        let mut g = Generator::new(u);
        let batches = (0..g.batch_count()?)
            .map(|_| g.batch().map(|(b, _)| b))
            .collect::<arbitrary::Result<Vec<_>>>()?;
        Ok(json!({"nodes": g.into_nodes(), "registrations": batches}))
    }) else {
        return Verdict::Skipped("not a scenario");
    };
    scenario.calls.clear();
    scenario.registrations.truncate(4);
    let Ok(run) = registrations_one_by_one(&scenario) else {
        return Verdict::Skipped("outside the model");
    };
    // the scenario up to registration `k`, as the messages show it
    let shown = |k: usize| {
        let mut prefix = scenario.clone();
        prefix.registrations.truncate(k + 1);
        show(&prefix)
    };
    let mut before: &Vec<Json> = &run.constructed;
    for (k, (outcome, names)) in run.steps.iter().enumerate() {
        let unique: std::collections::HashSet<String> = names.iter().map(Json::to_string).collect();
        assert_eq!(
            unique.len(),
            names.len(),
            "CORE-REG-04: duplicate names {names:?}\n{}",
            shown(k)
        );
        match outcome {
            Registered::Ok => assert!(
                names.starts_with(before),
                "CORE-REG-07: names {names:?} do not extend {before:?}\n{}",
                shown(k)
            ),
            _ => assert_eq!(
                names,
                before,
                "CORE-REG-05: a failed registration changed the names\n{}",
                shown(k)
            ),
        }
        before = names;
    }
    if run.stopped.is_some() {
        return Verdict::Skipped("outside the model");
    }
    Verdict::Checked
}

/// The names once the registry of `scenario` (no calls) is constructed,
/// then each registration's outcome and the names after it; `Err` when
/// the construction ends outside the model. One decoding and one run on
/// one registry when the whole scenario decodes (the model never changes
/// its heap, so that is what observing each prefix on its own gives);
/// else each prefix observed on its own, as far as it decodes.
fn registrations_one_by_one(scenario: &Scenario) -> Result<RegistrationSteps, crate::Error> {
    if let Ok(built) = build_with(scenario, Limits::FUZZ) {
        return registration_steps(&built);
    }
    let mut prefix = scenario.clone();
    prefix.registrations.clear();
    let mut out = RegistrationSteps {
        constructed: observe_with(&prefix, Limits::FUZZ)?.names,
        ..RegistrationSteps::default()
    };
    for batch in &scenario.registrations {
        prefix.registrations.push(batch.clone());
        let mut observed = match observe_with(&prefix, Limits::FUZZ) {
            Ok(observed) => observed,
            Err(e) => {
                out.stopped = Some(e);
                break;
            }
        };
        let Some(last) = observed.registrations.pop() else {
            out.stopped = Some(crate::Error::scenario("a registration was not observed"));
            break;
        };
        out.steps.push((last.outcome, observed.names));
    }
    Ok(out)
}

/// The whole-scenario target: a scenario through the oracle, the
/// invariants and the checks.
pub fn scenario(data: &[u8]) -> Verdict {
    let Some(scenario) = scenario_from(data, |u| {
        let mut g = Generator::new(u);
        g.named_nodes()?;
        let batches = (0..g.batch_count()?)
            .map(|_| g.batch().map(|(b, _)| b))
            .collect::<arbitrary::Result<Vec<_>>>()?;
        let calls = (0..g.batch_count()?)
            .map(|_| g.call())
            .collect::<arbitrary::Result<Vec<_>>>()?;
        Ok(json!({"nodes": g.into_nodes(), "registrations": batches, "calls": calls}))
    }) else {
        return Verdict::Skipped("not a scenario");
    };
    observed_consistently(&scenario)
}

/// The seeds of core target `target` made from one core case's scenario,
/// as JSON (what `fuzz_seeds` writes under `corpus/fuzz/` and the replay
/// tests run): the scenario for `serializer_scenario` and `scenario`, the
/// scenario without its calls for `registry`, each call's value for
/// `call`; none for `serializer`, whose inputs are raw bytes, nor for a
/// scenario that does not decode.
pub fn seeds(target: &str, scenario: &Json) -> Vec<Json> {
    let Ok(mut scenario) = serde_json::from_value::<Scenario>(scenario.clone()) else {
        return Vec::new();
    };
    let whole = |s: &Scenario| serde_json::to_value(s).ok();
    match target {
        "call" => scenario.calls.iter().map(|c| c.call.clone()).collect(),
        "registry" => {
            scenario.calls.clear();
            whole(&scenario).into_iter().collect()
        }
        "serializer_scenario" | "scenario" => whole(&scenario).into_iter().collect(),
        _ => Vec::new(),
    }
}
