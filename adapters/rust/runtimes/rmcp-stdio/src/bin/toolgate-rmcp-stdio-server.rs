//! The MCP server of rmcp over stdio: the in-memory row's server (a
//! `ToolRouter` of dynamic routes) on `rmcp::transport::stdio()`. Its
//! tools come from the side channel named by `TOOLGATE_RMCP_SIDE_CHANNEL`
//! (a Unix socket the adapter listens on), as one JSON line; their bodies
//! are built here, and each body's events go back on the same socket, one
//! JSON line each, written as they happen. Not for use outside the
//! adapter.

use rmcp::ServiceExt;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use toolgate_harness::{body_for, OnEvent, Release, TURN_STACK_BYTES};
use toolgate_runtime_rmcp_memory::{route, Server};
use toolgate_runtime_rmcp_stdio::{event_line, SIDE_CHANNEL};

fn main() -> ExitCode {
    // the same fixed stack as the adapter's turns, so that whether a
    // recursion overflows does not depend on `ulimit -s`
    let served = std::thread::Builder::new()
        .name("toolgate-server".into())
        .stack_size(TURN_STACK_BYTES)
        .spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?
                .block_on(serve())
        })
        .map_err(|e| e.to_string())
        .and_then(|thread| {
            thread
                .join()
                .map_err(|_| "the server's thread panicked".to_string())
        })
        .and_then(|served| served);
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("toolgate-rmcp-stdio-server: {message}");
            ExitCode::from(2)
        }
    }
}

async fn serve() -> Result<(), String> {
    let path = std::env::var(SIDE_CHANNEL).map_err(|_| format!("{SIDE_CHANNEL} is not set"))?;
    let stream = UnixStream::connect(&path).map_err(|e| format!("side channel {path}: {e}"))?;
    let mut first = String::new();
    BufReader::new(stream.try_clone().map_err(|e| e.to_string())?)
        .read_line(&mut first)
        .map_err(|e| e.to_string())?;
    let tools: Vec<Value> = serde_json::from_str(&first).map_err(|e| e.to_string())?;

    // each event is written as it happens, before the body's caller goes
    // on: what the server does next (serialize a cyclic output and
    // overflow its stack) cannot lose the body's settle
    let events = Mutex::new(stream);
    let on_event: OnEvent = Arc::new(move |event| {
        let line = event_line(event.index, event.kind);
        if let Ok(mut events) = events.lock() {
            let _ = events.write_all(line.as_bytes());
        }
    });
    // nothing lets a body that ignores its cancellation go: the process
    // ends with the turn
    let release = Release::new();
    let mut routes = Vec::new();
    for tool in &tools {
        let index = tool["index"].as_u64().unwrap_or(0) as usize;
        let copies = tool["copies"].as_u64().unwrap_or(1) as usize;
        let body = body_for(
            &tool["behaviour"],
            index,
            copies,
            on_event.clone(),
            &release,
        )?;
        routes.push(route(
            tool["name"].as_str().unwrap_or_default(),
            tool["description"].as_str().unwrap_or_default(),
            &tool["inputSchema"],
            body,
        ));
    }
    drop(on_event);
    let running = Server::new(routes)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| e.to_string())?;
    let _ = running.waiting().await;
    // the side channel ends with the process, after the last event
    Ok(())
}
