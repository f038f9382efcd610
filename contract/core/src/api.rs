//! The contract for Rust runtimes that want it for real: tools as a trait
//! (or closures through [`FnTool`]), an async executor that receives the
//! validated value and a [`ToolContext`], outputs as `serde_json` values or
//! model graphs, and [`execute_tool_call`] running the same eighteen steps as
//! the reference model.
//!
//! ```
//! use serde_json::json;
//! use toolgate_core::api::{execute_tool_call, Decision, FnTool, Output, ToolRegistry};
//! use toolgate_core::AbortSignal;
//!
//! let add = FnTool::new(
//!     "add",
//!     "Adds two numbers",
//!     |args| match (args["left"].as_f64(), args["right"].as_f64()) {
//!         (Some(l), Some(r)) => Ok(Decision::Accept(json!([l, r]))),
//!         _ => Ok(Decision::Reject("left and right must be numbers".into())),
//!     },
//!     |value, _ctx| async move {
//!         let sum = value[0].as_f64().unwrap_or(0.0) + value[1].as_f64().unwrap_or(0.0);
//!         Ok(Output::Json(json!({ "sum": sum, "exact": true })))
//!     },
//! );
//! let registry = ToolRegistry::with_tools(vec![add.into_tool()])?;
//! let call = json!({"type": "toolCall", "id": "c1", "name": "add", "arguments": {"left": 40, "right": 2}});
//! let runtime = tokio::runtime::Builder::new_current_thread().build()?;
//! let result = runtime.block_on(execute_tool_call(&registry, &call, &AbortSignal::new()))?;
//! assert_eq!(result.content, r#"{"exact":true,"sum":42}"#);
//! assert_eq!(result.to_json()["id"], "tool-result-c1");
//!
//! let bad = json!({"type": "toolCall", "id": "c2", "name": "add", "arguments": {"left": "x"}});
//! let result = runtime.block_on(execute_tool_call(&registry, &bad, &AbortSignal::new()))?;
//! assert!(result.is_error);
//! assert_eq!(
//!     result.content,
//!     r#"{"error":{"code":"TOOL_ARGUMENTS_INVALID","message":"left and right must be numbers"}}"#
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::call::{
    run, CallHost, CallSnapshot, Decision as FlowDecision, DecisionFailure, Settling,
    SnapshotFailure,
};
use crate::constants::message;
use crate::error::{ContractCode, Error};
use crate::js_string::JsString;
use crate::model::{Heap, Runtime, Thrown, Value};
use crate::registry::{Named, Registry};
use crate::serializer::{serialize, Failure, JsonSource, Serialized};
use crate::signal::AbortSignal;
use crate::ToolResult;
use futures::future::BoxFuture;
use futures::FutureExt;
use std::future::Future;
use std::sync::Arc;

/// What a validator decides.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// The arguments are valid; execute receives this value.
    Accept(serde_json::Value),
    /// The arguments are invalid; the model reads this message. A blank
    /// message is itself a validation failure.
    Reject(String),
}

/// A tool's failure.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolError {
    /// An ordinary failure: an error result the model can read, with this
    /// message or the step's fallback.
    Failed(Option<String>),
    /// The call rejects with this error instead of producing a result.
    NonRecoverable(String),
}

impl ToolError {
    pub fn failed(message: impl Into<String>) -> ToolError {
        ToolError::Failed(Some(message.into()))
    }
}

/// What an executor returns.
#[derive(Debug, Clone)]
pub enum Output {
    Json(serde_json::Value),
    /// A graph of the host model (cycles, BigInts, markers...), rooted at `root`.
    Graph {
        heap: Arc<Heap>,
        root: Value,
    },
}

/// What an executor receives besides the value.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub tool_call_id: String,
    /// Aborts when the call is cancelled; the executor may stop early.
    pub signal: AbortSignal,
}

/// A tool.
pub trait Tool: Send + Sync + 'static {
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    /// Runs synchronously, once, on a deep copy of the call's arguments.
    fn validate(&self, arguments: &serde_json::Value) -> Result<Decision, ToolError>;
    /// Runs once, only after an accepting decision.
    fn execute(
        &self,
        value: serde_json::Value,
        context: ToolContext,
    ) -> BoxFuture<'static, Result<Output, ToolError>>;
}

/// A tool made of two closures.
pub struct FnTool<V, E> {
    name: String,
    description: String,
    validate: V,
    execute: E,
}

impl<V, E, F> FnTool<V, E>
where
    V: Fn(&serde_json::Value) -> Result<Decision, ToolError> + Send + Sync + 'static,
    E: Fn(serde_json::Value, ToolContext) -> F + Send + Sync + 'static,
    F: Future<Output = Result<Output, ToolError>> + Send + 'static,
{
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        validate: V,
        execute: E,
    ) -> Self {
        FnTool {
            name: name.into(),
            description: description.into(),
            validate,
            execute,
        }
    }

    pub fn into_tool(self) -> Arc<dyn Tool> {
        Arc::new(self)
    }
}

impl<V, E, F> Tool for FnTool<V, E>
where
    V: Fn(&serde_json::Value) -> Result<Decision, ToolError> + Send + Sync + 'static,
    E: Fn(serde_json::Value, ToolContext) -> F + Send + Sync + 'static,
    F: Future<Output = Result<Output, ToolError>> + Send + 'static,
{
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn validate(&self, arguments: &serde_json::Value) -> Result<Decision, ToolError> {
        (self.validate)(arguments)
    }
    fn execute(
        &self,
        value: serde_json::Value,
        context: ToolContext,
    ) -> BoxFuture<'static, Result<Output, ToolError>> {
        (self.execute)(value, context).boxed()
    }
}

/// A registered tool: its snapshot name and the tool.
#[derive(Clone)]
pub struct RegisteredTool {
    name: JsString,
    tool: Arc<dyn Tool>,
}

impl Named for RegisteredTool {
    fn name(&self) -> &JsString {
        &self.name
    }
}

/// A registry of Rust tools.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    inner: Registry<RegisteredTool>,
}

impl ToolRegistry {
    pub fn new() -> ToolRegistry {
        ToolRegistry::default()
    }

    /// A registry built from an initial batch, with `register_many`'s rules.
    pub fn with_tools(tools: Vec<Arc<dyn Tool>>) -> Result<ToolRegistry, Error> {
        let mut registry = ToolRegistry::new();
        registry.register_many(tools)?;
        Ok(registry)
    }

    /// Registers all or none: a blank name or description gives
    /// `INVALID_TOOL_DEFINITION`, a repeated name `DUPLICATE_TOOL_NAME`.
    pub fn register_many(&mut self, tools: Vec<Arc<dyn Tool>>) -> Result<(), Error> {
        let mut snapshots = Vec::with_capacity(tools.len());
        for tool in tools {
            let name = JsString::new(tool.name());
            if name.is_blank() || JsString::new(tool.description()).is_blank() {
                return Err(Error::contract(ContractCode::InvalidToolDefinition));
            }
            snapshots.push(RegisteredTool { name, tool });
        }
        self.inner.register_many(snapshots)
    }

    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), Error> {
        self.register_many(vec![tool])
    }

    pub fn names(&self) -> Vec<String> {
        self.inner
            .names()
            .iter()
            .map(JsString::to_string_lossy)
            .collect()
    }

    pub fn size(&self) -> usize {
        self.inner.size()
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.inner.get(&JsString::new(name)).map(|t| t.tool.clone())
    }

    /// Membership copied for one agent run.
    pub fn snapshot(&self) -> ToolRegistry {
        ToolRegistry {
            inner: self.inner.snapshot(),
        }
    }
}

/// Runs a JSON tool call `{type, id, name, arguments}` through the contract.
pub async fn execute_tool_call(
    registry: &ToolRegistry,
    call: &serde_json::Value,
    signal: &AbortSignal,
) -> Result<ToolResult, Error> {
    run(&ApiCall {
        registry,
        call,
        signal,
    })
    .await
}

struct ApiCall<'a> {
    registry: &'a ToolRegistry,
    call: &'a serde_json::Value,
    signal: &'a AbortSignal,
}

impl CallHost for ApiCall<'_> {
    type Tool = Arc<dyn Tool>;
    type Args = serde_json::Value;
    type Returned = Decision;
    type Accepted = serde_json::Value;
    type Output = Output;
    type Thrown = ToolError;

    fn signal(&self) -> &AbortSignal {
        self.signal
    }

    fn registry_is_real(&self) -> bool {
        true
    }

    fn snapshot_call(&self) -> Result<CallSnapshot<serde_json::Value>, SnapshotFailure> {
        let invalid = || SnapshotFailure::Invalid;
        let fields = self.call.as_object().ok_or_else(invalid)?;
        if fields.get("type").and_then(|t| t.as_str()) != Some("toolCall") {
            return Err(invalid());
        }
        let text = |key: &str| {
            let s = JsString::new(
                fields
                    .get(key)
                    .and_then(|v| v.as_str())
                    .ok_or_else(invalid)?,
            );
            if s.is_blank() {
                Err(invalid())
            } else {
                Ok(s)
            }
        };
        let id = text("id")?;
        let name = text("name")?;
        let arguments = fields
            .get("arguments")
            .filter(|a| a.is_object())
            .ok_or_else(invalid)?;
        Ok(CallSnapshot {
            id,
            name,
            arguments: arguments.clone(),
        })
    }

    fn lookup(&self, name: &JsString) -> Option<Arc<dyn Tool>> {
        self.registry.inner.get(name).map(|t| t.tool.clone())
    }

    fn validate(
        &self,
        tool: &Arc<dyn Tool>,
        args: &serde_json::Value,
    ) -> Result<Decision, ToolError> {
        tool.validate(args)
    }

    fn asynchrony(&self, _: &Decision) -> Option<Option<ToolError>> {
        None // a Rust validator cannot return a promise
    }

    fn decision(
        &self,
        returned: Decision,
    ) -> Result<FlowDecision<serde_json::Value>, DecisionFailure<ToolError>> {
        match returned {
            Decision::Accept(v) => Ok(FlowDecision::Accept(v)),
            Decision::Reject(m) => {
                let m = JsString::new(&m);
                if m.is_blank() {
                    Err(DecisionFailure::Message(
                        message::DECISION_REJECT_WITHOUT_ERROR.into(),
                    ))
                } else {
                    Ok(FlowDecision::Reject(m))
                }
            }
        }
    }

    fn execute<'a>(
        &'a self,
        tool: &'a Arc<dyn Tool>,
        value: serde_json::Value,
        call_id: &JsString,
    ) -> Result<Settling<'a, Self>, ToolError> {
        let context = ToolContext {
            tool_call_id: call_id.to_string_lossy(),
            signal: self.signal.clone(),
        };
        Ok(tool.execute(value, context))
    }

    fn serialize(&self, output: &Output) -> Result<Serialized, Failure<ToolError>> {
        let thrown = |t: Thrown, rt: &Runtime<'_>| {
            if rt.is_non_recoverable(&t) {
                ToolError::NonRecoverable(
                    rt.failure_message(&t)
                        .map(|m| m.to_string_lossy())
                        .unwrap_or_default(),
                )
            } else {
                ToolError::Failed(rt.failure_message(&t).map(|m| m.to_string_lossy()))
            }
        };
        match output {
            Output::Json(value) => serialize(&JsonSource::new(), &value).map_err(|e| match e {
                Failure::Unsupported(r) => Failure::Unsupported(r),
                Failure::Thrown(never) => match never {},
            }),
            Output::Graph { heap, root } => {
                let rt = Runtime::new(heap, self.signal.clone(), Default::default());
                serialize(&rt, root).map_err(|e| match e {
                    Failure::Unsupported(r) => Failure::Unsupported(r),
                    Failure::Thrown(t) => Failure::Thrown(thrown(t, &rt)),
                })
            }
        }
    }

    fn non_recoverable(&self, thrown: &ToolError) -> Option<Error> {
        match thrown {
            ToolError::NonRecoverable(m) => Some(Error::non_recoverable(0, m.clone())),
            ToolError::Failed(_) => None,
        }
    }

    fn failure_message(&self, thrown: &ToolError) -> Option<JsString> {
        match thrown {
            ToolError::Failed(Some(m)) if !m.is_empty() => Some(JsString::new(m)),
            ToolError::Failed(_) => None,
            ToolError::NonRecoverable(m) => Some(JsString::new(m)),
        }
    }
}
