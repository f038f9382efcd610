//! The workspace suite's reference against its corpus (`corpus/cases/
//! workspace/`, recorded on the project's JavaScript implementation of
//! seed 004, `adapters/node/workspace/toolgate-workspace.mjs`): the
//! reference observes every case byte for byte; scenarios and
//! observations round-trip; the judge names a requirement for every edit
//! of a recorded observation (and WS-PATH-06 for every change outside the
//! root); scenarios the reference does not run are refused with the
//! field that is wrong.

use serde_json::{json, Value as Json};
use toolgate_suite::fs_tree::{snapshot_of_entries, EntryKind, Snapshot};
use toolgate_suite::js_string::JsString;
use toolgate_suite::SuiteDef;
use toolgate_workspace::spec::{
    CallResult, Grading, Text, Thrown, Tool, WorkspaceObservation, WorkspaceScenario,
};
use toolgate_workspace::{judge::judge, mutants, requirements, WORKSPACE};

/// The fewest workspace cases the corpus may hold (issue 16: 150).
const AT_LEAST: usize = 150;

struct Case {
    id: String,
    requirements: Vec<String>,
    scenario: Json,
    expect: Json,
}

fn cases() -> Vec<Case> {
    let files = toolgate_corpus::of_suite(&WORKSPACE).expect("the corpus loads");
    let mut out = Vec::new();
    for (_, file) in &files {
        for case in &file.cases {
            out.push(Case {
                id: file.id(case),
                requirements: case.requirements.clone(),
                scenario: case.scenario.clone(),
                expect: case.expect.clone().unwrap_or(Json::Null),
            });
        }
    }
    assert!(out.len() >= AT_LEAST, "only {} workspace cases", out.len());
    out
}

/// Whether the case swaps a path under a call (WS-RACE-01).
fn raced(c: &Case) -> bool {
    scenario(&c.scenario)
        .calls
        .iter()
        .any(|call| call.swap.is_some())
}

fn scenario(json: &Json) -> WorkspaceScenario {
    serde_json::from_value(json.clone()).expect("a workspace scenario")
}

fn observation(json: &Json) -> WorkspaceObservation {
    serde_json::from_value(json.clone()).expect("a workspace observation")
}

#[test]
fn the_reference_observes_what_the_seed_implementation_does() {
    let mut failures = Vec::new();
    for c in cases() {
        match WORKSPACE.observe(&c.scenario) {
            Ok(actual) if actual == c.expect => {}
            Ok(actual) => {
                let j = WORKSPACE.judge(&c.scenario, &c.expect, &actual);
                failures.push(format!("{}: {:?}", c.id, j.violations));
            }
            Err(e) => failures.push(format!("{}: refused: {e}", c.id)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_requirement_is_named_by_cases() {
    let all = cases();
    for r in requirements::ALL {
        let n = all
            .iter()
            .filter(|c| c.requirements.iter().any(|x| x == r))
            .count();
        assert!(n >= 3, "{r} is named by {n} cases");
    }
    for c in &all {
        for r in &c.requirements {
            assert!(
                requirements::ALL.contains(&r.as_str()),
                "{}: {r} is no WS requirement",
                c.id
            );
        }
    }
}

#[test]
fn scenarios_and_observations_round_trip() {
    for c in cases() {
        let s = scenario(&c.scenario);
        assert_eq!(scenario(&serde_json::to_value(&s).unwrap()), s, "{}", c.id);
        let o = observation(&c.expect);
        assert_eq!(
            serde_json::to_value(&o).unwrap(),
            c.expect,
            "{}: encodes back differently",
            c.id
        );
    }
}

#[test]
fn every_edit_of_a_recorded_observation_is_named() {
    let mut unnamed = Vec::new();
    // a raced case's edits are `a_swapped_call_is_warned_...`'s
    for c in cases().into_iter().filter(|c| !raced(c)) {
        let s = scenario(&c.scenario);
        let o = observation(&c.expect);
        assert!(
            judge(&s, &o, &o).violations.is_empty(),
            "{}: its own judge",
            c.id
        );
        for (what, edited) in mutants::exact(&o, usize::MAX) {
            let j = judge(&s, &o, &edited);
            if j.violations.is_empty() || j.violations.iter().any(|v| v.requirement.is_none()) {
                unnamed.push(format!("{} ({what}): {:?}", c.id, j.violations));
            }
        }
    }
    assert!(unnamed.is_empty(), "{}", unnamed.join("\n"));
}

#[test]
fn a_change_outside_the_root_is_ws_path_06() {
    let s = scenario(&json!({
        "tree": [{"path": "ws", "kind": "dir"}, {"path": "outside", "kind": "dir"}],
        "calls": [{"tool": "read", "input": {"path": "a"}}]
    }));
    let o = observation(
        &WORKSPACE
            .observe(&serde_json::to_value(&s).unwrap())
            .unwrap(),
    );
    let mut edited = o.clone();
    edited.tree.push(Snapshot {
        path: "outside/leak".into(),
        kind: EntryKind::File,
        content: Some("x".into()),
        size: None,
        sha256: None,
        target: None,
    });
    let j = judge(&s, &o, &edited);
    assert_eq!(
        j.violations
            .iter()
            .map(|v| v.requirement.as_deref())
            .collect::<Vec<_>>(),
        vec![Some(requirements::PATH_06)]
    );
}

#[test]
fn the_portable_projection_ignores_the_wording_and_names_every_other_edit() {
    let mut wrong = Vec::new();
    for c in cases().into_iter().filter(|c| !raced(c)) {
        let s = scenario(&c.scenario);
        let o = observation(&c.expect);
        let own = mutants::in_other_words(&s, &o);
        let j = judge(&s, &o, &own);
        if !j.violations.is_empty() {
            wrong.push(format!("{} (other words): {:?}", c.id, j.violations));
        }
        let edited = mutants::portable(&s, &o, usize::MAX);
        for (what, e) in edited {
            let j = judge(&s, &o, &e);
            if j.violations.is_empty() || j.violations.iter().any(|v| v.requirement.is_none()) {
                wrong.push(format!("{} ({what}): {:?}", c.id, j.violations));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn on_the_projection_an_escape_allowed_is_ws_path_03_and_a_change_outside_ws_path_06() {
    let s = scenario(&json!({
        "tree": [
            {"path": "ws", "kind": "dir"},
            {"path": "outside", "kind": "dir"},
            {"path": "outside/secret.txt", "kind": "file", "content": "secret"}
        ],
        "calls": [{"tool": "read", "input": {"path": "../outside/secret.txt"}}]
    }));
    let o = observation(
        &WORKSPACE
            .observe(&serde_json::to_value(&s).unwrap())
            .unwrap(),
    );
    let named = |actual: &WorkspaceObservation| {
        judge(&s, &o, actual)
            .violations
            .iter()
            .map(|v| v.requirement.clone())
            .collect::<Vec<_>>()
    };
    let mut leaked = mutants::in_other_words(&s, &o);
    leaked.results[0] = CallResult::ok("secret");
    assert_eq!(named(&leaked), vec![Some(requirements::PATH_03.to_owned())]);
    let mut refused = mutants::in_other_words(&s, &o);
    assert!(named(&refused).is_empty());
    refused.outside.push("rename $BASE/../x".into());
    assert_eq!(
        named(&refused),
        vec![Some(requirements::PATH_06.to_owned())]
    );
}

/// The requirements a judgement names, in order.
fn named(j: &toolgate_suite::Judgement) -> Vec<&str> {
    j.violations
        .iter()
        .map(|v| v.requirement.as_deref().unwrap_or("unnamed"))
        .collect()
}

/// On every raced case: the seed's own observation is warned (WS-RACE-01,
/// once per escape: the swapped call, the tree outside) exactly when the
/// reference went outside; a refusal of the swapped call is a note, not a
/// failure, and so is a read that returns another text; an allowed read
/// holding the outside text is the warning; a thrown failure is
/// WS-RESULT-01; a change outside is the warning; a change inside, when
/// the swapped calls did what the seed does, is a MUST.
#[test]
fn a_swapped_call_is_warned_when_it_goes_outside_and_noted_when_it_refuses() {
    let mut wrong = Vec::new();
    let raced_cases: Vec<Case> = cases().into_iter().filter(raced).collect();
    assert!(raced_cases.len() >= 12, "{} raced cases", raced_cases.len());
    for c in raced_cases {
        let s = scenario(&c.scenario);
        let o = observation(&c.expect);
        let mut check = |what: &str, actual: &WorkspaceObservation, mut want: Vec<&str>| {
            let j = judge(&s, &o, actual);
            let mut got = named(&j);
            got.sort_unstable();
            want.sort_unstable();
            if got != want {
                wrong.push(format!(
                    "{} ({what}): {:?}, not {want:?}",
                    c.id, j.violations
                ));
            }
        };
        let swapped: Vec<usize> = (0..s.calls.len())
            .filter(|&i| s.calls[i].swap.is_some())
            .collect();
        let escapes: Vec<usize> = swapped
            .iter()
            .copied()
            .filter(|&i| matches!(&o.results[i], CallResult::Returned(r) if !r.is_error))
            .collect();
        let writes_out = escapes.iter().any(|&i| s.calls[i].tool == Tool::Write);
        let mut own = vec![requirements::RACE_01; escapes.len()];
        if writes_out {
            own.push(requirements::RACE_01);
        }
        check("the seed's own", &o, own.clone());
        for &i in &swapped {
            let mut refused = o.clone();
            refused.results[i] = CallResult::error("refused: the opened file is outside");
            // a refused write leaves the outside as the scenario made it
            if s.calls[i].tool == Tool::Write {
                let made = snapshot_of_entries(&s.tree).expect("the tree's contents decode");
                refused
                    .tree
                    .retain(|e| e.path == "ws" || e.path.starts_with("ws/"));
                refused.tree.extend(
                    made.into_iter()
                        .filter(|e| !e.path.starts_with("ws/") && e.path != "ws"),
                );
                refused.tree.sort_by(|a, b| a.path.cmp(&b.path));
            }
            let rest: Vec<&str> = escapes
                .iter()
                .filter(|&&e| e != i)
                .map(|_| requirements::RACE_01)
                .collect();
            check(&format!("call {i} refused"), &refused, rest.clone());
            let mut thrown = o.clone();
            thrown.results[i] = CallResult::Thrown(Thrown {
                thrown: Text(JsString::new("boom")),
            });
            let mut want = vec![requirements::RESULT_01];
            want.extend(rest.iter().copied());
            if writes_out {
                want.push(requirements::RACE_01);
            }
            check(&format!("call {i} thrown"), &thrown, want);
            if s.calls[i].tool == Tool::Read && escapes.contains(&i) {
                let mut wrapped = o.clone();
                wrapped.grading = Grading::Portable;
                wrapped.results[i] = CallResult::ok(format!(
                    "1\t{}\n[end of file]",
                    o.results[i].text().to_string_lossy()
                ));
                check(
                    &format!("call {i} leaks in other words"),
                    &wrapped,
                    own.clone(),
                );
                let mut other = o.clone();
                other.results[i] = CallResult::ok("inside a");
                check(
                    &format!("call {i} read what it opened before"),
                    &other,
                    rest,
                );
            }
        }
        let mut made = o.clone();
        made.tree
            .push(Snapshot::file("outside/made-by-the-call".into(), b"x"));
        let mut want = own.clone();
        if !writes_out {
            want.push(requirements::RACE_01);
        }
        check("a file made outside", &made, want);
        let mut seen = o.clone();
        seen.outside.push("rename $BASE/outside/x".into());
        let mut want = own.clone();
        want.push(requirements::RACE_01);
        check("a change the watcher saw", &seen, want);
        if let Some(i) = o.tree.iter().position(|e| e.path.starts_with("ws/")) {
            let mut gone = o.clone();
            gone.tree.remove(i);
            let mut want = own.clone();
            let writes = s.calls.iter().any(|c| c.tool == Tool::Write);
            want.push(if writes {
                requirements::WRITE_01
            } else {
                requirements::BASH_01
            });
            check("an entry inside gone", &gone, want);
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn scenarios_the_reference_does_not_run_are_refused() {
    let refused = [
        (
            json!({"tree": [{"path": "../x", "kind": "dir"}], "calls": []}),
            "/tree/0",
        ),
        (
            json!({"tree": [{"path": "l", "kind": "symlink"}], "calls": []}),
            "/tree/0",
        ),
        (
            json!({"tree": [{"path": "d", "kind": "dir", "content": "x"}], "calls": []}),
            "/tree/0",
        ),
        (json!({"root": "/abs", "calls": []}), "/root"),
        (json!({"shell": "bash", "calls": []}), "/shell"),
        (
            json!({"calls": [{"tool": "read", "abort": "before"}]}),
            "/calls/0/abort",
        ),
        (
            json!({"tree": [{"path": "f", "kind": "file", "content": {"hex": "abc"}}], "calls": []}),
            "/tree/0",
        ),
        (
            json!({"calls": [{"tool": "bash", "input": {"command": "true"},
                "swap": {"path": "ws/a", "target": "../outside"}}]}),
            "/calls/0/swap",
        ),
        // the swap is not on the call's path
        (
            json!({"calls": [{"tool": "read", "input": {"path": "a"},
                "swap": {"path": "ws/b", "target": "../outside"}}]}),
            "/calls/0/swap",
        ),
        // the root itself is not swapped
        (
            json!({"calls": [{"tool": "read", "input": {"path": "a"},
                "swap": {"path": "ws", "target": "outside"}}]}),
            "/calls/0/swap",
        ),
        // a target that leads back inside cannot go outside
        (
            json!({"calls": [{"tool": "read", "input": {"path": "a"},
                "swap": {"path": "ws/a", "target": "b"}}]}),
            "/calls/0/swap",
        ),
        (
            json!({"calls": [{"tool": "write", "input": {"path": "a", "content": ""},
                "swap": {"path": "ws/../a", "target": "/"}}]}),
            "/calls/0/swap",
        ),
    ];
    for (s, at) in refused {
        let e = WORKSPACE.check_scenario(&s).expect_err(&s.to_string());
        assert!(e.to_string().contains(at), "{s}: {e}");
    }
    assert!(WORKSPACE
        .check_scenario(&json!({"calls": [], "extra": 1}))
        .is_err());
}
