//! Deliberate breakages of an observation, as data: each mutant takes the
//! reference's observation of a scenario and breaks one requirement the
//! way a real runtime does (a lost result, a refused call run, a failure
//! read as a success...), and names the requirements the judge must name
//! for it. `properties::check` applies every mutant that fits a scenario,
//! so the judge is tested on every generated, fuzzed and corpus scenario,
//! not only on the shims' deliberate mutants.

use super::judge::{huge_arguments, Kind, ABORT_MS_BOUND, ANSWER_MS_BOUND, RESULT_BYTES_BOUND};
use super::requirements as req;
use super::spec::*;
use serde_json::json;
use toolgate_suite::mutant::Expect;

/// What a mutant reads: the scenario, what each call is, and the
/// reference's observation.
pub struct Subject<'a> {
    pub scenario: &'a BoundaryScenario,
    pub kinds: &'a [Kind],
    pub reference: &'a BoundaryObservation,
}

impl<'a> Subject<'a> {
    fn completed(&self) -> bool {
        self.reference.registration == Registration::Ok && self.reference.turn == TurnEnd::Completed
    }

    fn has_abort(&self) -> bool {
        self.scenario.abort.is_some()
    }

    /// Calls with their kind and their result in the reference, if any.
    fn calls(&self) -> impl Iterator<Item = (&'a TurnCall, &'a Kind, Option<usize>)> + '_ {
        self.scenario
            .turn
            .iter()
            .zip(self.kinds)
            .map(|(call, kind)| {
                let result = self
                    .reference
                    .results
                    .iter()
                    .position(|r| r.call_id.as_deref() == Some(call.id.as_str()));
                (call, kind, result)
            })
    }

    /// A copy of the reference's observation to break.
    fn copy(&self) -> BoundaryObservation {
        self.reference.clone()
    }
}

/// One deliberate breakage.
pub struct Mutant {
    pub name: &'static str,
    /// What the judge must name for it: every requirement of an
    /// attribution, at least one where what breaks depends on the scenario.
    pub expect: Expect,
    /// The broken observation, when the mutant fits the scenario.
    pub apply: fn(&Subject<'_>) -> Option<BoundaryObservation>,
}

/// How each start of the reference's observation settles, by what its
/// call is (a runtime's adapter says so; the reference's projection does
/// not): what an attribution reads.
fn with_settles(s: &Subject<'_>, mut o: BoundaryObservation) -> BoundaryObservation {
    for r in &mut o.ran {
        let kind = s
            .scenario
            .turn
            .iter()
            .zip(s.kinds)
            .find(|(c, _)| r.call_id.as_deref() == Some(c.id.as_str()))
            .map(|(_, k)| k);
        r.settled = Some(match kind {
            Some(Kind::Fails) => Settled::Rejected,
            Some(Kind::Pending) => Settled::Pending,
            _ => Settled::Fulfilled,
        });
    }
    o
}

/// The turn rejected on the first call of `kind` (no abort): every result
/// lost, the rejection saying what the call's failure says.
fn rejects_on(s: &Subject<'_>, kind: fn(&Kind) -> bool) -> Option<BoundaryObservation> {
    (s.completed() && !s.has_abort()).then_some(())?;
    let (call, call_kind, _) = s.calls().find(|(_, k, _)| kind(k))?;
    let tool = s.scenario.tools.iter().find(|t| t.name == call.name);
    // the text a runtime rejects with names what this call is: its
    // unknown name, its tool's thrown message, its check's message; a
    // hostile output's rejection names no call (a serializer's error), so
    // it must not borrow the tool's check message, which is the signature
    // of another call of the same tool refused by that check
    let thrown = |t: &ToolSpec| {
        let thrown = t.behaviour.get("throws").or(t.behaviour.get("rejects"))?;
        let text = thrown.get("error").or(thrown.get("string"));
        Some(
            text.and_then(serde_json::Value::as_str)
                .unwrap_or("")
                .to_string(),
        )
    };
    let message = match (tool, call_kind) {
        (None, _) => format!("Tool {} not found", call.name),
        (Some(t), Kind::Invalid) => t
            .check
            .as_ref()
            .map(|c| c.message.clone())
            .unwrap_or_default(),
        (Some(t), Kind::Fails) => thrown(t).unwrap_or_default(),
        (Some(_), _) => "the tool's output could not be serialized".to_string(),
    };
    let mut o = with_settles(s, s.copy());
    o.turn = TurnEnd::Rejected {
        name: "Error".into(),
        message,
        after_abort: Some(false),
        carries_abort: Some(false),
    };
    o.results.clear();
    Some(o)
}

fn first_failure(s: &Subject<'_>, want: &Kind) -> Option<BoundaryObservation> {
    if s.reference.registration != Registration::Ok {
        return None;
    }
    let (_, _, at) = s.calls().find(|(_, k, r)| *k == want && r.is_some())?;
    let mut o = s.copy();
    o.results.get_mut(at?)?.is_error = Some(false);
    Some(o)
}

/// A working call: its tool ran once and its result reached the model
/// (huge arguments excepted, which a runtime may refuse).
fn working<'a>(s: &Subject<'a>) -> Option<(&'a TurnCall, Option<&'a serde_json::Value>, usize)> {
    if !s.completed() || s.has_abort() {
        return None;
    }
    s.calls().find_map(|(call, kind, result)| match kind {
        Kind::Works(output) if !huge_arguments(&call.arguments) => {
            Some((call, output.as_ref(), result?))
        }
        _ => None,
    })
}

/// Every mutant, in the order they are tried.
pub const ALL: &[Mutant] = &[
    Mutant {
        name: "rejects-on-an-unknown-tool",
        expect: Expect::EveryOf(&[req::UNK_01, req::TURN_01]),
        apply: |s| rejects_on(s, |k| *k == Kind::Unknown),
    },
    Mutant {
        name: "rejects-on-refused-arguments",
        expect: Expect::EveryOf(&[req::VAL_01, req::TURN_01]),
        apply: |s| rejects_on(s, |k| *k == Kind::Invalid),
    },
    Mutant {
        name: "rejects-on-a-throw",
        expect: Expect::EveryOf(&[req::ERR_01, req::TURN_01]),
        apply: |s| rejects_on(s, |k| *k == Kind::Fails),
    },
    Mutant {
        name: "rejects-on-a-hostile-output",
        expect: Expect::EveryOf(&[req::OUT_01]),
        apply: |s| rejects_on(s, |k| *k == Kind::Hostile),
    },
    Mutant {
        name: "rejects-on-a-throw-before-the-abort",
        expect: Expect::EveryOf(&[req::ERR_01, req::TURN_01]),
        apply: |s| {
            // the failing call settled first; the runtime rejected the turn
            // on it before the adapter's abort came
            (s.has_abort() && s.reference.registration == Registration::Ok).then_some(())?;
            let (call, _, result) = s.calls().find(|(_, k, _)| **k == Kind::Fails)?;
            result?;
            let mut o = with_settles(s, s.copy());
            o.turn = TurnEnd::Rejected {
                name: "Error".into(),
                message: format!("call {} failed", call.id),
                after_abort: Some(false),
                carries_abort: Some(false),
            };
            o.results.clear();
            Some(o)
        },
    },
    Mutant {
        name: "an-escape",
        expect: Expect::AnyOf(&[req::PROC_01]),
        apply: |s| {
            let mut o = s.copy();
            o.uncaught += 1;
            Some(o)
        },
    },
    Mutant {
        name: "a-start-after-the-abort",
        expect: Expect::AnyOf(&[req::CAN_01]),
        apply: |s| {
            s.scenario.tools.first()?;
            let mut o = s.copy();
            o.ran.push(RanSeen {
                tool: 0,
                call_id: None,
                after_abort: true,
                settled: None,
            });
            Some(o)
        },
    },
    Mutant {
        name: "distinct-tools-refused",
        expect: Expect::AnyOf(&[req::RUN_01]),
        apply: |s| {
            (s.reference.registration == Registration::Ok).then_some(())?;
            let mut o = s.copy();
            o.registration = Registration::Refused {
                name: "Error".into(),
                message: "refused".into(),
            };
            o.turn = TurnEnd::NotRun;
            o.results.clear();
            o.ran.clear();
            Some(o)
        },
    },
    Mutant {
        name: "duplicates-accepted",
        expect: Expect::AnyOf(&[req::DUP_01]),
        apply: |s| {
            (s.reference.registration != Registration::Ok).then_some(())?;
            let mut o = s.copy();
            o.registration = Registration::Ok;
            o.turn = TurnEnd::Completed;
            Some(o)
        },
    },
    Mutant {
        name: "the-turn-hangs",
        expect: Expect::AnyOf(&[
            req::LINK_01,
            req::CAN_02,
            req::TIME_01,
            req::OUT_01,
            req::ARGS_01,
        ]),
        apply: |s| {
            s.completed().then_some(())?;
            let mut o = s.copy();
            o.turn = TurnEnd::Pending;
            Some(o)
        },
    },
    Mutant {
        name: "the-turn-rejects",
        expect: Expect::AnyOf(&[
            req::RUN_01,
            req::TURN_01,
            req::OUT_01,
            req::UNK_01,
            req::VAL_01,
            req::ERR_01,
            req::TIME_01,
        ]),
        apply: |s| {
            (s.completed() && !s.has_abort() && !s.scenario.turn.is_empty()).then_some(())?;
            let mut o = s.copy();
            o.turn = TurnEnd::rejected("Error", "the loop died");
            o.results.clear();
            Some(o)
        },
    },
    Mutant {
        name: "a-result-lost",
        expect: Expect::AnyOf(&[req::LINK_01, req::TURN_01]),
        apply: |s| {
            (s.completed() && !s.has_abort()).then_some(())?;
            let mut o = s.copy();
            o.results.pop()?;
            Some(o)
        },
    },
    Mutant {
        name: "a-result-twice",
        expect: Expect::AnyOf(&[req::LINK_01]),
        apply: |s| {
            s.completed().then_some(())?;
            let mut o = s.copy();
            let first = o.results.first()?.clone();
            o.results.push(first);
            Some(o)
        },
    },
    Mutant {
        name: "a-result-for-no-call",
        expect: Expect::AnyOf(&[req::LINK_01]),
        apply: |s| {
            s.completed().then_some(())?;
            let mut o = s.copy();
            o.results.first_mut()?.call_id = Some("toolgate-no-such-call".into());
            Some(o)
        },
    },
    Mutant {
        name: "an-unknown-tool-reads-as-success",
        expect: Expect::AnyOf(&[req::UNK_01]),
        apply: |s| first_failure(s, &Kind::Unknown),
    },
    Mutant {
        name: "refused-arguments-read-as-success",
        expect: Expect::AnyOf(&[req::VAL_01]),
        apply: |s| first_failure(s, &Kind::Invalid),
    },
    Mutant {
        name: "a-throw-reads-as-success",
        expect: Expect::AnyOf(&[req::ERR_01]),
        apply: |s| first_failure(s, &Kind::Fails),
    },
    Mutant {
        name: "a-failure-without-an-error-flag",
        expect: Expect::AnyOf(&[req::FLAG_01]),
        apply: |s| {
            (s.reference.registration == Registration::Ok).then_some(())?;
            let (_, _, at) = s.calls().find(|(_, k, r)| {
                matches!(k, Kind::Unknown | Kind::Invalid | Kind::Fails) && r.is_some()
            })?;
            let mut o = s.copy();
            o.results.get_mut(at?)?.is_error = None;
            Some(o)
        },
    },
    Mutant {
        name: "refused-arguments-run-the-tool",
        expect: Expect::AnyOf(&[req::VAL_01]),
        apply: |s| {
            (s.reference.registration == Registration::Ok).then_some(())?;
            let (call, _, _) = s.calls().find(|(_, k, _)| **k == Kind::Invalid)?;
            let tool = s.scenario.tools.iter().position(|t| t.name == call.name)?;
            let mut o = s.copy();
            o.ran.push(RanSeen {
                tool,
                call_id: Some(call.id.clone()),
                after_abort: false,
                settled: None,
            });
            Some(o)
        },
    },
    Mutant {
        name: "a-valid-call-not-run",
        expect: Expect::AnyOf(&[req::RUN_01]),
        apply: |s| {
            let (call, _, _) = working(s)?;
            let mut o = s.copy();
            let at = o
                .ran
                .iter()
                .position(|r| r.call_id.as_deref() == Some(call.id.as_str()))?;
            o.ran.remove(at);
            Some(o)
        },
    },
    Mutant {
        name: "the-output-is-lost",
        expect: Expect::AnyOf(&[req::RUN_01]),
        apply: |s| {
            let (_, output, at) = working(s)?;
            let lost = json!("<the output was lost>");
            (output? != &lost).then_some(())?;
            let mut o = s.copy();
            o.results.get_mut(at)?.delivered = lost;
            Some(o)
        },
    },
    Mutant {
        name: "a-working-call-reads-as-failure",
        expect: Expect::AnyOf(&[req::RUN_01]),
        apply: |s| {
            let (_, _, at) = working(s)?;
            let mut o = s.copy();
            o.results.get_mut(at)?.is_error = Some(true);
            Some(o)
        },
    },
    Mutant {
        name: "an-oversized-result",
        expect: Expect::AnyOf(&[req::SIZE_01]),
        apply: |s| {
            let mut o = s.copy();
            o.results.first_mut()?.bytes = Some(RESULT_BYTES_BOUND + 1.0);
            Some(o)
        },
    },
    Mutant {
        name: "a-timeout-reads-as-success",
        expect: Expect::AnyOf(&[req::TIME_01]),
        apply: |s| {
            (s.reference.registration == Registration::Ok && !s.has_abort()).then_some(())?;
            first_failure(s, &Kind::Pending)
        },
    },
    Mutant {
        name: "a-finished-result-lost-on-abort",
        expect: Expect::AnyOf(&[req::CAN_03]),
        apply: |s| {
            (s.has_abort() && !s.reference.results.is_empty()).then_some(())?;
            let mut o = s.copy();
            o.results.clear();
            o.turn = TurnEnd::Aborted;
            Some(o)
        },
    },
    Mutant {
        name: "huge-arguments-take-too-long",
        expect: Expect::AnyOf(&[req::ARGS_01]),
        apply: |s| {
            let huge = s.scenario.turn.iter().any(|c| huge_arguments(&c.arguments));
            // a tool that never settles makes the turn as long as its
            // deadline: the wall time is then not the arguments'
            let settles = super::translate::decode(s.scenario)
                .is_ok_and(|b| !b.iter().any(super::translate::Behaviour::is_pending));
            (huge && settles && s.reference.registration == Registration::Ok).then_some(())?;
            let mut o = s.copy();
            o.measured = Some(Measured {
                wall_ms: ANSWER_MS_BOUND * 5.0,
                peak_memory_growth_bytes: 0.0,
                delivered_bytes: 0.0,
                abort_to_end_ms: None,
                // slow beyond what the machine's load took from it
                cpu_wait_ms: Some(ANSWER_MS_BOUND * 2.0),
                abort_to_end_cpu_wait_ms: None,
            });
            Some(o)
        },
    },
    Mutant {
        name: "an-abort-takes-too-long",
        expect: Expect::AnyOf(&[req::CAN_02]),
        apply: |s| {
            (s.has_abort() && s.reference.registration == Registration::Ok).then_some(())?;
            let mut o = s.copy();
            o.measured = Some(Measured {
                wall_ms: 0.0,
                peak_memory_growth_bytes: 0.0,
                delivered_bytes: 0.0,
                abort_to_end_ms: Some(ABORT_MS_BOUND * 5.0),
                cpu_wait_ms: None,
                abort_to_end_cpu_wait_ms: Some(ABORT_MS_BOUND * 2.0),
            });
            Some(o)
        },
    },
];
