//! One boundary case on a runtime, through its shim: the case's tools and
//! turn built in Rust, the abort timed by latches on the tools' own events,
//! the turn given a settle window, and what happened encoded as the suite's
//! observation (`corpus/schema/boundary-observation.schema.json`). The same
//! steps as `adapters/node/boundary/observe.mjs` and
//! `adapters/python/src/toolgate_adapter/observe.py`.
//!
//! The turn runs on the harness's current-thread tokio runtime, so "once
//! everything ready has run" (where JavaScript waits one macrotask) is a
//! fixed number of scheduler rounds ([`IDLE_ROUNDS`]): each
//! `yield_now` lets every task already woken run first. Nothing here
//! sleeps to order anything; only the settle window is a clock.

use crate::bodies::{body_for, EventKind, OnEvent, Release, ToolEvent};
use crate::encode::{encode_delivered, utf8_bytes};
use crate::panics;
use crate::shim::{Call, Cancellation, Check, Shim, Tool, Turn, TurnError, TurnOutcome};
use crate::values::{materialize_json, Arguments};
use futures::FutureExt;
use serde_json::{json, Map, Value};
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Scheduler rounds that make "everything ready has run": a tool's settle
/// reaches the runtime's code through a few wakes at most (a spawned
/// task's join handle, a channel, the turn's own future).
pub const IDLE_ROUNDS: u32 = 16;

/// What the harness answers for one case.
pub enum Answer {
    Observation(Value),
    Skipped(String),
    Error(String),
}

/// Yields until every task already woken has run, [`IDLE_ROUNDS`] times.
pub async fn until_idle() {
    for _ in 0..IDLE_ROUNDS {
        tokio::task::yield_now().await;
    }
}

struct Timing {
    before: bool,
    while_pending: Option<String>,
    after_settled: Option<String>,
}

/// The case's timing and call names, as the latches read them.
struct Case<'a> {
    scenario: &'a Value,
    timing: Timing,
    /// Per tool: whether its body never settles on its own.
    pending_tools: Vec<bool>,
}

impl Case<'_> {
    fn tools(&self) -> &[Value] {
        self.scenario["tools"].as_array().map_or(&[], Vec::as_slice)
    }

    fn calls(&self) -> &[Value] {
        self.scenario["turn"].as_array().map_or(&[], Vec::as_slice)
    }

    /// The tool a call id names (the first tool of its name), if any.
    fn tool_of_call(&self, id: &str) -> Option<usize> {
        let call = self.calls().iter().find(|c| c["id"] == id)?;
        self.tools().iter().position(|t| t["name"] == call["name"])
    }
}

fn is_pending(behaviour: &Value) -> bool {
    let mut last = behaviour;
    while let Some(then) = last.get("then") {
        last = then;
    }
    last.get("pending").is_some()
}

fn checker(spec: &Value) -> Option<Check> {
    let key = spec.get("key")?.as_str()?.to_string();
    let equals = spec.get("equals")?.clone();
    let message = spec.get("message")?.as_str()?.to_string();
    Some(std::sync::Arc::new(move |args: &Value| {
        let same = args.as_object().and_then(|o| o.get(&key)) == Some(&equals);
        same.then(|| message.clone())
    }))
}

/// The state of one case's turn, as its events arrive.
struct Watch<'a> {
    case: &'a Case<'a>,
    signal: CancellationToken,
    aborted_at: Option<Instant>,
    /// This thread's waits for a CPU when the abort came.
    waited_at_abort: Option<f64>,
    ran: Vec<Map<String, Value>>,
    started: Vec<usize>,
    /// Each settle, matched to its start once the turn ended.
    settles: Vec<(usize, Option<String>, bool, Instant)>,
    /// An abort waiting for the scheduler to go idle, and whether it is the
    /// `whilePending` one (which checks its condition again then).
    armed: Option<bool>,
    rounds: u32,
    mirror: Option<Mirror>,
}

impl<'a> Watch<'a> {
    fn new(case: &'a Case<'a>, signal: CancellationToken) -> Watch<'a> {
        Watch {
            case,
            signal,
            aborted_at: None,
            waited_at_abort: None,
            ran: Vec::new(),
            started: Vec::new(),
            settles: Vec::new(),
            armed: None,
            rounds: 0,
            mirror: None,
        }
    }

    fn abort(&mut self) {
        if self.aborted_at.is_none() {
            let now = Instant::now();
            self.aborted_at = Some(now);
            self.waited_at_abort = cpu_wait_ms();
            if let Some(mirror) = &self.mirror {
                mirror(Happened::Aborted(now));
            }
            self.signal.cancel();
        }
    }

    fn waiting(&self) -> bool {
        self.started
            .iter()
            .any(|&i| !self.case.pending_tools[i] && !self.settles.iter().any(|s| s.0 == i))
    }

    fn maybe_abort_while_pending(&mut self) {
        let Some(named) = &self.case.timing.while_pending else {
            return;
        };
        if self.armed.is_some() || self.aborted_at.is_some() {
            return;
        }
        let Some(tool) = self.case.tool_of_call(named) else {
            return;
        };
        if !self.started.contains(&tool) || self.waiting() {
            return;
        }
        self.arm(true);
    }

    fn arm(&mut self, while_pending: bool) {
        self.armed = Some(while_pending);
        self.rounds = 0;
    }

    /// One scheduler round passed with an abort armed.
    fn round(&mut self) {
        self.rounds += 1;
        if self.rounds < IDLE_ROUNDS {
            return;
        }
        let while_pending = self.armed.take() == Some(true);
        if !(while_pending && self.waiting()) {
            self.abort();
        }
    }

    fn record(&mut self, event: ToolEvent) {
        match event.kind {
            EventKind::Start => {
                let mut entry = Map::new();
                entry.insert("tool".into(), event.index.into());
                if let Some(id) = &event.call_id {
                    entry.insert("callId".into(), id.clone().into());
                }
                if self.aborted_at.is_some_and(|a| event.at > a) {
                    entry.insert("afterAbort".into(), true.into());
                }
                self.ran.push(entry);
                self.started.push(event.index);
                self.maybe_abort_while_pending();
            }
            EventKind::Settle { fulfilled } => {
                self.settles
                    .push((event.index, event.call_id.clone(), fulfilled, event.at));
                if let Some(named) = &self.case.timing.after_settled {
                    if self.case.tool_of_call(named) == Some(event.index)
                        && self.aborted_at.is_none()
                    {
                        self.arm(false);
                    }
                }
                self.maybe_abort_while_pending();
            }
            EventKind::Progress => {}
        }
    }

    /// Marks each start with how its body had settled when the turn ended
    /// (`pending`: not yet): the settle with its call id, else the first of
    /// its tool not yet matched, in the order they happened.
    fn mark_settled(&mut self, ended: Instant) {
        let mut left: Vec<_> = self.settles.iter().filter(|s| s.3 <= ended).collect();
        left.sort_by_key(|s| s.3);
        for entry in &mut self.ran {
            let tool = entry["tool"].as_u64().unwrap_or(u64::MAX) as usize;
            let call_id = entry.get("callId").and_then(Value::as_str);
            let found = left
                .iter()
                .position(|s| s.0 == tool && s.1.as_deref() == call_id)
                .or_else(|| left.iter().position(|s| s.0 == tool));
            let settled = match found {
                Some(at) => {
                    if left.remove(at).2 {
                        "fulfilled"
                    } else {
                        "rejected"
                    }
                }
                None => "pending",
            };
            entry.insert("settled".into(), settled.into());
        }
    }
}

/// How the turn ended.
enum Ended {
    Returned(Result<TurnOutcome, TurnError>),
    Panicked(String),
    Dropped,
    Pending,
}

/// The scenario's tools, with bodies reporting to `on_event`.
fn build_tools(case: &Case, on_event: &OnEvent, release: &Release) -> Result<Vec<Tool>, String> {
    let mut tools = Vec::new();
    for (index, spec) in case.tools().iter().enumerate() {
        let name = spec["name"].as_str().unwrap_or_default().to_string();
        let copies = case.calls().iter().filter(|c| c["name"] == name).count();
        let behaviour = spec["behaviour"].clone();
        tools.push(Tool {
            body: body_for(&behaviour, index, copies, on_event.clone(), release)?,
            name,
            description: spec["description"].as_str().unwrap_or_default().into(),
            input_schema: spec["inputSchema"].clone(),
            check: spec.get("check").and_then(checker),
            index,
            behaviour,
            on_event: on_event.clone(),
        });
    }
    Ok(tools)
}

impl<'a> Case<'a> {
    fn new(scenario: &'a Value) -> Case<'a> {
        let abort = &scenario["abort"];
        let pending_tools = scenario["tools"]
            .as_array()
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|t| is_pending(&t["behaviour"]))
            .collect();
        Case {
            scenario,
            timing: Timing {
                before: abort.get("before").is_some(),
                while_pending: abort["whilePending"].as_str().map(str::to_string),
                after_settled: abort["afterSettled"].as_str().map(str::to_string),
            },
            pending_tools,
        }
    }
}

/// What happened while a case ran, as it happened: every tool event when
/// its body emits it, and the abort when the harness makes it. A case run
/// in a child process mirrors them to its parent, which still has them if
/// the runtime kills the child.
pub enum Happened<'a> {
    Event(&'a ToolEvent),
    Aborted(Instant),
}

/// Where [`Happened`] goes.
pub type Mirror = std::sync::Arc<dyn Fn(Happened<'_>) + Send + Sync>;

/// The `ran` entries of `scenario`'s observation from the events a case
/// emitted (those after `end` not counted) and the abort's instant.
pub fn ran_of(
    scenario: &Value,
    events: Vec<ToolEvent>,
    aborted_at: Option<Instant>,
    end: Instant,
) -> Value {
    let case = Case::new(scenario);
    let mut watch = Watch::new(&case, CancellationToken::new());
    watch.aborted_at = aborted_at;
    for event in events.into_iter().filter(|e| e.at <= end) {
        watch.record(event);
    }
    watch.mark_settled(end);
    Value::Array(watch.ran.into_iter().map(Value::Object).collect())
}

/// Runs `scenario` on `shim` and answers with its observation; `mirror`
/// is told what happens as it happens.
pub async fn observe_case<S: Shim>(
    shim: &S,
    scenario: &Value,
    settle: Duration,
    release: &Release,
    mirror: Option<Mirror>,
) -> Answer {
    let case = Case::new(scenario);
    let (sender, mut events) = tokio::sync::mpsc::unbounded_channel::<ToolEvent>();
    let events_mirror = mirror.clone();
    let on_event: OnEvent = std::sync::Arc::new(move |event| {
        if let Some(mirror) = &events_mirror {
            mirror(Happened::Event(&event));
        }
        let _ = sender.send(event);
    });
    let tools = match build_tools(&case, &on_event, release) {
        Ok(tools) => tools,
        Err(message) => {
            return Answer::Error(format!("could not build the case's tools: {message}"))
        }
    };
    drop(on_event);
    let mut calls = Vec::new();
    for call in case.calls() {
        let arguments = match materialize_json(&call["arguments"]) {
            Ok(value) => Arguments::new(value),
            Err(why) => return Answer::Skipped(format!("arguments a model cannot send: {why}")),
        };
        calls.push(Call {
            id: call["id"].as_str().unwrap_or_default().into(),
            name: call["name"].as_str().unwrap_or_default().into(),
            arguments,
        });
    }
    let signal = CancellationToken::new();
    let mut watch = Watch::new(&case, signal.clone());
    watch.mirror = mirror;
    let by_drop = shim.cancellation() == Cancellation::Drop;
    let turn = Turn {
        tools,
        calls,
        signal: signal.clone(),
    };

    let panics_before = panics::runtime_panics();
    let rss_before = peak_rss_bytes();
    let waited_at_start = cpu_wait_ms();
    let start = Instant::now();
    if case.timing.before {
        watch.abort();
    }
    // the window counts the turn's time as the bounds do, without this
    // thread's waits for a CPU: the waits are owed back, up to one more
    // window (so that it stays well within the runner's --timeout)
    let mut deadline = tokio::time::Instant::now() + settle;
    let mut extended = 0.0;
    let mut turn = Some(
        AssertUnwindSafe(shim.run_turn(turn))
            .catch_unwind()
            .boxed_local(),
    );
    let ended = loop {
        if by_drop && watch.aborted_at.is_some() {
            // Rust's cancellation: the turn's future is dropped
            turn = None;
            break Ended::Dropped;
        }
        let Some(running) = turn.as_mut() else {
            break Ended::Dropped;
        };
        tokio::select! {
            biased;
            result = running => break match result {
                Ok(returned) => Ended::Returned(returned),
                Err(payload) => Ended::Panicked(panics::caught(payload.as_ref())),
            },
            Some(event) = events.recv() => watch.record(event),
            _ = tokio::task::yield_now(), if watch.armed.is_some() => watch.round(),
            _ = tokio::time::sleep_until(deadline) => {
                let settle_ms = settle.as_secs_f64() * 1000.0;
                let owed = window_owed(waited_at_start, cpu_wait_ms(), settle_ms, extended);
                if owed == 0.0 {
                    break Ended::Pending;
                }
                extended += owed;
                deadline += Duration::from_secs_f64(owed / 1000.0);
            }
        }
    };
    // a dropped turn's bodies settle as it is dropped (Rust's
    // cancellation reaching them), which is part of its ending; a pending
    // turn has ended when the window closed, and what its drop does after
    // that is not part of it
    let end = if matches!(ended, Ended::Pending) {
        let end = Instant::now();
        // abandoned, as a caller's timeout abandons it: its signal aborts
        // and its future is dropped
        signal.cancel();
        drop(turn);
        end
    } else {
        drop(turn);
        Instant::now()
    };
    let waited_at_end = cpu_wait_ms();
    // events already sent (a body settled just before the end) are taken;
    // which of them count is decided by when they happened
    while let Ok(event) = events.try_recv() {
        watch.record(event);
    }
    watch.mark_settled(end);

    let mut measured = Map::new();
    measured.insert("wallMs".into(), millis(end - start));
    measured.insert(
        "peakMemoryGrowthBytes".into(),
        peak_rss_bytes().saturating_sub(rss_before).into(),
    );
    let mut delivered_bytes = 0u64;
    let pending = matches!(ended, Ended::Pending);
    if let (Some(at), false) = (watch.aborted_at, pending) {
        measured.insert(
            "abortToEndMs".into(),
            millis(end.saturating_duration_since(at)),
        );
    }
    if let (Some(from), Some(to)) = (waited_at_start, waited_at_end) {
        measured.insert("cpuWaitMs".into(), thousandths(to - from));
        if let (Some(from), true) = (watch.waited_at_abort, measured.contains_key("abortToEndMs")) {
            measured.insert("abortToEndCpuWaitMs".into(), thousandths(to - from));
        }
    }
    let mut observation = Map::new();
    observation.insert("registration".into(), "ok".into());
    observation.insert("turn".into(), "completed".into());
    let mut results = Vec::new();
    let after_abort = watch.aborted_at.is_some_and(|a| a <= end);
    match ended {
        Ended::Pending => {
            observation.insert("turn".into(), "pending".into());
        }
        Ended::Dropped => {
            observation.insert("turn".into(), "aborted".into());
        }
        Ended::Panicked(message) => {
            observation.insert(
                "turn".into(),
                json!({"rejected": {"name": "panic", "message": message,
                                    "afterAbort": after_abort, "carriesAbort": false}}),
            );
        }
        Ended::Returned(Err(error)) => {
            observation.insert(
                "turn".into(),
                json!({"rejected": {"name": error.name, "message": error.message,
                                    "afterAbort": after_abort,
                                    "carriesAbort": error.carries_abort}}),
            );
        }
        Ended::Returned(Ok(outcome)) => {
            if let Some(refused) = &outcome.registration_error {
                observation.insert(
                    "registration".into(),
                    json!({"refused": {"name": refused.name, "message": refused.message}}),
                );
                observation.insert("turn".into(), "notRun".into());
            }
            for result in outcome.results {
                let bytes = utf8_bytes(&result.delivered);
                delivered_bytes += bytes;
                results.push(json!({
                    "callId": result.call_id,
                    "isError": result.is_error,
                    "delivered": encode_delivered(&result.delivered),
                    "bytes": bytes,
                }));
                crate::values::dismantle(result.delivered);
            }
            if !outcome.notes.is_empty() {
                observation.insert("notes".into(), outcome.notes.into());
            }
        }
    }
    measured.insert("deliveredBytes".into(), delivered_bytes.into());
    // the case is observed: bodies that ignore their cancellation let go
    // now, so they cost no later case anything, and stray panics of the
    // turn surface
    release.release();
    until_idle().await;
    observation.insert("results".into(), results.into());
    observation.insert(
        "ran".into(),
        Value::Array(watch.ran.into_iter().map(Value::Object).collect()),
    );
    observation.insert(
        "uncaught".into(),
        panics::runtime_panics()
            .saturating_sub(panics_before)
            .into(),
    );
    observation.insert("measured".into(), Value::Object(measured));
    Answer::Observation(Value::Object(observation))
}

fn millis(elapsed: Duration) -> Value {
    thousandths(elapsed.as_secs_f64() * 1000.0)
}

/// Milliseconds to three decimals, never below 0.
fn thousandths(ms: f64) -> Value {
    json!((ms.max(0.0) * 1000.0).round() / 1000.0)
}

/// How long this thread has waited for a CPU while ready to run, in ms;
/// `None` where the system does not say. The turn's time is judged
/// without these waits: they are the machine's load, not the runtime's
/// work. This thread is the one the case's current-thread runtime runs
/// the turn on.
fn cpu_wait_ms() -> Option<f64> {
    waited_ms("/proc/thread-self/schedstat")
}

/// The waits for a CPU a `schedstat` file of `/proc` tells, in ms.
pub(crate) fn waited_ms(schedstat: &str) -> Option<f64> {
    schedstat_wait_ms(&std::fs::read_to_string(schedstat).ok()?)
}

/// How much longer a window of `settle_ms` runs after `extended` ms were
/// added already, for the waits for a CPU since the turn started: at most
/// one more window in all, and 0 when less than a millisecond is owed or
/// the waits are not known.
pub(crate) fn window_owed(
    at_start: Option<f64>,
    now: Option<f64>,
    settle_ms: f64,
    extended: f64,
) -> f64 {
    let (Some(at_start), Some(now)) = (at_start, now) else {
        return 0.0;
    };
    let owed = (now - at_start).min(settle_ms) - extended;
    if owed >= 1.0 {
        owed
    } else {
        0.0
    }
}

/// The wait in a line of Linux's `/proc/<pid>/task/<tid>/schedstat`: ns
/// on a CPU, ns waiting for one while runnable, timeslices.
fn schedstat_wait_ms(line: &str) -> Option<f64> {
    match line.split_whitespace().collect::<Vec<_>>()[..] {
        [_, waited, _] => waited.parse::<u64>().ok().map(|ns| ns as f64 / 1e6),
        _ => None,
    }
}

/// The process's peak resident set, in bytes (Linux reports KiB).
fn peak_rss_bytes() -> u64 {
    // SAFETY: getrusage writes into the zeroed struct it is given
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0;
    }
    (usage.ru_maxrss.max(0) as u64) * 1024
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shim::{ResultSeen, Runtime, TurnError, TurnOutcome};
    use serde_json::json;

    /// A runtime whose tools run "in another process": it never calls a
    /// body, and reports the bodies' events through `Tool::relay` (or not).
    struct Remote {
        relays: bool,
    }

    impl Shim for Remote {
        fn runtime(&self) -> Runtime {
            Runtime {
                id: "remote",
                package: "remote",
                version: "0",
                path: "bodies run elsewhere",
                homepage: None,
            }
        }

        async fn run_turn(&self, turn: Turn) -> Result<TurnOutcome, TurnError> {
            let tool = &turn.tools[0];
            if self.relays {
                tool.relay(EventKind::Start, Some("c1".into()));
                tool.relay(EventKind::Settle { fulfilled: true }, Some("c1".into()));
            }
            Ok(TurnOutcome {
                results: vec![ResultSeen {
                    call_id: Some("c1".into()),
                    is_error: Some(false),
                    delivered: json!("1"),
                }],
                ..TurnOutcome::default()
            })
        }
    }

    fn observation(shim: &Remote) -> Value {
        let scenario = json!({
            "tools": [{"name": "t", "description": "", "inputSchema": {"type": "object"},
                       "behaviour": {"returns": 1}}],
            "turn": [{"id": "c1", "name": "t", "arguments": {}}]
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let answer = runtime.block_on(observe_case(
            shim,
            &scenario,
            Duration::from_secs(2),
            &Release::new(),
            None,
        ));
        let Answer::Observation(observation) = answer else {
            panic!("no observation");
        };
        observation
    }

    fn ran(shim: &Remote) -> Value {
        observation(shim)["ran"].clone()
    }

    #[test]
    fn the_turns_waits_for_a_cpu_come_from_the_schedulers_statistics() {
        // ns on a CPU, ns waiting for one while runnable, timeslices
        assert_eq!(
            schedstat_wait_ms("1373559906 760429235 201\n"),
            Some(760.429235)
        );
        assert_eq!(schedstat_wait_ms("1373559906 760429235"), None);
        assert_eq!(schedstat_wait_ms("1 -2 3"), None);
        assert_eq!(schedstat_wait_ms(""), None);
        // the window is owed the waits since the turn started, up to one
        // more window, less what it was given already
        assert_eq!(window_owed(Some(100.0), Some(100.5), 2000.0, 0.0), 0.0);
        assert_eq!(window_owed(Some(100.0), Some(400.0), 2000.0, 0.0), 300.0);
        assert_eq!(window_owed(Some(100.0), Some(400.0), 2000.0, 300.0), 0.0);
        assert_eq!(window_owed(Some(100.0), Some(900.0), 2000.0, 300.0), 500.0);
        assert_eq!(window_owed(Some(0.0), Some(5000.0), 2000.0, 0.0), 2000.0);
        assert_eq!(window_owed(Some(0.0), Some(5000.0), 2000.0, 2000.0), 0.0);
        assert_eq!(window_owed(None, Some(5000.0), 2000.0, 0.0), 0.0);
        let measured = &observation(&Remote { relays: true })["measured"];
        match cpu_wait_ms() {
            Some(_) => {
                let waited = measured["cpuWaitMs"].as_f64().expect("cpuWaitMs");
                let wall = measured["wallMs"].as_f64().expect("wallMs");
                assert!((0.0..=wall + 0.01).contains(&waited), "{measured}");
            }
            None => assert!(measured.get("cpuWaitMs").is_none(), "{measured}"),
        }
    }

    #[test]
    fn a_body_run_elsewhere_is_seen_through_its_relayed_events() {
        assert_eq!(
            ran(&Remote { relays: true }),
            json!([{"tool": 0, "callId": "c1", "settled": "fulfilled"}])
        );
        assert_eq!(ran(&Remote { relays: false }), json!([]));
    }
}
