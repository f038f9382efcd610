//! The workspace suite's scenario and observation formats
//! (`adapters/node/workspace/FORMAT.md`) as serde types; `corpus/schema/
//! workspace-{scenario,observation}.schema.json` are their JSON Schemas.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value as Json;
use toolgate_suite::fs_tree::{resolve_in_tree, tree_dirname, Entry, EntryKind, Snapshot};
use toolgate_suite::js_string::JsString;

/// What stands for the base's absolute path in paths, inputs, symlink
/// targets and result contents.
pub const BASE_VARIABLE: &str = "$BASE";

/// The root's path relative to the base when a scenario names none.
pub const DEFAULT_ROOT: &str = "ws";

/// One case's filesystem and calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkspaceScenario {
    /// Made in order under the base before the first call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tree: Vec<Entry>,
    /// The workspace root, relative to the base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    /// `$SHELL` while the calls run; `None`: unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    #[serde(default, skip_serializing_if = "Approval::is_default")]
    pub approval: Approval,
    pub calls: Vec<Call>,
}

impl WorkspaceScenario {
    /// The root relative to the base.
    pub fn root(&self) -> &str {
        self.root.as_deref().unwrap_or(DEFAULT_ROOT)
    }

    /// The root as the scenario names it, and where it really is when it
    /// is a symlink of the tree (followed lexically, within the base).
    pub fn real_roots(&self) -> Vec<String> {
        let mut roots = vec![self.root().to_owned()];
        let mut at = self.root().to_owned();
        for _ in 0..8 {
            let Some(target) = self
                .tree
                .iter()
                .find(|e| e.kind == EntryKind::Symlink && e.path == at)
                .and_then(|link| link.target.as_deref())
            else {
                break;
            };
            let Some(next) = resolve_in_tree(tree_dirname(&at), target, BASE_VARIABLE) else {
                break;
            };
            at = next;
            roots.push(at.clone());
        }
        roots
    }
}

/// Whether the tree path `path` is one of `roots` (tree paths) or below one.
/// A root that is the base itself (`""`: a root linked to `.`) holds every
/// path.
pub fn in_roots(roots: &[String], path: &str) -> bool {
    roots.iter().any(|root| {
        root.is_empty()
            || path == root
            || path
                .strip_prefix(root.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// The approval hook in front of the tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Approval {
    /// Every call runs (the book's tests).
    #[default]
    AllowAll,
    /// `bash` is refused with the policy's message (the book's `main`).
    DenyBashByDefault,
}

impl Approval {
    fn is_default(&self) -> bool {
        *self == Approval::AllowAll
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Tool {
    Read,
    Write,
    Bash,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Read => "read",
            Tool::Write => "write",
            Tool::Bash => "bash",
        }
    }
}

/// When a bash call's signal is aborted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Abort {
    /// Already aborted when `execute` is called.
    Before,
    /// Aborted synchronously right after `execute` is called.
    During,
}

/// One tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Call {
    pub tool: Tool,
    /// The input; `None`: `undefined`. `$BASE` in its strings (not keys)
    /// is the base's path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Json>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort: Option<Abort>,
    /// A read or write only: the interference made between the call's
    /// boundary check and its use of the checked path (WS-RACE-01).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap: Option<Swap>,
}

/// A symlink swapped in under a tool between its check and its use, as a
/// concurrent process could (the seed's TOCTOU window, W21): the entry
/// `$BASE/<path>` (when there is one) is renamed `$BASE/<path>~`, and
/// `$BASE/<path>` becomes a symlink to `target` (`$BASE` in it replaced by
/// the base's path). `path` lies on the call's route below the root and
/// `target` leads outside it (`reference::check`), so a tool that uses
/// what it checked without checking again goes outside.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Swap {
    pub path: String,
    pub target: String,
}

impl Swap {
    /// Makes the swap under `base` (its absolute path); `variable` in the
    /// target stands for it.
    pub fn make(&self, base: &str, variable: &str) -> std::io::Result<()> {
        let at = format!("{base}/{}", self.path);
        match std::fs::rename(&at, format!("{at}~")) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        std::os::unix::fs::symlink(self.target.replace(variable, base), &at)
    }
}

/// What a case observed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkspaceObservation {
    pub results: Vec<CallResult>,
    pub tree: Vec<Snapshot>,
    /// How the observation asks to be judged: the seed's exact texts, or
    /// (a real tool with its own messages) the portable projection.
    #[serde(default, skip_serializing_if = "Grading::is_exact")]
    pub grading: Grading,
    /// Changes outside the root that a watcher saw while `read` and
    /// `write` calls ran, transient ones included: `<event> <path>`, the
    /// path written with `$BASE` (`$BASE/../<name>` beside the base). The
    /// tree afterwards cannot show a file made and removed within a call;
    /// a faithful tool makes none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside: Vec<String>,
}

/// How an observation is judged (`adapters/node/workspace/FORMAT.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Grading {
    /// Every result's text and flag byte for byte, and the whole tree.
    #[default]
    Exact,
    /// Each call's outcome (allowed or refused), what an allowed read
    /// returns (it holds the file's text), the whole tree and the watcher's
    /// changes outside the root; messages are the tool's own.
    Portable,
}

impl Grading {
    pub fn is_exact(&self) -> bool {
        *self == Grading::Exact
    }
}

/// A tool's result as the model receives it, or what `execute` threw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CallResult {
    Returned(Returned),
    /// `execute` rejected instead of returning a result; never so in the
    /// contract (WS-RESULT-01).
    Thrown(Thrown),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Returned {
    pub content: Text,
    pub is_error: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Thrown {
    /// The rejection's message.
    pub thrown: Text,
}

impl CallResult {
    pub fn ok(content: impl Into<JsString>) -> CallResult {
        CallResult::Returned(Returned {
            content: Text(content.into()),
            is_error: false,
        })
    }

    pub fn error(content: impl Into<JsString>) -> CallResult {
        CallResult::Returned(Returned {
            content: Text(content.into()),
            is_error: true,
        })
    }

    /// The content, or the thrown message.
    pub fn text(&self) -> &JsString {
        match self {
            CallResult::Returned(r) => &r.content.0,
            CallResult::Thrown(t) => &t.thrown.0,
        }
    }

    /// The same result with its text mapped.
    pub fn map_text(self, f: impl FnOnce(&JsString) -> JsString) -> CallResult {
        match self {
            CallResult::Returned(r) => CallResult::Returned(Returned {
                content: Text(f(&r.content.0)),
                ..r
            }),
            CallResult::Thrown(t) => CallResult::Thrown(Thrown {
                thrown: Text(f(&t.thrown.0)),
            }),
        }
    }
}

/// A JavaScript string in an observation: a JSON string when it is valid
/// Unicode, else `{"$": "string", "units": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text(pub JsString);

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        use serde::de::Error as _;
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Units {
            #[serde(rename = "$")]
            tag: String,
            units: Vec<u16>,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Plain(String),
            Units(Units),
        }
        match Form::deserialize(d)? {
            Form::Plain(text) => Ok(Text(JsString::new(&text))),
            Form::Units(u) if u.tag == "string" => Ok(Text(JsString::from_units(u.units))),
            Form::Units(u) => Err(D::Error::custom(format!(
                "a content in units has \"$\": \"string\", not {:?}",
                u.tag
            ))),
        }
    }
}
