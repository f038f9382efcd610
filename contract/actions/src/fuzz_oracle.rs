//! The actions suite's fuzz oracles: the fuzzer's bytes (or a scenario in
//! JSON) through the suite's generator and properties, panicking on a bug,
//! as `toolgate_suite::fuzzing` says. The fuzz target in `fuzz/` is one
//! call; `tests/fuzz_oracle.rs` replays it on seeded bytes, the seed corpus
//! and the committed regressions.

// An oracle reports a bug by panicking: that is the fuzzing protocol.
#![allow(clippy::panic)]

use serde_json::{json, Value as Json};
use toolgate_suite::fuzzing::{suite_target, Verdict, MAX_INPUT};

/// The `action_text` target: the `actions` suite's structure layer on raw
/// bytes. It never panics; the strict parser accepts every text
/// `serde_json` accepts but for the refusals it adds (a duplicate name, the
/// size and depth bounds), and `serde_json` every text the strict parser
/// accepts but for floats out of `f64`'s range (which Python reads as
/// `inf`, still a float); the layer's verdict is the parse's; and an
/// accepted action, written out again, is accepted as the same action.
pub fn action_text(data: &[u8]) -> Verdict {
    use crate::strict_json::{self, Refusal};
    use crate::structure::{validate_bytes, validate_text, validate_value, Action};
    if data.len() > MAX_INPUT {
        return Verdict::Skipped("oversized");
    }
    let show = || String::from_utf8_lossy(data).into_owned();
    let parsed = strict_json::parse(data);
    match (serde_json::from_slice::<Json>(data), &parsed) {
        (Ok(_), Err(Refusal::DuplicateName | Refusal::TooLarge | Refusal::TooDeep)) => {}
        (Ok(_), Err(refusal)) => {
            panic!(
                "serde_json reads {:?} but the strict parser refuses it: {refusal:?}",
                show()
            )
        }
        (Err(e), Ok(_)) if !e.to_string().contains("number out of range") => {
            panic!(
                "the strict parser reads {:?} but serde_json refuses it: {e}",
                show()
            )
        }
        _ => {}
    }
    let verdict = validate_bytes(data);
    if let Ok(value) = &parsed {
        assert_eq!(validate_value(value), verdict, "{:?}", show());
    }
    if let Ok(action) = &verdict {
        let written = match action {
            Action::Finish { status } => json!({"kind": "finish", "status": status}),
            Action::Search { query } => {
                json!({"kind": "tool", "name": "search", "args": {"query": query}})
            }
            Action::Document { item_id } => {
                json!({"kind": "tool", "name": "document", "args": {"item_id": item_id}})
            }
            Action::Stock { item_id } => {
                json!({"kind": "tool", "name": "stock", "args": {"item_id": item_id}})
            }
            Action::Reserve {
                item_id,
                quantity,
                expected_revision,
                idempotency_key,
            } => json!({"kind": "tool", "name": "reserve", "args": {
                "item_id": item_id, "quantity": quantity,
                "expected_revision": expected_revision, "idempotency_key": idempotency_key}}),
        };
        assert_eq!(
            validate_text(&written.to_string()).as_ref(),
            Ok(action),
            "{:?} accepted, {written} not",
            show()
        );
    }
    Verdict::Checked
}

/// The `actions` target: a generated (or JSON) `actions` scenario keeps
/// every property of `actions::properties::check`: the reference within
/// its schema and its own judge, each run consistent, and the database
/// exactly what the steps account for.
pub fn actions(data: &[u8]) -> Verdict {
    use crate::spec::ActionsScenario;
    use crate::{generate, properties, reference};
    suite_target(
        data,
        "not an actions scenario",
        |scenario: &ActionsScenario| {
            reference::check(scenario).map_err(|_| "an actions scenario the reference refuses")
        },
        generate::scenario_from_bytes,
        properties::check,
    )
}

/// The seeds an `actions` case's scenario gives the `action_text` target:
/// the action texts of its runs' policies.
pub fn action_texts(scenario: &Json) -> Vec<&str> {
    let runs = scenario["runs"].as_array().into_iter().flatten();
    runs.flat_map(|run| run["policy"].as_array().into_iter().flatten())
        .filter_map(Json::as_str)
        .collect()
}
