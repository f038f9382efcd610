//! `toolgate list` and `toolgate explain`: the suites, requirements and
//! cases, and one case in words (what it sets up, what the reference
//! observes, which requirements it is about). Suites come from
//! [`suites::all`]; a case in the core vocabulary (its scenario and
//! observation decode as core ones) is also told in sentences, any other
//! is shown as JSON.

use crate::cases::{requirements, RunCase};
use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use toolgate_core::scenario::observation::{Event, Outcome, Registered, RegistrationObserved};
use toolgate_core::scenario::{AbortPlan, Observation, ReasonSpec, RegistryKind, Scenario};
use toolgate_suite::{Level, SuiteDef};

/// `toolgate list suites`: id, cases, requirement prefix, for each of
/// `suites` (in [`suites::all`]'s order).
pub fn suites(suites: &[&'static dyn SuiteDef], cases: &[RunCase]) -> String {
    suites
        .iter()
        .map(|s| {
            let n = cases.iter().filter(|c| c.suite.id() == s.id()).count();
            format!("{}\t{n} cases\t{}…\n", s.id(), s.requirement_prefix())
        })
        .collect()
}

/// `toolgate list requirements`: for each of `suites`, its SPEC.md
/// requirements: id, the level when the suite has SHOULD ones, cases
/// naming it, text.
pub fn requirement_list(suites: &[&'static dyn SuiteDef], cases: &[RunCase]) -> String {
    let all = requirements();
    let mut out = String::new();
    for suite in suites {
        let own: Vec<&(String, String)> = all
            .iter()
            .filter(|(id, _)| id.starts_with(suite.requirement_prefix()))
            .collect();
        let levels = own.iter().any(|(id, _)| suite.level(id) == Level::Should);
        for (id, text) in own {
            let n = cases.iter().filter(|c| c.requirements.contains(id)).count();
            let level = if levels {
                format!("{}\t", suite.level(id).name())
            } else {
                String::new()
            };
            let _ = writeln!(out, "{id}\t{level}{n} cases\t{}", first_sentence(text));
        }
    }
    out
}

/// `toolgate list cases`: id, suite, requirements.
pub fn case_list(cases: &[RunCase]) -> String {
    cases
        .iter()
        .map(|c| format!("{}\t{}\t{}\n", c.id, c.suite.id(), c.requirements.join(" ")))
        .collect()
}

fn first_sentence(text: &str) -> String {
    let plain = text.replace("**", "").replace('`', "");
    match plain.find(". ") {
        Some(i) => plain[..=i].to_string(),
        None => plain,
    }
}

/// `toolgate explain <case-id>`.
pub fn explain(case: &RunCase) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({} suite)\n", case.id, case.suite.id());
    let _ = writeln!(out, "{}\n", case.description);
    if !case.requirements.is_empty() {
        let _ = writeln!(out, "Requirements:");
        let texts: BTreeMap<String, String> = requirements().into_iter().collect();
        for r in &case.requirements {
            let text = texts.get(r).map(|t| first_sentence(t)).unwrap_or_default();
            let _ = writeln!(out, "  {r}  {text}");
        }
        out.push('\n');
    }
    let core = (
        Scenario::deserialize(&case.scenario),
        Observation::deserialize(&case.expect),
    );
    if let (Ok(scenario), Ok(expect)) = core {
        in_words(&scenario, &expect, &mut out);
    }
    let _ = writeln!(
        out,
        "\nScenario:\n{}\n\nExpected observation:\n{}",
        serde_json::to_string_pretty(&case.scenario).unwrap_or_default(),
        serde_json::to_string_pretty(&case.expect).unwrap_or_default()
    );
    out
}

/// What a core scenario does and what the reference observes, in words.
fn in_words(s: &Scenario, expect: &Observation, out: &mut String) {
    let _ = writeln!(out, "What it does:");
    if !s.nodes.is_empty() {
        let names: Vec<&str> = s.nodes.keys().map(String::as_str).collect();
        let _ = writeln!(out, "  builds the nodes {}", names.join(", "));
    }
    if s.initial.is_some() {
        let _ = writeln!(out, "  constructs the registry from an initial batch");
    }
    if !s.registrations.is_empty() {
        let _ = writeln!(
            out,
            "  registers {} batch(es) with registerMany",
            s.registrations.len()
        );
    }
    for (i, call) in s.calls.iter().enumerate() {
        let mut line = format!("  call {i}: executeToolCall with {}", short(&call.call));
        if call.registry == RegistryKind::NotARegistry {
            line.push_str(", passing a plain object as the registry");
        }
        match &call.abort {
            Some(AbortPlan::Before(r)) => {
                let _ = write!(line, ", the signal aborted before the call {}", reason(r));
            }
            Some(AbortPlan::WhenPending(r)) => {
                let _ = write!(
                    line,
                    ", the signal aborted once the call waits on a pending executor {}",
                    reason(r)
                );
            }
            Some(AbortPlan::AfterTurns(t)) => {
                let _ = write!(
                    line,
                    ", the signal aborted from a microtask queued before the call and again {} time(s) {}",
                    t.turns,
                    reason(&t.reason_spec())
                );
            }
            None => {}
        }
        let _ = writeln!(out, "{line}");
    }
    if s.concurrent {
        let _ = writeln!(out, "  every call is started before any is awaited");
    }
    let _ = writeln!(out, "\nWhat the reference observes:");
    out.push_str(&observation_in_words(expect));
}

/// An observation as sentences, one per registration, call and event.
pub fn observation_in_words(o: &Observation) -> String {
    let mut out = String::new();
    let registration = |label: String, r: &RegistrationObserved, out: &mut String| {
        let how = match &r.outcome {
            Registered::Ok => "succeeds".to_string(),
            Registered::ContractError(code) => {
                format!("throws ToolContractError {}", code_name(code))
            }
            Registered::Rejected(v) => format!("throws {}", short(v)),
        };
        let _ = writeln!(out, "  {label} {how}");
        events(&r.trace, out);
    };
    if let Some(initial) = &o.initial {
        registration("the registry's construction".into(), initial, &mut out);
    }
    for (i, r) in o.registrations.iter().enumerate() {
        registration(format!("registration {i}"), r, &mut out);
    }
    for (i, call) in o.calls.iter().enumerate() {
        let how = match &call.outcome {
            Outcome::Result(m) if m.is_error => format!(
                "resolves with an error result for toolCallId {}: {}",
                m.tool_call_id,
                short(&Json::String(m.content.clone()))
            ),
            Outcome::Result(m) => format!(
                "resolves with a success result for toolCallId {}: {}",
                m.tool_call_id,
                short(&Json::String(m.content.clone()))
            ),
            Outcome::Cancelled(r) => format!("rejects as cancelled {}", reason(r)),
            Outcome::ContractError(code) => {
                format!("rejects with ToolContractError {}", code_name(code))
            }
            Outcome::NonRecoverable(name) => {
                format!("rejects with the NonRecoverableToolError {name}")
            }
            Outcome::Pending => "never settles".into(),
            Outcome::Rejected(v) => format!("rejects with {}", short(v)),
        };
        let _ = writeln!(out, "  call {i} {how}");
        events(&call.trace, &mut out);
        if call.unhandled_rejections > 0 {
            let _ = writeln!(
                out,
                "    and leaves {} unhandled rejection(s)",
                call.unhandled_rejections
            );
        }
    }
    let names: Vec<String> = o.names.iter().map(short).collect();
    let _ = writeln!(out, "  names at the end: [{}]", names.join(", "));
    out
}

fn events(trace: &[Event], out: &mut String) {
    for e in trace {
        let line = match e {
            Event::Call(c) => {
                let args: Vec<String> = c.args.iter().map(short).collect();
                format!("{} runs with ({})", c.call, args.join(", "))
            }
            Event::Trap(t) => format!("the {:?} trap of {} runs", t.trap, t.proxy),
            Event::Abort(a) => format!("the signal aborts {}", reason(&a.abort)),
            Event::AbortListener(l) => format!("the abort listener of {} fires", l.abort_listener),
            Event::LateSettlement(l) => format!(
                "{} settles late ({})",
                l.late_settlement,
                if l.rejected { "rejected" } else { "fulfilled" }
            ),
        };
        let _ = writeln!(out, "    then {line}");
    }
}

fn reason(r: &ReasonSpec) -> String {
    match &r.reason {
        None => "(no reason: an AbortError)".into(),
        Some(v) => format!("with reason {}", short(v)),
    }
}

fn code_name(code: &toolgate_core::ContractCode) -> String {
    serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{code:?}"))
}

/// A JSON value on one line, cut at 100 characters.
fn short(v: &Json) -> String {
    const MAX: usize = 100;
    let text = v.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}… ({} characters)", text.chars().count())
    }
}
