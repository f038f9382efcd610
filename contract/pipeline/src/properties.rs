//! What must hold for every pipeline scenario the reference observes,
//! checked by one function that the fuzz oracle (`fuzzing::pipeline`), the
//! property tests (`proptests/tests/pipeline.rs`) and the corpus test call
//! alike:
//!
//! - the reference observes it within the observation schema, and passes
//!   its own judge;
//! - pi 0.85.0's invariants: a call ends at most once per start, and
//!   exactly once when nothing aborted the run; result messages follow the
//!   calls' source order; `afterToolCall` runs only for a call that
//!   executed; no execute sees an aborted signal, and none runs after its
//!   `beforeToolCall` blocked it; a batch stops the loop exactly when every
//!   finalized result votes `terminate: true`;
//! - every observation mutant (`mutants::ALL`) that fits the scenario's
//!   observation is named by the judge with each requirement it must name
//!   (`Mutant::fit` says where one fits).

use super::judge::judge;
use super::mutants;
use super::spec::*;
use super::PIPELINE;
use serde_json::Value as Json;
use toolgate_suite::fuzzing::Mutants;

/// What a check covered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Covered {
    /// The mutants that fitted the observation (each was named).
    pub mutants: Vec<&'static str>,
}

/// Checks everything above for `scenario`; `Err` says what broke (with
/// the scenario, so that it reproduces).
pub fn check(scenario: &PipelineScenario) -> Result<Covered, String> {
    check_with(scenario, Mutants::Every)
}

/// [`check`], trying the observation mutants `mutants` says (a fast fuzz
/// target tries one).
pub fn check_with(scenario: &PipelineScenario, mutants: Mutants) -> Result<Covered, String> {
    let show = || serde_json::to_string(scenario).unwrap_or_default();
    let fail = |what: String| Err(format!("{what}\nscenario: {}", show()));
    let json = match super::reference::observe(scenario) {
        Ok(o) => o,
        Err(e) => return fail(format!("the reference cannot observe it: {e}")),
    };
    let schema = toolgate_suite::observation_validator(&PIPELINE)?;
    if let Err(e) = toolgate_suite::schema_errors(schema, &json) {
        return fail(format!("the observation breaks its schema: {e}"));
    }
    let observed: PipelineObservation = match serde_json::from_value(json) {
        Ok(o) => o,
        Err(e) => return fail(format!("the observation does not decode: {e}")),
    };
    let own = judge(scenario, &observed, &observed);
    if !own.is_empty() {
        return fail(format!("the reference fails its own judge: {own:?}"));
    }
    if let Err(e) = invariants(scenario, &observed) {
        return fail(e);
    }
    let mut covered = Covered::default();
    if mutants::none_fits(scenario, &observed) {
        return Ok(covered);
    }
    mutants.each(mutants::ALL.len(), |i| {
        let Some(m) = mutants::ALL.get(i) else {
            return Ok(false);
        };
        let Some(broken) = m.fit(scenario, &observed) else {
            return Ok(false);
        };
        let found = judge(scenario, &observed, &broken);
        if !m.expect.kept_by(&found) {
            return Err(format!(
                "mutant {} is not named {:?}: {found:?}\nscenario: {}",
                m.id,
                m.expect,
                show()
            ));
        }
        covered.mutants.push(m.id);
        Ok(true)
    })?;
    Ok(covered)
}

/// An event's type and `toolCallId`.
fn event_of(entry: &TraceEntry) -> Option<(&str, Option<&str>, &Json)> {
    let TraceEntry::Event { event } = entry else {
        return None;
    };
    Some((event["type"].as_str()?, event["toolCallId"].as_str(), event))
}

/// One tool turn's part of the trace: between a provider call and the
/// next.
fn turns(trace: &[TraceEntry]) -> Vec<&[TraceEntry]> {
    let starts: Vec<usize> = trace
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, TraceEntry::Provider { .. }))
        .map(|(i, _)| i)
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &from)| {
            let to = starts.get(k + 1).copied().unwrap_or(trace.len());
            trace.get(from..to).unwrap_or_default()
        })
        .collect()
}

/// Whether the before hook's script for call `id` returns a truthy
/// `block` (and so, unless an abort comes first, blocks the call).
fn blocks(scenario: &PipelineScenario, id: &str) -> bool {
    let script = match &scenario.hooks.before_tool_call {
        Some(Body::Script(s)) => Some(s),
        Some(Body::PerCall(p)) => p.calls.get(id).or(p.default.as_ref()),
        None => None,
    };
    let Some(Outcome::Return(Json::Object(decision))) = script.and_then(|s| s.then.as_ref()) else {
        return false;
    };
    match decision.get("block") {
        Some(Json::Bool(b)) => *b,
        Some(Json::Number(n)) => n.as_f64().is_some_and(|x| x != 0.0),
        Some(Json::String(s)) => !s.is_empty(),
        Some(Json::Array(_) | Json::Object(_)) => true,
        _ => false,
    }
}

fn invariants(scenario: &PipelineScenario, o: &PipelineObservation) -> Result<(), String> {
    let aborted = o.trace.iter().any(|e| matches!(e, TraceEntry::Abort));
    let resolved = matches!(o.end, RunEnd::Resolved);
    let queued = scenario.config.steering.is_some()
        || scenario.config.follow_up.is_some()
        || scenario.config.stop_after_turn.is_some();
    let all_turns = turns(&o.trace);
    for (t, turn) in all_turns.iter().enumerate() {
        let mut started: Vec<&str> = Vec::new();
        let mut ended: Vec<&str> = Vec::new();
        let mut results: Vec<&str> = Vec::new();
        let mut executed: Vec<&str> = Vec::new();
        let mut votes: Vec<bool> = Vec::new();
        for entry in *turn {
            if let Some((ty, id, event)) = event_of(entry) {
                let Some(id) = id else { continue };
                match ty {
                    "tool_execution_start" => started.push(id),
                    "tool_execution_end" => {
                        ended.push(id);
                        let vote = event.get("result").and_then(|r| r.get("terminate"));
                        votes.push(vote == Some(&Json::Bool(true)));
                    }
                    "message_end"
                        if event.get("message").and_then(|m| m.get("role"))
                            == Some(&Json::from("toolResult")) =>
                    {
                        results.push(id)
                    }
                    _ => {}
                }
            }
            if let TraceEntry::Invoke(inv) = entry {
                match inv {
                    Invocation::Execute {
                        tool_call_id,
                        signal,
                        ..
                    } => {
                        if *signal == SignalSeen::Aborted {
                            return Err(format!(
                                "turn {t}: {tool_call_id} executed with an aborted signal"
                            ));
                        }
                        if blocks(scenario, tool_call_id) && !aborted {
                            return Err(format!("turn {t}: {tool_call_id} executed after a block"));
                        }
                        executed.push(tool_call_id);
                    }
                    Invocation::AfterToolCall { tool_call_id, .. }
                        if !executed.contains(&tool_call_id.as_str()) =>
                    {
                        return Err(format!(
                            "turn {t}: afterToolCall for {tool_call_id}, which never executed"
                        ));
                    }
                    _ => {}
                }
            }
        }
        let count = |list: &[&str], id: &str| list.iter().filter(|x| **x == id).count();
        if let Some(id) = ended
            .iter()
            .find(|id| count(&ended, id) > count(&started, id))
        {
            return Err(format!("turn {t}: {id} ends more often than it starts"));
        }
        if resolved && !aborted && ended.len() != started.len() {
            return Err(format!(
                "turn {t}: {} starts but {} ends",
                started.len(),
                ended.len()
            ));
        }
        // result messages in source order: a subsequence of the starts
        let mut at = 0;
        for r in &results {
            match started.iter().skip(at).position(|s| s == r) {
                Some(p) => at += p + 1,
                None => {
                    return Err(format!(
                        "turn {t}: results {results:?} out of source order {started:?}"
                    ))
                }
            }
        }
        // the terminate vote, where nothing else ends or extends the run
        if resolved && !aborted && !queued && !results.is_empty() && results.len() == ended.len() {
            let next_turn = all_turns.get(t + 1).is_some();
            let every = votes.iter().all(|v| *v);
            if next_turn == every {
                return Err(format!(
                    "turn {t}: votes {votes:?} but the loop {} another model call",
                    if next_turn { "made" } else { "did not make" }
                ));
            }
        }
    }
    Ok(())
}
