//! The scenario format: one language-neutral conformance case's inputs, as
//! serde types. Values inside a scenario stay `serde_json::Value` here and
//! are decoded by [`super::build`], which is where their grammar lives
//! (documented for adapter authors in `corpus/README.md`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};

/// The inputs of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Scenario {
    /// Named nodes of the heap, referred to as `{"ref": "<name>"}`.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub nodes: Map<String, Json>,
    /// A batch the registry is constructed from (`new ToolRegistry(batch)`);
    /// without it the registry starts empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<Json>,
    /// Batches passed to `registerMany`, in order, on one registry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub registrations: Vec<Json>,
    /// Calls against that registry, each with its own signal.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallSpec>,
    /// Adapters start every call before awaiting any. The expected
    /// observation is the same as for sequential calls.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub concurrent: bool,
}

/// One `executeToolCall(registry, call, signal)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CallSpec {
    /// The call value (any value, hostile ones included).
    pub call: Json,
    #[serde(default, skip_serializing_if = "RegistryKind::is_real")]
    pub registry: RegistryKind,
    /// When the signal aborts from outside the tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort: Option<AbortPlan>,
}

/// What is passed as the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RegistryKind {
    /// The scenario's registry.
    #[default]
    Real,
    /// A plain object that is not a registry.
    NotARegistry,
}

impl RegistryKind {
    fn is_real(&self) -> bool {
        *self == RegistryKind::Real
    }
}

/// An abort from outside: before the call starts, or once the call waits on
/// a pending executor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub enum AbortPlan {
    Before(ReasonSpec),
    WhenPending(ReasonSpec),
    /// An abort queued as a microtask right before the call starts and
    /// queued again `turns` times before it fires: it lands between two
    /// jobs of the call's asynchronous tail, wherever the implementation's
    /// job structure puts that turn (SPEC.md, CORE-CAN-09).
    AfterTurns(TurnsSpec),
}

/// `{"turns": n, "reason"?: json}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnsSpec {
    pub turns: u32,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub reason: Option<Json>,
}

impl TurnsSpec {
    /// The reason part, as the other plans hold it.
    pub fn reason_spec(&self) -> ReasonSpec {
        ReasonSpec {
            reason: self.reason.clone(),
        }
    }
}

/// An abort reason: `{}` for none (an `AbortError`), `{"reason": <json>}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ReasonSpec {
    /// `null` is a reason like any other; only a missing field means none.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub reason: Option<Json>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Json>, D::Error> {
    Json::deserialize(d).map(Some)
}
