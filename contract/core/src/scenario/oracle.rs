//! The oracle: runs a scenario on the reference model and returns the
//! observation. Deterministic: no clock, no threads, no runtime; calls run
//! one after another, each with its own signal.

use super::build::{build_with, Built, Limits};
use super::observation::*;
use super::spec::{AbortPlan, RegistryKind, Scenario};
use crate::error::{Error, ErrorKind};
use crate::model::{
    construct, drive_call, drive_call_aborting_at_job, register_many, Driven, ModelRegistry,
    RegistryArg, Runtime, Trace,
};
use crate::signal::{AbortReason, AbortSignal};
use crate::JsString;
use serde_json::Value as Json;

/// The expected observation of `scenario`. `Err` when the scenario is
/// malformed or asks for more than the model holds.
pub fn observe(scenario: &Scenario) -> Result<Observation, Error> {
    observe_with(scenario, Limits::CASES)
}

/// [`observe`] within other decoding limits (the fuzz targets' smaller ones).
pub fn observe_with(scenario: &Scenario, limits: Limits) -> Result<Observation, Error> {
    observe_keeping(scenario, limits).map(|(o, _)| o)
}

/// [`observe_with`], also giving the decoded scenario, so a caller that
/// needs it too (the fuzz oracles' checks) does not decode it again. The
/// model never changes a heap, so it is the scenario as first decoded.
pub fn observe_keeping(scenario: &Scenario, limits: Limits) -> Result<(Observation, Built), Error> {
    let built = build_with(scenario, limits)?;
    let (observation, _) = observe_aborting(scenario, &built, None)?;
    Ok((observation, built))
}

/// What [`registration_steps`] saw.
#[derive(Debug, Default)]
pub struct RegistrationSteps {
    /// The names once the registry is constructed (from `initial`, if any).
    pub constructed: Vec<Json>,
    /// Each registration's outcome and the names after it, in order.
    pub steps: Vec<(Registered, Vec<Json>)>,
    /// Why the registrations stopped before the last: one of them ended
    /// outside the model.
    pub stopped: Option<Error>,
}

/// The registry's names after its construction and after each of
/// `built`'s registrations, on one registry: what observing each prefix of
/// the registrations gives (the model is deterministic and never changes
/// the heap), for one decoding and one run instead of one per prefix.
/// Traces are not encoded: nothing here reads them. `Err` when the
/// construction ends outside the model.
pub fn registration_steps(built: &Built) -> Result<RegistrationSteps, Error> {
    let mut out = RegistrationSteps::default();
    let mut registry = ModelRegistry::new();
    if let Some(batch) = &built.initial {
        register_only(built, &mut registry, batch, construct)?;
    }
    out.constructed = names(&registry);
    for batch in &built.registrations {
        match register_only(built, &mut registry, batch, register_many) {
            Ok(outcome) => out.steps.push((outcome, names(&registry))),
            Err(e) => {
                out.stopped = Some(e);
                break;
            }
        }
    }
    Ok(out)
}

fn names(registry: &ModelRegistry) -> Vec<Json> {
    registry.names().iter().map(JsString::to_json).collect()
}

/// Longest asynchronous tail a call's abort points are looked for in: the
/// 64 `then` calls of a thenable chain, the second promise's callback and
/// the resumption, and the point after them.
pub const MAX_ABORT_POINTS: usize = 64 + 3;

/// The reference's abort points of call `call`: its observation for an
/// abort from outside (with `reason`) before each job of its asynchronous
/// tail in turn, then while it is pending or after it settled, with equal
/// neighbours kept once. An implementation that takes other jobs must still
/// give, for an abort after any number of job-queue turns, one of these,
/// never an earlier one after a later one (SPEC.md, the sweep).
pub fn abort_points(
    scenario: &Scenario,
    call: usize,
    reason: &AbortReason,
) -> Result<Vec<CallObserved>, Error> {
    let mut points: Vec<CallObserved> = Vec::new();
    for job in 0..=MAX_ABORT_POINTS {
        let built = build_with(scenario, Limits::CASES)?;
        let (observation, inside) =
            observe_aborting(scenario, &built, Some((call, job, reason.clone())))?;
        let observed = observation
            .calls
            .into_iter()
            .nth(call)
            .ok_or_else(|| Error::scenario(format!("the scenario has no call {call}")))?;
        if points.last() != Some(&observed) {
            points.push(observed);
        }
        if !inside {
            break;
        }
    }
    Ok(points)
}

/// The observation, with call `i` of `sweep` (if any) aborted before job
/// `job` of its asynchronous tail; `true` when that abort landed inside it.
fn observe_aborting(
    scenario: &Scenario,
    built: &Built,
    sweep: Option<(usize, usize, AbortReason)>,
) -> Result<(Observation, bool), Error> {
    let mut inside = false;
    let mut registry = ModelRegistry::new();
    let mut observation = Observation::default();
    // a failed construction leaves no registry: the calls then run on an
    // empty one, which is what remains observable
    if let Some(batch) = &built.initial {
        observation.initial = Some(register(built, &mut registry, batch, construct)?);
    }
    for batch in &built.registrations {
        let registered = register(built, &mut registry, batch, register_many)?;
        observation.registrations.push(registered);
    }
    for (i, (spec, call)) in scenario.calls.iter().zip(&built.calls).enumerate() {
        let trace = Trace::default();
        let signal = AbortSignal::new();
        let mut when_pending = None;
        let mut at_job = None;
        match &spec.abort {
            Some(AbortPlan::AfterTurns(t)) => {
                // in the reference's own job structure, a turn is a job
                let reason = AbortReason::from_option(t.reason.clone());
                at_job = Some((t.turns as usize, reason));
            }
            Some(AbortPlan::Before(r)) => {
                signal.abort(AbortReason::from_option(r.reason.clone()));
            }
            Some(AbortPlan::WhenPending(r)) => {
                when_pending = Some(AbortReason::from_option(r.reason.clone()))
            }
            None => {}
        }
        let rt = Runtime::new(&built.heap, signal, trace.clone());
        let arg = match spec.registry {
            RegistryKind::Real => RegistryArg::Real(&registry),
            RegistryKind::NotARegistry => RegistryArg::NotARegistry,
        };
        let driven = match (&sweep, at_job) {
            (Some((at, job, reason)), _) if *at == i => {
                let (driven, landed) =
                    drive_call_aborting_at_job(&rt, arg, call, *job, reason.clone());
                inside = landed;
                driven
            }
            (_, Some((job, reason))) => drive_call_aborting_at_job(&rt, arg, call, job, reason).0,
            _ => drive_call(&rt, arg, call, when_pending),
        };
        let outcome = outcome(built, driven)?;
        observation.calls.push(CallObserved {
            outcome,
            trace: encode_trace(built, &snapshot(&trace)),
            unhandled_rejections: 0,
        });
    }
    observation.names = names(&registry);
    Ok((observation, inside))
}

/// One `registerMany` (or construction) with its own throwaway signal,
/// without its trace.
fn register_only(
    built: &Built,
    registry: &mut ModelRegistry,
    batch: &crate::model::Value,
    how: fn(&Runtime<'_>, &mut ModelRegistry, &crate::model::Value) -> Result<(), Error>,
) -> Result<Registered, Error> {
    let rt = Runtime::new(&built.heap, AbortSignal::new(), Trace::default());
    match how(&rt, registry, batch) {
        Ok(()) => Ok(Registered::Ok),
        Err(e) => match e.contract_code() {
            Some(code) => Ok(Registered::ContractError(code)),
            None => Err(e),
        },
    }
}

/// One `registerMany` (or construction) with its own throwaway signal.
fn register(
    built: &Built,
    registry: &mut ModelRegistry,
    batch: &crate::model::Value,
    how: fn(&Runtime<'_>, &mut ModelRegistry, &crate::model::Value) -> Result<(), Error>,
) -> Result<RegistrationObserved, Error> {
    let trace = Trace::default();
    let rt = Runtime::new(&built.heap, AbortSignal::new(), trace.clone());
    let outcome = match how(&rt, registry, batch) {
        Ok(()) => Registered::Ok,
        Err(e) => match e.contract_code() {
            Some(code) => Registered::ContractError(code),
            None => return Err(e),
        },
    };
    Ok(RegistrationObserved {
        outcome,
        trace: encode_trace(built, &snapshot(&trace)),
    })
}

fn snapshot(trace: &Trace) -> Vec<crate::model::TraceEvent> {
    trace
        .lock()
        .map(|t| t.clone())
        .unwrap_or_else(|p| p.into_inner().clone())
}

fn outcome(built: &Built, driven: Driven) -> Result<Outcome, Error> {
    Ok(match driven {
        Driven::Pending => Outcome::Pending,
        Driven::Done(Ok(result)) => Outcome::Result(encode_result(&result)),
        Driven::Done(Err(e)) => match e.kind() {
            ErrorKind::Contract(code) => Outcome::ContractError(*code),
            ErrorKind::Cancelled(reason) => Outcome::Cancelled(reason.into()),
            ErrorKind::NonRecoverable { origin, .. } => {
                let id = crate::model::NodeId(u32::try_from(*origin).unwrap_or(u32::MAX));
                Outcome::NonRecoverable(built.name(id).to_string())
            }
            ErrorKind::Model(_) | ErrorKind::Scenario(_) => return Err(e),
        },
    })
}
