//! The abort signal: a cancellation token that carries a reason.
use std::fmt;
/// Why a call was cancelled: the exact value the aborting party gave, or an
/// `AbortError` when it gave none.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum AbortReason {
    AbortError,
    Value(serde_json::Value),
}
impl fmt::Display for AbortReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AbortReason::AbortError => f.write_str("AbortError"),
            AbortReason::Value(v) => write!(f, "{v}"),
        }
    }
}
