//! The pipeline reference against the real pi: every case of
//! `corpus/cases/pipeline/` holds, as `expect`, the observation the Node
//! harness recorded on `@earendil-works/pi-agent-core` 0.85.0 (CI records
//! them again and compares); the reference must give the same JSON, byte
//! for byte, or refuse the scenario as outside its model, and the refusals
//! are listed here (the list only shrinks).

use serde_json::Value;
use toolgate_pipeline::reference::observe;
use toolgate_pipeline::spec::PipelineScenario;

#[path = "support/pipeline_cases.rs"]
mod pipeline_cases;
use pipeline_cases::pipeline_cases;

/// Scenarios the reference refuses, by case id, and why.
const REFUSED: &[(&str, &str)] = &[];

/// The first line where two pretty JSON texts differ, with context.
fn first_difference(expected: &str, actual: &str) -> String {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let at = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    format!(
        "line {at}:\n  expected {}\n  actual   {}",
        e.get(at).unwrap_or(&"<end>"),
        a.get(at).unwrap_or(&"<end>")
    )
}

fn check(id: &str, scenario: &Value, expected: &Value) -> Option<String> {
    let parsed: PipelineScenario = match serde_json::from_value(scenario.clone()) {
        Ok(s) => s,
        Err(e) => return Some(format!("{id}: the scenario does not decode: {e}")),
    };
    let refused = REFUSED.iter().find(|(r, _)| *r == id);
    match (observe(&parsed), refused) {
        (Ok(actual), None) => {
            let (e, a) = (
                serde_json::to_string_pretty(expected).unwrap_or_default(),
                serde_json::to_string_pretty(&actual).unwrap_or_default(),
            );
            (e != a).then(|| {
                format!(
                    "{id}: differs from pi 0.85.0 at {}",
                    first_difference(&e, &a)
                )
            })
        }
        (Ok(_), Some(_)) => Some(format!(
            "{id}: listed as refused but now observed: shrink REFUSED"
        )),
        (Err(e), None) => Some(format!("{id}: refused: {e}")),
        (Err(_), Some(_)) => None,
    }
}

#[test]
fn the_reference_observes_what_pi_0_85_does() {
    let cases = pipeline_cases();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|c| check(&c.id, &c.scenario, &c.expect))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
