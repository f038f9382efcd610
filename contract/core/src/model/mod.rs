//! The executable model of a dynamic host (JavaScript) that the reference
//! runs over: a heap of nodes with ids, host operations with proxies and
//! getters, and the contract's steps answered in that host. Scenarios
//! (corpus cases) are built into this model; so are the tests.

pub mod call;
pub mod copy;
pub mod definition;
pub mod heap;
pub mod output;
pub mod runtime;
pub mod slots;

pub use call::{drive_call, drive_call_aborting_at_job, execute_tool_call, Driven, RegistryArg};
pub use definition::{
    construct, register, register_many, snapshot_batch, snapshot_definition, ModelRegistry,
    ModelTool,
};
pub use heap::*;
pub use runtime::{Arg, Copied, CopiedNode, Invoked, Runtime, Thrown, Trace, TraceEvent, TypeOf};
pub use slots::Slots;
