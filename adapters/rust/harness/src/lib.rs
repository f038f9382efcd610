//! Gate a Rust agent runtime's tool-call boundary with toolgate's
//! `boundary` suite (`adapters/rust/SHIM.md`).
//!
//! Implement [`Shim`] for the runtime: register the case's [`Tool`]s on its
//! own execution path, run one model turn with the scripted [`Call`]s, and
//! report what the model received ([`TurnOutcome`]). Then run it either way:
//!
//! - as a toolgate adapter, for `toolgate run --impl` and the compliance
//!   matrix: a binary whose `main` is [`serve`];
//! - under `cargo test`: a test target with `harness = false` whose `main`
//!   is [`check`] (or [`Gate`] with generated cases and a baseline). This
//!   runs the runner itself in process: the `gate` feature (on by default).
//!   An adapter binary alone needs only `default-features = false`, which
//!   leaves the runner (its reports, site, benches and every suite) and
//!   the JSON Schema validator out of the build.
//!
//! ```no_run
//! use toolgate_harness::{check, Runtime, Shim, Turn, TurnError, TurnOutcome};
//!
//! struct MyRuntime;
//!
//! impl Shim for MyRuntime {
//!     fn runtime(&self) -> Runtime {
//!         Runtime { id: "my-runtime", package: "my-runtime", version: "0.1.0",
//!                   path: "Agent::run with a scripted model", homepage: None }
//!     }
//!     async fn run_turn(&self, turn: Turn) -> Result<TurnOutcome, TurnError> {
//!         todo!("register turn.tools, make turn.calls, report what the model receives")
//!     }
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     check(MyRuntime)
//! }
//! ```

mod bodies;
#[cfg(feature = "gate")]
mod check;
pub mod encode;
mod isolate;
mod observe;
mod panics;
mod serve;
mod shim;
pub mod values;

pub use bodies::{body_for, EventKind, OnEvent, Release, ToolEvent};
#[cfg(feature = "gate")]
pub use check::{check, Gate, ADAPTER_FLAG};
pub use isolate::GRACE;
pub use observe::{until_idle, IDLE_ROUNDS};
pub use panics::message as panic_message;
pub use serve::{adapter_main, hello, serve, DEFAULT_SETTLE, TURN_STACK_BYTES};
pub use shim::{
    Aborted, Body, Call, Cancellation, Check, RegistrationError, ResultSeen, Runtime, Shim, Tool,
    ToolContext, ToolError, ToolFuture, Turn, TurnError, TurnOutcome, NEEDS,
};
pub use values::{Arguments, ThrownValue, ToolValue};
