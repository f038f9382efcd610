//! The one error type of the runner: what stops a command before or outside
//! the cases (bad arguments, unreadable files, an adapter that cannot start).
//! A case that goes wrong is never an `Error`: it ends with a status in the
//! report (see `outcome`).

use std::path::Path;

/// Why a runner command could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The command line or a file it names is wrong (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// Reading or writing a file failed.
    #[error("{path}: {message}")]
    File { path: String, message: String },
    /// The adapter could not be started or broke the protocol outside any
    /// case (the handshake).
    #[error("adapter: {0}")]
    Adapter(String),
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(message.into())
    }

    pub fn file(path: &Path, message: impl ToString) -> Error {
        Error::File {
            path: path.display().to_string(),
            message: message.to_string(),
        }
    }
}
