//! The host model answering the call flow's questions: the call snapshot,
//! validator returns (decisions, promises, thenables), executor results
//! awaited with `Promise.resolve` semantics, and output inspection.

use super::copy::{copy_arguments, CopyFailure};
use super::definition::{ModelRegistry, ModelTool};
use super::heap::{Node, PromiseNode, PropKey, Settlement, Value};
use super::runtime::{Arg, Copied, Invoked, Runtime, Thrown, TraceEvent};
use crate::call::{
    run, CallHost, CallSnapshot, Decision, DecisionFailure, SnapshotFailure, ToolResult,
};
use crate::constants::message;
use crate::error::Error;
use crate::js_string::JsString;
use crate::serializer::{serialize, Failure, Serialized};
use crate::signal::{AbortReason, AbortSignal};
use futures::future::BoxFuture;
use futures::FutureExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Thenables resolving to thenables are followed this many times; a longer
/// chain stays pending, as an endless one does in JavaScript.
const MAX_THENABLE_CHAIN: usize = 64;

/// What `executeToolCall` is given in the model.
#[derive(Debug, Clone, Copy)]
pub enum RegistryArg<'r> {
    Real(&'r ModelRegistry),
    /// Anything that is not a registry built by the contract module.
    NotARegistry,
}

/// Runs `executeToolCall(registry, call, signal)` in the model. The future
/// completes at once unless the executor's result is pending, in which case
/// it completes when the signal aborts.
pub async fn execute_tool_call(
    rt: &Runtime<'_>,
    registry: RegistryArg<'_>,
    call: &Value,
) -> Result<ToolResult, Error> {
    execute_aborting_at_job(rt, registry, call, None, &AtomicUsize::new(0)).await
}

/// [`execute_tool_call`] with an abort from outside before the `job`-th job
/// of the call's asynchronous tail (see [`ModelCall::job`]), if it has one;
/// `jobs` counts the jobs begun.
async fn execute_aborting_at_job(
    rt: &Runtime<'_>,
    registry: RegistryArg<'_>,
    call: &Value,
    abort: Option<(usize, AbortReason)>,
    jobs: &AtomicUsize,
) -> Result<ToolResult, Error> {
    let host = ModelCall {
        rt,
        registry,
        call,
        abort,
        jobs,
    };
    run(&host).await
}

struct ModelCall<'a, 'h> {
    rt: &'a Runtime<'h>,
    registry: RegistryArg<'a>,
    call: &'a Value,
    /// An abort from outside, before this job of the asynchronous tail.
    abort: Option<(usize, AbortReason)>,
    /// Jobs of the asynchronous tail begun so far.
    jobs: &'a AtomicUsize,
}

/// How an awaited value settles.
enum Awaited {
    Fulfilled(Value),
    Rejected(Thrown),
    Pending(Option<(super::heap::NodeId, Option<Settlement>)>),
}

impl ModelCall<'_, '_> {
    /// A job boundary of the call's asynchronous tail. Everything up to the
    /// executor's return and `Promise.resolve` of it runs in the job that
    /// started the call; after it, in the course's order, each `then` of a
    /// thenable result is called in a job of its own, the second promise's
    /// fulfilment (or rejection) callback runs in the next, and the
    /// resumption after `await` (the check, the serialization, the result)
    /// in the last. An abort from outside can land only between these.
    fn job(&self) {
        let n = self.jobs.fetch_add(1, Ordering::Relaxed);
        if let Some((at, reason)) = &self.abort {
            if *at == n {
                self.rt.abort_with(reason.clone());
            }
        }
    }

    fn read_field(&self, id: super::heap::NodeId, key: &str) -> Result<Value, SnapshotFailure> {
        self.rt
            .read_own(id, &PropKey::from(key))
            .map_err(|_| SnapshotFailure::Invalid)?
            .ok_or(SnapshotFailure::Invalid)
    }

    /// `await value`: native promises by state, other objects through `then`.
    fn awaited(&self, value: Value) -> Awaited {
        let mut value = value;
        for _ in 0..MAX_THENABLE_CHAIN {
            let Value::Ref(id) = value else {
                return Awaited::Fulfilled(value);
            };
            match self.rt.heap.node(id) {
                Some(Node::Promise(PromiseNode::Fulfilled(v))) => {
                    return Awaited::Fulfilled(v.clone())
                }
                Some(Node::Promise(PromiseNode::Rejected(v))) => {
                    return Awaited::Rejected(Thrown::Value(v.clone()))
                }
                Some(Node::Promise(PromiseNode::Pending { after_abort })) => {
                    return Awaited::Pending(Some((id, after_abort.clone())))
                }
                Some(Node::Function(_)) => return Awaited::Fulfilled(value),
                _ => {}
            }
            let then = match self.rt.get(&value, &PropKey::from("then")) {
                Ok(then) => then,
                Err(t) => return Awaited::Rejected(t),
            };
            let Value::Ref(f) = then else {
                return Awaited::Fulfilled(value);
            };
            if !self.rt.is_function(&then) {
                return Awaited::Fulfilled(value);
            }
            self.job();
            match self.rt.call(f, vec![Arg::Callback, Arg::Callback]) {
                Err(t) => return Awaited::Rejected(t),
                Ok(Invoked::CalledBack { index: 0, value: v }) => value = v,
                Ok(Invoked::CalledBack { index: 1, value: v }) => {
                    return Awaited::Rejected(Thrown::Value(v))
                }
                Ok(_) => return Awaited::Pending(None),
            }
        }
        Awaited::Pending(None)
    }

    /// The course waits for the executor through a second promise
    /// (`waitForAbort`), whose `resolve(value)` reads `then` once more on a
    /// fulfilled object unless the signal is aborted by then: a getter or
    /// `get` trap on the output runs again, and a throw there rejects.
    fn resolved_again(&self, value: Value) -> Result<Value, Thrown> {
        if self.rt.signal.is_aborted() || !self.rt.is_object_like(&value) {
            return Ok(value);
        }
        self.rt.get(&value, &PropKey::from("then"))?;
        Ok(value)
    }

    /// What a validator's `then` returned gets no-op handlers too: a native
    /// promise directly; another thenable through its own `then` (and a
    /// native promise that one returns). Nothing here can throw out.
    fn observe_returned_thenable(&self, value: &Value) {
        if !self.rt.is_object_like(value) || self.observe_if_promise(value) {
            return;
        }
        let Ok(then) = self.rt.get(value, &PropKey::from("then")) else {
            return;
        };
        let Value::Ref(f) = then else { return };
        if !self.rt.is_function(&then) {
            return;
        }
        if let Ok(invoked) = self.rt.call(f, vec![Arg::Callback, Arg::Callback]) {
            let returned = invoked.value();
            if returned != *value {
                self.observe_if_promise(&returned);
            }
        }
    }

    fn observe_if_promise(&self, value: &Value) -> bool {
        match value {
            Value::Ref(id) if matches!(self.rt.heap.node(*id), Some(Node::Promise(_))) => {
                self.rt.record(TraceEvent::PromiseObserved { promise: *id });
                true
            }
            _ => false,
        }
    }
}

impl CallHost for ModelCall<'_, '_> {
    type Tool = Arc<ModelTool>;
    type Args = Copied;
    type Returned = Value;
    type Accepted = Value;
    type Output = Value;
    type Thrown = Thrown;

    fn signal(&self) -> &AbortSignal {
        &self.rt.signal
    }

    fn registry_is_real(&self) -> bool {
        matches!(self.registry, RegistryArg::Real(_))
    }

    fn snapshot_call(&self) -> Result<CallSnapshot<Copied>, SnapshotFailure> {
        // any object or function; the four fields are all read before any
        // is checked (the course's `inspectToolCall`)
        let Value::Ref(id) = self.call else {
            return Err(SnapshotFailure::Invalid);
        };
        let non_blank = |v: Value| match v {
            Value::String(s) if !s.is_blank() => Ok(s),
            _ => Err(SnapshotFailure::Invalid),
        };
        let kind = self.read_field(*id, "type")?;
        let call_id = self.read_field(*id, "id")?;
        let name = self.read_field(*id, "name")?;
        let arguments = self.read_field(*id, "arguments")?;
        match kind {
            Value::String(s) if s == "toolCall" => {}
            _ => return Err(SnapshotFailure::Invalid),
        }
        let call_id = non_blank(call_id)?;
        let name = non_blank(name)?;
        let Value::Ref(args_id) = arguments else {
            return Err(SnapshotFailure::Invalid);
        };
        if !self.rt.is_object(&arguments)
            || self
                .rt
                .is_array(args_id)
                .map_err(|_| SnapshotFailure::Invalid)?
        {
            return Err(SnapshotFailure::Invalid);
        }
        let arguments = copy_arguments(self.rt, &arguments).map_err(|e| match e {
            CopyFailure::Invalid => SnapshotFailure::Invalid,
            CopyFailure::Model(e) => SnapshotFailure::Model(e),
        })?;
        Ok(CallSnapshot {
            id: call_id,
            name,
            arguments,
        })
    }

    fn lookup(&self, name: &JsString) -> Option<Arc<ModelTool>> {
        match self.registry {
            RegistryArg::Real(r) => r.get(name).cloned(),
            RegistryArg::NotARegistry => None,
        }
    }

    fn validate(&self, tool: &Arc<ModelTool>, args: &Copied) -> Result<Value, Thrown> {
        self.rt
            .call(tool.validate, vec![Arg::Copy(args.clone())])
            .map(Invoked::value)
    }

    fn asynchrony(&self, returned: &Value) -> Option<Option<Thrown>> {
        if !self.rt.is_object_like(returned) {
            return None;
        }
        if self.observe_if_promise(returned) {
            return Some(None);
        }
        let then = match self.rt.get(returned, &PropKey::from("then")) {
            Ok(then) => then,
            Err(t) => return Some(Some(t)),
        };
        let Value::Ref(f) = then else { return None };
        if !self.rt.is_function(&then) {
            return None;
        }
        match self.rt.call(f, vec![Arg::Callback, Arg::Callback]) {
            Err(t) => Some(Some(t)),
            Ok(invoked) => {
                self.observe_returned_thenable(&invoked.value());
                Some(None)
            }
        }
    }

    fn decision(&self, returned: Value) -> Result<Decision<Value>, DecisionFailure<Thrown>> {
        // any object or function (a function has no own `ok`)
        let Value::Ref(id) = returned else {
            return Err(DecisionFailure::Message(
                message::DECISION_NOT_OBJECT.into(),
            ));
        };
        let read = |key: &str| -> Result<Value, DecisionFailure<Thrown>> {
            self.rt
                .read_own(id, &PropKey::from(key))
                .map_err(DecisionFailure::Thrown)?
                .ok_or_else(|| {
                    DecisionFailure::Message(JsString::from(format!("Expected own property {key}")))
                })
        };
        match read("ok")? {
            Value::Bool(true) => Ok(Decision::Accept(read("value")?)),
            Value::Bool(false) => match read("error")? {
                Value::String(s) if !s.is_blank() => Ok(Decision::Reject(s)),
                _ => Err(DecisionFailure::Message(
                    message::DECISION_REJECT_WITHOUT_ERROR.into(),
                )),
            },
            _ => Err(DecisionFailure::Message(
                message::DECISION_OK_NOT_BOOLEAN.into(),
            )),
        }
    }

    fn execute<'a>(
        &'a self,
        tool: &'a Arc<ModelTool>,
        value: Value,
        call_id: &JsString,
    ) -> Result<BoxFuture<'a, Result<Value, Thrown>>, Thrown> {
        let context = Arg::Context {
            tool_call_id: call_id.clone(),
        };
        let returned = self
            .rt
            .call(tool.execute, vec![Arg::Value(value), context])?
            .value();
        Ok(match self.awaited(returned) {
            Awaited::Fulfilled(v) => {
                self.job(); // the second promise's fulfilment callback
                let settled = self.resolved_again(v);
                self.job(); // the resumption after `await`
                futures::future::ready(settled).boxed()
            }
            Awaited::Rejected(t) => {
                self.job();
                self.job();
                futures::future::ready(Err(t)).boxed()
            }
            Awaited::Pending(late) => {
                if let Some((promise, Some(settlement))) = late {
                    let rejected = matches!(settlement, Settlement::Reject(_));
                    self.rt
                        .listen_for_abort(TraceEvent::LateSettlement { promise, rejected });
                }
                futures::future::pending().boxed()
            }
        })
    }

    fn serialize(&self, output: &Value) -> Result<Serialized, Failure<Thrown>> {
        serialize(self.rt, output)
    }

    fn non_recoverable(&self, thrown: &Thrown) -> Option<Error> {
        if !self.rt.is_non_recoverable(thrown) {
            return None;
        }
        let origin = match thrown {
            Thrown::Value(Value::Ref(id)) => u64::from(id.0),
            _ => 0,
        };
        let message = self
            .rt
            .failure_message(thrown)
            .map(|m| m.to_string_lossy())
            .unwrap_or_default();
        Some(Error::non_recoverable(origin, message))
    }

    fn failure_message(&self, thrown: &Thrown) -> Option<JsString> {
        self.rt.failure_message(thrown)
    }
}

/// How a call driven by [`drive_call`] ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Driven {
    Done(Result<ToolResult, Error>),
    /// Still waiting for a pending executor, and nobody aborted.
    Pending,
}

/// Runs a model call without a runtime or timers: polls it once, and if it
/// waits on a pending executor, aborts the signal from outside with
/// `abort_when_pending` (when given) and polls again. Deterministic: the
/// model never wakes a call except through its signal.
pub fn drive_call(
    rt: &Runtime<'_>,
    registry: RegistryArg<'_>,
    call: &Value,
    abort_when_pending: Option<crate::signal::AbortReason>,
) -> Driven {
    use std::future::Future;
    use std::task::{Context, Poll};
    let mut future = std::pin::pin!(execute_tool_call(rt, registry, call));
    let mut cx = Context::from_waker(futures::task::noop_waker_ref());
    if let Poll::Ready(done) = future.as_mut().poll(&mut cx) {
        return Driven::Done(done);
    }
    let Some(reason) = abort_when_pending else {
        return Driven::Pending;
    };
    rt.abort_with(reason);
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(done) => Driven::Done(done),
        Poll::Pending => Driven::Pending,
    }
}

/// Runs a model call with an abort from outside before job `job` of its
/// asynchronous tail ([`ModelCall::job`]); when the call has no such job,
/// the abort lands while it is pending, or after it settled (where it
/// changes nothing but fires the listeners still attached). Returns how the
/// call ended and whether the abort landed inside the tail.
pub fn drive_call_aborting_at_job(
    rt: &Runtime<'_>,
    registry: RegistryArg<'_>,
    call: &Value,
    job: usize,
    reason: AbortReason,
) -> (Driven, bool) {
    use std::future::Future;
    use std::task::{Context, Poll};
    let jobs = AtomicUsize::new(0);
    let abort = Some((job, reason.clone()));
    let mut future = std::pin::pin!(execute_aborting_at_job(rt, registry, call, abort, &jobs));
    let mut cx = Context::from_waker(futures::task::noop_waker_ref());
    let first = future.as_mut().poll(&mut cx);
    let inside = jobs.load(Ordering::Relaxed) > job;
    rt.abort_with(reason);
    let driven = match first {
        Poll::Ready(done) => Driven::Done(done),
        Poll::Pending => match future.as_mut().poll(&mut cx) {
            Poll::Ready(done) => Driven::Done(done),
            Poll::Pending => Driven::Pending,
        },
    };
    (driven, inside)
}
