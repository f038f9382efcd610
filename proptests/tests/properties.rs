//! The invariants every generated scenario must keep on the reference, each
//! tied to SPEC.md ids. Case counts: `toolgate_proptests::knobs`.

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::Value as Json;
use toolgate_contract::constants::{
    MAX_ENTRIES, MAX_NODES, MAX_STRING_CHARS, OUTPUT_CAP, TRUNCATION_MARKER,
};
use toolgate_contract::model::{Runtime, Trace};
use toolgate_contract::scenario::observation::{Event, Outcome, Registered};
use toolgate_contract::scenario::{build, observe};
use toolgate_contract::serializer::{serialize, MAX_STEPS};
use toolgate_contract::AbortSignal;
use toolgate_proptests::plan::{value_scenario, Plan};
use toolgate_proptests::{knobs, strategy};

/// Fails the case with the requirement id and what happened.
macro_rules! ensure {
    ($cond:expr, $id:literal, $($msg:tt)+) => {
        if !$cond {
            return Err(TestCaseError::fail(format!("{}: {}", $id, format!($($msg)+))));
        }
    };
}

/// Runs `plan` on the reference (twice) and checks every invariant.
fn check(plan: &Plan) -> Result<(), TestCaseError> {
    let (scenario, roles) = plan.render();
    let observed = observe(&scenario).map_err(|e| TestCaseError::fail(format!("oracle: {e}")))?;
    let again = observe(&scenario).map_err(|e| TestCaseError::fail(format!("oracle: {e}")))?;
    ensure!(
        observed == again,
        "CORE-SER-17",
        "the same scenario gave two observations"
    );

    // registrations: names are exactly the tools of the batches that succeeded
    let mut expected_names = Vec::new();
    for (batch, registered) in plan.batches.iter().zip(&observed.registrations) {
        if registered.outcome == Registered::Ok {
            expected_names.extend(batch.tools.iter().map(|t| Json::String(t.name.text())));
        }
    }
    ensure!(
        observed.names == expected_names,
        "CORE-REG-05",
        "names {:?} after the scenario, expected those of the successful batches {:?}",
        observed.names,
        expected_names
    );

    let is_tool = |name: &str, of: &[String]| of.iter().any(|n| n == name);
    for (i, call) in observed.calls.iter().enumerate() {
        let executions = call
            .trace
            .iter()
            .filter(|e| matches!(e, Event::Call(c) if is_tool(&c.call, &roles.executors)))
            .count();
        ensure!(
            executions <= 1,
            "CORE-EXE-01",
            "call {i}: execute ran {executions} times"
        );
        // nothing of the tool starts after an abort, and an abort always wins
        if let Some(at) = call.trace.iter().position(|e| matches!(e, Event::Abort(_))) {
            ensure!(
                matches!(call.outcome, Outcome::Cancelled(_)),
                "CORE-CAN-08",
                "call {i}: aborted but ended {:?}",
                call.outcome
            );
            let later = call.trace.iter().skip(at).find(|e| {
                matches!(e, Event::Call(c) if is_tool(&c.call, &roles.executors) || is_tool(&c.call, &roles.validators))
            });
            ensure!(
                later.is_none(),
                "CORE-CAN-03",
                "call {i}: {later:?} ran after the abort"
            );
        }
        if let Outcome::Result(r) = &call.outcome {
            let content = &r.content;
            content_invariants(content, !r.is_error)
                .map_err(|e| TestCaseError::fail(format!("call {i}: {e}")))?;
            ensure!(
                r.id == Json::String(format!(
                    "tool-result-{}",
                    r.tool_call_id.as_str().unwrap_or("\u{FFFD}")
                )) || !r.tool_call_id.is_string(),
                "CORE-RES-01",
                "call {i}: id {} for toolCallId {}",
                r.id,
                r.tool_call_id
            );
            if let Some(Some((id, name))) = roles.calls.get(i) {
                ensure!(
                    r.tool_call_id == Json::String(id.clone()),
                    "CORE-RES-01",
                    "call {i}: toolCallId {} for call id {id:?}",
                    r.tool_call_id
                );
                ensure!(
                    r.tool_name == Json::String(name.clone()),
                    "CORE-RES-01",
                    "call {i}: toolName {} for name {name:?}",
                    r.tool_name
                );
            }
            let code = if r.is_error {
                error_code(content)
            } else {
                None
            };
            if matches!(
                code.as_deref(),
                Some("TOOL_NOT_FOUND" | "TOOL_VALIDATION_FAILED" | "TOOL_ARGUMENTS_INVALID")
            ) {
                ensure!(
                    executions == 0,
                    "CORE-VAL-09",
                    "call {i}: execute ran {executions} time(s) before {code:?}"
                );
            }
        }
        if matches!(call.outcome, Outcome::ContractError(_)) {
            ensure!(
                executions == 0,
                "CORE-CALL-02",
                "call {i}: execute ran before a contract error"
            );
        }
    }
    Ok(())
}

/// What holds for every content: at most 4096 code points, exactly one
/// marker iff truncated; and for an untruncated success (`whole_output`):
/// JSON text (lone-surrogate escapes allowed) with keys in UTF-16 order.
fn content_invariants(content: &str, whole_output: bool) -> Result<(), String> {
    let code_points = content.chars().count();
    if code_points > OUTPUT_CAP {
        return Err(format!("CORE-SER-10: content of {code_points} code points"));
    }
    let markers = content.matches(TRUNCATION_MARKER).count();
    let truncated = content.ends_with(TRUNCATION_MARKER);
    if markers != usize::from(truncated) {
        return Err(format!("CORE-SER-10: {markers} markers in {content:?}"));
    }
    if whole_output && !truncated {
        let parsed = parse_json_allowing_lone_surrogates(content)
            .map_err(|e| format!("CORE-SER-02: not JSON ({e}): {content:?}"))?;
        if !content.contains("\\ud") {
            if let Some(pair) = first_unsorted_keys(&parsed) {
                return Err(format!(
                    "CORE-SER-05: keys out of UTF-16 order: {pair:?} in {content:?}"
                ));
            }
        }
    }
    Ok(())
}

/// The code of an untruncated error content.
fn error_code(content: &str) -> Option<String> {
    let parsed: Json = serde_json::from_str(content).ok()?;
    parsed.pointer("/error/code")?.as_str().map(str::to_string)
}

/// Parses JSON text whose strings may hold `\uXXXX` escapes of lone
/// surrogates (grammatical JSON per RFC 8259, not valid Unicode): each such
/// escape is read as U+FFFD, everything else must be strict JSON.
fn parse_json_allowing_lone_surrogates(text: &str) -> Result<Json, String> {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let hex = |at: usize| -> Option<u16> {
        let s: String = chars.get(at..at + 4)?.iter().collect();
        u16::from_str_radix(&s, 16).ok()
    };
    while let Some(&c) = chars.get(i) {
        if c == '\\' && chars.get(i + 1) == Some(&'u') {
            if let Some(unit) = hex(i + 2) {
                let high = (0xD800..0xDC00).contains(&unit);
                let low = (0xDC00..0xE000).contains(&unit);
                let paired = high
                    && chars.get(i + 6) == Some(&'\\')
                    && chars.get(i + 7) == Some(&'u')
                    && hex(i + 8).is_some_and(|u| (0xDC00..0xE000).contains(&u));
                if (high || low) && !paired {
                    out.push_str("\\ufffd");
                    i += 6;
                    continue;
                }
                if paired {
                    out.extend(chars.get(i..i + 12).unwrap_or_default());
                    i += 12;
                    continue;
                }
            }
            out.push(c);
            out.push('u');
            i += 2;
            continue;
        }
        if c == '\\' {
            out.push(c);
            if let Some(&n) = chars.get(i + 1) {
                out.push(n);
            }
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    serde_json::from_str(&out).map_err(|e| e.to_string())
}

/// The first pair of adjacent object keys not in UTF-16 code unit order.
fn first_unsorted_keys(v: &Json) -> Option<(String, String)> {
    match v {
        Json::Object(map) => {
            let keys: Vec<&String> = map.keys().collect();
            for pair in keys.windows(2) {
                if pair[0].encode_utf16().cmp(pair[1].encode_utf16()) != std::cmp::Ordering::Less {
                    return Some((pair[0].clone(), pair[1].clone()));
                }
            }
            map.values().find_map(first_unsorted_keys)
        }
        Json::Array(items) => items.iter().find_map(first_unsorted_keys),
        _ => None,
    }
}

proptest! {
    #![proptest_config(knobs::config(1024, "proptest-regressions/properties.txt"))]

    /// CORE-SER-02/05/10/17, CORE-REG-05, CORE-RES-01, CORE-EXE-01,
    /// CORE-VAL-09, CORE-CAN-03/08, CORE-CALL-02: see `check`.
    #[test]
    fn every_generated_scenario_keeps_the_invariants(plan in strategy::plan()) {
        if let Err(e) = check(&plan) {
            let (scenario, _) = plan.render();
            let scenario = serde_json::to_string_pretty(&scenario).unwrap_or_default();
            return Err(TestCaseError::fail(format!(
                "{e}\nscenario:\n{scenario}\nreproduce: cargo test -p toolgate-proptests --test properties \
                 (the seed is saved in proptests/proptest-regressions/properties.txt and replays first)"
            )));
        }
    }

    /// CORE-SER-16: the serializer's work and budgets stay bounded whatever
    /// the output.
    #[test]
    fn serializer_work_is_bounded_by_the_budgets(value in strategy::output_plan()) {
        let scenario = value_scenario(&value);
        let built = build(&scenario).map_err(|e| TestCaseError::fail(format!("build: {e}")))?;
        let root = built.registrations.first().cloned().unwrap_or(toolgate_contract::model::Value::Undefined);
        let rt = Runtime::new(&built.heap, AbortSignal::new(), Trace::default());
        if let Ok(out) = serialize(&rt, &root) {
            content_invariants(&out.content, true).map_err(TestCaseError::fail)?;
            prop_assert!(out.steps <= MAX_STEPS, "CORE-SER-16: {} steps", out.steps);
            prop_assert!(out.usage.nodes <= MAX_NODES && out.usage.entries <= MAX_ENTRIES && out.usage.string_chars <= MAX_STRING_CHARS,
                "CORE-SER-16: usage {:?}", out.usage);
        }
    }
}
