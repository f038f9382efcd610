//! The boundary suite's shim for rmcp, the official MCP Rust SDK, with the
//! server in a child process over stdio, as MCP servers are usually run
//! (README.md beside this crate). Everything but the transport is the
//! in-memory row's (`toolgate-runtime-rmcp-memory`): the same server (a
//! `ToolRouter` of dynamic routes behind `#[tool_handler]`), the same
//! client calls.
//!
//! One turn: a side channel (a Unix socket, not part of MCP) is opened;
//! rmcp's `TokioChildProcess` spawns `toolgate-rmcp-stdio-server` (beside
//! the adapter's executable) with the socket's path in its environment;
//! the server reads the case's tools from the socket, builds their bodies
//! there (`toolgate_harness::body_for`) and sends each body's events back,
//! which the shim relays to the harness (`Tool::relay`); the client serves
//! over the child's stdin and stdout. Once every call is answered the
//! client is closed, the server exits, and the side channel ends after the
//! last event it had to send: only then is the turn's outcome returned.

use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use std::path::PathBuf;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixListener;
use toolgate_harness::{EventKind, Runtime, Shim, Tool, Turn, TurnError, TurnOutcome};
use toolgate_runtime_rmcp_memory::{finish_turn, rmcp_version, Client};

/// The environment variable naming the side channel's socket.
pub const SIDE_CHANNEL: &str = "TOOLGATE_RMCP_SIDE_CHANNEL";

/// The server's executable, beside the adapter's.
pub const SERVER: &str = "toolgate-rmcp-stdio-server";

/// The shim: rmcp's server in a child process, its client here.
#[derive(Debug, Clone, Copy, Default)]
pub struct RmcpStdio;

impl Shim for RmcpStdio {
    fn runtime(&self) -> Runtime {
        Runtime {
            id: "rmcp-stdio",
            package: "rmcp",
            version: rmcp_version(),
            path: "the in-memory row's ToolRouter server in a child process on transport::stdio(), client.call_tool over TokioChildProcess",
            homepage: Some("https://github.com/modelcontextprotocol/rust-sdk"),
        }
    }

    fn not_applicable(&self, need: &str) -> Option<&'static str> {
        (need == "check")
            .then_some("rmcp validates no arguments: there is no hook for an extra check")
    }

    async fn run_turn(&self, mut turn: Turn) -> Result<TurnOutcome, TurnError> {
        let path = socket_path();
        let listener = UnixListener::bind(&path)?;
        let server = std::env::current_exe()?.with_file_name(SERVER);
        let mut command = tokio::process::Command::new(server);
        command.env(SIDE_CHANNEL, &path);
        let transport = TokioChildProcess::new(command)?;
        let (stream, _) = listener.accept().await?;
        let _ = std::fs::remove_file(&path);
        let (events, mut tools_out) = stream.into_split();
        let mut first = serde_json::to_vec(&tools_message(&turn))?;
        first.push(b'\n');
        tools_out.write_all(&first).await?;
        let relay = tokio::spawn(relay_events(events, turn.tools.clone()));

        let client = Client::default().serve(transport).await?;
        // closing the client closes the child's stdin: the server exits,
        // and its side channel ends after the events it had to send
        let outcome = finish_turn(client, &mut turn.calls).await?;
        let _ = relay.await;
        Ok(outcome)
    }
}

/// A socket path of this process's own (each case runs in a process of
/// its own).
fn socket_path() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::env::temp_dir().join(format!(
        "toolgate-rmcp-stdio-{}-{nanos}.sock",
        std::process::id()
    ))
}

/// The case's tools as the server builds them: each with how many calls
/// name it (the copies of its output built before the turn).
fn tools_message(turn: &Turn) -> Value {
    let tools: Vec<Value> = turn
        .tools
        .iter()
        .map(|tool| {
            let copies = turn.calls.iter().filter(|c| c.name == tool.name).count();
            json!({
                "index": tool.index,
                "name": tool.name,
                "description": tool.description,
                "inputSchema": tool.input_schema,
                "behaviour": tool.behaviour,
                "copies": copies,
            })
        })
        .collect();
    Value::Array(tools)
}

/// Relays the server's events (one JSON line each: `index`, `kind`,
/// `fulfilled`) to the harness until the side channel ends.
async fn relay_events(events: tokio::net::unix::OwnedReadHalf, tools: Vec<Tool>) {
    let mut lines = BufReader::new(events).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(event) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let tool = event["index"]
            .as_u64()
            .and_then(|i| tools.iter().find(|t| t.index as u64 == i));
        let kind = match event["kind"].as_str() {
            Some("start") => EventKind::Start,
            Some("progress") => EventKind::Progress,
            Some("settle") => EventKind::Settle {
                fulfilled: event["fulfilled"].as_bool().unwrap_or(false),
            },
            _ => continue,
        };
        if let Some(tool) = tool {
            tool.relay(kind, None);
        }
    }
}

/// An event of a body in the server, as one line of the side channel.
pub fn event_line(index: usize, kind: EventKind) -> String {
    let (kind, fulfilled) = match kind {
        EventKind::Start => ("start", None),
        EventKind::Progress => ("progress", None),
        EventKind::Settle { fulfilled } => ("settle", Some(fulfilled)),
    };
    let mut line = json!({"index": index, "kind": kind, "fulfilled": fulfilled}).to_string();
    line.push('\n');
    line
}
