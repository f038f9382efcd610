//! Invariants every observation of the reference keeps, whatever the
//! scenario: checked by the property tests, the fuzz targets and (against
//! other implementations) the runner, so they are written once, here. Each
//! names the SPEC.md requirement it enforces.

use super::observation::{Event, Observation, Outcome, ResultMessage};
use super::spec::{AbortPlan, Scenario};
use crate::constants::{OUTPUT_CAP, TRUNCATION_MARKER};
use serde_json::Value as Json;

/// The invariants `observation` (of `scenario`) breaks, each a sentence
/// starting with a requirement id; empty when it keeps them all.
pub fn check(scenario: &Scenario, observation: &Observation) -> Vec<String> {
    let mut problems = Vec::new();
    for (i, call) in observation.calls.iter().enumerate() {
        // an abort after some job-queue turns may land after the call
        // settled on its own (CORE-CAN-09)
        let may_land_after = matches!(
            scenario.calls.get(i).and_then(|c| c.abort.as_ref()),
            Some(AbortPlan::AfterTurns(_))
        );
        // executors are the functions called with a context argument
        let executions: Vec<usize> = call
            .trace
            .iter()
            .enumerate()
            .filter(|(_, e)| is_execution(e))
            .map(|(at, _)| at)
            .collect();
        if executions.len() > 1 {
            problems.push(format!(
                "CORE-EXE-01: call {i}: execute ran {} times",
                executions.len()
            ));
        }
        if let Some(abort) = call.trace.iter().position(|e| matches!(e, Event::Abort(_))) {
            let settled_before = may_land_after
                && call.trace.iter().skip(abort).all(|e| {
                    matches!(
                        e,
                        Event::Abort(_) | Event::AbortListener(_) | Event::LateSettlement(_)
                    )
                });
            // the failure path checks the signal before it reads a thrown
            // value's message (`getOwnPropertyDescriptor`): an abort from
            // that read comes too late, and the error result stands
            let during_message_read = matches!(&call.outcome, Outcome::Result(r) if r.is_error)
                && abort
                    .checked_sub(1)
                    .and_then(|at| call.trace.get(at))
                    .is_some_and(|e| {
                        matches!(e, Event::Trap(t) if t.trap == crate::model::Trap::GetOwnPropertyDescriptor)
                    });
            if !matches!(call.outcome, Outcome::Cancelled(_))
                && !settled_before
                && !during_message_read
            {
                problems.push(format!(
                    "CORE-CAN-08: call {i}: the signal aborted but the call ended {}",
                    kind(&call.outcome)
                ));
            }
            if executions.iter().any(|at| *at > abort) {
                problems.push(format!(
                    "CORE-CAN-03: call {i}: execute started after the abort"
                ));
            }
        }
        if call.unhandled_rejections > 0 {
            problems.push(format!(
                "CORE-VAL-03: call {i}: {} unhandled rejection(s)",
                call.unhandled_rejections
            ));
        }
        match &call.outcome {
            Outcome::Result(r) => {
                if let Err(e) = result(r) {
                    problems.push(format!("{e} (call {i})"));
                }
                let code = if r.is_error {
                    error_code(&r.content)
                } else {
                    None
                };
                if !executions.is_empty()
                    && matches!(
                        code.as_deref(),
                        Some(
                            "TOOL_NOT_FOUND" | "TOOL_VALIDATION_FAILED" | "TOOL_ARGUMENTS_INVALID"
                        )
                    )
                {
                    problems.push(format!(
                        "CORE-VAL-09: call {i}: execute ran before {}",
                        code.unwrap_or_default()
                    ));
                }
            }
            Outcome::ContractError(_) if !executions.is_empty() => {
                problems.push(format!(
                    "CORE-CALL-02: call {i}: execute ran before a contract error"
                ));
            }
            _ => {}
        }
    }
    problems
}

fn is_execution(e: &Event) -> bool {
    match e {
        Event::Call(c) => c
            .args
            .iter()
            .any(|a| a.get("$").and_then(Json::as_str) == Some("context")),
        _ => false,
    }
}

fn kind(o: &Outcome) -> &'static str {
    match o {
        Outcome::Result(_) => "as a result",
        Outcome::Cancelled(_) => "cancelled",
        Outcome::ContractError(_) => "as a contract error",
        Outcome::NonRecoverable(_) => "as a non-recoverable error",
        Outcome::Pending => "pending",
        Outcome::Rejected(_) => "rejected",
    }
}

/// The invariants of one result message.
fn result(r: &ResultMessage) -> Result<(), String> {
    if r.role != "toolResult" {
        return Err(format!("CORE-RES-01: role {:?}", r.role));
    }
    if let (Some(id), Some(call_id)) = (r.id.as_str(), r.tool_call_id.as_str()) {
        if id.strip_prefix("tool-result-") != Some(call_id) {
            return Err(format!("CORE-RES-01: id {id:?} for toolCallId {call_id:?}"));
        }
    }
    content(&r.content, !r.is_error)
}

/// What holds for every content: at most 4096 code points, one marker iff
/// truncated; and for an untruncated success (`whole_output`): JSON text
/// (escapes of lone surrogates allowed) whose object keys are in UTF-16
/// code unit order.
pub fn content(content: &str, whole_output: bool) -> Result<(), String> {
    let code_points = content.chars().count();
    if code_points > OUTPUT_CAP {
        return Err(format!("CORE-SER-10: content of {code_points} code points"));
    }
    let markers = content.matches(TRUNCATION_MARKER).count();
    let truncated = content.ends_with(TRUNCATION_MARKER);
    if markers != usize::from(truncated) {
        return Err(format!(
            "CORE-SER-10: {markers} truncation markers in {content:?}"
        ));
    }
    if !truncated && content.contains('\n') {
        return Err("CORE-SER-02: a raw newline outside the marker".to_string());
    }
    if whole_output && !truncated {
        let parsed = parse_json_allowing_lone_surrogates(content)
            .map_err(|e| format!("CORE-SER-02: not JSON ({e}): {content:?}"))?;
        if !content.contains("\\ud") {
            if let Some((a, b)) = first_unsorted_keys(&parsed) {
                return Err(format!(
                    "CORE-SER-05: key {a:?} before {b:?} in {content:?}"
                ));
            }
        }
    } else if !truncated && error_code(content).is_none() {
        return Err(format!(
            "CORE-RES-02: an error content that is not {{error:{{code,message}}}}: {content:?}"
        ));
    }
    Ok(())
}

/// The code of an untruncated error content.
pub fn error_code(content: &str) -> Option<String> {
    let parsed = parse_json_allowing_lone_surrogates(content).ok()?;
    parsed.pointer("/error/code")?.as_str().map(str::to_string)
}

/// Parses JSON text whose strings may hold `\uXXXX` escapes of lone
/// surrogates (grammatical JSON per RFC 8259, not valid Unicode): each such
/// escape is read as U+FFFD; everything else must be strict JSON.
pub fn parse_json_allowing_lone_surrogates(text: &str) -> Result<Json, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let hex = |at: usize| -> Option<u16> {
        let s: String = chars.get(at..at.checked_add(4)?)?.iter().collect();
        u16::from_str_radix(&s, 16).ok()
    };
    let surrogate = |u: u16, low: bool| {
        if low {
            (0xDC00..0xE000).contains(&u)
        } else {
            (0xD800..0xDC00).contains(&u)
        }
    };
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c != '\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let next = chars.get(i + 1).copied();
        if next == Some('u') {
            if let Some(unit) = hex(i + 2) {
                let high = surrogate(unit, false);
                let paired = high
                    && chars.get(i + 6) == Some(&'\\')
                    && chars.get(i + 7) == Some(&'u')
                    && hex(i + 8).is_some_and(|u| surrogate(u, true));
                if paired {
                    out.extend(chars.get(i..i + 12).unwrap_or_default());
                    i += 12;
                    continue;
                }
                if high || surrogate(unit, true) {
                    out.push_str("\\ufffd");
                    i += 6;
                    continue;
                }
            }
        }
        out.push(c);
        if let Some(n) = next {
            out.push(n);
        }
        i += 2;
    }
    serde_json::from_str(&out).map_err(|e| e.to_string())
}

/// The first pair of adjacent object keys not in UTF-16 code unit order.
pub fn first_unsorted_keys(v: &Json) -> Option<(String, String)> {
    match v {
        Json::Object(map) => {
            let keys: Vec<&String> = map.keys().collect();
            for pair in keys.windows(2) {
                if let [a, b] = pair {
                    if a.encode_utf16().cmp(b.encode_utf16()) != std::cmp::Ordering::Less {
                        return Some(((*a).clone(), (*b).clone()));
                    }
                }
            }
            map.values().find_map(first_unsorted_keys)
        }
        Json::Array(items) => items.iter().find_map(first_unsorted_keys),
        _ => None,
    }
}
