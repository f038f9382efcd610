//! The scenario's scripted functions (FORMAT.md, "Scripts"), as the Node
//! harness's `scripts.mjs` runs them: a `sync` script as a plain function
//! (a throw is synchronous), any other as an `async` function whose
//! `wait` steps await a latch (or the received signal's abort event);
//! `update` calls execute's `onUpdate` at once, `lateUpdate` when a latch
//! is released. The harness's own errors (`"update" outside execute`, a
//! `wait` in a sync script) are thrown as the harness throws them.

use super::harness::{Signal, World};
use super::jobs::Promise;
use super::value::{materialize, Completion, Thrown, Val};
use crate::spec::{Outcome, Script, Step, Thrown as ThrownSpec};
use crate::validation::js;
use serde_json::Value as Json;
use std::rc::Rc;

/// What the running function received.
#[derive(Clone)]
pub(crate) struct Received {
    /// The argument object (`mutateArgs`, `{"$":"args"}`): prepare's
    /// input, a hook's `ctx.args`, execute's `params`.
    pub args: Option<Val>,
    pub signal: Option<Signal>,
    /// Execute's `onUpdate`.
    pub on_update: Option<Rc<dyn Fn(Val)>>,
}

/// What calling the function gave: a plain value or throw (a `sync`
/// script), or the promise of an `async` one.
pub(crate) enum Called {
    Sync(Completion<Val>),
    Async(Promise<Val>),
}

fn harness_error(message: impl Into<String>) -> Thrown {
    Thrown::Error {
        name: "Error".to_owned(),
        message: message.into(),
    }
}

fn value(spec: &Json, received: &Received) -> Completion<Val> {
    materialize(spec, received.args.as_ref()).map_err(harness_error)
}

/// The outcome as the function finishes with it.
fn finish(outcome: &Outcome, received: &Received) -> Completion<Val> {
    match outcome {
        Outcome::Return(v) => value(v, received),
        Outcome::Throw(ThrownSpec::Value { value: v }) => Err(Thrown::Value(value(v, received)?)),
        Outcome::Throw(spec) => Err(thrown(spec)),
    }
}

/// The harness's `errorOf` (outside a function: no `{"$":"args"}`).
pub(crate) fn thrown(spec: &ThrownSpec) -> Thrown {
    match spec {
        ThrownSpec::Error { error, name } => Thrown::Error {
            name: name.clone().unwrap_or_else(|| "Error".to_owned()),
            message: error.clone(),
        },
        ThrownSpec::Value { value: v } => match materialize(v, None) {
            Ok(v) => Thrown::Value(v),
            Err(m) => harness_error(m),
        },
    }
}

/// `{"ifAborted": …}` or a finished `wait` ends the steps early.
enum Flow {
    Next,
    Finish(Outcome),
}

/// `obj[key] = value` in strict mode code, with V8's TypeErrors.
fn assign(target: &Val, key: &str, v: Val) -> Completion<()> {
    match target {
        Val::Obj(o) => {
            o.set(key, v);
            Ok(())
        }
        Val::Undefined | Val::Null => Err(Thrown::type_error(format!(
            "Cannot set properties of {} (setting '{key}')",
            target.to_js_string()
        ))),
        other => {
            let kind = match other {
                Val::Bool(_) => "boolean",
                Val::Num(_) => "number",
                _ => "string",
            };
            Err(Thrown::type_error(format!(
                "Cannot create property '{key}' on {kind} '{}'",
                other.to_js_string()
            )))
        }
    }
}

fn step_now(world: &Rc<World>, step: &Step, received: &Received) -> Completion<Flow> {
    match step {
        Step::Update { update } => {
            let Some(on_update) = &received.on_update else {
                return Err(harness_error("\"update\" outside execute"));
            };
            on_update(value(update, received)?);
        }
        Step::LateUpdate { late_update } => {
            let on_update = received.on_update.clone();
            let spec = late_update.value.clone();
            let later = received.clone();
            let w = world.clone();
            world
                .latch(&late_update.latch)
                .then(&world.realm, move |_| {
                    // `.then(() => onUpdate(materialize(value)))`: a throw
                    // rejects a promise nobody handles
                    let outcome = value(&spec, &later).and_then(|v| match &on_update {
                        Some(f) => {
                            f(v);
                            Ok(())
                        }
                        None => Err(Thrown::type_error("onUpdate is not a function")),
                    });
                    if let Err(e) = outcome {
                        Promise::<()>::pending().settle(&w.realm, Err(e));
                    }
                });
        }
        Step::Release { release } => world.release(release),
        Step::Abort { .. } => world.abort(),
        Step::IfAborted { if_aborted } => {
            if received.signal.as_ref().is_some_and(Signal::aborted) {
                return Ok(Flow::Finish(if_aborted.clone()));
            }
        }
        Step::MutateArgs { mutate_args } => {
            let target = received.args.clone().unwrap_or(Val::Undefined);
            // `Object.entries` of the parsed step: JavaScript key order
            let ordered = js::js_ordered(&Json::Object(mutate_args.clone()));
            if let Json::Object(map) = ordered {
                for (k, v) in &map {
                    assign(&target, k, value(v, received)?)?;
                }
            }
        }
        Step::Wait { .. } => return Err(harness_error("\"wait\" in a sync script")),
    }
    Ok(Flow::Next)
}

/// Runs `script` as the harness's `runScript` does; `fallback` is the
/// outcome when the script has none.
pub(crate) fn call(
    world: &Rc<World>,
    script: &Script,
    received: Received,
    fallback: &Outcome,
) -> Called {
    let outcome = script.then.clone().unwrap_or_else(|| fallback.clone());
    if script.sync {
        for step in &script.steps {
            match step_now(world, step, &received) {
                Ok(Flow::Next) => {}
                Ok(Flow::Finish(o)) => return Called::Sync(finish(&o, &received)),
                Err(e) => return Called::Sync(Err(e)),
            }
        }
        return Called::Sync(finish(&outcome, &received));
    }
    let steps = script.steps.clone();
    let w = world.clone();
    Called::Async(world.realm.spawn(async move {
        for step in &steps {
            let flow = match step {
                Step::Wait { wait, on_abort } => {
                    let latch = w.latch(wait);
                    match on_abort {
                        None => {
                            w.realm.wait(&latch).await?;
                            Flow::Next
                        }
                        Some(o) => {
                            let first = wait_or_abort(&w, &latch, received.signal.as_ref());
                            if w.realm.wait(&first).await? {
                                Flow::Finish(o.clone())
                            } else {
                                Flow::Next
                            }
                        }
                    }
                }
                other => step_now(&w, other, &received)?,
            };
            if let Flow::Finish(o) = flow {
                return finish(&o, &received);
            }
        }
        finish(&outcome, &received)
    }))
}

/// The harness's `waitOrAbort`: a promise of whether the signal was
/// aborted (`true`) before the latch was released (`false`).
fn wait_or_abort(world: &Rc<World>, latch: &Promise<()>, signal: Option<&Signal>) -> Promise<bool> {
    let first = Promise::pending();
    if signal.is_some_and(Signal::aborted) {
        first.settle(&world.realm, Ok(true));
        return first;
    }
    let listener = signal.map(|s| {
        let (p, realm) = (first.clone(), world.realm.clone());
        (s.clone(), s.listen(move || p.settle(&realm, Ok(true))))
    });
    let (p, realm) = (first.clone(), world.realm.clone());
    latch.then(&world.realm, move |_| {
        if let Some((s, id)) = listener {
            s.unlisten(id);
        }
        p.settle(&realm, Ok(false));
    });
    first
}
