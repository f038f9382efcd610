//! The `core` suite: toolgate's reference implementation of the course's
//! tool-call contract (checkpoint 06), exact to the byte, and the suite
//! that judges implementations of it.
//!
//! The contract is phrased in JavaScript's object model, so the reference
//! runs over an executable model of that host ([`model`]): the bounded
//! [`serializer`], the [`registry`] and the eighteen steps of
//! `executeToolCall` ([`call`]) are written once and run over the model
//! (for conformance) and over plain Rust tools ([`api`]). [`scenario`] is
//! the suite: its language-neutral scenarios, the oracle, the checks that
//! name requirements, and [`CORE`], its [`toolgate_suite::SuiteDef`].
//!
//! The numbered requirements are `corpus/SPEC.md` (`CORE-...`);
//! `ARCHITECTURE.md` says how the crates fit.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
    )
)]

pub mod api;
pub mod bigint;
pub mod call;
pub mod constants;
pub mod error;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod model;
pub mod registry;
pub mod scenario;
pub mod serializer;
pub mod signal;

pub use call::{ResultCode, ToolResult};
pub use error::{ContractCode, Error, ErrorKind};
pub use scenario::CORE;
pub use signal::{AbortReason, AbortSignal};
/// JavaScript's strings, shared with the suites that build on this one.
pub use toolgate_suite::js_string;
pub use toolgate_suite::JsString;
