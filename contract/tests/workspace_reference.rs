//! The workspace suite's reference against its corpus (`corpus/cases/
//! workspace/`, recorded on the project's JavaScript implementation of
//! seed 004, `adapters/node/workspace/toolgate-workspace.mjs`): the
//! reference observes every case byte for byte; scenarios and
//! observations round-trip; the judge names a requirement for every edit
//! of a recorded observation (and WS-PATH-06 for every change outside the
//! root); scenarios the reference does not run are refused with the
//! field that is wrong.

use serde_json::{json, Value as Json};
use toolgate_contract::fs_tree::{EntryKind, Snapshot};
use toolgate_contract::js_string::JsString;
use toolgate_contract::scenario::corpus::load_dir;
use toolgate_contract::suites::SuiteDef;
use toolgate_contract::workspace::spec::{
    CallResult, Returned, Text, Thrown, WorkspaceObservation, WorkspaceScenario,
};
use toolgate_contract::workspace::{judge::judge, requirements, WORKSPACE};

/// The fewest workspace cases the corpus may hold (issue 16: 150).
const AT_LEAST: usize = 150;

struct Case {
    id: String,
    requirements: Vec<String>,
    scenario: Json,
    expect: Json,
}

fn cases() -> Vec<Case> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/cases");
    let files = load_dir(&root).expect("the corpus loads");
    let mut out = Vec::new();
    for (_, file) in files.iter().filter(|(_, f)| f.suite == "workspace") {
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

fn text(s: &str) -> Text {
    Text(JsString::new(s))
}

/// Edits of an observation, as data: each is what a broken implementation
/// could give.
fn edits(o: &WorkspaceObservation) -> Vec<(String, WorkspaceObservation)> {
    let mut out = Vec::new();
    for (i, r) in o.results.iter().enumerate() {
        let mut changed = o.clone();
        changed.results[i] = match r {
            CallResult::Returned(r) => CallResult::Returned(Returned {
                content: text(&format!("{}!", r.content.0.to_string_lossy())),
                is_error: r.is_error,
            }),
            CallResult::Thrown(_) => CallResult::error("x"),
        };
        out.push((format!("result {i}: content"), changed));
        let mut flipped = o.clone();
        if let CallResult::Returned(r) = &mut flipped.results[i] {
            r.is_error = !r.is_error;
        }
        out.push((format!("result {i}: isError"), flipped));
        let mut thrown = o.clone();
        thrown.results[i] = CallResult::Thrown(Thrown {
            thrown: Text(r.text().clone()),
        });
        out.push((format!("result {i}: thrown"), thrown));
    }
    for i in 0..o.tree.len() {
        let mut gone = o.clone();
        gone.tree.remove(i);
        out.push((format!("tree {i}: removed"), gone));
    }
    let mut made = o.clone();
    made.tree
        .push(Snapshot::file("outside/made-by-the-call".into(), b"x"));
    out.push(("a file made outside".into(), made));
    out
}

#[test]
fn every_edit_of_a_recorded_observation_is_named() {
    let mut unnamed = Vec::new();
    for c in cases() {
        let s = scenario(&c.scenario);
        let o = observation(&c.expect);
        assert!(
            judge(&s, &o, &o).violations.is_empty(),
            "{}: its own judge",
            c.id
        );
        for (what, edited) in edits(&o) {
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
    ];
    for (s, at) in refused {
        let e = WORKSPACE.check_scenario(&s).expect_err(&s.to_string());
        assert!(e.to_string().contains(at), "{s}: {e}");
    }
    assert!(WORKSPACE
        .check_scenario(&json!({"calls": [], "extra": 1}))
        .is_err());
}
