//! The one error type of this crate: every way a registration or a call can
//! reject instead of producing a result message, and the scenario or host
//! model faults the suite's interface reports as `toolgate_suite::Error`.

use crate::signal::AbortReason;
use std::fmt;

/// Why a registration or a tool call rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind}")]
pub struct Error {
    kind: ErrorKind,
}

/// The kinds of [`Error`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A `ToolContractError`: the definitions or the call broke the contract.
    Contract(ContractCode),
    /// The signal was aborted; carries its reason unchanged.
    Cancelled(AbortReason),
    /// A genuine non-recoverable tool error propagated from a tool. `message`
    /// is what the thrown error says about itself, for display only.
    NonRecoverable {
        /// Identifies the thrown error in the host that threw it (the model's
        /// node id, or zero for the Rust API).
        origin: u64,
        message: String,
    },
    /// The executable model of the host was asked for something it does not
    /// model (a prototype chain longer than its limit, a copy too large).
    Model(String),
    /// A scenario is malformed; says where and why.
    Scenario(String),
}

/// The codes of contract errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ContractCode {
    InvalidToolDefinition,
    InvalidToolBatch,
    DuplicateToolName,
    InvalidToolCall,
}

impl ContractCode {
    /// The code as the contract spells it.
    pub fn as_str(self) -> &'static str {
        use crate::constants::contract_code as c;
        match self {
            ContractCode::InvalidToolDefinition => c::INVALID_TOOL_DEFINITION,
            ContractCode::InvalidToolBatch => c::INVALID_TOOL_BATCH,
            ContractCode::DuplicateToolName => c::DUPLICATE_TOOL_NAME,
            ContractCode::InvalidToolCall => c::INVALID_TOOL_CALL,
        }
    }
}

impl fmt::Display for ContractCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Contract(code) => write!(f, "tool contract error {code}"),
            ErrorKind::Cancelled(reason) => write!(f, "cancelled: {reason}"),
            ErrorKind::NonRecoverable { message, .. } => {
                write!(f, "non-recoverable tool error: {message}")
            }
            ErrorKind::Model(what) => write!(f, "outside the host model: {what}"),
            ErrorKind::Scenario(what) => write!(f, "invalid scenario: {what}"),
        }
    }
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { kind }
    }
    pub(crate) fn contract(code: ContractCode) -> Error {
        Error::new(ErrorKind::Contract(code))
    }
    pub(crate) fn cancelled(reason: AbortReason) -> Error {
        Error::new(ErrorKind::Cancelled(reason))
    }
    pub(crate) fn model(what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Model(what.into()))
    }
    pub(crate) fn scenario(what: impl Into<String>) -> Error {
        Error::new(ErrorKind::Scenario(what.into()))
    }
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
    /// The contract code, when this is a contract error.
    pub fn contract_code(&self) -> Option<ContractCode> {
        match self.kind {
            ErrorKind::Contract(code) => Some(code),
            _ => None,
        }
    }
    /// The abort reason, when the call was cancelled.
    pub fn abort_reason(&self) -> Option<&AbortReason> {
        match &self.kind {
            ErrorKind::Cancelled(reason) => Some(reason),
            _ => None,
        }
    }
}

/// What the suite interface reports of a core error: a malformed scenario
/// as one, a request outside the host model as one, and a rejection that
/// escaped a scenario's run (which the oracle records instead) as outside
/// the model, with what it was.
impl From<Error> for toolgate_suite::Error {
    fn from(e: Error) -> toolgate_suite::Error {
        match e.kind {
            ErrorKind::Scenario(what) => toolgate_suite::Error::Scenario(what),
            ErrorKind::Model(what) => toolgate_suite::Error::Model(what),
            other => toolgate_suite::Error::Model(other.to_string()),
        }
    }
}
