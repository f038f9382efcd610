//! The `actions` reference on the seed's worked examples, on the
//! guarantees its database keeps by itself (the `UNIQUE` key, the `CHECK`
//! on stock), on two runs reserving the last unit at once, and the judge on
//! observations broken on purpose.

use serde_json::json;
use std::sync::{Arc, Barrier};
use toolgate_actions::judge::judge;
use toolgate_actions::reference::observe;
use toolgate_actions::runner::{run, Policy};
use toolgate_actions::spec::{ActionsObservation, ActionsScenario, Outcome, Task};
use toolgate_actions::store::Store;
use toolgate_suite::Error;

fn scenario(json: serde_json::Value) -> ActionsScenario {
    serde_json::from_value(json).expect("a scenario")
}

fn camera() -> serde_json::Value {
    json!({"id": "camera", "title": "Camera kit", "text": "- body and lens\n- charger", "available": 3, "revision": 0})
}

fn task(id: &str, mode: &str, allow_write: bool, attempts: i64) -> serde_json::Value {
    json!({"id": id, "query": "camera", "mode": mode, "quantity": 1, "allow_write": allow_write, "max_tool_attempts": attempts})
}

const SEARCH: &str = r#"{"kind":"tool","name":"search","args":{"query":"camera"}}"#;
const DOCUMENT: &str = r#"{"kind":"tool","name":"document","args":{"item_id":"camera"}}"#;
const STOCK: &str = r#"{"kind":"tool","name":"stock","args":{"item_id":"camera"}}"#;

fn reserve(task: &str, revision: i64) -> String {
    format!(
        r#"{{"kind":"tool","name":"reserve","args":{{"item_id":"camera","quantity":1,"expected_revision":{revision},"idempotency_key":"{task}:camera:1"}}}}"#
    )
}

fn finish(status: &str) -> String {
    format!(r#"{{"kind":"finish","status":"{status}"}}"#)
}

fn outcomes(observation: &ActionsObservation, run: usize) -> Vec<String> {
    observation.runs[run]
        .steps
        .iter()
        .map(|s| {
            let detail = s.code.clone().or(s.tool.clone()).or(s.status.clone());
            format!("{} {}", s.outcome.name(), detail.unwrap_or_default())
        })
        .collect()
}

#[test]
fn worked_example_1_reserves_one_camera() {
    let s = scenario(
        json!({"items": [camera()], "runs": [{"task": task("reserve-camera", "reserve", true, 8),
        "policy": [SEARCH, DOCUMENT, STOCK, reserve("reserve-camera", 0), finish("reserved")]}]}),
    );
    let o = observe(&s).expect("observed");
    assert_eq!(
        outcomes(&o, 0),
        [
            "ok search",
            "ok document",
            "ok stock",
            "ok reserve",
            "finished reserved"
        ]
    );
    assert_eq!(o.runs[0].status, "reserved");
    assert_eq!(o.runs[0].attempts, 4);
    let result = o.runs[0].steps[3].result.clone().expect("a result");
    assert_eq!(
        result,
        json!({"item_id": "camera", "reserved": 1, "remaining": 2, "revision": 1, "transaction": 1, "replayed": false})
    );
    assert_eq!(
        (o.database.items[0].available, o.database.items[0].revision),
        (2, 1)
    );
    assert_eq!(o.database.ledger.len(), 1);
}

#[test]
fn worked_example_2_a_well_typed_reserve_is_refused_for_a_read_task() {
    let s = scenario(
        json!({"items": [camera()], "runs": [{"task": task("look-camera", "read", false, 8),
        "policy": [reserve("look-camera", 0), finish("answered")]}]}),
    );
    let o = observe(&s).expect("observed");
    assert_eq!(outcomes(&o, 0), ["policy_error writes_not_allowed"]);
    assert_eq!(o.runs[0].status, "policy_error");
    assert!(o.database.ledger.is_empty());
    assert_eq!(o.database.items[0].available, 3);
}

#[test]
fn the_budget_counts_tools_and_lets_finish_through() {
    let chain = |extra: &[&str]| {
        let mut policy = vec![
            SEARCH.to_string(),
            DOCUMENT.into(),
            STOCK.into(),
            reserve("t", 0),
        ];
        policy.extend(extra.iter().map(|s| s.to_string()));
        scenario(
            json!({"items": [camera()], "runs": [{"task": task("t", "reserve", true, 4), "policy": policy}]}),
        )
    };
    let o = observe(&chain(&[&finish("reserved")])).expect("observed");
    assert_eq!(o.runs[0].status, "reserved");
    let o = observe(&chain(&[STOCK])).expect("observed");
    assert_eq!(o.runs[0].status, "budget_exhausted");
    assert_eq!(o.runs[0].attempts, 4);
    assert_eq!(
        o.database.ledger.len(),
        1,
        "the reservation made stays made"
    );
}

#[test]
fn a_replayed_key_adds_nothing_within_a_run_and_across_runs() {
    let run = |id: &str, revision: i64| {
        json!({"task": task(id, "reserve", true, 8),
               "policy": [SEARCH, STOCK, reserve(id, revision), reserve(id, revision), finish("reserved")]})
    };
    let s = scenario(json!({"items": [camera()], "runs": [run("t", 0), run("t", 1)]}));
    let o = observe(&s).expect("observed");
    for r in 0..2 {
        assert_eq!(
            o.runs[r].status,
            "reserved",
            "run {r}: {:?}",
            outcomes(&o, r)
        );
    }
    let replayed: Vec<_> = o
        .runs
        .iter()
        .flat_map(|r| &r.steps)
        .filter_map(|s| s.result.as_ref()?.get("replayed")?.as_bool())
        .collect();
    assert_eq!(replayed, [false, true, true, true]);
    assert_eq!(o.database.ledger.len(), 1);
    assert_eq!(o.database.items[0].available, 2);
}

#[test]
fn the_schema_itself_refuses_a_second_row_for_a_key_and_negative_stock() {
    let dir = tempfile::tempdir().expect("a directory");
    let path = dir.path().join("db.sqlite3");
    let items: Vec<_> = serde_json::from_value(json!([camera()])).expect("items");
    let mut store = Store::create(&path, &items).expect("created");
    store.reserve("t", "camera", 1, 0, "k").expect("reserved");
    let insert = store.connection().execute(
        "INSERT INTO ledger (idempotency_key, task_id, item_id, quantity, remaining, revision) VALUES ('k', 't', 'camera', 1, 1, 2)",
        [],
    );
    assert!(insert.is_err(), "a second row for key k was written");
    let negative = store
        .connection()
        .execute("UPDATE items SET available = -1 WHERE id = 'camera'", []);
    assert!(negative.is_err(), "stock went negative");
}

/// A policy that returns its texts in order and waits at `barrier` before
/// returning the one at `wait_before`.
struct Racing {
    texts: Vec<String>,
    at: usize,
    wait_before: usize,
    barrier: Arc<Barrier>,
}

impl Policy for Racing {
    fn next(&mut self, _store: &Store) -> Result<Option<String>, Error> {
        if self.at == self.wait_before {
            self.barrier.wait();
        }
        let text = self.texts.get(self.at).cloned();
        self.at += 1;
        Ok(text)
    }
}

#[test]
fn two_runs_reserving_the_last_unit_at_once_write_exactly_one_row() {
    for round in 0..200 {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("db.sqlite3");
        let mut last = camera();
        last["available"] = json!(1);
        let items: Vec<_> = serde_json::from_value(json!([last])).expect("items");
        let store = Store::create(&path, &items).expect("created");
        let barrier = Arc::new(Barrier::new(2));
        let handles: Vec<_> = ["a", "b"]
            .into_iter()
            .map(|id| {
                let (path, barrier) = (path.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let task: Task =
                        serde_json::from_value(task(id, "reserve", true, 8)).expect("a task");
                    let mut store = Store::open(&path).expect("opened");
                    let mut policy = Racing {
                        texts: vec![
                            SEARCH.into(),
                            STOCK.into(),
                            reserve(id, 0),
                            finish("reserved"),
                        ],
                        at: 0,
                        wait_before: 2,
                        barrier,
                    };
                    run(&mut store, &task, &mut policy).expect("ran")
                })
            })
            .collect();
        let runs: Vec<_> = handles
            .into_iter()
            .map(|h| h.join().expect("joined"))
            .collect();
        let reserve_outcomes: Vec<Outcome> = runs.iter().map(|r| r.steps[2].outcome).collect();
        let ok = reserve_outcomes
            .iter()
            .filter(|o| **o == Outcome::Ok)
            .count();
        assert_eq!(ok, 1, "round {round}: {reserve_outcomes:?}");
        assert!(
            reserve_outcomes.contains(&Outcome::Retryable),
            "round {round}: {reserve_outcomes:?}"
        );
        let db = store.snapshot().expect("read back");
        assert_eq!(
            (db.ledger.len(), db.items[0].available),
            (1, 0),
            "round {round}"
        );
    }
}

/// The judge's names for `actual` edited from the reference's observation.
fn names(s: &ActionsScenario, edit: impl FnOnce(&mut ActionsObservation)) -> Vec<String> {
    let expected = observe(s).expect("observed");
    let mut actual = expected.clone();
    edit(&mut actual);
    let mut names: Vec<String> = judge(s, &expected, &actual)
        .violations
        .into_iter()
        .map(|v| v.requirement.unwrap_or_default())
        .collect();
    names.dedup();
    names
}

#[test]
fn the_judge_names_the_rule_of_the_step_that_differs() {
    let s = scenario(
        json!({"items": [camera()], "runs": [{"task": task("t", "reserve", true, 8),
        "policy": [SEARCH, STOCK, r#"{"kind":"tool","name":"reserve","args":{"item_id":"camera","quantity":true,"expected_revision":0,"idempotency_key":"t:camera:1"}}"#]}]}),
    );
    assert_eq!(names(&s, |_| {}), Vec::<String>::new());
    // a bool taken for an integer
    let accepted = names(&s, |o| {
        let step = &mut o.runs[0].steps[2];
        step.outcome = Outcome::Ok;
        step.code = None;
        step.field = None;
        step.tool = Some("reserve".into());
        step.result = Some(json!({}));
        o.database.ledger.clear();
    });
    assert_eq!(accepted, ["ACT-TYPE-01"]);
    // the right code at the wrong field
    let moved = names(&s, |o| o.runs[0].steps[2].field = Some("/args/x".into()));
    assert_eq!(moved, ["ACT-TYPE-01"]);
    // a message is never compared
    assert!(names(&s, |o| o.runs[0].steps[2].message = Some("no".into())).is_empty());
    // a run that asks for more after its terminal step
    let more = names(&s, |o| {
        let again = o.runs[0].steps[2].clone();
        o.runs[0].steps.push(again);
    });
    assert_eq!(more, ["ACT-STATUS-01"]);
    // a row no step accounts for
    let written = names(&s, |o| {
        o.database.ledger.push(toolgate_actions::spec::LedgerRow {
            id: 1,
            idempotency_key: "t:camera:1".into(),
            task_id: "t".into(),
            item_id: "camera".into(),
            quantity: 1,
            remaining: 2,
            revision: 1,
        })
    });
    assert_eq!(written, ["ACT-EFFECT-01"]);
}

#[test]
fn invalid_json_is_named_by_the_rule_the_text_breaks() {
    let one = |text: &str| {
        scenario(
            json!({"items": [camera()], "runs": [{"task": task("t", "reserve", true, 8), "policy": [text]}]}),
        )
    };
    for (text, requirement) in [
        (
            r#"{"kind":"finish","kind":"finish","status":"reserved"}"#,
            "ACT-JSON-02",
        ),
        (
            r#"{"kind":"tool","name":"reserve","args":{"quantity":NaN}}"#,
            "ACT-JSON-03",
        ),
        (
            r#"{"kind":"tool","name":"search","args":{"query":"\udead"}}"#,
            "ACT-JSON-04",
        ),
        (r#"{"kind":"finish",}"#, "ACT-JSON-01"),
    ] {
        let s = one(text);
        let accepted = names(&s, |o| {
            let step = &mut o.runs[0].steps[0];
            step.outcome = Outcome::PolicyError;
            step.code = Some("unsupported_status".into());
            step.field = None;
        });
        assert_eq!(accepted, [requirement], "{text}");
    }
}

/// The code points whose case folding the reference's tables (ICU4X, a
/// later Unicode) give and Python 3.11's (Unicode 14) do not: every code
/// point compared, 76 differ, all foldings added since. FORMAT.md keeps
/// them out of the cases and the generator, so that a Python
/// implementation's `str.casefold` agrees with the reference.
const FOLDED_SINCE_UNICODE_14: [(u32, u32); 28] = [
    (0x1C89, 0x1C89),
    (0xA7CB, 0xA7CC),
    (0xA7CE, 0xA7CE),
    (0xA7D2, 0xA7D2),
    (0xA7D4, 0xA7D4),
    (0xA7DA, 0xA7DA),
    (0xA7DC, 0xA7DD),
    (0xA7E2, 0xA7E2),
    (0xAB6C, 0xAB6D),
    (0x10D50, 0x10D65),
    (0x16EA0, 0x16EB8),
    (0x1DF40, 0x1DF40),
    (0x1DF48, 0x1DF48),
    (0x1DF4A, 0x1DF4A),
    (0x1DF4D, 0x1DF4D),
    (0x1DF51, 0x1DF51),
    (0x1DF68, 0x1DF68),
    (0x1DF6A, 0x1DF6A),
    (0x1DF6C, 0x1DF6C),
    (0x1DF6E, 0x1DF6E),
    (0x1DF72, 0x1DF72),
    (0x1DF74, 0x1DF74),
    (0x1DF76, 0x1DF76),
    (0x1DF78, 0x1DF78),
    (0x1DF7A, 0x1DF7A),
    (0x1DF7C, 0x1DF7C),
    (0x1DF7E, 0x1DF7E),
    (0x1DF95, 0x1DF95),
];

/// The first character of `text` whose folding changed after Unicode 14.
fn folded_since_unicode_14(text: &str) -> Option<char> {
    text.chars().find(|c| {
        FOLDED_SINCE_UNICODE_14
            .iter()
            .any(|&(low, high)| (low..=high).contains(&u32::from(*c)))
    })
}

/// Every string a scenario searches or is searched in: items' titles and
/// texts, tasks' queries, and the action texts (decoded, for escapes).
fn searched_strings(s: &ActionsScenario) -> Vec<String> {
    use toolgate_actions::spec::PolicyEntry;
    let mut out: Vec<String> = Vec::new();
    for item in &s.items {
        out.extend([item.title.clone(), item.text.clone()]);
    }
    for run in &s.runs {
        out.push(run.task.query.clone());
        for entry in &run.policy {
            if let PolicyEntry::Action(text) = entry {
                out.push(text.clone());
                if let Ok(value) = serde_json::from_str::<serde_json::Value>(text) {
                    out.push(value.to_string());
                }
            }
        }
    }
    out
}

#[test]
fn no_case_or_generated_scenario_folds_a_character_python_3_11_does_not() {
    assert_eq!(folded_since_unicode_14("Straße \u{A7CB}"), Some('\u{A7CB}'));
    let files = toolgate_corpus::of_suite(&toolgate_actions::ACTIONS).expect("the corpus");
    let mut scenarios: Vec<(String, ActionsScenario)> = Vec::new();
    for (_, file) in &files {
        for case in &file.cases {
            scenarios.push((file.id(case), scenario(case.scenario.clone())));
        }
    }
    assert!(scenarios.len() >= 120, "{} actions cases", scenarios.len());
    for n in 0..2000u32 {
        let bytes: Vec<u8> = (0..256u32).map(|i| (i * 31 + n * 7919) as u8).collect();
        let generated = toolgate_actions::generate::scenario_from_bytes(&bytes);
        scenarios.push((format!("generated {n}"), generated));
    }
    for (id, s) in &scenarios {
        for text in searched_strings(s) {
            assert_eq!(folded_since_unicode_14(&text), None, "{id}: {text:?}");
        }
    }
}
