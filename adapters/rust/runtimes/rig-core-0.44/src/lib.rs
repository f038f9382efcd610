//! rig (rig-core 0.44.0) under toolgate's boundary suite: the shim of
//! `adapters/rust/SHIM.md` over rig's own agent loop, which rig 0.44 ships
//! as `rig-agent` 0.44.0 beside rig-core (README.md).
//!
//! One turn is what a rig user writes: an [`AgentBuilder`] with the case's
//! tools as [`DynamicTool`]s (rig's runtime-defined tools: a name, a JSON
//! Schema and a callback), then `agent.prompt(..).max_turns(2).run()`. The
//! model is rig's scripted wire ([`MockScript`], rig-core's `test-utils`)
//! on a transport of this shim's ([`Script`]) that answers the first
//! request with every call of the turn in one response and the second with
//! a final text, and keeps each request it is sent: what the model
//! receives next is the second request's tool results.

use futures::stream;
use rig_agent::agent::{AgentHook, DispatchAction, DispatchEvent, HookContext};
use rig_agent::AgentBuilder;
use rig_core::completion::{AssistantContent, CompletionRequest, CompletionResponse, Usage};
use rig_core::driver::{Exchange, Model, Opened, Opening, Transport};
use rig_core::effect::EffectKind;
use rig_core::error::ProviderError;
use rig_core::message::{Message, Origin, ToolCall, ToolFunction, ToolName, UserContent};
use rig_core::test_utils::{MockFrame, MockScript, MOCK_API, MOCK_PROVIDER};
use rig_core::tool::{DynamicTool, IntoToolOutput, ToolExecutionError};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use toolgate_harness::values::dismantle;
use toolgate_harness::{
    Cancellation, RegistrationError, ResultSeen, Runtime, Shim, Tool, ToolContext, Turn, TurnError,
    TurnOutcome,
};

/// The prompt of every turn (the scripted model does not read it).
const PROMPT: &str = "Run the tools.";

/// The scripted model's final answer, after the tool results.
const FINAL_TEXT: &str = "done";

/// rig's agent loop, as a shim of the harness.
#[derive(Debug, Clone, Copy, Default)]
pub struct RigCore;

impl Shim for RigCore {
    fn runtime(&self) -> Runtime {
        Runtime {
            id: "rig-core-0.44",
            package: "rig-core",
            // from the Cargo.lock beside this crate (build.rs): a build
            // against another version reports that version
            version: env!("TOOLGATE_RIG_CORE_VERSION"),
            path: "rig-agent 0.44.0's AgentBuilder::dynamic_tools(..).build().prompt(..).max_turns(2).run() on rig-core's scripted wire (MockScript)",
            homepage: Some("https://github.com/0xPlaygrounds/rig"),
        }
    }

    fn not_applicable(&self, need: &str) -> Option<&'static str> {
        (need == "progress").then_some(
            "a rig tool has no progress channel: its callback gets the arguments (and a ToolContext of typed values and result metadata) and returns one ToolOutput",
        )
    }

    /// rig has no cancellation entry for a run (no token, no `cancel`): a
    /// run is cancelled by dropping its future, whose bus driver polls the
    /// tool handlers inside it.
    fn cancellation(&self) -> Cancellation {
        Cancellation::Drop
    }

    async fn run_turn(&self, mut turn: Turn) -> Result<TurnOutcome, TurnError> {
        // the case's tools as rig's runtime-defined tools
        let mut tools = Vec::with_capacity(turn.tools.len());
        let mut checked: HashMap<String, Tool> = HashMap::new();
        for tool in &turn.tools {
            let name = match ToolName::new(tool.name.clone()) {
                Ok(name) => name,
                Err(refused) => {
                    return Ok(TurnOutcome {
                        registration_error: Some(RegistrationError {
                            name: "EmptyToolName".into(),
                            message: refused.to_string(),
                        }),
                        ..TurnOutcome::default()
                    })
                }
            };
            // a later tool of one name replaces an earlier one in rig's
            // registry; its check goes with it
            if tool.check.is_some() {
                checked.insert(tool.name.clone(), tool.clone());
            } else {
                checked.remove(&tool.name);
            }
            tools.push(dynamic_tool(name, tool));
        }

        // the model's turn: every call in one response, then a final text
        let calls = turn
            .calls
            .iter_mut()
            .filter_map(|call| {
                // rig's reply fold drops a call without a name: nothing can
                // answer it (rig-core src/operation/completion.rs:714)
                let name = ToolName::new(call.name.clone()).ok()?;
                let text = call.arguments.text();
                dismantle(call.arguments.take());
                // the arguments as the JSON text a provider sends, read by
                // rig's own parser, as rig's chat wires read theirs
                Some(AssistantContent::ToolCall(ToolCall::from_wire(
                    call.id.clone(),
                    ToolFunction::parse(name, &text),
                )))
            })
            .collect();
        let script = Script::new([
            reply(calls),
            reply(vec![AssistantContent::text(FINAL_TEXT)]),
        ]);
        let model = Model::new(MockScript::default(), script.clone());

        let mut builder = AgentBuilder::new(model).dynamic_tools(tools);
        if !checked.is_empty() {
            builder = builder.add_hook(Checks { tools: checked });
        }
        let agent = builder.build();
        agent.prompt(PROMPT).max_turns(2).run().await?;

        let mut requests = script.take_requests().into_iter();
        let Some(second) = requests.nth(1) else {
            return Ok(TurnOutcome {
                notes: vec!["the run ended without a second request to the model".into()],
                ..TurnOutcome::default()
            });
        };
        Ok(TurnOutcome {
            results: tool_results(second)?,
            ..TurnOutcome::default()
        })
    }
}

/// `tool` as a rig [`DynamicTool`]: its callback awaits the harness's body
/// and turns its value into rig's output with rig's own conversion
/// ([`IntoToolOutput`], for every `Serialize` value), and its error with
/// rig's own mapping of an arbitrary error
/// ([`ToolExecutionError::from_error`], the default of a typed tool's
/// `map_error`).
fn dynamic_tool(name: ToolName, tool: &Tool) -> DynamicTool {
    let body = tool.clone();
    DynamicTool::new(
        name,
        tool.description.clone(),
        tool.input_schema.clone(),
        move |args| {
            let body = body.clone();
            Box::pin(async move {
                // rig gives a tool no call id, progress channel or signal
                let value = body
                    .call(args, ToolContext::default())
                    .await
                    .map_err(ToolExecutionError::from_error)?;
                value.into_tool_output()
            })
        },
    )
}

/// The tools' extra checks, wired into rig's hook that runs before a tool
/// call is dispatched ([`AgentHook::on_dispatch`]): a refusal denies the
/// call, which rig answers with a skipped result carrying the message.
struct Checks {
    tools: HashMap<String, Tool>,
}

impl AgentHook for Checks {
    async fn on_dispatch(&self, _ctx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        let EffectKind::ToolCall { name, args } = event.kind else {
            return DispatchAction::proceed();
        };
        let Some(tool) = self.tools.get(name) else {
            return DispatchAction::proceed();
        };
        // the hook sees the arguments as rig dispatches them, JSON text;
        // text the parser refuses is left to the tool's own parse
        let Ok(args) = serde_json::from_str::<Value>(args) else {
            return DispatchAction::proceed();
        };
        let refusal = tool.refuses(&args);
        dismantle(args);
        match refusal {
            Some(message) => DispatchAction::skip(message),
            None => DispatchAction::proceed(),
        }
    }
}

/// One scripted reply: `choice` as a whole response of rig's scripted wire.
fn reply(choice: Vec<AssistantContent>) -> CompletionResponse {
    CompletionResponse::new(
        choice,
        Usage::default(),
        Origin::new(MOCK_API, MOCK_PROVIDER, ""),
        Value::Null,
    )
}

/// The tool results the request carries after the model's last turn, in
/// the order it carries them.
fn tool_results(request: CompletionRequest) -> Result<Vec<ResultSeen>, serde_json::Error> {
    let history = request.chat_history;
    let after = history
        .iter()
        .rposition(|message| matches!(message, Message::Assistant(_)))
        .map_or(0, |at| at + 1);
    let mut results = Vec::new();
    for message in history.into_iter().skip(after) {
        let Message::User { content } = message else {
            continue;
        };
        for part in content {
            let UserContent::ToolResult(result) = part else {
                continue;
            };
            results.push(ResultSeen {
                call_id: Some(result.call.wire().into_owned()),
                is_error: Some(result.is_error),
                delivered: serde_json::to_value(&result)?,
            });
        }
    }
    Ok(results)
}

/// The transport of the scripted wire: each request is kept as the driver
/// sends it (moved, never cloned: it may carry 10^6 argument keys or a
/// 10 MB result) and answered with the next scripted reply.
#[derive(Clone)]
struct Script {
    state: Arc<Mutex<ScriptState>>,
}

struct ScriptState {
    replies: VecDeque<CompletionResponse>,
    requests: Vec<CompletionRequest>,
}

impl Script {
    fn new(replies: impl IntoIterator<Item = CompletionResponse>) -> Script {
        Script {
            state: Arc::new(Mutex::new(ScriptState {
                replies: replies.into_iter().collect(),
                requests: Vec::new(),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ScriptState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn take_requests(&self) -> Vec<CompletionRequest> {
        std::mem::take(&mut self.lock().requests)
    }
}

impl Transport<MockScript> for Script {
    fn send(&self, request: CompletionRequest, _exchange: Exchange) -> Opening<MockFrame> {
        let mut state = self.lock();
        state.requests.push(request);
        match state.replies.pop_front() {
            Some(response) => Opening::ready(
                Opened::new(stream::iter([Ok(MockFrame::Response(Box::new(response)))]))
                    .with_document(Value::Null),
            ),
            None => Opening::failed(ProviderError::Provider(
                "the scripted model has no reply left".into(),
            )),
        }
    }
}
