//! The toolgate runner: drives an implementation of the tool-call boundary
//! through the corpus and generated cases, judges every observation against
//! the reference, and reports (`toolgate run`, `list`, `explain`).

pub mod adapter;
pub mod bench;
pub mod busy;
pub mod cases;
pub mod console;
pub mod deal;
mod error;
pub mod expectations;
pub mod explain;
pub mod findings;
pub mod generate;
pub mod init;
pub mod matrix;
pub mod merge;
pub mod outcome;
pub mod report;
pub mod run;
pub mod shard;
pub mod site;
pub mod subject;

pub use error::Error;
/// The adapter protocol (its own crate, so an adapter builds without the runner).
pub use toolgate_protocol as protocol;
