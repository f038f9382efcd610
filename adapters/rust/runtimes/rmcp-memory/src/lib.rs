//! The boundary suite's shim for rmcp, the official MCP Rust SDK, with
//! server and client in one process (README.md beside this crate explains
//! every verdict from rmcp's source).
//!
//! One turn: a fresh server whose `ToolRouter` holds one dynamic route
//! (`ToolRoute::new_dyn`, the SDK's entry for tools known only at run time)
//! per case tool, served through `#[tool_handler]` as a `ServerHandler`; a
//! client served over the two ends of a `tokio::io::duplex` pipe (rmcp's
//! `transport-async-rw`: every message is JSON text on the pipe); one
//! `client.call_tool(...)` per call of the model's turn, all in flight at
//! once, joined as Rust joins fallible futures (`try_join_all`: the first
//! error fails the turn and drops the other calls, which rmcp then cancels
//! on the wire).
//!
//! The shim adds nothing rmcp does not do: it validates nothing, catches
//! nothing and bounds nothing. A tool's output becomes a result through
//! rmcp's own `ContentBlock::json`; a tool's `Err` becomes the MCP error
//! result (`CallToolResult::error`, `isError: true`) a rmcp tool returns
//! for a failure it expected.

use futures::future::try_join_all;
use rmcp::handler::client::ClientHandler;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ProgressNotificationParam, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use rmcp::{tool_handler, ServerHandler, ServiceExt};
use serde_json::Value;
use std::sync::{Arc, Mutex, OnceLock};
use toolgate_harness::{
    Body, Call, ResultSeen, Runtime, Shim, ToolContext, Turn, TurnError, TurnOutcome,
};

/// The shim: rmcp's server and client in one process.
#[derive(Debug, Clone, Copy, Default)]
pub struct RmcpMemory;

/// The MCP server of one turn: its tools are the router's routes.
#[derive(Clone)]
pub struct Server {
    tool_router: ToolRouter<Server>,
}

impl Server {
    /// A server whose tools are `routes`, added in order (a later route of
    /// a name replaces an earlier one: rmcp's `add_route`).
    pub fn new(routes: impl IntoIterator<Item = ToolRoute<Server>>) -> Server {
        let mut tool_router = ToolRouter::<Server>::new();
        for route in routes {
            tool_router.add_route(route);
        }
        Server { tool_router }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// The client's handler: what the server says on the side (progress) is
/// kept as the turn's notes, as a host would log it.
#[derive(Clone, Default)]
pub struct Client {
    notes: Arc<Mutex<Vec<String>>>,
}

impl Client {
    /// The notes kept so far, taken.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().expect("notes"))
    }
}

impl ClientHandler for Client {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let note = format!(
            "progress {}: {}",
            params.progress_token.0,
            params.message.unwrap_or_default()
        );
        self.notes.lock().expect("notes").push(note);
    }
}

/// The version of rmcp this shim is built against: rmcp's own
/// `CARGO_PKG_VERSION` (`Implementation::from_build_env`), so that a build
/// against another version than the pinned 3.11.0 reports that version.
pub fn rmcp_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| Implementation::from_build_env().version)
}

impl Shim for RmcpMemory {
    fn runtime(&self) -> Runtime {
        Runtime {
            id: "rmcp-memory",
            package: "rmcp",
            version: rmcp_version(),
            path: "ToolRouter of ToolRoute::new_dyn served by #[tool_handler], client.call_tool over tokio::io::duplex",
            homepage: Some("https://github.com/modelcontextprotocol/rust-sdk"),
        }
    }

    fn not_applicable(&self, need: &str) -> Option<&'static str> {
        // rmcp's router hands the arguments to the route as they came: it has
        // no validation step a check could join (router/tool.rs, call)
        (need == "check")
            .then_some("rmcp validates no arguments: there is no hook for an extra check")
    }

    // The default, Cancellation::Drop, is rmcp's own: dropping a
    // `call_tool` future sends `notifications/cancelled` for its request
    // (service/client.rs, AbandonedRequestGuard), which cancels the
    // server's `RequestContext::ct` for it.

    async fn run_turn(&self, mut turn: Turn) -> Result<TurnOutcome, TurnError> {
        let routes = turn.tools.iter().map(|tool| {
            let each = tool.clone();
            let body: Body = Arc::new(move |args, context| each.call(args, context));
            route(&tool.name, &tool.description, &tool.input_schema, body)
        });
        let server = Server::new(routes);
        let (server_end, client_end) = tokio::io::duplex(1 << 16);
        // both sides at once: each one's `serve` waits for the initialize
        // handshake with the other
        let (server, client) = tokio::join!(
            server.serve(server_end),
            Client::default().serve(client_end)
        );
        let server = server?;
        let outcome = finish_turn(client?, &mut turn.calls).await?;
        let _ = server.cancel().await;
        Ok(outcome)
    }
}

/// The model's turn on a served client, as both rmcp rows end it: every
/// call (`call_all`), then the client closed; what the model received and
/// the progress the client was told of.
pub async fn finish_turn(
    client: RunningService<RoleClient, Client>,
    calls: &mut [Call],
) -> Result<TurnOutcome, ServiceError> {
    let notes = client.service().clone();
    let results = call_all(&client, calls).await?;
    let _ = client.cancel().await;
    Ok(TurnOutcome {
        results,
        notes: notes.take_notes(),
        ..TurnOutcome::default()
    })
}

/// The model's calls, one `client.call_tool(...)` each, all in flight at
/// once and joined as Rust joins fallible futures (`try_join_all`: the
/// first error fails the turn and drops the other calls, which rmcp then
/// cancels on the wire); what the model receives, in call order.
async fn call_all(
    client: &RunningService<RoleClient, Client>,
    calls: &mut [Call],
) -> Result<Vec<ResultSeen>, ServiceError> {
    let calls = calls.iter_mut().map(|call| {
        let mut params = CallToolRequestParams::new(call.name.clone());
        // MCP's arguments are an object; anything else cannot be sent
        params.arguments = match call.arguments.take() {
            Value::Object(object) => Some(object),
            _ => None,
        };
        let id = call.id.clone();
        async move { client.call_tool(params).await.map(|result| (id, result)) }
    });
    let answered = try_join_all(calls).await?;
    Ok(answered
        .into_iter()
        .map(|(id, result)| {
            // an absent isError is false (MCP's CallToolResult)
            let is_error = Some(result.is_error.unwrap_or(false));
            ResultSeen {
                call_id: Some(id),
                is_error,
                delivered: serde_json::to_value(&result).unwrap_or(Value::Null),
            }
        })
        .collect())
}

/// A case tool as rmcp's dynamic route: its name, description and input
/// schema advertised as given, its body called with the request's
/// arguments, its cancellation token and a progress channel to the client.
pub fn route(name: &str, description: &str, input_schema: &Value, body: Body) -> ToolRoute<Server> {
    let schema: JsonObject = match input_schema {
        Value::Object(object) => object.clone(),
        // rmcp's `Tool::input_schema` is an object: a boolean schema is
        // written as the object schema that means the same
        Value::Bool(true) => JsonObject::new(),
        _ => serde_json::json!({"not": {}})
            .as_object()
            .cloned()
            .unwrap_or_default(),
    };
    let definition =
        rmcp::model::Tool::new(name.to_string(), description.to_string(), Arc::new(schema));
    ToolRoute::new_dyn(definition, move |context: ToolCallContext<'_, Server>| {
        let body = body.clone();
        let arguments = context
            .arguments
            .clone()
            .map(Value::Object)
            .unwrap_or(Value::Null);
        let request = context.request_context.clone();
        Box::pin(async move {
            let token = request.meta.get_progress_token();
            let peer = request.peer.clone();
            let sent = Arc::new(std::sync::atomic::AtomicU32::new(0));
            let progress = token.map(|token| {
                Arc::new(move |value: Value| {
                    // a progress report is a notification to the client, sent
                    // from a task (the tool's callback is not async)
                    let n = sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    let param = ProgressNotificationParam::new(token.clone(), f64::from(n))
                        .with_message(value.to_string());
                    let peer = peer.clone();
                    tokio::spawn(async move {
                        let _ = peer.notify_progress(param).await;
                    });
                }) as Arc<dyn Fn(Value) + Send + Sync>
            });
            let context = ToolContext {
                call_id: None,
                progress,
                signal: Some(request.ct.clone()),
            };
            let result = match body(arguments, context).await {
                Ok(output) => CallToolResult::success(vec![ContentBlock::json(&output)?]),
                Err(failure) => CallToolResult::error(vec![ContentBlock::text(failure.message)]),
            };
            Ok(CallToolResponse::from(result))
        })
    })
}
