//! The pipeline suite's formats against what the Node harness recorded on
//! the real pi (`corpus/cases/pipeline/`'s expectations, 0.85.0, and
//! `adapters/node/pipeline/recorded/pi-1.6.0.json`): every scenario and
//! every observation of both versions decodes into the Rust types and
//! encodes back to the same JSON, so the reference and the harness speak
//! one format.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value as Json;
use toolgate_pipeline::spec::{PipelineObservation, PipelineScenario};

#[path = "support/pipeline_cases.rs"]
mod pipeline_cases;
use pipeline_cases::{pipeline_cases, recorded_1_6};

/// Decodes each `(name, value)` as `T` and encodes it back: `exact`, to
/// the same JSON; else to JSON that decodes to the same value (a scenario
/// may spell out a default, such as `"parametersKind": "json"`). Every
/// difference is reported at once.
fn check<T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(
    items: Vec<(String, Json)>,
    exact: bool,
) -> usize {
    let mut problems = Vec::new();
    for (name, value) in &items {
        let decoded = match serde_json::from_value::<T>(value.clone()) {
            Ok(decoded) => decoded,
            Err(e) => {
                problems.push(format!("{name}: does not decode: {e}"));
                continue;
            }
        };
        let again = match serde_json::to_value(&decoded) {
            Ok(again) => again,
            Err(e) => {
                problems.push(format!("{name}: does not encode: {e}"));
                continue;
            }
        };
        let same = if exact {
            again == *value
        } else {
            serde_json::from_value::<T>(again.clone()).is_ok_and(|d| d == decoded)
        };
        if !same {
            problems.push(format!(
                "{name}: encodes back differently:\n  {value}\n  {again}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    items.len()
}

#[test]
fn every_corpus_scenario_round_trips() {
    let items = pipeline_cases()
        .into_iter()
        .map(|c| (c.id, c.scenario))
        .collect();
    assert!(check::<PipelineScenario>(items, false) >= 150);
}

#[test]
fn every_recorded_observation_round_trips() {
    let items = pipeline_cases()
        .into_iter()
        .map(|c| (format!("0.85.0/{}", c.id), c.expect))
        .collect();
    assert!(check::<PipelineObservation>(items, true) >= 150);
    let recorded = recorded_1_6();
    let items: Vec<(String, Json)> = recorded
        .as_object()
        .expect("an object of observations by case id")
        .iter()
        .map(|(id, o)| (format!("1.6.0/{id}"), o.clone()))
        .collect();
    assert!(check::<PipelineObservation>(items, true) >= 150);
}

/// A misspelt or stray field anywhere is an error, never ignored.
#[test]
fn unknown_fields_are_refused() {
    let base =
        serde_json::json!({"id": "x", "tools": [{"name": "t", "parameters": {}}], "model": []});
    let strays = [
        serde_json::json!({"execute": {"do": [{"update": 1, "bogus": 2}]}}),
        serde_json::json!({"execute": {"do": [{"wait": "L", "onAbrot": {"return": 1}}]}}),
        serde_json::json!({"execute": {"then": {"throw": {"error": "e", "nmae": "TypeError"}}}}),
        serde_json::json!({"execute": {"calls": {"c1": {}}, "defualt": {}}}),
        serde_json::json!({"prepareArgs": {}}),
    ];
    for stray in strays {
        let mut s = base.clone();
        for (k, v) in stray.as_object().unwrap() {
            s["tools"][0][k] = v.clone();
        }
        assert!(
            serde_json::from_value::<PipelineScenario>(s.clone()).is_err(),
            "accepted {s}"
        );
    }
}
