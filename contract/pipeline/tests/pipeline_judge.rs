//! The pipeline judge on the observations recorded from the real pi
//! (`corpus/cases/pipeline/`'s expectations and
//! `adapters/node/pipeline/recorded/pi-1.6.0.json`): pi 0.85.0's observation of every
//! case passes against itself; every deliberate breakage
//! (`pipeline::mutants`) is named by the requirements it breaks wherever
//! it fits; and pi 1.6.0's observations, judged against 0.85.0's, show
//! the differences `pipeline.md` lists (D1-D8), each named.

use std::collections::BTreeSet;
use toolgate_pipeline::judge::{checked, judge};
use toolgate_pipeline::spec::{PipelineObservation, PipelineScenario};
use toolgate_pipeline::{mutants, requirements};
use toolgate_suite::{Level, Violation};

#[path = "support/pipeline_cases.rs"]
mod pipeline_cases;
use pipeline_cases::{pipeline_cases, recorded_1_6, repository_json};

/// Every case: its id, its scenario, pi 0.85.0's observation (the case's
/// expectation), pi 1.6.0's (`adapters/node/pipeline/recorded/`).
fn examples() -> Vec<(
    String,
    PipelineScenario,
    PipelineObservation,
    PipelineObservation,
)> {
    let newer = recorded_1_6();
    pipeline_cases()
        .into_iter()
        .map(|c| {
            let s = serde_json::from_value(c.scenario).expect("a scenario");
            let o = serde_json::from_value(c.expect).expect("an observation");
            let n = serde_json::from_value(newer[&c.id].clone())
                .unwrap_or_else(|e| panic!("{}: no 1.6.0 observation: {e}", c.id));
            (c.id, s, o, n)
        })
        .collect()
}

/// Judges `actual` against `expected` and checks what any verdict keeps:
/// every named requirement exists and has a predicate.
fn check(
    s: &PipelineScenario,
    expected: &PipelineObservation,
    actual: &PipelineObservation,
) -> Vec<Violation> {
    let found = judge(s, expected, actual);
    let known: BTreeSet<&str> = checked().collect();
    for v in &found {
        if let Some(r) = &v.requirement {
            assert!(
                known.contains(r.as_str()),
                "{}: {r} is no checked requirement",
                s.id
            );
        }
    }
    found
}

/// Every reference observation passes against itself; against another
/// scenario's observation it fails (and the judge does not panic on
/// observations that have nothing to do with the scenario).
#[test]
fn every_reference_observation_passes_against_itself() {
    let examples = examples();
    for (i, (_, s, old, _)) in examples.iter().enumerate() {
        let found = check(s, old, old);
        assert!(found.is_empty(), "{}: {found:#?}", s.id);
        let (_, _, other, _) = &examples[(i + 1) % examples.len()];
        assert!(!judge(s, old, other).is_empty(), "{}", s.id);
    }
}

/// pi 1.6.0's differences (`pipeline.md` §4), each with the example that
/// shows it and the requirement the judge names for it.
const DIFFERENCES: &[(&str, &str, &str)] = &[
    // judged only in the cases about what goes in the transcript (queued
    // messages, hooks recording their context): judge.rs, leading_messages
    (
        "D1 leading system message",
        "steering-mid-batch",
        requirements::ORDER_01,
    ),
    (
        "D1 leading system message",
        "hook-context-excludes-own-batch",
        requirements::ORDER_01,
    ),
    (
        "D2 hook skipped once aborted",
        "abort-before-run",
        requirements::HOOK_05,
    ),
    (
        "D2 hook skipped once aborted",
        "abort-before-run",
        requirements::ABORT_02,
    ),
    (
        "D2 every call gets a result",
        "abort-after-assistant-message-parallel",
        requirements::ABORT_03,
    ),
    (
        "D2 every call gets a result",
        "abort-in-before-hook",
        requirements::ABORT_03,
    ),
    (
        "D2 unknown after an abort",
        "abort-unknown-then-known",
        requirements::ABORT_02,
    ),
    (
        "D2 aborted calls do not vote",
        "abort-sequential-terminate-cutoff",
        requirements::TERM_04,
    ),
    (
        "D3 pi-schema messages",
        "validation-missing-required",
        requirements::VAL_04,
    ),
    (
        "D3 one line per missing property",
        "validation-several-errors",
        requirements::VAL_03,
    ),
    (
        "D3 non-object root",
        "validation-root-not-object",
        requirements::VAL_09,
    ),
    (
        "D3 plain schemas coerce",
        "coercion-plain-json",
        requirements::VAL_08,
    ),
    (
        "D3 plain string null",
        "validation-nulls",
        requirements::VAL_07,
    ),
    (
        "D3 plain string null",
        "validation-nulls",
        requirements::RESULT_08,
    ),
    (
        "D4 isError honoured",
        "execute-result-shapes",
        requirements::RESULT_03,
    ),
    (
        "D5 undefined result",
        "execute-returns-undefined",
        requirements::RESULT_04,
    ),
    (
        "D6 durationMs on the end event",
        "single-call",
        requirements::ORDER_02,
    ),
    (
        "D6 durationMs on the message",
        "single-call",
        requirements::RESULT_05,
    ),
    (
        "D7 addedToolNames not copied",
        "execute-result-shapes",
        requirements::RESULT_06,
    ),
    (
        "D8 argumentsError refused",
        "arguments-error",
        requirements::VAL_10,
    ),
    (
        "D10 shouldStopAfterTurn ignored",
        "should-stop-after-first-turn",
        requirements::STOP_03,
    ),
];

/// Judges every 1.6.0 observation against 0.85.0's and prints the
/// verdicts: every difference is named (none falls to the unnamed
/// fallback), and each of pipeline.md's D-differences the examples show is
/// named by its requirement. (D10 shows as 1.6 ignoring
/// `shouldStopAfterTurn`; D9 and D11-D13 are API and type changes no
/// example scenario exercises: `structuredContent`, `finishTurn` itself,
/// `runToolCall`, the harness, the types.)
#[test]
fn pi_1_6_against_pi_0_85_is_named() {
    let mut unnamed = Vec::new();
    let mut named: BTreeSet<(String, String)> = BTreeSet::new();
    for (id, s, old, new) in examples() {
        let found = check(&s, &old, &new);
        println!("{id}:");
        for v in &found {
            println!("  {v}");
            match &v.requirement {
                Some(r) => {
                    let name = id.rsplit('/').next().unwrap_or(&id).to_string();
                    named.insert((name, r.clone()));
                }
                None => unnamed.push(format!("{id}: {v}")),
            }
        }
    }
    assert!(unnamed.is_empty(), "{unnamed:#?}");
    for (what, example, requirement) in DIFFERENCES {
        assert!(
            named.contains(&(example.to_string(), requirement.to_string())),
            "{what}: {example} is not judged {requirement}"
        );
    }
}

#[test]
fn every_mutant_is_named_wherever_it_fits() {
    let examples = examples();
    let ids: BTreeSet<&str> = mutants::ALL.iter().map(|m| m.id).collect();
    assert_eq!(ids.len(), mutants::ALL.len(), "mutant ids repeat");
    assert!(mutants::ALL.len() >= 20);
    let mut named_somewhere = BTreeSet::new();
    let mut problems = Vec::new();
    for m in mutants::ALL {
        let mut fits = 0;
        for (id, s, old, _) in &examples {
            let Some(broken) = m.fit(s, old) else {
                continue;
            };
            fits += 1;
            let found = check(s, old, &broken);
            let named: BTreeSet<&str> = found
                .iter()
                .filter_map(|v| v.requirement.as_deref())
                .collect();
            named_somewhere.extend(named.iter().map(|r| r.to_string()));
            let unnamed = found.iter().any(|v| v.requirement.is_none());
            if !m.expect.kept_by(&found) || unnamed {
                problems.push(format!(
                    "{} on {id}: must name {:?}; found {found:#?}",
                    m.id, m.expect
                ));
            }
        }
        println!("{}: fits {fits} example(s)", m.id);
        if fits == 0 {
            problems.push(format!("{} fits no example", m.id));
        }
    }
    // a requirement no observation edit can break (which tool of a shared
    // name ran needs the other tool's run) has its mutant among pi's own
    // (adapters/node/pipeline/mutants.json, runner/tests/pipeline_gate.rs)
    let of_pi = repository_json("adapters/node/pipeline/mutants.json");
    let by_pi: BTreeSet<String> = of_pi
        .as_array()
        .expect("a list of mutants")
        .iter()
        .flat_map(|m| m["requirements"].as_array().cloned().unwrap_or_default())
        .filter_map(|r| r.as_str().map(String::from))
        .collect();
    // the file queue's requirements have their own judge and edits
    // (pipeline_file_queue.rs)
    let of_the_loop = |id: &&str| !id.starts_with("PIPE-QUEUE-");
    for id in checked()
        .filter(of_the_loop)
        .filter(|id| requirements::level(id) == Level::Must)
    {
        if !named_somewhere.contains(id) && !by_pi.contains(id) {
            problems.push(format!("{id} (MUST, checked) is named for no mutant"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// SPEC.md's `## pipeline` lists the same ids as `requirements::ALL`, in
/// its order and at its levels, and says "not yet checked" exactly for
/// the requirements no predicate names.
#[test]
fn spec_lists_every_requirement_at_its_level() {
    let spec = toolgate_corpus::SPEC;
    let listed: Vec<(String, Level, bool)> = spec
        .lines()
        .filter(|l| l.starts_with("- **PIPE-"))
        .map(|l| {
            let id = l
                .trim_start_matches("- **")
                .split("**")
                .next()
                .unwrap_or_default();
            let level = if l.contains("** (MUST") {
                Level::Must
            } else {
                Level::Should
            };
            (id.to_string(), level, l.contains("Not yet checked"))
        })
        .collect();
    let checked: BTreeSet<&str> = checked().collect();
    let want: Vec<(String, Level, bool)> = requirements::ALL
        .iter()
        .map(|(id, level)| (id.to_string(), *level, !checked.contains(id)))
        .collect();
    assert_eq!(listed, want);
}
