//! The boundary suite's reference and judge: the reference's observation of
//! each scenario keeps every requirement, and each MUST and SHOULD
//! requirement is seen failing on an observation broken the way real
//! runtimes break it. SPEC.md's `## boundary` lists the same ids.

use serde_json::{json, Value as Json};
use toolgate_boundary::judge::judge;
use toolgate_boundary::spec::*;
use toolgate_boundary::{observe, requirements};

fn scenario(v: Json) -> BoundaryScenario {
    serde_json::from_value(v).expect("a boundary scenario")
}

fn schema() -> Json {
    json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
}

fn tool(name: &str, behaviour: Json) -> Json {
    json!({"name": name, "inputSchema": schema(), "behaviour": behaviour})
}

fn call(id: &str, name: &str) -> Json {
    json!({"id": id, "name": name, "arguments": {"path": "a.txt"}})
}

/// Judges `broken(reference observation)` and expects exactly the
/// requirement ids `expected` (none: the reference itself passes).
fn check(s: &BoundaryScenario, broken: impl Fn(&mut BoundaryObservation), expected: &[&str]) {
    let reference = observe(s).expect("the reference observes");
    let (clean, _) = judge(s, &reference, &reference);
    assert!(
        clean.is_empty(),
        "the reference fails itself: {clean:?}\n{reference:#?}"
    );
    let mut actual = reference.clone();
    broken(&mut actual);
    let (found, _) = judge(s, &reference, &actual);
    let mut ids: Vec<String> = found.iter().filter_map(|v| v.requirement.clone()).collect();
    ids.sort();
    ids.dedup();
    let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(ids, want, "violations {found:#?}\nreference {reference:#?}");
}

#[test]
fn a_working_tool_gives_a_success_that_carries_its_output() {
    let s = scenario(
        json!({"tools": [tool("read", json!({"returns": {"text": "hi"}}))],
        "turn": [call("c1", "read")]}),
    );
    let reference = observe(&s).unwrap();
    assert_eq!(reference.turn, TurnEnd::Completed);
    assert_eq!(reference.results.len(), 1);
    assert_eq!(reference.results[0].is_error, Some(false));
    assert_eq!(reference.ran.len(), 1);
    check(&s, |_| {}, &[]);
    check(
        &s,
        |o| o.results[0].delivered = json!("something else"),
        &[requirements::RUN_01],
    );
    check(
        &s,
        |o| o.results[0].is_error = Some(true),
        &[requirements::RUN_01],
    );
    check(&s, |o| o.results.clear(), &[requirements::LINK_01]);
    check(
        &s,
        |o| o.results[0].call_id = Some("other".into()),
        &[requirements::LINK_01],
    );
    check(&s, |o| o.uncaught = 1, &[requirements::PROC_01]);
    check(
        &s,
        |o| {
            o.results[0].delivered = json!("x".repeat(70_000) + "{\"text\":\"hi\"}");
            o.results[0].delivered = json!([{"text": "{\"text\":\"hi\"}"}, "x".repeat(70_000)]);
        },
        &[requirements::SIZE_01],
    );
}

#[test]
fn an_unknown_tool_gives_an_error_result_and_runs_nothing() {
    let s = scenario(json!({"tools": [tool("read", json!({"returns": 1}))],
        "turn": [call("c1", "ghost"), call("c2", "read")]}));
    let reference = observe(&s).unwrap();
    assert_eq!(reference.results[0].is_error, Some(true));
    check(&s, |_| {}, &[]);
    check(
        &s,
        |o| o.results[0].is_error = Some(false),
        &[requirements::UNK_01],
    );
    check(
        &s,
        |o| o.results[0].is_error = None,
        &[requirements::FLAG_01],
    );
    check(
        &s,
        |o| o.turn = TurnEnd::rejected("Error", "no such tool"),
        &[requirements::UNK_01, requirements::TURN_01],
    );
}

#[test]
fn refused_arguments_never_reach_the_tool() {
    let s = scenario(json!({"tools": [tool("read", json!({"returns": 1}))],
        "turn": [{"id": "c1", "name": "read", "arguments": {"path": 5}}]}));
    let reference = observe(&s).unwrap();
    assert_eq!(reference.results[0].is_error, Some(true));
    assert!(reference.ran.is_empty());
    check(&s, |_| {}, &[]);
    check(
        &s,
        |o| {
            o.ran.push(RanSeen {
                tool: 0,
                call_id: Some("c1".into()),
                after_abort: false,
                settled: None,
            })
        },
        &[requirements::VAL_01],
    );
    check(
        &s,
        |o| {
            o.ran.push(RanSeen {
                tool: 0,
                call_id: None,
                after_abort: false,
                settled: None,
            })
        },
        &[requirements::VAL_01],
    );
}

#[test]
fn an_extra_check_refuses_like_the_schema() {
    let mut t = tool("read", json!({"returns": 1}));
    t["check"] = json!({"key": "path", "equals": "/etc/passwd", "message": "not that file"});
    let s = scenario(json!({"tools": [t],
        "turn": [{"id": "c1", "name": "read", "arguments": {"path": "/etc/passwd"}}, call("c2", "read")]}));
    let reference = observe(&s).unwrap();
    assert_eq!(reference.results[0].is_error, Some(true));
    assert_eq!(reference.results[1].is_error, Some(false));
    check(&s, |_| {}, &[]);
    check(
        &s,
        |o| {
            o.ran.push(RanSeen {
                tool: 0,
                call_id: Some("c1".into()),
                after_abort: false,
                settled: None,
            })
        },
        &[requirements::VAL_01],
    );
}

#[test]
fn throws_and_rejections_become_error_results() {
    for behaviour in [
        json!({"throws": {"error": "boom"}}),
        json!({"throws": {"string": "boom"}}),
        json!({"rejects": {"value": {"code": 7}}}),
        json!({"rejects": {"error": "late boom"}}),
    ] {
        let s = scenario(
            json!({"tools": [tool("t", behaviour), tool("ok", json!({"returns": "fine"}))],
            "turn": [call("c1", "t"), call("c2", "ok")]}),
        );
        check(&s, |_| {}, &[]);
        check(
            &s,
            |o| o.results[0].is_error = Some(false),
            &[requirements::ERR_01],
        );
        check(
            &s,
            |o| {
                o.results.remove(1);
            },
            &[requirements::TURN_01],
        );
    }
}

#[test]
fn hostile_outputs_get_a_result() {
    for value in [
        json!({"$": "cyclic"}),
        json!({"$": "deep", "depth": 100_000}),
        json!({"$": "longString", "length": 10_000_000}),
        json!({"$": "bigint", "value": "12345678901234567890"}),
        json!({"$": "undefined"}),
        json!({"$": "function"}),
        json!({"$": "throwingGetter", "message": "no"}),
        json!({"$": "throwingToJSON", "message": "no"}),
    ] {
        let s = scenario(
            json!({"tools": [tool("t", json!({"returns": value}))], "turn": [call("c1", "t")]}),
        );
        check(&s, |_| {}, &[]);
        check(
            &s,
            |o| o.turn = TurnEnd::rejected("TypeError", "cyclic"),
            &[requirements::OUT_01],
        );
        check(
            &s,
            |o| {
                o.turn = TurnEnd::Pending;
                o.results.clear();
            },
            &[requirements::OUT_01],
        );
    }
}

#[test]
fn an_abort_while_a_call_is_pending_keeps_the_finished_results() {
    let s = scenario(json!({"tools": [tool("ok", json!({"returns": 1})),
            tool("slow", json!({"pending": {"onAbort": "ignore"}}))],
        "turn": [call("c1", "ok"), call("c2", "slow")], "abort": {"whilePending": "c2"}}));
    let reference = observe(&s).unwrap();
    assert_eq!(reference.turn, TurnEnd::Aborted);
    assert_eq!(reference.results.len(), 1);
    check(&s, |_| {}, &[]);
    check(
        &s,
        |o| {
            o.turn = TurnEnd::rejected("AbortError", "aborted");
            o.results.clear();
        },
        &[requirements::CAN_03],
    );
    check(
        &s,
        |o| {
            o.turn = TurnEnd::Pending;
        },
        &[requirements::CAN_02],
    );
    check(
        &s,
        |o| {
            o.measured = Some(Measured {
                wall_ms: 5.0,
                peak_memory_growth_bytes: 0.0,
                delivered_bytes: 10.0,
                abort_to_end_ms: Some(5_000.0),
                cpu_wait_ms: None,
                abort_to_end_cpu_wait_ms: None,
            })
        },
        &[requirements::CAN_02],
    );
    // the abort's end counts without the turn's waits for a CPU (the
    // machine's load), and only without them
    let after_abort = |ms: f64, wait: f64| {
        move |o: &mut BoundaryObservation| {
            o.measured = Some(Measured {
                wall_ms: ms + 5.0,
                peak_memory_growth_bytes: 0.0,
                delivered_bytes: 10.0,
                abort_to_end_ms: Some(ms),
                cpu_wait_ms: Some(wait),
                abort_to_end_cpu_wait_ms: Some(wait),
            })
        }
    };
    check(&s, after_abort(1_900.0, 1_000.0), &[]);
    check(&s, after_abort(1_900.0, 800.0), &[requirements::CAN_02]);
}

#[test]
fn after_an_abort_no_tool_starts() {
    let s = scenario(json!({"tools": [tool("ok", json!({"returns": 1}))],
        "turn": [call("c1", "ok")], "abort": {"before": {}}}));
    let reference = observe(&s).unwrap();
    assert!(reference.ran.is_empty() && reference.results.is_empty());
    check(&s, |_| {}, &[]);
    check(
        &s,
        |o| {
            o.ran.push(RanSeen {
                tool: 0,
                call_id: Some("c1".into()),
                after_abort: true,
                settled: None,
            })
        },
        &[requirements::CAN_01],
    );
    // a runtime may report the cancelled call as an error result
    check(
        &s,
        |o| {
            o.turn = TurnEnd::Completed;
            o.results = vec![ResultSeen {
                call_id: Some("c1".into()),
                is_error: Some(true),
                delivered: json!("Operation aborted"),
                bytes: None,
            }];
        },
        &[],
    );
}

#[test]
fn duplicate_names_are_refused_at_registration() {
    let s = scenario(
        json!({"tools": [tool("t", json!({"returns": 1})), tool("t", json!({"returns": 2}))],
        "turn": [call("c1", "t")]}),
    );
    let reference = observe(&s).unwrap();
    assert!(matches!(
        reference.registration,
        Registration::Refused { .. }
    ));
    check(&s, |_| {}, &[]);
    check(
        &s,
        |o| {
            o.registration = Registration::Ok;
            o.turn = TurnEnd::Completed;
            o.results = vec![ResultSeen {
                call_id: Some("c1".into()),
                is_error: Some(false),
                delivered: json!("1"),
                bytes: None,
            }];
            o.ran = vec![RanSeen {
                tool: 0,
                call_id: Some("c1".into()),
                after_abort: false,
                settled: None,
            }];
        },
        &[requirements::DUP_01],
    );
}

#[test]
fn a_tool_that_never_settles_is_timed_out() {
    let s = scenario(
        json!({"tools": [tool("slow", json!({"pending": {"onAbort": "ignore"}}))],
        "turn": [call("c1", "slow")]}),
    );
    let reference = observe(&s).unwrap();
    assert_eq!(reference.results[0].is_error, Some(true));
    check(&s, |_| {}, &[]);
    check(
        &s,
        |o| {
            o.turn = TurnEnd::Pending;
            o.results.clear();
        },
        &[requirements::TIME_01],
    );
}

#[test]
fn huge_arguments_are_answered_within_the_bounds() {
    let s = scenario(json!({"tools": [tool("t", json!({"returns": 1}))],
        "turn": [{"id": "c1", "name": "t", "arguments": {"$": "wide", "keys": 999_000}}]}));
    let reference = observe(&s).unwrap();
    assert_eq!(
        reference.results[0].is_error,
        Some(true),
        "no `path`: refused"
    );
    check(&s, |_| {}, &[]);
    check(
        &s,
        |o| {
            o.measured = Some(Measured {
                wall_ms: 45_000.0,
                peak_memory_growth_bytes: 1.5e9,
                delivered_bytes: 10.0,
                abort_to_end_ms: None,
                cpu_wait_ms: None,
                abort_to_end_cpu_wait_ms: None,
            })
        },
        &[requirements::ARGS_01],
    );
    // a turn's time counts without its waits for a CPU: a turn over the
    // bound on a loaded machine is within it, and one over the bound
    // without its waits is not; a wait longer than the turn takes it all
    let took = |wall_ms: f64, wait: f64| {
        move |o: &mut BoundaryObservation| {
            o.measured = Some(Measured {
                wall_ms,
                peak_memory_growth_bytes: 0.0,
                delivered_bytes: 10.0,
                abort_to_end_ms: None,
                cpu_wait_ms: Some(wait),
                abort_to_end_cpu_wait_ms: None,
            })
        }
    };
    check(&s, took(1_800.0, 900.0), &[]);
    check(&s, took(1_800.0, 700.0), &[requirements::ARGS_01]);
    check(&s, took(1_800.0, 5_000.0), &[]);
    check(&s, took(1_200.0, 0.0), &[requirements::ARGS_01]);
    check(
        &s,
        |o| {
            o.turn = TurnEnd::rejected("RangeError", "stack");
            o.results.clear();
        },
        // the host gave out on their size (a stack overflow), not on the
        // refusal: TURN-01 alone
        &[requirements::TURN_01],
    );
    // arguments the schema accepts but the host cannot take may be refused
    let deep = scenario(
        json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}, "behaviour": {"returns": 1}}],
        "turn": [{"id": "c1", "name": "t", "arguments": {"$": "deep", "depth": 100_000}}]}),
    );
    check(&deep, |_| {}, &[]);
    check(
        &deep,
        |o| {
            o.results[0].is_error = Some(true);
            o.ran.clear();
        },
        &[],
    );
    check(
        &deep,
        |o| {
            o.turn = TurnEnd::Pending;
            o.results.clear();
        },
        &[requirements::ARGS_01],
    );
    // also when two calls name the tool, so its starts are counted per
    // tool: each huge call may be refused (a generated case the Rust wall
    // met: generated-boundary/1-423 of seed 1), a valid small one not
    let two = scenario(
        json!({"tools": [{"name": "t", "inputSchema": {"type": "object"},
            "behaviour": {"returns": 1}}],
        "turn": [{"id": "c1", "name": "t", "arguments": {"$": "deep", "depth": 100_000}},
                 {"id": "c2", "name": "t", "arguments": {"$": "deep", "depth": 100_000}},
                 {"id": "c3", "name": "t", "arguments": {}}]}),
    );
    let refused_huge = |o: &mut BoundaryObservation| {
        o.results[0].is_error = Some(true);
        o.results[1].is_error = Some(true);
        o.ran.retain(|r| r.call_id.as_deref() == Some("c3"));
        for r in &mut o.ran {
            r.call_id = None;
        }
    };
    check(&two, refused_huge, &[]);
    check(
        &two,
        |o| {
            refused_huge(o);
            o.ran.clear();
        },
        &[requirements::RUN_01],
    );
}

#[test]
fn malformed_scenarios_name_their_fault() {
    let bad = [
        (
            json!({"tools": [tool("t", json!({"explodes": 1}))], "turn": []}),
            "/tools/0/behaviour",
        ),
        (
            json!({"tools": [tool("t", json!({"returns": {"$": "deep", "depth": -1}}))], "turn": []}),
            "/tools/0/behaviour/returns",
        ),
        (
            json!({"tools": [tool("t", json!({"returns": {"$": "bytes", "length": 3, "fill": 256}}))], "turn": []}),
            "`fill` is an integer from 0 to 255",
        ),
        (
            json!({"tools": [], "turn": [{"id": "c", "name": "t", "arguments": "text"}]}),
            "/turn/0/arguments",
        ),
        (
            json!({"tools": [tool("t", json!({"returns": 1}))], "turn": [call("c1", "t")], "abort": {"whilePending": "c1"}}),
            "/abort/whilePending",
        ),
    ];
    for (s, at) in bad {
        let s = scenario(s);
        let e = observe(&s).expect_err("malformed");
        assert!(e.to_string().contains(at), "{e} should name {at}");
    }
}

#[test]
fn starts_without_call_ids_are_counted_per_tool() {
    let s = scenario(json!({"tools": [tool("read", json!({"returns": "x"}))],
        "turn": [call("c1", "read"), {"id": "c2", "name": "read", "arguments": {}}, call("c3", "read")]}));
    let anonymous = |o: &mut BoundaryObservation| {
        for r in &mut o.ran {
            r.call_id = None;
        }
    };
    check(&s, anonymous, &[]);
    check(
        &s,
        |o| {
            anonymous(o);
            o.ran.push(RanSeen {
                tool: 0,
                call_id: None,
                after_abort: false,
                settled: None,
            });
        },
        &[requirements::VAL_01],
    );
    check(
        &s,
        |o| {
            anonymous(o);
            o.ran.pop();
        },
        &[requirements::RUN_01],
    );
}

/// Every corpus case keeps `properties::check` (the reference's schema,
/// its own judge, the boundary's shape, the mutants that fit), and every
/// observation mutant fits at least one corpus case, so none is vacuous.
#[test]
fn every_observation_mutant_fits_a_corpus_case_and_is_caught() {
    use toolgate_boundary::{mutants, properties};
    let files = toolgate_corpus::of_suite(&toolgate_boundary::BOUNDARY).expect("the corpus loads");
    let mut fitted = std::collections::BTreeSet::new();
    let mut cases = 0;
    for (_, file) in &files {
        for case in &file.cases {
            let s = scenario(case.scenario.clone());
            let covered =
                properties::check(&s).unwrap_or_else(|e| panic!("{}: {e}", file.id(case)));
            fitted.extend(covered.mutants);
            cases += 1;
        }
    }
    assert!(cases >= 80, "{cases} boundary cases");
    let unfitted: Vec<&str> = mutants::ALL
        .iter()
        .map(|m| m.name)
        .filter(|m| !fitted.contains(m))
        .collect();
    assert!(
        unfitted.is_empty(),
        "mutants no corpus case exercises: {unfitted:?}"
    );
}

/// The starts of `o`, each settled as given (what a kit's adapter reports).
fn settle(o: &mut BoundaryObservation, how: &[(&str, Settled)]) {
    for r in &mut o.ran {
        r.settled = how
            .iter()
            .find(|(id, _)| r.call_id.as_deref() == Some(*id))
            .map(|(_, s)| *s);
    }
}

/// The turn rejected as `turn`, every result lost, the starts settled as
/// `how` says.
fn rejects(
    how: &'static [(&'static str, Settled)],
    turn: TurnEnd,
) -> impl Fn(&mut BoundaryObservation) {
    move |o| {
        settle(o, how);
        o.results.clear();
        o.turn = turn.clone();
    }
}

fn rejection(name: &str, message: &str, after_abort: bool, carries_abort: bool) -> TurnEnd {
    TurnEnd::Rejected {
        name: name.into(),
        message: message.into(),
        after_abort: Some(after_abort),
        carries_abort: Some(carries_abort),
    }
}

#[test]
fn a_rejected_turn_is_charged_to_what_it_followed() {
    // refused arguments beside a hostile output whose body never ran: the
    // rejection is the arguments', not the output's
    let s = scenario(json!({"tools": [
            tool("cyclic", json!({"returns": {"$": "cyclic"}})),
            tool("read", json!({"returns": 1}))],
        "turn": [{"id": "c1", "name": "read", "arguments": {"path": 5}}, call("c2", "cyclic")]}));
    check(
        &s,
        |o| {
            o.ran.clear();
            o.results.clear();
            o.turn = rejection("ValidationError", "path: expected a string", false, false);
        },
        &[requirements::VAL_01, requirements::TURN_01],
    );
    // the same turn once the hostile body returned: both may have caused it
    check(
        &s,
        rejects(
            &[("c2", Settled::Fulfilled)],
            rejection(
                "TypeError",
                "Converting circular structure to JSON",
                false,
                false,
            ),
        ),
        &[
            requirements::VAL_01,
            requirements::TURN_01,
            requirements::OUT_01,
        ],
    );
    // a rejection that names the unknown tool is the unknown tool's, though
    // a sibling threw before it
    let s = scenario(
        json!({"tools": [tool("boom", json!({"throws": {"error": "disk on fire"}}))],
        "turn": [call("c1", "boom"), call("c2", "ghost")]}),
    );
    check(
        &s,
        rejects(
            &[("c1", Settled::Rejected)],
            rejection("ModelBehaviorError", "Tool ghost not found", false, false),
        ),
        &[requirements::UNK_01, requirements::TURN_01],
    );
    // and one that carries the thrown message is the throw's
    check(
        &s,
        rejects(
            &[("c1", Settled::Rejected)],
            rejection("Error", "disk on fire", false, false),
        ),
        &[requirements::ERR_01, requirements::TURN_01],
    );
    // a host's limit giving out is the huge arguments', not the siblings'
    // (an unknown tool the runtime answered before the next model request
    // failed on the arguments)
    let s = scenario(json!({"tools": [
            {"name": "t", "inputSchema": {"type": "object"}, "behaviour": {"returns": 1}}],
        "turn": [call("c1", "ghost"),
            {"id": "c2", "name": "t", "arguments": {"$": "deep", "depth": 100_000}}]}));
    check(
        &s,
        rejects(
            &[("c2", Settled::Fulfilled)],
            rejection(
                "RangeError",
                "Maximum call stack size exceeded",
                false,
                false,
            ),
        ),
        &[requirements::TURN_01],
    );
    // and Rust's: the harness's crashed turn carries the stack overflow
    // the runtime died of (adapters/rust/harness/src/isolate.rs)
    check(
        &s,
        rejects(
            &[("c2", Settled::Fulfilled)],
            rejection(
                "crash",
                "the runtime killed its process: signal 6 (SIGABRT); its stderr ends: \
                 thread 'toolgate-turns' has overflowed its stack / fatal runtime error: \
                 stack overflow, aborting",
                false,
                false,
            ),
        ),
        &[requirements::TURN_01],
    );
    // the same for an unknown call whose arguments are the huge ones: the
    // host gave out on the arguments, not on the name
    let s = scenario(
        json!({"tools": [tool("boom", json!({"throws": {"error": ""}}))],
        "turn": [call("c1", "boom"),
            {"id": "c2", "name": "", "arguments": {"$": "deep", "depth": 100_000}}]}),
    );
    check(
        &s,
        rejects(
            &[("c1", Settled::Rejected)],
            rejection(
                "Error",
                "Unable to serialize: Maximum call stack size exceeded",
                false,
                false,
            ),
        ),
        &[requirements::TURN_01],
    );
    // a working call alone: the turn had no failure to reject on
    let s = scenario(json!({"tools": [tool("read", json!({"returns": 1}))],
        "turn": [call("c1", "read")]}));
    check(
        &s,
        rejects(
            &[("c1", Settled::Fulfilled)],
            rejection("Error", "the loop died", false, false),
        ),
        &[requirements::RUN_01],
    );
}

#[test]
fn an_abort_excuses_only_the_rejection_it_caused() {
    let s = scenario(
        json!({"tools": [tool("boom", json!({"throws": {"error": "disk on fire"}})),
            tool("slow", json!({"pending": {"onAbort": "ignore"}}))],
        "turn": [call("c1", "boom"), call("c2", "slow")], "abort": {"afterSettled": "c1"}}),
    );
    // the runtime rejected on the throw before the abort came
    check(
        &s,
        rejects(
            &[("c1", Settled::Rejected), ("c2", Settled::Pending)],
            rejection("Error", "disk on fire", false, false),
        ),
        &[requirements::ERR_01, requirements::TURN_01],
    );
    // the abort came first and the rejection is the abort's: only what it
    // lost (the throw's result, finished before it) is charged
    check(
        &s,
        rejects(
            &[("c1", Settled::Rejected), ("c2", Settled::Pending)],
            rejection("AbortError", "This operation was aborted", true, true),
        ),
        &[requirements::CAN_03],
    );
    // after the abort, but with the throw's text: the throw's
    check(
        &s,
        rejects(
            &[("c1", Settled::Rejected), ("c2", Settled::Pending)],
            rejection("Error", "disk on fire", true, false),
        ),
        &[requirements::ERR_01, requirements::TURN_01],
    );
}

#[test]
fn a_hanging_turn_is_charged_to_what_holds_it() {
    // a hostile output whose body never started cannot hold the turn:
    // the huge arguments before it do
    let s = scenario(json!({"tools": [
            {"name": "t", "inputSchema": {"type": "object"}, "behaviour": {"returns": 1}},
            tool("cyclic", json!({"returns": {"$": "cyclic"}}))],
        "turn": [{"id": "c1", "name": "t", "arguments": {"$": "wide", "keys": 999_000}},
            call("c2", "cyclic")]}));
    check(
        &s,
        |o| {
            o.ran.clear();
            o.results.clear();
            o.turn = TurnEnd::Pending;
        },
        &[requirements::ARGS_01],
    );
    // once the hostile body returned, the output holds it
    check(
        &s,
        |o| {
            settle(o, &[("c1", Settled::Fulfilled), ("c2", Settled::Fulfilled)]);
            o.results.clear();
            o.turn = TurnEnd::Pending;
        },
        &[requirements::OUT_01],
    );
    // a body that threw and was never answered (rmcp: a tool's panic ends
    // the task that would have answered): its failure never became an
    // error result, ERR-01, not only a turn that never ended
    let s = scenario(
        json!({"tools": [tool("fails", json!({"throws": {"string": "no"}})),
            tool("works", json!({"returns": 1}))],
        "turn": [call("c1", "fails"), call("c2", "works")]}),
    );
    check(
        &s,
        |o| {
            settle(o, &[("c1", Settled::Rejected), ("c2", Settled::Fulfilled)]);
            o.results.clear();
            o.turn = TurnEnd::Pending;
        },
        &[requirements::ERR_01],
    );
    // an abort whose latch never fired (its call never started) did not
    // leave the turn hanging
    let s = scenario(
        json!({"tools": [tool("slow", json!({"pending": {"onAbort": "ignore"}}))],
        "turn": [call("c1", "slow")], "abort": {"whilePending": "c1"}}),
    );
    check(
        &s,
        |o| {
            o.ran.clear();
            o.results.clear();
            o.turn = TurnEnd::Pending;
        },
        &[requirements::LINK_01],
    );
}

#[test]
fn what_the_kits_report_for_attribution_decodes_and_meets_the_schema() {
    let text = json!({
        "registration": "ok",
        "turn": {"rejected": {"name": "Error", "message": "disk on fire",
            "afterAbort": false, "carriesAbort": false}},
        "results": [],
        "ran": [{"tool": 0, "callId": "c1", "settled": "rejected"},
            {"tool": 1, "settled": "pending"}],
        "uncaught": 0
    });
    let o: BoundaryObservation = serde_json::from_value(text.clone()).expect("it decodes");
    assert_eq!(
        o.turn,
        TurnEnd::Rejected {
            name: "Error".into(),
            message: "disk on fire".into(),
            after_abort: Some(false),
            carries_abort: Some(false),
        }
    );
    assert_eq!(o.ran[0].settled, Some(Settled::Rejected));
    assert_eq!(serde_json::to_value(&o).unwrap(), text);
    let validator = toolgate_suite::observation_validator(&toolgate_boundary::BOUNDARY)
        .expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&text)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn a_case_whose_abort_never_came_is_no_pass() {
    use toolgate_suite::SuiteDef;
    let s = json!({"tools": [tool("ok", json!({"returns": 1})),
            tool("slow", json!({"pending": {"onAbort": "ignore"}}))],
        "turn": [call("c1", "ok"), call("c2", "slow")], "abort": {"whilePending": "c2"}});
    let suite = &toolgate_boundary::BOUNDARY;
    let reference = observe(&scenario(s.clone())).unwrap();
    let expected = serde_json::to_value(&reference).unwrap();
    assert_eq!(suite.judge(&s, &expected, &expected).unmet, None);
    // the runtime answered the pending call without ever starting its
    // tool: no abort came, so nothing about the abort was exercised
    let mut never = reference.clone();
    never.ran.retain(|r| r.call_id.as_deref() != Some("c2"));
    never.turn = TurnEnd::Completed;
    never.results.push(ResultSeen {
        call_id: Some("c2".into()),
        is_error: Some(true),
        delivered: json!("not available"),
        bytes: None,
    });
    let judged = suite.judge(&s, &expected, &serde_json::to_value(&never).unwrap());
    assert!(judged.violations.is_empty(), "{:?}", judged.violations);
    let why = judged.unmet.expect("the precondition did not hold");
    assert!(why.contains("call c2's tool never started"), "{why}");
}
