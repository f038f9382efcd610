//! Tool bodies of the boundary suite, by behaviour: each reports `start`,
//! `progress` and `settle` events (with the instant each happened), so the
//! harness learns whether and when a tool ran, whatever thread or task the
//! runtime runs it on. `returns` and `throws` finish on their first poll;
//! `resolves` and `rejects` yield once first; `pending` never finishes on
//! its own: with `onAbort: "reject"` it fails when the runtime's signal for
//! the call is cancelled, with `"ignore"` it waits until the harness lets
//! it go after the case. A body dropped before it settled (Rust's
//! cancellation) reports itself settled `rejected`, as a cancelled task's
//! body does in Python.

use crate::shim::{Body, ToolContext, ToolError, ToolFuture};
use crate::values::{dismantle, materialize, Thrown, ThrownValue, ToolValue};
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::watch;

/// What a tool body reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolEvent {
    pub kind: EventKind,
    /// The tool's position in the case's tools.
    pub index: usize,
    /// The call id the runtime gave the body, if any.
    pub call_id: Option<String>,
    /// When it happened (the harness orders events against the abort by
    /// this, not by when they reach it).
    pub at: Instant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Start,
    Progress,
    Settle { fulfilled: bool },
}

/// Where a body's events go.
pub type OnEvent = Arc<dyn Fn(ToolEvent) + Send + Sync>;

/// Lets go of every body that ignores its cancellation: the harness sends
/// once a case is observed, so such a body costs no later case anything.
#[derive(Clone)]
pub struct Release(watch::Sender<u64>);

impl Release {
    pub fn new() -> Release {
        Release(watch::channel(0).0)
    }

    /// Ends every body waiting now.
    pub fn release(&self) {
        self.0.send_modify(|round| *round += 1);
    }

    fn waiter(&self) -> watch::Receiver<u64> {
        self.0.subscribe()
    }
}

impl Default for Release {
    fn default() -> Self {
        Release::new()
    }
}

/// The body a behaviour describes, with `copies` of its output (or thrown
/// value) built now
/// (before any turn is timed: a case measures the runtime, not the
/// building of a 10^6-key value); a call past them builds its own.
pub fn body_for(
    behaviour: &Value,
    index: usize,
    copies: usize,
    on_event: OnEvent,
    release: &Release,
) -> Result<Body, String> {
    let mut progress = Vec::new();
    let mut last = behaviour;
    while let Some(values) = last.get("progress") {
        for value in values.as_array().into_iter().flatten() {
            progress.push(crate::values::materialize_json(value).or_else(|_| {
                // a progress value JSON cannot hold goes as its text
                Ok::<Value, String>(Value::String(value.to_string()))
            })?);
        }
        last = last
            .get("then")
            .ok_or_else(|| format!("a progress behaviour needs `then`: {behaviour}"))?;
    }
    let end = End::from_spec(last)?;
    let handed_out = match &end {
        End::Returns { spec, .. }
        | End::Throws {
            thrown: Thrown::PanicValue(spec),
            ..
        } => Some(spec),
        _ => None,
    };
    let mut outputs = Vec::new();
    if let Some(spec) = handed_out {
        for _ in 0..copies.max(1) {
            outputs.push(materialize(spec)?);
        }
    }
    let shared = Arc::new(Shared {
        index,
        progress,
        end,
        outputs: Mutex::new(outputs),
        on_event,
        release: release.clone(),
    });
    Ok(Arc::new(move |args: Value, context: ToolContext| {
        let shared = shared.clone();
        let future: ToolFuture = Box::pin(async move {
            // the body ignores its arguments; a 10^5-deep one is taken
            // apart without recursion
            dismantle(args);
            shared.run(context).await
        });
        future
    }))
}

/// How a body ends.
enum End {
    Returns { spec: Value, at_once: bool },
    Throws { thrown: Thrown, at_once: bool },
    Pending { honours_signal: bool },
}

impl End {
    fn from_spec(spec: &Value) -> Result<End, String> {
        if let Some(value) = spec.get("returns") {
            return Ok(End::Returns {
                spec: value.clone(),
                at_once: true,
            });
        }
        if let Some(value) = spec.get("resolves") {
            return Ok(End::Returns {
                spec: value.clone(),
                at_once: false,
            });
        }
        if let Some(thrown) = spec.get("throws") {
            return Ok(End::Throws {
                thrown: Thrown::from_spec(thrown)?,
                at_once: true,
            });
        }
        if let Some(thrown) = spec.get("rejects") {
            return Ok(End::Throws {
                thrown: Thrown::from_spec(thrown)?,
                at_once: false,
            });
        }
        if let Some(pending) = spec.get("pending") {
            return Ok(End::Pending {
                honours_signal: pending.get("onAbort").and_then(Value::as_str) == Some("reject"),
            });
        }
        Err(format!("unknown behaviour {spec}"))
    }
}

struct Shared {
    index: usize,
    progress: Vec<Value>,
    end: End,
    outputs: Mutex<Vec<ToolValue>>,
    on_event: OnEvent,
    release: Release,
}

impl Drop for Shared {
    /// Outputs no call took may be 10^5 deep: taken apart without recursion.
    fn drop(&mut self) {
        let outputs = std::mem::take(self.outputs.get_mut().unwrap_or_else(|e| e.into_inner()));
        for value in outputs {
            value.dismantle();
        }
    }
}

/// Reports the body settled `rejected` if it is dropped before it settled.
struct SettleGuard<'a> {
    shared: &'a Shared,
    call_id: Option<String>,
    armed: bool,
}

impl SettleGuard<'_> {
    fn settle(&mut self, fulfilled: bool) {
        if std::mem::replace(&mut self.armed, false) {
            self.shared
                .emit(EventKind::Settle { fulfilled }, &self.call_id);
        }
    }
}

impl Drop for SettleGuard<'_> {
    fn drop(&mut self) {
        self.settle(false);
    }
}

impl Shared {
    fn emit(&self, kind: EventKind, call_id: &Option<String>) {
        (self.on_event)(ToolEvent {
            kind,
            index: self.index,
            call_id: call_id.clone(),
            at: Instant::now(),
        });
    }

    fn output(&self, spec: &Value) -> Result<ToolValue, ToolError> {
        let kept = self.outputs.lock().unwrap_or_else(|e| e.into_inner()).pop();
        match kept {
            Some(value) => Ok(value),
            None => materialize(spec).map_err(|message| ToolError { message }),
        }
    }

    async fn run(&self, context: ToolContext) -> Result<ToolValue, ToolError> {
        self.emit(EventKind::Start, &context.call_id);
        let mut guard = SettleGuard {
            shared: self,
            call_id: context.call_id.clone(),
            armed: true,
        };
        for value in &self.progress {
            self.emit(EventKind::Progress, &context.call_id);
            if let Some(progress) = &context.progress {
                progress(value.clone());
            }
        }
        match &self.end {
            End::Returns { spec, at_once } => {
                if !at_once {
                    tokio::task::yield_now().await;
                }
                let value = self.output(spec);
                guard.settle(true);
                value
            }
            End::Throws { thrown, at_once } => {
                if !at_once {
                    tokio::task::yield_now().await;
                }
                guard.settle(false);
                match thrown {
                    Thrown::Error(message) => Err(ToolError {
                        message: message.clone(),
                    }),
                    Thrown::PanicText(text) => {
                        crate::panics::throwing();
                        std::panic::panic_any(text.clone())
                    }
                    Thrown::PanicValue(spec) => {
                        let value = self.output(spec);
                        crate::panics::throwing();
                        match value {
                            Ok(value) => std::panic::panic_any(ThrownValue::new(value)),
                            Err(e) => std::panic::panic_any(e.message),
                        }
                    }
                }
            }
            End::Pending { honours_signal } => {
                let mut released = self.release.waiter();
                released.mark_unchanged();
                let signal = context.signal.clone().filter(|_| *honours_signal);
                match signal {
                    Some(signal) => {
                        tokio::select! {
                            _ = signal.cancelled() => {}
                            _ = released.changed() => {}
                        }
                    }
                    None => {
                        let _ = released.changed().await;
                    }
                }
                guard.settle(false);
                Err(ToolError {
                    message: if *honours_signal {
                        "the tool's signal aborted".into()
                    } else {
                        "toolgate: the case is over; the tool lets go".into()
                    },
                })
            }
        }
    }
}
