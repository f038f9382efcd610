//! The file-queue scenarios of the pipeline suite (`PIPE-QUEUE-*`): Pi's
//! per-file mutation queue, `withFileMutationQueue` of
//! `@earendil-works/pi-coding-agent` (and pi-agent-core 0.85.0's own,
//! per-environment harness queue), driven on a real directory tree.
//!
//! A pipeline case whose scenario is `{"fileQueue": ...}` is one of these
//! instead of an agent-loop run (`adapters/node/pipeline/FORMAT.md`, "File
//! queue", is the format for adapter authors). The scenario builds a tree of
//! directories, files and symlinks in a fresh temporary root, then runs
//! steps: register an operation on a path through a queue, release a held
//! operation (returning or throwing), make or remove a tree entry. After
//! every step the harness *settles*: it waits until nothing more can happen
//! without another step (no `realpath` in flight, no job queued), so every
//! ordering is a step, never a time. The observation is the operations'
//! starts and ends, each with the step it happened after.
//!
//! [`reference`] computes the observation on the real filesystem, with the
//! queue's key rule; [`judge`] names the requirement a difference breaks.

#[cfg(feature = "fuzzing")]
pub mod generate;
pub mod judge;
pub mod properties;
pub mod reference;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The key a pipeline scenario of this kind has (and no other key).
pub const KEY: &str = "fileQueue";

/// The queue spelling of the coding-agent's module-global queue.
pub const CODING_AGENT: &str = "codingAgent";

/// The prefix of a harness queue's spelling: `harness:<env name>`.
pub const HARNESS_PREFIX: &str = "harness:";

/// What replaces `$ROOT` in paths and symlink targets: the root's absolute
/// path, without a trailing slash.
pub const ROOT_VARIABLE: &str = "$ROOT";

/// `{"fileQueue": FileQueue}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileQueueScenario {
    pub file_queue: FileQueue,
}

/// One run of the queues over one temporary tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileQueue {
    /// Made in order, before the first step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tree: Vec<Entry>,
    /// `process.cwd()` for the run, relative to the root (`""`: the root).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cwd: String,
    /// The harness environments: name → its cwd, relative to the root.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub envs: BTreeMap<String, String>,
    pub steps: Vec<Step>,
}

/// The tree's entries, shared with the workspace suite (`fs_tree`); paths
/// are relative to the root.
pub use toolgate_suite::fs_tree::{Entry, EntryKind};

/// One step; the harness settles after each. In JSON, the step's kind is
/// the one of `register`, `release`, `make`, `remove` it has.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Step {
    Register(Register),
    Release(Release),
    Make(Make),
    Remove(Remove),
}

/// `queue(path, fn)`, where `fn` records its start and waits for its
/// release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Register {
    /// The operation's id (unique in the scenario).
    pub register: String,
    /// As given to the queue, after `$ROOT`.
    pub path: String,
    /// [`CODING_AGENT`] or `harness:<env>`.
    pub queue: String,
}

/// Opens the operation's latch: its `fn` returns its id, or throws
/// `new Error("<op> failed")`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Release {
    pub release: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub throw: bool,
}

/// Makes one more tree entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Make {
    pub make: Entry,
}

/// `rm -rf` of a path relative to the root (a link, not its target).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Remove {
    pub remove: String,
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Step, D::Error> {
        use serde::de::Error as _;
        let json = serde_json::Value::deserialize(d)?;
        let has = |key: &str| json.get(key).is_some();
        let step = if has("register") {
            serde_json::from_value(json).map(Step::Register)
        } else if has("release") {
            serde_json::from_value(json).map(Step::Release)
        } else if has("make") {
            serde_json::from_value(json).map(Step::Make)
        } else if has("remove") {
            serde_json::from_value(json).map(Step::Remove)
        } else {
            return Err(D::Error::custom(
                "a step has one of the keys register, release, make, remove",
            ));
        };
        step.map_err(D::Error::custom)
    }
}

/// What happened: the operations' starts and ends, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileQueueObservation {
    pub file_queue: Vec<Happened>,
}

/// One start or end, after step `step`. Exactly one of `start`, `resolve`
/// and `reject` is set; `error` goes with `reject`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Happened {
    pub step: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolve: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reject: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorSeen>,
}

/// What a caller's rejection carried: `code` when the error has a string
/// code (Node's `ELOOP`, the harness's `FileError` codes), else `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ErrorSeen {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The kinds of [`Happened`], for code that matches on them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Start,
    Resolve,
    Reject,
}

impl Happened {
    pub fn start(step: u32, op: &str) -> Happened {
        Happened {
            step,
            start: Some(op.to_owned()),
            resolve: None,
            reject: None,
            error: None,
        }
    }

    pub fn resolve(step: u32, op: &str) -> Happened {
        Happened {
            resolve: Some(op.to_owned()),
            start: None,
            ..Happened::start(step, op)
        }
    }

    pub fn reject(step: u32, op: &str, error: ErrorSeen) -> Happened {
        Happened {
            reject: Some(op.to_owned()),
            start: None,
            error: Some(error),
            ..Happened::start(step, op)
        }
    }

    /// The operation and what happened to it; `None` for a malformed entry
    /// (not exactly one kind, or an error without a rejection).
    pub fn what(&self) -> Option<(&str, What)> {
        match (&self.start, &self.resolve, &self.reject, &self.error) {
            (Some(op), None, None, None) => Some((op, What::Start)),
            (None, Some(op), None, None) => Some((op, What::Resolve)),
            (None, None, Some(op), Some(_)) => Some((op, What::Reject)),
            _ => None,
        }
    }
}

/// Whether a pipeline scenario (or observation) in JSON is of this kind.
pub fn is_file_queue(json: &serde_json::Value) -> bool {
    json.as_object().is_some_and(|o| o.contains_key(KEY))
}
