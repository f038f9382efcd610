//! The abort signal of a call: a tokio-util cancellation token that also
//! carries the reason it was aborted with, and listeners that run once when
//! it aborts (the model uses them to record that a pending executor saw the
//! abort).

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

/// Why a call was cancelled: the exact value the aborting party gave, or an
/// `AbortError` when it gave none.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "camelCase")]
pub enum AbortReason {
    /// No reason was given; JavaScript creates a `DOMException` named `AbortError`.
    AbortError,
    /// The reason given, returned unchanged.
    Value(serde_json::Value),
}

impl AbortReason {
    /// `Some(value)` gives that value; `None` an `AbortError`.
    pub fn from_option(value: Option<serde_json::Value>) -> AbortReason {
        value.map_or(AbortReason::AbortError, AbortReason::Value)
    }
}

impl fmt::Display for AbortReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AbortReason::AbortError => f.write_str("AbortError"),
            AbortReason::Value(v) => write!(f, "{v}"),
        }
    }
}

type Listener = Box<dyn FnOnce(&AbortReason) + Send>;

/// A cancellation signal with a reason. Clones share the same signal.
#[derive(Clone, Default)]
pub struct AbortSignal {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    token: CancellationToken,
    reason: OnceLock<AbortReason>,
    listeners: Mutex<Vec<Listener>>,
}

impl fmt::Debug for AbortSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AbortSignal")
            .field("reason", &self.reason())
            .finish()
    }
}

impl AbortSignal {
    pub fn new() -> AbortSignal {
        AbortSignal::default()
    }

    /// Aborts with `reason`. Only the first abort counts; it returns `true`.
    pub fn abort(&self, reason: AbortReason) -> bool {
        if self.inner.reason.set(reason).is_err() {
            return false;
        }
        let listeners = std::mem::take(&mut *self.lock_listeners());
        let reason = self.reason().unwrap_or(AbortReason::AbortError);
        for listener in listeners {
            listener(&reason);
        }
        self.inner.token.cancel();
        true
    }

    pub fn is_aborted(&self) -> bool {
        self.inner.reason.get().is_some()
    }

    /// The reason, once aborted.
    pub fn reason(&self) -> Option<AbortReason> {
        self.inner.reason.get().cloned()
    }

    /// Completes when the signal aborts.
    pub async fn aborted(&self) {
        self.inner.token.cancelled().await
    }

    /// The underlying token, for code that already speaks tokio-util.
    pub fn token(&self) -> &CancellationToken {
        &self.inner.token
    }

    /// Runs `listener` once when the signal aborts (at once if it already has).
    pub fn on_abort(&self, listener: impl FnOnce(&AbortReason) + Send + 'static) {
        let mut listeners = self.lock_listeners();
        match self.reason() {
            Some(reason) => {
                drop(listeners);
                listener(&reason);
            }
            None => listeners.push(Box::new(listener)),
        }
    }

    fn lock_listeners(&self) -> std::sync::MutexGuard<'_, Vec<Listener>> {
        // a listener that panicked cannot leave the list half-updated
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn first_abort_wins_and_listeners_run_once() {
        let signal = AbortSignal::new();
        let fired = Arc::new(AtomicUsize::new(0));
        let f = fired.clone();
        signal.on_abort(move |_| {
            f.fetch_add(1, Ordering::SeqCst);
        });
        assert!(signal.abort(AbortReason::Value(serde_json::json!("first"))));
        assert!(!signal.abort(AbortReason::AbortError));
        assert_eq!(
            signal.reason(),
            Some(AbortReason::Value(serde_json::json!("first")))
        );
        assert_eq!(fired.load(Ordering::SeqCst), 1);
        assert!(signal.token().is_cancelled());
    }
}
