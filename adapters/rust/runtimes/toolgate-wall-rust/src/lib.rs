//! toolgate-wall-rust: a small agent-turn executor written for this suite
//! in ordinary Rust (tokio), which keeps the whole boundary wall (seed
//! 001: unknown tool -> error result; validate before run; a failure or a
//! panic becomes an error result; the turn survives). It is the suite's
//! positive control in Rust: the runtime under test is this crate, and
//! `mutants.json` lists the deliberate breaks of it the gate must see.
//!
//! One turn: register the tools (duplicate names refused), then start every
//! call of the turn at once, all polled inside the turn's own future. Each
//! call is answered by exactly one `tool_result` part, in call order:
//!
//! ```text
//! unknown tool             -> error result, nothing runs
//! oversized arguments      -> error result, before the validator sees them
//! schema or check refuses  -> error result, the body never runs
//! aborted before it starts -> error result, the body never runs
//! body returns             -> success result, the output as bounded text
//! body fails or panics     -> error result with a readable message
//! deadline passes          -> error result "timed out", the body dropped
//! the turn's signal aborts -> error result "aborted" for each running
//!                             call (results already answered are kept)
//! ```

pub mod render;

use futures::stream::{FuturesUnordered, StreamExt};
use futures::FutureExt;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use toolgate_harness::values::dismantle;
use toolgate_harness::{
    Cancellation, RegistrationError, ResultSeen, Runtime, Shim, Tool, ToolContext, ToolValue, Turn,
    TurnError, TurnOutcome,
};

/// The wall's bounds.
#[derive(Debug, Clone)]
pub struct Limits {
    /// UTF-8 bytes of one tool_result part as JSON text.
    pub result_bytes: usize,
    /// Nesting levels of the arguments (the root object is level 0).
    pub argument_depth: usize,
    /// Values in the arguments: the root, every property and every item.
    pub argument_nodes: usize,
    /// Characters of the arguments' strings and keys.
    pub argument_chars: usize,
    /// Nesting levels of an output rendered as JSON text.
    pub output_depth: usize,
    /// Containers of an output rendered as JSON text.
    pub output_nodes: usize,
    /// How long a tool body may run before its call is answered "timed out".
    pub deadline: Duration,
    /// Progress notes kept per turn, and the characters of each.
    pub progress_notes: usize,
    pub note_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            result_bytes: 65_536,
            argument_depth: 64,
            argument_nodes: 100_000,
            argument_chars: 1_048_576,
            output_depth: 64,
            output_nodes: 10_000,
            deadline: Duration::from_millis(1_000),
            progress_notes: 100,
            note_chars: 512,
        }
    }
}

/// The executor, as a shim of the harness: the runtime under test is this
/// crate itself.
#[derive(Debug, Clone, Default)]
pub struct Wall {
    pub limits: Limits,
}

impl Shim for Wall {
    fn runtime(&self) -> Runtime {
        Runtime {
            id: "toolgate-wall-rust",
            package: "toolgate-wall-rust",
            version: env!("CARGO_PKG_VERSION"),
            path:
                "its own run_turn (tools validated by jsonschema, draft 2020-12, before they run)",
            homepage: None,
        }
    }

    /// The turn's abort is its signal, the executor's own cancellation
    /// entry: an abort answers the calls still running and the turn
    /// completes, keeping every result.
    fn cancellation(&self) -> Cancellation {
        Cancellation::Signal
    }

    async fn run_turn(&self, turn: Turn) -> Result<TurnOutcome, TurnError> {
        Ok(run_turn(turn, &self.limits).await)
    }
}

/// One registered tool.
struct Entry {
    tool: Tool,
    validator: jsonschema::Validator,
}

/// The tool table of one turn, or the registration's refusal.
fn register(tools: &[Tool]) -> Result<HashMap<String, Entry>, RegistrationError> {
    let mut table: HashMap<String, Entry> = HashMap::new();
    let mut first: HashMap<&str, usize> = HashMap::new();
    for tool in tools {
        if tool.name.is_empty() {
            return Err(RegistrationError {
                name: "InvalidToolError".into(),
                message: format!("tool {} has no name", tool.index),
            });
        }
        if let Some(earlier) = first.insert(&tool.name, tool.index) {
            return Err(RegistrationError {
                name: "DuplicateToolNameError".into(),
                message: format!(
                    "two tools are named {} (tools {earlier} and {}): the model could not tell which one it calls",
                    quote(&tool.name),
                    tool.index
                ),
            });
        }
        let validator =
            jsonschema::draft202012::new(&tool.input_schema).map_err(|e| RegistrationError {
                name: "InvalidToolSchemaError".into(),
                message: format!(
                    "the input schema of tool {} is not a draft 2020-12 schema: {e}",
                    quote(&tool.name)
                ),
            })?;
        table.insert(
            tool.name.clone(),
            Entry {
                tool: tool.clone(),
                validator,
            },
        );
    }
    Ok(table)
}

/// What is wrong with `args` in size or shape before a validator walks
/// them, or `None`. Iterative, stopping at the first bound crossed.
pub fn arguments_problem(args: &Value, limits: &Limits) -> Option<String> {
    let mut nodes = 1usize;
    let mut chars = 0usize;
    let mut stack = vec![(args, 0usize)];
    let too_many_chars = || {
        format!(
            "the arguments hold more than {} characters",
            limits.argument_chars
        )
    };
    while let Some((value, depth)) = stack.pop() {
        let len = match value {
            Value::String(text) => {
                chars += text.chars().count();
                if chars > limits.argument_chars {
                    return Some(too_many_chars());
                }
                continue;
            }
            Value::Array(items) => items.len(),
            Value::Object(map) => map.len(),
            _ => continue,
        };
        if depth >= limits.argument_depth {
            return Some(format!(
                "the arguments are nested deeper than {} levels",
                limits.argument_depth
            ));
        }
        if nodes + len > limits.argument_nodes {
            return Some(format!(
                "the arguments hold more than {} values",
                limits.argument_nodes
            ));
        }
        nodes += len;
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(map) => {
                for (key, item) in map {
                    chars += key.chars().count();
                    stack.push((item, depth + 1));
                }
                if chars > limits.argument_chars {
                    return Some(too_many_chars());
                }
            }
            _ => {}
        }
    }
    None
}

/// What the tool's schema or its extra check says against `args`, or
/// `None`. The first schema error only: the validator's work stays bounded.
fn refusal(entry: &Entry, args: &Value) -> Option<String> {
    if let Some(error) = entry.validator.iter_errors(args).next() {
        let at = error.instance_path().to_string();
        let at = if at.is_empty() {
            "the arguments".to_string()
        } else {
            format!("arguments{at}")
        };
        return Some(format!("{at}: {}", cut(&error.to_string(), 512)));
    }
    entry.tool.refuses(args).map(|message| {
        if message.is_empty() {
            "the tool refused the arguments".into()
        } else {
            message
        }
    })
}

/// How one call was answered.
enum Answer {
    Success(ToolValue),
    Failure(String),
}

/// Runs one model turn: registers `turn.tools`, starts every call at once,
/// and returns one tool_result part per call, in call order. Never fails
/// for a failure of a call or of a tool; `turn.signal` aborting answers the
/// calls still running "aborted" and completes the turn.
pub async fn run_turn(mut turn: Turn, limits: &Limits) -> TurnOutcome {
    let table = match register(&turn.tools) {
        Ok(table) => table,
        Err(refused) => {
            return TurnOutcome {
                registration_error: Some(refused),
                ..TurnOutcome::default()
            }
        }
    };
    let notes = Arc::new(Mutex::new(Vec::new()));
    let mut answers: Vec<Option<Answer>> = (0..turn.calls.len()).map(|_| None).collect();
    let mut running = FuturesUnordered::new();
    let mut tokens = Vec::new();
    for (index, call) in turn.calls.iter_mut().enumerate() {
        let Some(entry) = table.get(&call.name) else {
            let mut names: Vec<&str> = table.keys().map(String::as_str).collect();
            names.sort_unstable();
            let names = if names.is_empty() {
                "(none)".to_string()
            } else {
                names
                    .iter()
                    .map(|n| quote(n))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            answers[index] = Some(Answer::Failure(format!(
                "unknown tool {}; the tools are: {names}",
                quote(&call.name)
            )));
            continue;
        };
        let args = call.arguments.take();
        let refused = arguments_problem(&args, limits).or_else(|| refusal(entry, &args));
        if let Some(refused) = refused {
            dismantle(args);
            answers[index] = Some(Answer::Failure(format!(
                "invalid arguments for {}: {refused}",
                quote(&call.name)
            )));
            continue;
        }
        if turn.signal.is_cancelled() {
            answers[index] = Some(Answer::Failure(
                "aborted: the turn was aborted before the tool started".into(),
            ));
            continue;
        }
        let token = CancellationToken::new();
        tokens.push((index, token.clone()));
        let context = ToolContext {
            call_id: Some(call.id.clone()),
            progress: Some(progress_of(&notes, &call.id, limits)),
            signal: Some(token),
        };
        let body = AssertUnwindSafe(entry.tool.call(args, context)).catch_unwind();
        let deadline = limits.deadline;
        running.push(async move {
            let answer = match tokio::time::timeout(deadline, body).await {
                Ok(Ok(Ok(value))) => Answer::Success(value),
                Ok(Ok(Err(error))) => Answer::Failure(format!("tool error: {error}")),
                Ok(Err(payload)) => Answer::Failure(format!(
                    "tool error: the tool panicked: {}",
                    panic_text(payload.as_ref())
                )),
                Err(_) => Answer::Failure(format!(
                    "timed out: the tool did not settle within {} ms",
                    deadline.as_millis()
                )),
            };
            (index, answer)
        });
    }
    let aborted = turn.signal.clone();
    loop {
        tokio::select! {
            biased;
            next = running.next() => match next {
                Some((index, answer)) => answers[index] = Some(answer),
                None => break,
            },
            _ = aborted.cancelled() => {
                // every call still running is answered now; its body is told
                // to stop and dropped
                for (index, token) in &tokens {
                    if answers[*index].is_none() {
                        token.cancel();
                        answers[*index] = Some(Answer::Failure(
                            "aborted: the turn was aborted while the tool ran".into(),
                        ));
                    }
                }
                break;
            }
        }
    }
    drop(running);
    let results = turn
        .calls
        .iter()
        .zip(answers)
        .map(|(call, answer)| match answer {
            Some(Answer::Success(value)) => success(&call.id, value, limits),
            Some(Answer::Failure(message)) => failure(&call.id, &message, limits),
            None => failure(&call.id, "aborted: the turn was aborted", limits),
        })
        .collect();
    let notes = std::mem::take(&mut *notes.lock().unwrap_or_else(|e| e.into_inner()));
    TurnOutcome {
        results,
        registration_error: None,
        notes,
    }
}

/// A panic's payload as text: a `&str` or a `String` (what `panic!`
/// carries) as itself; any other payload cannot be read.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        return (*text).to_string();
    }
    match payload.downcast_ref::<String>() {
        Some(text) => text.clone(),
        None => "a panic whose payload is not text".into(),
    }
}

fn progress_of(
    notes: &Arc<Mutex<Vec<String>>>,
    call_id: &str,
    limits: &Limits,
) -> Arc<dyn Fn(Value) + Send + Sync> {
    let notes = notes.clone();
    let call_id = call_id.to_string();
    let (most, chars) = (limits.progress_notes, limits.note_chars);
    Arc::new(move |value: Value| {
        let mut notes = notes.lock().unwrap_or_else(|e| e.into_inner());
        if notes.len() < most {
            let text = render::render(&value, 8, 64, 1_024)
                .map(|r| r.text)
                .unwrap_or_else(|e| format!("[unrenderable: {e}]"));
            notes.push(cut(&format!("progress for {call_id}: {text}"), chars));
        }
        dismantle(value);
    })
}

fn success(call_id: &str, value: ToolValue, limits: &Limits) -> ResultSeen {
    let rendered = render::render(
        &value,
        limits.output_depth,
        limits.output_nodes,
        limits.result_bytes,
    );
    value.dismantle();
    match rendered {
        Ok(rendered) => tool_result(call_id, &rendered.text, rendered.cut, false, limits),
        Err(e) => tool_result(
            call_id,
            &format!("tool error: the output cannot be serialized: {e}"),
            false,
            true,
            limits,
        ),
    }
}

fn failure(call_id: &str, message: &str, limits: &Limits) -> ResultSeen {
    tool_result(call_id, message, false, true, limits)
}

/// The tool_result part the model receives, bounded to `result_bytes`.
fn tool_result(
    call_id: &str,
    text: &str,
    was_cut: bool,
    is_error: bool,
    limits: &Limits,
) -> ResultSeen {
    let mut part = json!({
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": "",
        "is_error": is_error,
    });
    let budget = limits.result_bytes.saturating_sub(json_bytes(&part));
    part["content"] = Value::String(fit(text, budget, was_cut));
    ResultSeen {
        call_id: Some(call_id.to_string()),
        is_error: Some(is_error),
        delivered: part,
    }
}

/// `text` cut so that its JSON string encoding takes at most `budget`
/// UTF-8 bytes (a marker says so).
fn fit(text: &str, budget: usize, already_cut: bool) -> String {
    if !already_cut && escaped_bytes(text) <= budget {
        return text.to_string();
    }
    let marker = format!("\n[toolgate-wall-rust: cut to fit {budget} bytes]");
    let keep = budget.saturating_sub(escaped_bytes(&marker));
    let mut end = keep.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut head = &text[..end];
    while escaped_bytes(head) > keep {
        let over = escaped_bytes(head) - keep;
        let mut end = head.len().saturating_sub(over.div_ceil(6).max(1));
        while !head.is_char_boundary(end) {
            end -= 1;
        }
        head = &head[..end];
    }
    format!("{head}{marker}")
}

/// UTF-8 bytes of `text` inside a JSON string (escapes counted).
fn escaped_bytes(text: &str) -> usize {
    serde_json::to_string(text).map_or(usize::MAX, |t| t.len() - 2)
}

fn json_bytes(value: &Value) -> usize {
    serde_json::to_string(value).map_or(usize::MAX, |t| t.len())
}

fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn quote(name: &str) -> String {
    Value::from(name).to_string()
}
