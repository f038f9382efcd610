//! The one error type a suite's interface returns: every way a scenario,
//! an observation or the machine under a reference can stop a case before
//! a verdict.

/// Why a suite could not decode, check or observe a scenario.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A scenario, an observation or a case file is malformed; says where
    /// and why.
    #[error("invalid scenario: {0}")]
    Scenario(String),
    /// The reference was asked for something its model does not cover (a
    /// prototype chain longer than its limit, a schema keyword it does not
    /// implement).
    #[error("outside the model: {0}")]
    Model(String),
    /// The machine under a reference failed it: a database or a temporary
    /// directory it runs a case in.
    #[error("storage: {0}")]
    Storage(String),
}

impl Error {
    /// A malformed scenario, observation or case file.
    pub fn scenario(what: impl Into<String>) -> Error {
        Error::Scenario(what.into())
    }
    /// Something outside the reference's model.
    pub fn model(what: impl Into<String>) -> Error {
        Error::Model(what.into())
    }
    /// A failure of the machine under the reference.
    pub fn storage(what: impl Into<String>) -> Error {
        Error::Storage(what.into())
    }
}
