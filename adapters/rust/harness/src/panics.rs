//! Panics while a case runs: a tool body's deliberate panic (a case's
//! thrown string or value) is judged by what the model receives; any other
//! panic is the runtime's own, and one the harness did not catch as the
//! turn's failure is counted as escaped (`uncaught`, BOUNDARY-PROC-01), as
//! an unhandled rejection is in JavaScript.

use crate::values::ThrownValue;
use std::any::Any;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

static RUNTIME_PANICS: AtomicU64 = AtomicU64::new(0);
static CAUGHT_BY_THE_HARNESS: AtomicU64 = AtomicU64::new(0);
static INSTALL: Once = Once::new();

thread_local! {
    /// Set by a body just before it panics on purpose.
    static THROWING: Cell<bool> = const { Cell::new(false) };
    /// Whether the last panic on this thread was a body's on purpose.
    static LAST_DELIBERATE: Cell<bool> = const { Cell::new(false) };
}

/// Installs the hook that tells the two kinds apart (once per process); it
/// prints one line per panic to stderr, which the runner keeps with the
/// case.
pub fn install() {
    INSTALL.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let deliberate = THROWING.with(|t| t.replace(false));
            LAST_DELIBERATE.with(|l| l.set(deliberate));
            if !deliberate {
                RUNTIME_PANICS.fetch_add(1, Ordering::SeqCst);
            }
            let whose = if deliberate {
                "a tool body panicked, as its case asks"
            } else {
                "panic"
            };
            let at = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            eprintln!(
                "toolgate rust harness: {whose}{at}: {}",
                message(info.payload())
            );
        }));
    });
}

/// Marks the panic that follows on this thread as a body's deliberate one.
pub(crate) fn throwing() {
    THROWING.with(|t| t.set(true));
}

/// Panics of the runtime's own so far, less those the harness caught as a
/// turn's failure.
pub(crate) fn runtime_panics() -> u64 {
    RUNTIME_PANICS.load(Ordering::SeqCst) - CAUGHT_BY_THE_HARNESS.load(Ordering::SeqCst)
}

/// The harness caught a panic out of the turn (on this thread): it is the
/// turn's failure, not an escape. Returns its message.
pub(crate) fn caught(payload: &(dyn Any + Send)) -> String {
    if !LAST_DELIBERATE.with(Cell::get) {
        CAUGHT_BY_THE_HARNESS.fetch_add(1, Ordering::SeqCst);
    }
    message(payload)
}

/// Characters of a thrown value shown in a panic's message.
const PREVIEW_CHARS: usize = 256;

/// A panic payload's text: a `&str` or `String` as itself, a case's thrown
/// value as the start of its JSON (bounded: it may be cyclic), anything else described.
pub fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        return (*text).to_string();
    }
    if let Some(text) = payload.downcast_ref::<String>() {
        return text.clone();
    }
    if let Some(thrown) = payload.downcast_ref::<ThrownValue>() {
        return thrown.value().preview(PREVIEW_CHARS);
    }
    "a panic whose payload is neither a string nor a case's value".into()
}
