//! The pipeline suite's formats against what the Node harness recorded on
//! the real pi (`adapters/node/pipeline/examples/`): every example scenario
//! and every observation of both versions decodes into the Rust types and
//! encodes back to the same JSON, so the reference and the harness speak
//! one format.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value as Json;
use std::path::Path;
use toolgate_contract::pipeline::spec::{PipelineObservation, PipelineScenario};

fn examples(file: &str) -> Json {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters/node/pipeline/examples")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

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
fn every_example_scenario_round_trips() {
    let file = examples("scenarios.json");
    let items: Vec<(String, Json)> = file["scenarios"]
        .as_array()
        .expect("a scenarios array")
        .iter()
        .map(|s| (s["id"].as_str().unwrap_or("?").to_string(), s.clone()))
        .collect();
    assert!(check::<PipelineScenario>(items, false) >= 30);
}

#[test]
fn every_recorded_observation_round_trips() {
    for version in ["0.85.0", "1.6.0"] {
        let file = examples(&format!("observed-{version}.json"));
        let items: Vec<(String, Json)> = file["observations"]
            .as_array()
            .expect("an observations array")
            .iter()
            .map(|o| {
                (
                    format!("{version}/{}", o["id"].as_str().unwrap_or("?")),
                    o["observation"].clone(),
                )
            })
            .collect();
        assert!(check::<PipelineObservation>(items, true) >= 30);
    }
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
