//! Judging a runtime's observation of a boundary scenario. Runtimes word
//! their results differently (a JSON part, an MCP content list, a
//! LangChain message), so nothing is compared byte for byte here: each
//! requirement is a predicate over the scenario, the reference's
//! observation and the runtime's, and a violation names the requirement
//! whose predicate failed (SPEC.md `## boundary`). The bounds of the SHOULD
//! requirements are the constants below, written in SPEC.md too.

use super::attribution;
use super::requirements as req;
use super::spec::*;
use super::translate::{decode, verdict, Behaviour};
use serde_json::Value as Json;
use toolgate_suite::{Measure, Violation};

/// The most UTF-8 bytes one result the model receives should take
/// (BOUNDARY-SIZE-01).
pub const RESULT_BYTES_BOUND: f64 = 65_536.0;
/// How long answering a call with huge arguments should take at most
/// (BOUNDARY-ARGS-01).
pub const ANSWER_MS_BOUND: f64 = 1_000.0;
/// How much the adapter's peak memory should grow at most while huge
/// arguments are answered (BOUNDARY-ARGS-01).
pub const MEMORY_BYTES_BOUND: f64 = 256.0 * 1024.0 * 1024.0;
/// How long after an abort the turn should end at most (BOUNDARY-CAN-02).
pub const ABORT_MS_BOUND: f64 = 1_000.0;
/// Arguments at least this large (keys, levels or code units) are "huge".
pub const HUGE_ARGUMENTS: u64 = 10_000;

/// What a call of the turn is, by the scenario alone.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Unknown,
    Invalid,
    Fails,
    Pending,
    /// Returns a value outside plain JSON, or plain JSON too large to pass.
    Hostile,
    /// Returns plain JSON (the value, when it is worth looking for).
    Works(Option<Json>),
}

pub(super) struct Call<'a> {
    pub(super) spec: &'a TurnCall,
    pub(super) kind: Kind,
    /// Index of the tool it names (the first of that name).
    pub(super) tool: Option<usize>,
    /// The only call of the turn naming its tool (so a start without a
    /// call id is this call's).
    pub(super) alone: bool,
    /// A tool of its name never settles: a runtime that runs it (refused
    /// arguments it does not refuse, the same-named tool it picks) hangs
    /// on it, which is BOUNDARY-TIME-01's to judge.
    pub(super) may_hang: bool,
    /// Texts a rejection caused by this call is likely to carry: the
    /// unknown name, the check's message, what the body throws, a
    /// throwing getter's message (`attribution` reads them).
    pub(super) signatures: Vec<String>,
    /// What its tool returns holds one of the large families at a huge
    /// size.
    pub(super) huge_output: bool,
}

/// The violations of `actual`, and what it measured.
pub fn judge(
    scenario: &BoundaryScenario,
    expected: &BoundaryObservation,
    actual: &BoundaryObservation,
) -> (Vec<Violation>, Vec<Measure>) {
    match Judge::new(scenario) {
        Ok(judge) => judge.judge(expected, actual),
        Err(_) => (
            vec![Violation::unnamed("the scenario does not decode")],
            measures(actual),
        ),
    }
}

/// A scenario with its calls classified (each call's arguments checked
/// against its tool's schema once), to judge any number of observations
/// of it: the properties judge every mutant of one observation.
pub struct Judge<'a> {
    scenario: &'a BoundaryScenario,
    calls: Vec<Call<'a>>,
}

impl<'a> Judge<'a> {
    pub fn new(scenario: &'a BoundaryScenario) -> Result<Self, toolgate_suite::Error> {
        let behaviours = decode(scenario)?;
        Ok(Judge {
            scenario,
            calls: classify(scenario, &behaviours),
        })
    }

    /// What each call of the turn is, in turn order.
    pub fn kinds(&self) -> Vec<Kind> {
        self.calls.iter().map(|c| c.kind.clone()).collect()
    }

    /// Why `actual` cannot say anything of what the case is about, if it
    /// cannot: the reference's abort came, the runtime's never did (the
    /// call its latch waits for never started or settled there).
    pub fn unmet(
        &self,
        expected: &BoundaryObservation,
        actual: &BoundaryObservation,
    ) -> Option<String> {
        let named = match &self.scenario.abort {
            Some(AbortTiming::WhilePending(id)) => format!("call {id}'s tool never started"),
            Some(AbortTiming::AfterSettled(id)) => format!("call {id}'s tool never settled"),
            _ => return None,
        };
        let fired = |o| attribution::abort_fired(self.scenario, &self.calls, o);
        (fired(expected) && !fired(actual)).then(|| {
            format!("the case's abort never came ({named}, and the abort waits for that): what it is about was not exercised")
        })
    }

    /// The violations of `actual`, and what it measured.
    pub fn judge(
        &self,
        expected: &BoundaryObservation,
        actual: &BoundaryObservation,
    ) -> (Vec<Violation>, Vec<Measure>) {
        judge_calls(self.scenario, &self.calls, expected, actual)
    }
}

fn judge_calls(
    scenario: &BoundaryScenario,
    calls: &[Call<'_>],
    expected: &BoundaryObservation,
    actual: &BoundaryObservation,
) -> (Vec<Violation>, Vec<Measure>) {
    let mut out = Vec::new();
    let measures = measures(actual);
    let has_abort = scenario.abort.is_some();

    if actual.uncaught > 0 {
        out.push(Violation::named(
            req::PROC_01,
            format!(
                "{} unhandled rejection(s) or uncaught exception(s)",
                actual.uncaught
            ),
        ));
    }
    for r in actual.ran.iter().filter(|r| r.after_abort) {
        out.push(Violation::named(
            req::CAN_01,
            format!("tool {} started after the abort", r.tool),
        ));
    }

    // registration
    let duplicates = expected.registration != Registration::Ok;
    match (&expected.registration, &actual.registration) {
        (Registration::Refused { .. }, Registration::Ok) => out.push(Violation::named(
            req::DUP_01,
            "tools with the same name were registered without a refusal",
        )),
        (Registration::Ok, Registration::Refused { name, message }) => {
            out.push(Violation::named(
                req::RUN_01,
                format!("registering distinct tools was refused: {name}: {message}"),
            ));
            return (out, measures);
        }
        _ => {}
    }
    if actual.registration != Registration::Ok {
        return (out, measures);
    }

    // refused calls that ran, however the turn ended
    if !duplicates {
        refused_starts(calls, actual, &mut out);
    }

    // how the turn ended: what a turn that did not complete is charged to
    // is read from what was observed (`attribution`)
    let failing = calls
        .iter()
        .any(|c| matches!(c.kind, Kind::Unknown | Kind::Invalid | Kind::Fails));
    let huge = calls.iter().any(|c| huge_arguments(&c.spec.arguments));
    let never_settles = calls.iter().any(|c| c.may_hang);
    over_bounds(actual, huge, never_settles, &mut out);
    match &actual.turn {
        TurnEnd::Completed | TurnEnd::Aborted if has_abort => {}
        TurnEnd::Completed => {}
        TurnEnd::Pending => {
            out.extend(attribution::pending(scenario, calls, actual));
            return (out, measures);
        }
        TurnEnd::Rejected {
            name,
            message,
            after_abort,
            carries_abort,
        } => {
            let by = attribution::rejected(
                scenario,
                calls,
                actual,
                name,
                message,
                *after_abort,
                *carries_abort,
                &mut out,
            );
            // ended by the abort: what it kept is judged as a completed
            // turn's results, and what it lost by BOUNDARY-CAN-03 (below)
            if let attribution::Rejection::Charged = by {
                return (out, measures);
            }
        }
        TurnEnd::Aborted | TurnEnd::NotRun => {
            out.push(Violation::named(
                req::LINK_01,
                format!(
                    "the turn ended as {} without an abort or a refusal",
                    if actual.turn == TurnEnd::Aborted {
                        "aborted"
                    } else {
                        "not run"
                    }
                ),
            ));
            return (out, measures);
        }
    }

    // a completed turn (or what an aborted one kept): one result per call
    let ids: Vec<&str> = calls.iter().map(|c| c.spec.id.as_str()).collect();
    for r in &actual.results {
        match &r.call_id {
            Some(id) if ids.contains(&id.as_str()) => {}
            other => out.push(Violation::named(
                req::LINK_01,
                match other {
                    Some(id) => {
                        format!("a result linked to call {id}, which is no call of the turn")
                    }
                    None => "a result linked to no call".to_string(),
                },
            )),
        }
    }
    let mut unattributed = std::collections::BTreeSet::new();
    for call in calls {
        let id = &call.spec.id;
        let mine: Vec<&ResultSeen> = actual
            .results
            .iter()
            .filter(|r| r.call_id.as_deref() == Some(id))
            .collect();
        let expected_result = expected
            .results
            .iter()
            .any(|r| r.call_id.as_deref() == Some(id));
        let completed = actual.turn == TurnEnd::Completed;
        if mine.len() > 1 || (mine.is_empty() && ((expected_result && completed) || !has_abort)) {
            let id_req = if mine.is_empty() && failing && !duplicates {
                req::TURN_01
            } else {
                req::LINK_01
            };
            out.push(Violation::named(
                id_req,
                format!("call {id}: {} result(s), expected one", mine.len()),
            ));
        }
        if duplicates {
            // which of the same-named tools ran is the runtime's choice
            continue;
        }
        // starts are the call's when the runtime gives its tool bodies the
        // call id, or when no other call of the turn names the tool; else
        // they are counted per tool after this loop
        let attributable = call.alone
            || actual
                .ran
                .iter()
                .any(|r| Some(r.tool) == call.tool && r.call_id.is_some());
        let starts = if attributable {
            actual
                .ran
                .iter()
                .filter(|r| match &r.call_id {
                    Some(c) => c == id,
                    None => Some(r.tool) == call.tool,
                })
                .count()
        } else {
            unattributed.insert(call.tool);
            1
        };
        let flag = mine.first().map(|r| r.is_error);
        let (failure_req, failure_what) = match call.kind {
            Kind::Unknown => (req::UNK_01, "an unknown tool"),
            Kind::Invalid => (req::VAL_01, "refused arguments"),
            Kind::Fails => (req::ERR_01, "a tool that threw or rejected"),
            _ => ("", ""),
        };
        if !failure_req.is_empty() {
            match flag {
                Some(Some(false)) => out.push(Violation::named(
                    failure_req,
                    format!("call {id}: {failure_what} gave a success result"),
                )),
                Some(None) => out.push(Violation::named(
                    req::FLAG_01,
                    format!("call {id}: {failure_what} gave a result the model cannot tell from a success (no error flag)"),
                )),
                _ => {}
            }
        }
        match &call.kind {
            // huge arguments may be refused (a host's stack or size limit,
            // as the core allows): ARGS-01 and TURN-01 judge them
            Kind::Works(_) if huge_arguments(&call.spec.arguments) => {}
            // a call the reference did not complete (the abort stopped it)
            // may end however the runtime reports a cancellation
            Kind::Works(_) if !expected_result => {}
            Kind::Works(output) => {
                if starts != 1 && !has_abort {
                    out.push(Violation::named(
                        req::RUN_01,
                        format!("call {id}: its tool started {starts} time(s), expected once"),
                    ));
                }
                if let Some(r) = mine.first() {
                    if r.is_error == Some(true) {
                        out.push(Violation::named(
                            req::RUN_01,
                            format!(
                                "call {id}: a valid call to a working tool gave an error result"
                            ),
                        ));
                    } else if let Some(output) = output {
                        if !reaches(output, &r.delivered) {
                            out.push(Violation::named(
                                req::RUN_01,
                                format!("call {id}: the tool's output {output} is not in what the model receives"),
                            ));
                        }
                    }
                }
            }
            Kind::Pending if !has_abort => {
                if let Some(Some(false)) = flag {
                    out.push(Violation::named(
                        req::TIME_01,
                        format!("call {id}: a tool that never settled gave a success result"),
                    ));
                }
            }
            _ => {}
        }
    }
    if !duplicates {
        runs_per_tool(&unattributed, expected, actual, calls, &mut out);
    }
    if has_abort {
        lost_on_abort(expected, actual, &mut out);
    }

    // what the measures say, against the bounds
    for r in &actual.results {
        let bytes = r
            .bytes
            .unwrap_or_else(|| serde_json::to_string(&r.delivered).map_or(0.0, |t| t.len() as f64));
        if bytes > RESULT_BYTES_BOUND {
            out.push(Violation::named(
                req::SIZE_01,
                format!(
                    "the result for call {} is {bytes} bytes, above {RESULT_BYTES_BOUND}",
                    r.call_id.as_deref().unwrap_or("(no call id)")
                ),
            ));
        }
    }
    (out, measures)
}

/// BOUNDARY-ARGS-01 and BOUNDARY-CAN-02: the figures against their bounds.
/// A span counts without the waits for a CPU of the thread that ran the
/// turn, where the adapter measured them: they are the machine's load,
/// not the runtime's work, and a verdict must not come from the load. A
/// turn with a tool that never settles lasts until its deadline or its
/// abort, whatever the arguments: its time says nothing of them.
fn over_bounds(
    actual: &BoundaryObservation,
    huge: bool,
    never_settles: bool,
    out: &mut Vec<Violation>,
) {
    if let Some(m) = &actual.measured {
        let turn_ms = m.turn_ms();
        let slow = turn_ms > ANSWER_MS_BOUND && !never_settles;
        if huge && (slow || m.peak_memory_growth_bytes > MEMORY_BYTES_BOUND) {
            out.push(Violation::named(
                req::ARGS_01,
                format!(
                    "huge arguments took {} and {:.0} MiB of peak memory growth (bounds {ANSWER_MS_BOUND} ms, {} MiB)",
                    time_told(m.wall_ms, m.cpu_wait_ms),
                    m.peak_memory_growth_bytes / 1_048_576.0,
                    MEMORY_BYTES_BOUND / 1_048_576.0
                ),
            ));
        }
        if let (Some(ms), Some(counted)) = (m.abort_to_end_ms, m.abort_to_end_counted_ms()) {
            if counted > ABORT_MS_BOUND {
                out.push(Violation::named(
                    req::CAN_02,
                    format!(
                        "the turn ended {} after the abort (bound {ABORT_MS_BOUND} ms)",
                        time_told(ms, m.abort_to_end_cpu_wait_ms)
                    ),
                ));
            }
        }
    }
}

/// A span as a violation tells it: the time counted, and when the adapter
/// measured the waits for a CPU, the wall time they were taken from (in
/// one shape whatever they were, so that findings group by it).
fn time_told(ms: f64, wait: Option<f64>) -> String {
    match wait {
        Some(wait) => format!(
            "{:.0} ms ({ms:.0} ms of wall time less {wait:.0} ms waiting for a CPU)",
            counted(ms, Some(wait))
        ),
        None => format!("{ms:.0} ms"),
    }
}

/// BOUNDARY-VAL-01 (and UNK-01): a start that is a refused call's: linked
/// to it by call id, or without an id, of its tool, when no other call of
/// the turn names that tool. (Starts of a tool several calls name, without
/// ids, are counted in `runs_per_tool`.)
fn refused_starts(calls: &[Call<'_>], actual: &BoundaryObservation, out: &mut Vec<Violation>) {
    for call in calls {
        let (id_req, what) = match call.kind {
            Kind::Unknown => (req::UNK_01, "an unknown tool"),
            Kind::Invalid => (req::VAL_01, "refused arguments"),
            _ => continue,
        };
        let id = &call.spec.id;
        let started = actual.ran.iter().any(|r| match &r.call_id {
            Some(c) => c == id,
            None => call.alone && Some(r.tool) == call.tool,
        });
        if started {
            out.push(Violation::named(
                id_req,
                format!("call {id}: a tool ran for {what}"),
            ));
        }
    }
}

/// Starts without call ids of tools several calls name: the tool must have
/// started as often as the reference ran it (more is a refused call run,
/// fewer a valid call not run).
fn runs_per_tool(
    tools: &std::collections::BTreeSet<Option<usize>>,
    expected: &BoundaryObservation,
    actual: &BoundaryObservation,
    calls: &[Call<'_>],
    out: &mut Vec<Violation>,
) {
    for tool in tools.iter().flatten() {
        let want = expected.ran.iter().filter(|r| r.tool == *tool).count();
        let got = actual.ran.iter().filter(|r| r.tool == *tool).count();
        let refused = calls
            .iter()
            .any(|c| c.tool == Some(*tool) && c.kind == Kind::Invalid);
        // a valid call with huge arguments may be refused (as each such
        // call is when judged alone): its start may be missing
        let may_refuse = calls
            .iter()
            .filter(|c| {
                c.tool == Some(*tool)
                    && matches!(c.kind, Kind::Works(_))
                    && huge_arguments(&c.spec.arguments)
            })
            .count();
        if got > want && refused {
            out.push(Violation::named(
                req::VAL_01,
                format!("tool {tool} started {got} time(s), but only {want} of its calls have arguments it accepts"),
            ));
        } else if (got > want || got + may_refuse < want) && expected.turn == TurnEnd::Completed {
            out.push(Violation::named(
                req::RUN_01,
                format!("tool {tool} started {got} time(s), expected {want} (one per valid call)"),
            ));
        }
    }
}

/// BOUNDARY-CAN-03: the results of calls that finished before the abort
/// are kept.
fn lost_on_abort(
    expected: &BoundaryObservation,
    actual: &BoundaryObservation,
    out: &mut Vec<Violation>,
) {
    for e in &expected.results {
        let kept = actual.results.iter().any(|a| a.call_id == e.call_id);
        if !kept {
            out.push(Violation::named(
                req::CAN_03,
                format!(
                    "the result of call {}, finished before the abort, was lost",
                    e.call_id.as_deref().unwrap_or("(no call id)")
                ),
            ));
        }
    }
}

fn classify<'a>(scenario: &'a BoundaryScenario, behaviours: &[Behaviour]) -> Vec<Call<'a>> {
    scenario
        .turn
        .iter()
        .map(|spec| {
            let tool = scenario.tools.iter().position(|t| t.name == spec.name);
            let alone = scenario.turn.iter().filter(|c| c.name == spec.name).count() == 1;
            let kind = match tool.and_then(|i| Some((scenario.tools.get(i)?, behaviours.get(i)?))) {
                None => Kind::Unknown,
                Some((t, b)) => {
                    let refused = verdict(&t.input_schema, t.check.as_ref(), &spec.arguments, "")
                        .ok()
                        .flatten()
                        .is_some();
                    if refused {
                        Kind::Invalid
                    } else {
                        kind_of(b)
                    }
                }
            };
            let may_hang = scenario
                .tools
                .iter()
                .zip(behaviours)
                .any(|(t, b)| t.name == spec.name && b.is_pending());
            let mut signatures = Vec::new();
            match (tool.and_then(|i| scenario.tools.get(i)), &kind) {
                (None, _) => signatures.push(spec.name.clone()),
                // a runtime's refusal names the tool (and the check's
                // message, when the check refused)
                (Some(t), Kind::Invalid) => {
                    signatures.push(t.name.clone());
                    signatures.extend(t.check.as_ref().map(|c| c.message.clone()));
                }
                _ => {}
            }
            if let Some(b) = tool.and_then(|i| behaviours.get(i)) {
                thrown_texts(b, &mut signatures);
            }
            // too short to tell one call's failure from another's
            signatures.retain(|s| s.trim().chars().count() >= 2);
            let huge_output = tool
                .and_then(|i| scenario.tools.get(i))
                .is_some_and(|t| huge_arguments(&t.behaviour));
            Call {
                spec,
                kind,
                tool,
                alone,
                may_hang,
                signatures,
                huge_output,
            }
        })
        .collect()
}

/// The texts a failure of `b` carries: what it throws or rejects with, the
/// messages of throwing getters and `toJSON`s in what it returns.
fn thrown_texts(b: &Behaviour, out: &mut Vec<String>) {
    match b {
        Behaviour::Throws(e) | Behaviour::Rejects(e) => {
            let text = match (e.get("error"), e.get("string"), e.get("value")) {
                (Some(Json::String(m)), _, _) | (_, Some(Json::String(m)), _) => Some(m.clone()),
                (_, _, Some(Json::String(v))) => Some(v.clone()),
                (_, _, Some(v @ Json::Number(_))) => Some(v.to_string()),
                _ => None,
            };
            out.extend(text);
        }
        Behaviour::Progress { then, .. } => thrown_texts(then, out),
        Behaviour::Returns(v) | Behaviour::Resolves(v) => {
            let mut open = vec![v];
            while let Some(v) = open.pop() {
                match v {
                    Json::Array(items) => open.extend(items),
                    Json::Object(o) => match o.get("$").and_then(Json::as_str) {
                        Some("throwingGetter" | "throwingToJSON") => {
                            out.extend(o.get("message").and_then(Json::as_str).map(str::to_string));
                        }
                        Some(_) => {}
                        None => open.extend(o.values()),
                    },
                    _ => {}
                }
            }
        }
        Behaviour::Pending { .. } => {}
    }
}

/// Whether the core's serializer surely keeps plain `v` whole: its text
/// well under the output cap (1,024 bytes), and its nesting and its
/// number of values under the depth and node budgets with a margin (a
/// 36-deep object of 900 bytes is cut at depth 33: the fuzz finding
/// `corpus/regressions/boundary_fast/a-plain-output-deeper-than-the-depth-budget.json`).
fn kept_whole(v: &Json) -> bool {
    use toolgate_core::constants::{MAX_DEPTH, MAX_NODES};
    if serde_json::to_string(v).map_or(true, |t| t.len() > 1_024) {
        return false;
    }
    let mut nodes = 0;
    let mut open = vec![(v, 1)];
    while let Some((v, depth)) = open.pop() {
        nodes += 1;
        if depth >= MAX_DEPTH || nodes >= MAX_NODES {
            return false;
        }
        match v {
            Json::Array(items) => open.extend(items.iter().map(|i| (i, depth + 1))),
            Json::Object(o) => open.extend(o.values().map(|i| (i, depth + 1))),
            _ => {}
        }
    }
    true
}

fn kind_of(b: &Behaviour) -> Kind {
    match b {
        Behaviour::Throws(_) | Behaviour::Rejects(_) => Kind::Fails,
        Behaviour::Pending { .. } => Kind::Pending,
        Behaviour::Progress { then, .. } => kind_of(then),
        Behaviour::Returns(v) | Behaviour::Resolves(v) => {
            if is_plain(v) {
                // small plain values are looked for in what is delivered:
                // those no budget of the core's serializer cuts
                Kind::Works((kept_whole(v) && !v.is_null()).then(|| v.clone()))
            } else {
                Kind::Hostile
            }
        }
    }
}

/// Plain JSON: no `$` family anywhere (a `literal` counts as plain).
fn is_plain(v: &Json) -> bool {
    let mut open = vec![v];
    while let Some(v) = open.pop() {
        match v {
            Json::Array(items) => open.extend(items),
            Json::Object(o) => match o.get("$").and_then(Json::as_str) {
                Some("literal") => {}
                Some(_) => return false,
                None => open.extend(o.values()),
            },
            _ => {}
        }
    }
    true
}

/// Whether the arguments hold one of the large families at a huge size.
pub fn huge_arguments(v: &Json) -> bool {
    let mut open = vec![v];
    while let Some(v) = open.pop() {
        match v {
            Json::Array(items) => open.extend(items),
            Json::Object(o) => match o.get("$").and_then(Json::as_str) {
                Some("deep" | "wide" | "longString") => {
                    let size = ["depth", "keys", "length"]
                        .iter()
                        .find_map(|k| o.get(*k).and_then(Json::as_u64))
                        .unwrap_or(0);
                    if size >= HUGE_ARGUMENTS {
                        return true;
                    }
                }
                Some(_) => {}
                None => open.extend(o.values()),
            },
            _ => {}
        }
    }
    false
}

/// Whether `output` (plain JSON, `literal`s unwrapped) reaches the model:
/// somewhere in `delivered` as that value, or as a string that is its JSON
/// text (or, for a string output, the string itself).
pub fn reaches(output: &Json, delivered: &Json) -> bool {
    let output = unwrap_literals(output);
    let mut open = vec![delivered];
    while let Some(d) = open.pop() {
        if js_equal(d, &output) {
            return true;
        }
        match d {
            Json::String(s)
                if serde_json::from_str::<Json>(s).is_ok_and(|p| js_equal(&p, &output)) =>
            {
                return true;
            }
            Json::Array(items) => open.extend(items),
            Json::Object(o) => open.extend(o.values()),
            _ => {}
        }
    }
    false
}

/// Whether two JSON values are one value as JavaScript reads them: numbers
/// by value (a tool's `0.0` reaches the model as `0`: found by the
/// `boundary_fast` target on 2026-12-05, a tool returning `{"length":
/// 0.0}`), the rest structurally, object keys in any order.
fn js_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| js_equal(x, y))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| js_equal(v, w)))
        }
        _ => a == b,
    }
}

fn unwrap_literals(v: &Json) -> Json {
    match v {
        Json::Array(items) => Json::Array(items.iter().map(unwrap_literals).collect()),
        Json::Object(o) => match (o.get("$").and_then(Json::as_str), o.get("value")) {
            (Some("literal"), Some(inner)) => inner.clone(),
            _ => Json::Object(
                o.iter()
                    .map(|(k, v)| (k.clone(), unwrap_literals(v)))
                    .collect(),
            ),
        },
        other => other.clone(),
    }
}

fn measures(actual: &BoundaryObservation) -> Vec<Measure> {
    let Some(m) = &actual.measured else {
        return Vec::new();
    };
    let mut out = vec![
        Measure {
            name: "wall time".into(),
            value: m.wall_ms,
            unit: "ms".into(),
            bound: None,
        },
        Measure {
            name: "peak memory growth".into(),
            value: m.peak_memory_growth_bytes,
            unit: "bytes".into(),
            bound: Some(MEMORY_BYTES_BOUND),
        },
        Measure {
            name: "bytes the model receives".into(),
            value: m.delivered_bytes,
            unit: "bytes".into(),
            bound: None,
        },
    ];
    if let Some(ms) = m.cpu_wait_ms {
        out.push(Measure {
            name: "waiting for a CPU".into(),
            value: ms,
            unit: "ms".into(),
            bound: None,
        });
    }
    if let Some(ms) = m.abort_to_end_ms {
        out.push(Measure {
            name: "abort to end".into(),
            value: ms,
            unit: "ms".into(),
            bound: Some(ABORT_MS_BOUND),
        });
    }
    out
}
