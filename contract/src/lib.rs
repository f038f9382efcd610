//! toolgate's reference implementation of the core tool-call contract.
//!
//! See `SPEC.md` at the repository root for the numbered requirements and
//! `ARCHITECTURE.md` for how the pieces fit.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
    )
)]

pub mod actions;
pub mod api;
pub mod bigint;
pub mod boundary;
pub mod call;
pub mod constants;
pub mod error;
pub mod fs_tree;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod js_string;
pub mod model;
pub mod pipeline;
pub mod registry;
pub mod scenario;
pub mod serializer;
pub mod signal;
pub mod suites;
#[cfg(test)]
mod test_support;
pub mod workspace;

pub use call::{ResultCode, ToolResult};
pub use error::{ContractCode, Error, ErrorKind};
pub use js_string::JsString;
pub use signal::{AbortReason, AbortSignal};
