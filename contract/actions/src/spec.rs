//! The `actions` suite's formats (`adapters/python/actions/FORMAT.md`) as
//! serde types: the scenario (an inventory, runs of a task under a scripted
//! policy of raw action texts and outside changes), the observation (each
//! step's outcome, each run's terminal status and attempts, the database
//! read back with plain SQL), and [`Code`], every refusal the contract
//! names, with its outcome class and the requirement it falls under.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// A case: the inventory seeded into a fresh database, then the runs, in
/// order, on that database.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionsScenario {
    pub items: Vec<Item>,
    pub runs: Vec<RunSpec>,
}

/// One inventory item (a row of `items`; `text` is the `body` column).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    pub id: String,
    pub title: String,
    pub text: String,
    pub available: i64,
    pub revision: i64,
    /// The text is hostile data (a prompt injection): the rules do not
    /// change, but the judge names ACT-DATA-01 when a run that saw the item
    /// departs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub injected: bool,
}

/// One run: a task and the policy that proposes its actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    pub task: Task,
    pub policy: Vec<PolicyEntry>,
}

/// The fixed record of what the user allows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Task {
    pub id: String,
    pub query: String,
    pub mode: Mode,
    pub quantity: i64,
    pub allow_write: bool,
    pub max_tool_attempts: i64,
}

/// What a task is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Read,
    Reserve,
}

/// One entry of a scripted policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PolicyEntry {
    /// The raw text of a proposed action, exactly as the model wrote it.
    Action(String),
    /// A change someone else makes between two proposals.
    External { external: External },
}

/// Someone else sets an item's stock (its revision goes up by one).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct External {
    pub item_id: String,
    pub available: i64,
}

/// What a case did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionsObservation {
    pub runs: Vec<RunObservation>,
    pub database: Database,
}

/// One run: a step per action asked for, up to the one that ended it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunObservation {
    pub steps: Vec<Step>,
    pub status: String,
    pub attempts: u64,
}

/// How one action went. Which optional fields a step has depends on its
/// outcome (FORMAT.md's table); `message` is for humans and never compared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Json>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Step {
    /// The step without its message, as the judge compares it.
    pub fn compared(&self) -> Step {
        Step {
            message: None,
            ..self.clone()
        }
    }
}

/// A step's outcome class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ok,
    Finished,
    ContractError,
    PolicyError,
    BudgetExhausted,
    Retryable,
    Rejected,
    /// The implementation raised out of its run (adapters only: a bug).
    Raised,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Finished => "finished",
            Outcome::ContractError => "contract_error",
            Outcome::PolicyError => "policy_error",
            Outcome::BudgetExhausted => "budget_exhausted",
            Outcome::Retryable => "retryable",
            Outcome::Rejected => "rejected",
            Outcome::Raised => "raised",
        }
    }

    /// Whether a step of this outcome ends its run.
    pub fn ends_the_run(self) -> bool {
        !matches!(self, Outcome::Ok | Outcome::Retryable | Outcome::Rejected)
    }

    /// Whether the step is an executed tool attempt.
    pub fn is_attempt(self) -> bool {
        matches!(self, Outcome::Ok | Outcome::Retryable | Outcome::Rejected)
    }
}

/// The database after the last run, as the two SELECTs of FORMAT.md read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Database {
    pub items: Vec<ItemRow>,
    pub ledger: Vec<LedgerRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemRow {
    pub id: String,
    pub available: i64,
    pub revision: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LedgerRow {
    pub id: i64,
    pub idempotency_key: String,
    pub task_id: String,
    pub item_id: String,
    pub quantity: i64,
    pub remaining: i64,
    pub revision: i64,
}

/// The finish statuses, in FORMAT.md's order.
pub const FINISH_STATUSES: [&str; 6] = [
    "reserved",
    "answered",
    "insufficient",
    "ambiguous",
    "not_found",
    "retry_later",
];

/// The tool names, in FORMAT.md's order.
pub const TOOL_NAMES: [&str; 4] = ["search", "document", "stock", "reserve"];

/// Every refusal the contract names: its code, its outcome class and the
/// requirement a departure from it falls under. One table, so that the
/// reference, the judge and SPEC.md's list cannot drift apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    InvalidJson,
    NotObject,
    MissingField,
    UnknownField,
    UnknownKind,
    NotString,
    NotInteger,
    OutOfRange,
    TooLong,
    ControlCharacter,
    Blank,
    UnknownStatus,
    UnknownTool,
    QueryMismatch,
    NoSearch,
    NotAHit,
    WritesNotAllowed,
    NotUniqueHit,
    QuantityMismatch,
    NoObservation,
    RevisionMismatch,
    KeyMismatch,
    UnsupportedStatus,
    NoAction,
    Budget,
    StaleRevision,
    InsufficientStock,
}

/// Every code, for lookups by name.
pub const CODES: [Code; 27] = [
    Code::InvalidJson,
    Code::NotObject,
    Code::MissingField,
    Code::UnknownField,
    Code::UnknownKind,
    Code::NotString,
    Code::NotInteger,
    Code::OutOfRange,
    Code::TooLong,
    Code::ControlCharacter,
    Code::Blank,
    Code::UnknownStatus,
    Code::UnknownTool,
    Code::QueryMismatch,
    Code::NoSearch,
    Code::NotAHit,
    Code::WritesNotAllowed,
    Code::NotUniqueHit,
    Code::QuantityMismatch,
    Code::NoObservation,
    Code::RevisionMismatch,
    Code::KeyMismatch,
    Code::UnsupportedStatus,
    Code::NoAction,
    Code::Budget,
    Code::StaleRevision,
    Code::InsufficientStock,
];

impl Code {
    pub fn name(self) -> &'static str {
        match self {
            Code::InvalidJson => "invalid_json",
            Code::NotObject => "not_object",
            Code::MissingField => "missing_field",
            Code::UnknownField => "unknown_field",
            Code::UnknownKind => "unknown_kind",
            Code::NotString => "not_string",
            Code::NotInteger => "not_integer",
            Code::OutOfRange => "out_of_range",
            Code::TooLong => "too_long",
            Code::ControlCharacter => "control_character",
            Code::Blank => "blank",
            Code::UnknownStatus => "unknown_status",
            Code::UnknownTool => "unknown_tool",
            Code::QueryMismatch => "query_mismatch",
            Code::NoSearch => "no_search",
            Code::NotAHit => "not_a_hit",
            Code::WritesNotAllowed => "writes_not_allowed",
            Code::NotUniqueHit => "not_unique_hit",
            Code::QuantityMismatch => "quantity_mismatch",
            Code::NoObservation => "no_observation",
            Code::RevisionMismatch => "revision_mismatch",
            Code::KeyMismatch => "key_mismatch",
            Code::UnsupportedStatus => "unsupported_status",
            Code::NoAction => "no_action",
            Code::Budget => "budget",
            Code::StaleRevision => "stale_revision",
            Code::InsufficientStock => "insufficient_stock",
        }
    }

    /// The code named `name`.
    pub fn named(name: &str) -> Option<Code> {
        CODES.into_iter().find(|c| c.name() == name)
    }

    /// The outcome class of a step refused with this code.
    pub fn outcome(self) -> Outcome {
        match self {
            Code::InvalidJson
            | Code::NotObject
            | Code::MissingField
            | Code::UnknownField
            | Code::UnknownKind
            | Code::NotString
            | Code::NotInteger
            | Code::OutOfRange
            | Code::TooLong
            | Code::ControlCharacter
            | Code::Blank
            | Code::UnknownStatus => Outcome::ContractError,
            Code::UnknownTool
            | Code::QueryMismatch
            | Code::NoSearch
            | Code::NotAHit
            | Code::WritesNotAllowed
            | Code::NotUniqueHit
            | Code::QuantityMismatch
            | Code::NoObservation
            | Code::RevisionMismatch
            | Code::KeyMismatch
            | Code::UnsupportedStatus
            | Code::NoAction => Outcome::PolicyError,
            Code::Budget => Outcome::BudgetExhausted,
            Code::StaleRevision => Outcome::Retryable,
            Code::InsufficientStock => Outcome::Rejected,
        }
    }

    /// The requirement a departure from this code falls under. The
    /// structure codes that depend on where they point (an action-level or
    /// an argument key) and `invalid_json` (which JSON rule) are decided by
    /// the judge, which has the field and the text.
    pub fn requirement(self, field: Option<&str>) -> &'static str {
        let in_args = field.is_some_and(|f| f.starts_with("/args/"));
        match self {
            Code::InvalidJson => "ACT-JSON-01",
            Code::NotObject | Code::UnknownKind => {
                if field == Some("/args") {
                    "ACT-SHAPE-02"
                } else {
                    "ACT-SHAPE-01"
                }
            }
            Code::MissingField | Code::UnknownField => {
                if in_args {
                    "ACT-SHAPE-02"
                } else {
                    "ACT-SHAPE-01"
                }
            }
            Code::UnknownTool => "ACT-SHAPE-03",
            Code::NotInteger => "ACT-TYPE-01",
            Code::OutOfRange => "ACT-TYPE-02",
            Code::NotString if field == Some("/status") => "ACT-TYPE-04",
            Code::NotString | Code::TooLong | Code::ControlCharacter | Code::Blank => "ACT-TYPE-03",
            Code::UnknownStatus => "ACT-TYPE-04",
            Code::QueryMismatch | Code::NoSearch | Code::NotAHit => "ACT-AUTH-01",
            Code::WritesNotAllowed => "ACT-AUTH-02",
            Code::NotUniqueHit => "ACT-AUTH-03",
            Code::QuantityMismatch => "ACT-AUTH-04",
            Code::NoObservation | Code::RevisionMismatch => "ACT-AUTH-05",
            Code::KeyMismatch => "ACT-AUTH-06",
            Code::UnsupportedStatus | Code::NoAction => "ACT-AUTH-07",
            Code::Budget => "ACT-BUDGET-01",
            Code::StaleRevision | Code::InsufficientStock => "ACT-EFFECT-04",
        }
    }
}

/// The limits of FORMAT.md (each a **Decision**: the seed gives none).
pub mod limits {
    /// The most bytes of UTF-8 an action text may have.
    pub const MAX_ACTION_BYTES: usize = 8192;
    /// The deepest nesting of arrays and objects (the action is depth 1).
    pub const MAX_DEPTH: usize = 16;
    /// `quantity`, inclusive.
    pub const QUANTITY: (i64, i64) = (1, 10);
    /// `expected_revision`, inclusive.
    pub const REVISION: (i64, i64) = (0, 2_147_483_647);
    /// Code points of `query`.
    pub const QUERY_CHARS: usize = 200;
    /// Code points of `item_id` (and of a task's and an item's id).
    pub const ID_CHARS: usize = 64;
    /// Code points of `idempotency_key`.
    pub const KEY_CHARS: usize = 200;
    /// A task's `max_tool_attempts`, inclusive.
    pub const ATTEMPTS: (i64, i64) = (1, 32);
    /// An item's `available`, inclusive.
    pub const AVAILABLE: (i64, i64) = (0, 1_000_000);
}
