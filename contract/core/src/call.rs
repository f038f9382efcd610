//! The eighteen steps of `executeToolCall`, written once over a [`CallHost`]
//! so the host model and the Rust API cannot order them differently. Each
//! `check` is the "if the signal is aborted, reject with its reason" of
//! CONTRACT.md; the comments number the eighteen checks and actions in
//! order (CONTRACT.md groups them into eleven steps).

use crate::constants::{message, RESULT_ID_PREFIX, RESULT_ROLE};
use crate::error::{ContractCode, Error, ErrorKind};
use crate::js_string::JsString;
use crate::serializer::{error_content, Failure, Serialized};
use crate::signal::AbortSignal;
use futures::future::BoxFuture;
use std::fmt;

/// The codes of error results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ResultCode {
    ToolNotFound,
    ToolValidationFailed,
    ToolArgumentsInvalid,
    ToolExecutionFailed,
    ToolOutputSerializationFailed,
}

impl ResultCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ResultCode::ToolNotFound => "TOOL_NOT_FOUND",
            ResultCode::ToolValidationFailed => "TOOL_VALIDATION_FAILED",
            ResultCode::ToolArgumentsInvalid => "TOOL_ARGUMENTS_INVALID",
            ResultCode::ToolExecutionFailed => "TOOL_EXECUTION_FAILED",
            ResultCode::ToolOutputSerializationFailed => "TOOL_OUTPUT_SERIALIZATION_FAILED",
        }
    }
}

impl fmt::Display for ResultCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A result message: what the model reads back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    /// `"tool-result-" + call id`.
    pub id: JsString,
    pub tool_call_id: JsString,
    pub tool_name: JsString,
    /// The serialized output, or the serialized `{error:{code,message}}`.
    pub content: String,
    pub is_error: bool,
    /// For error results, the code written in `content`.
    pub error_code: Option<ResultCode>,
    /// Whether `content` ends with the truncation marker.
    pub truncated: bool,
}

impl ToolResult {
    /// The error result of the call `call_id` naming `tool_name`: what the
    /// flow gives, for callers that decide an error outside it (the
    /// boundary suite's blank tool names).
    pub fn error(call_id: JsString, tool_name: JsString, code: ResultCode, message: &str) -> Self {
        Linked {
            id: call_id,
            name: tool_name,
        }
        .error(code, &JsString::new(message))
    }

    /// The constant `role` field.
    pub fn role(&self) -> &'static str {
        RESULT_ROLE
    }

    /// The six fields as JSON (lone surrogates in ids become U+FFFD).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.id.to_string_lossy(),
            "role": RESULT_ROLE,
            "toolCallId": self.tool_call_id.to_string_lossy(),
            "toolName": self.tool_name.to_string_lossy(),
            "content": self.content,
            "isError": self.is_error,
        })
    }
}

/// The fields of a call snapshot the flow needs.
#[derive(Debug, Clone)]
pub struct CallSnapshot<A> {
    pub id: JsString,
    pub name: JsString,
    pub arguments: A,
}

/// What the validator decided.
#[derive(Debug, Clone)]
pub enum Decision<A> {
    Accept(A),
    Reject(JsString),
}

/// Why a decision could not be read.
#[derive(Debug, Clone)]
pub enum DecisionFailure<T> {
    /// A fixed or computed message (`Expected own property ok`, ...).
    Message(JsString),
    /// A getter on the decision threw.
    Thrown(T),
}

/// Why a call could not be snapshotted.
#[derive(Debug, Clone)]
pub enum SnapshotFailure {
    /// Gives `INVALID_TOOL_CALL` (unless the signal aborted meanwhile).
    Invalid,
    /// The host model cannot represent the call.
    Model(Error),
}

/// A host the steps run in. Crate-private: the flow is the product, hosts
/// only answer its questions.
pub(crate) trait CallHost: Sync {
    type Tool: Send + Sync;
    type Args;
    type Returned;
    type Accepted;
    type Output: Send;
    type Thrown: Send;

    fn signal(&self) -> &AbortSignal;
    fn registry_is_real(&self) -> bool;
    fn snapshot_call(&self) -> Result<CallSnapshot<Self::Args>, SnapshotFailure>;
    fn lookup(&self, name: &JsString) -> Option<Self::Tool>;
    fn validate(
        &self,
        tool: &Self::Tool,
        args: &Self::Args,
    ) -> Result<Self::Returned, Self::Thrown>;
    /// Step 7's look for asynchrony: `Some(kept)` when found, with the error
    /// a throwing `then` left.
    fn asynchrony(&self, returned: &Self::Returned) -> Option<Option<Self::Thrown>>;
    fn decision(
        &self,
        returned: Self::Returned,
    ) -> Result<Decision<Self::Accepted>, DecisionFailure<Self::Thrown>>;
    /// Calls execute; `Err` is a synchronous throw, `Ok` the awaitable result.
    fn execute<'a>(
        &'a self,
        tool: &'a Self::Tool,
        value: Self::Accepted,
        call_id: &JsString,
    ) -> Result<Settling<'a, Self>, Self::Thrown>;
    fn serialize(&self, output: &Self::Output) -> Result<Serialized, Failure<Self::Thrown>>;
    /// `Some(error)` when `thrown` is a genuine non-recoverable tool error.
    fn non_recoverable(&self, thrown: &Self::Thrown) -> Option<Error>;
    fn failure_message(&self, thrown: &Self::Thrown) -> Option<JsString>;
}

/// An executor's result being awaited.
pub(crate) type Settling<'a, H> =
    BoxFuture<'a, Result<<H as CallHost>::Output, <H as CallHost>::Thrown>>;

fn check(signal: &AbortSignal) -> Result<(), Error> {
    match signal.reason() {
        Some(reason) => Err(Error::cancelled(reason)),
        None => Ok(()),
    }
}

struct Linked {
    id: JsString,
    name: JsString,
}

impl Linked {
    fn success(&self, s: Serialized) -> ToolResult {
        self.result(s, None)
    }

    fn error(&self, code: ResultCode, message: &JsString) -> ToolResult {
        self.result(error_content(code.as_str(), message.as_ref()), Some(code))
    }

    fn result(&self, s: Serialized, code: Option<ResultCode>) -> ToolResult {
        let mut id = JsString::new(RESULT_ID_PREFIX).units().to_vec();
        id.extend_from_slice(self.id.units());
        ToolResult {
            id: JsString::from_units(id),
            tool_call_id: self.id.clone(),
            tool_name: self.name.clone(),
            content: s.content,
            is_error: code.is_some(),
            error_code: code,
            truncated: s.truncated,
        }
    }
}

/// The failure path shared by steps 7, 10, 13, 14 and 16: check, a genuine
/// non-recoverable error propagates, anything else becomes an error result.
fn failed<H: CallHost>(
    host: &H,
    link: &Linked,
    code: ResultCode,
    thrown: Option<H::Thrown>,
    fallback: &str,
) -> Result<ToolResult, Error> {
    check(host.signal())?;
    let message = match &thrown {
        Some(t) => {
            if let Some(error) = host.non_recoverable(t) {
                return Err(error);
            }
            host.failure_message(t)
        }
        None => None,
    };
    let message = message.unwrap_or_else(|| JsString::new(fallback));
    Ok(link.error(code, &message))
}

/// Runs one call through the eighteen steps.
pub(crate) async fn run<H: CallHost>(host: &H) -> Result<ToolResult, Error> {
    let signal = host.signal();
    check(signal)?; // 1
    if !host.registry_is_real() {
        return Err(Error::contract(ContractCode::InvalidToolCall)); // 2
    }
    let call = match host.snapshot_call() {
        Ok(call) => call,
        Err(SnapshotFailure::Model(e)) => return Err(e),
        Err(SnapshotFailure::Invalid) => {
            check(signal)?; // the abort reason wins over the snapshot error
            return Err(Error::contract(ContractCode::InvalidToolCall));
        }
    }; // 3
    check(signal)?; // 4
    let link = Linked {
        id: call.id.clone(),
        name: call.name.clone(),
    };
    let Some(tool) = host.lookup(&call.name) else {
        let mut message = JsString::new("Unknown Tool \"").units().to_vec();
        message.extend_from_slice(call.name.units());
        message.push(u16::from(b'"'));
        return Ok(link.error(ResultCode::ToolNotFound, &JsString::from_units(message)));
        // 5
    };
    check(signal)?; // 6
    let returned = match host.validate(&tool, &call.arguments) {
        Ok(returned) => returned,
        Err(thrown) => {
            return failed(
                host,
                &link,
                ResultCode::ToolValidationFailed,
                Some(thrown),
                message::VALIDATION_FAILED,
            )
        }
    }; // 7
    let asynchrony = host.asynchrony(&returned);
    check(signal)?; // 8
    if let Some(kept) = asynchrony {
        let message = kept
            .and_then(|t| host.failure_message(&t))
            .unwrap_or_else(|| JsString::new(message::VALIDATION_NOT_SYNC));
        return Ok(link.error(ResultCode::ToolValidationFailed, &message)); // 9
    }
    let decision = match host.decision(returned) {
        Ok(decision) => decision,
        Err(DecisionFailure::Message(m)) => {
            check(signal)?;
            return Ok(link.error(ResultCode::ToolValidationFailed, &m));
        }
        Err(DecisionFailure::Thrown(thrown)) => {
            return failed(
                host,
                &link,
                ResultCode::ToolValidationFailed,
                Some(thrown),
                message::DECISION_INVALID,
            )
        }
    }; // 10
    check(signal)?; // 11
    let value = match decision {
        Decision::Reject(message) => {
            return Ok(link.error(ResultCode::ToolArgumentsInvalid, &message));
        }
        Decision::Accept(value) => value,
    };
    check(signal)?; // 12
    let pending = match host.execute(&tool, value, &call.id) {
        Ok(pending) => pending,
        Err(thrown) => {
            return failed(
                host,
                &link,
                ResultCode::ToolExecutionFailed,
                Some(thrown),
                message::EXECUTION_FAILED,
            )
        }
    }; // 13
    let settled = tokio::select! {
        biased;
        () = signal.aborted() => None,
        settled = pending => Some(settled),
    }; // 14
    let output = match settled {
        None => {
            check(signal)?;
            return Err(Error::model("the signal woke without a reason"));
        }
        Some(Err(thrown)) => {
            return failed(
                host,
                &link,
                ResultCode::ToolExecutionFailed,
                Some(thrown),
                message::EXECUTION_FAILED,
            )
        }
        Some(Ok(output)) => output,
    };
    check(signal)?; // 15 (settling while aborted: the abort wins)
    let serialized = match host.serialize(&output) {
        Ok(s) => s,
        Err(Failure::Unsupported(refused)) => {
            // the walk threw a TypeError: its message is the result's
            return failed(
                host,
                &link,
                ResultCode::ToolOutputSerializationFailed,
                None,
                refused.message(),
            );
        }
        Err(Failure::Thrown(thrown)) => {
            return failed(
                host,
                &link,
                ResultCode::ToolOutputSerializationFailed,
                Some(thrown),
                message::SERIALIZATION_FAILED,
            )
        }
    }; // 16
    check(signal)?; // 17
    Ok(link.success(serialized)) // 18
}

impl Error {
    /// A non-recoverable error carrying `message`.
    pub(crate) fn non_recoverable(origin: u64, message: String) -> Error {
        Error::new(ErrorKind::NonRecoverable { origin, message })
    }
}
