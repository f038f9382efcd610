//! The reference of the pipeline suite: a scenario run on a Rust model of
//! pi-agent-core 0.85.0's agent loop, inside a Rust model of the Node
//! harness that runs it on the real package, giving the observation the
//! harness records (FORMAT.md), event for event and byte for byte.
//!
//! `value` holds JavaScript values, `jobs` the promise job queue every
//! ordering comes from, `script` the scenario's scripted functions,
//! `harness` what the Node harness does around the loop (signal, latches,
//! the recording `emit` and its triggers, the scripted model), `typebox`
//! the TypeBox form of a schema, and `agent_loop` pi's loop itself.

mod agent_loop;
mod harness;
mod jobs;
mod script;
mod typebox;
mod value;

use crate::spec::PipelineScenario;
use harness::{message_summary, World};
use serde_json::{json, Map, Value as Json};
use toolgate_suite::Error;
use value::{Thrown, Val};

pub(crate) use typebox::typebox_of;

/// More jobs than any scenario needs; past it the run is refused rather
/// than left to spin.
const JOB_LIMIT: u64 = 5_000_000;

/// Runs `scenario` on the reference: the observation as JSON, in the
/// layout of `corpus/schema/pipeline-observation.schema.json`, or why the
/// reference does not model it.
pub fn observe(scenario: &PipelineScenario) -> Result<Json, Error> {
    let world = World::new(scenario.clone());
    world.before_run();
    // the harness calls runAgentLoop in a job (`Promise.resolve().then`)
    let run = agent_loop::run_agent_loop(&world);
    // the harness's `.then(value => …, error => …)`: the rejection is handled
    run.then(&world.realm, |_| {});
    if !world.realm.run_until_idle(JOB_LIMIT) {
        return Err(Error::model(format!(
            "the run took more than {JOB_LIMIT} jobs"
        )));
    }
    let settled = run.settled();
    if settled.is_none() {
        // pending: the harness stops recording, aborts and lets every
        // latch go, so that the abandoned run can end
        world.stop_recording();
        world.abort_controller();
        world.release_all();
        world.realm.run_until_idle(JOB_LIMIT);
    }
    world.stop_recording();
    if let Some(e) = world.take_refusal() {
        return Err(e);
    }
    let (trace, tool_results, provider_calls) = world.take_records();
    let mut out = Map::new();
    out.insert("trace".into(), Json::Array(trace));
    out.insert("toolResults".into(), Json::Array(tool_results));
    out.insert("providerCalls".into(), json!(provider_calls));
    match settled {
        None => {
            out.insert("end".into(), json!({"outcome": "pending"}));
        }
        Some(Err(thrown)) => {
            let (name, message) = match &thrown {
                Thrown::Error { name, message } => (name.clone(), message.clone()),
                Thrown::Value(v) => (type_of(v).to_owned(), v.to_js_string()),
            };
            out.insert(
                "end".into(),
                json!({"outcome": "rejected", "name": name, "message": message}),
            );
        }
        Some(Ok(messages)) => {
            out.insert("end".into(), json!({"outcome": "resolved"}));
            let summary = match messages.as_obj() {
                Some(list) if list.is_array() => Json::Array(
                    list.entries()
                        .iter()
                        .map(|(_, m)| message_summary(m))
                        .collect(),
                ),
                _ => value::encode(&messages),
            };
            out.insert("messages".into(), summary);
        }
    }
    out.insert("uncaught".into(), json!(world.realm.unhandled_rejections()));
    Ok(Json::Object(out))
}

/// `typeof value`.
fn type_of(v: &Val) -> &'static str {
    match v {
        Val::Undefined => "undefined",
        Val::Null | Val::Obj(_) => "object",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::Str(_) => "string",
    }
}
