//! pi-agent-core 0.85.0's agent loop (`dist/agent-loop.js`:
//! `runAgentLoop`, `runLoop`, `streamAssistantResponse`, the sequential
//! and parallel tool batches, `prepareToolCall`,
//! `executePreparedToolCall`, `finalizeExecutedToolCall`, the result
//! messages), written step for step over the job queue of `jobs.rs`, so
//! that every `await` takes the job-queue turns it takes in V8: an async
//! function called and awaited is [`Realm::spawn`] then [`Realm::wait`],
//! an awaited plain value is [`Realm::tick`]. The loop's objects are
//! JavaScript values (`value.rs`) built with pi's key order, since the
//! events, the hooks' arguments and the result messages are observed as
//! they are.

use super::harness::{Hook, Poll, Signal, World};
use super::jobs::Promise;
use super::script::Called;
use super::value::{from_json, Completion, Obj, Thrown, Val};
use crate::spec::{ExecutionMode, ParametersKind, ToolSpec};
use crate::validation::{validate_tool_arguments, Rejection};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use toolgate_suite::Error;

type W = Rc<World>;

/// `await emit(event)`: the harness's emit returns `undefined`, or a
/// rejected promise when a trigger says so.
async fn emit(w: &W, event: Val) -> Completion<()> {
    let returned = emitted(w, &event);
    w.realm.wait(&returned).await
}

/// What `emit(event)` returns, as a promise (`Promise.resolve(emit(…))`).
fn emitted(w: &W, event: &Val) -> Promise<()> {
    match w.emit(event) {
        None => Promise::resolved(Ok(())),
        Some(e) => {
            let p = Promise::pending();
            p.settle(&w.realm, Err(e));
            p
        }
    }
}

fn event(kind: &str, rest: Vec<(&str, Val)>) -> Val {
    let mut pairs = vec![("type", Val::str(kind))];
    pairs.extend(rest);
    Val::object(pairs)
}

/// `{...value}` of an object (a shallow copy), for `message_start`.
fn shallow_copy(value: &Val) -> Val {
    let mut pairs = Vec::new();
    spread(&mut pairs, value);
    Val::Obj(Obj::plain(pairs))
}

/// `...value` in an object literal: own enumerable properties in order
/// (a string's characters by index, nothing of other primitives).
fn spread(pairs: &mut Vec<(String, Val)>, value: &Val) {
    match value {
        Val::Obj(o) => pairs.extend(o.entries()),
        Val::Str(s) => pairs.extend(
            s.encode_utf16()
                .enumerate()
                .map(|(i, u)| (i.to_string(), Val::str(String::from_utf16_lossy(&[u])))),
        ),
        _ => {}
    }
}

/// `runAgentLoop([prompt], context, config, emit, signal, streamFn)`:
/// its promise, settling with the new messages.
pub(crate) fn run_agent_loop(w: &W) -> Promise<Val> {
    let w = w.clone();
    let realm = w.realm.clone();
    realm.spawn(async move {
        let prompt = Val::object(vec![
            ("role", Val::str("user")),
            (
                "content",
                Val::array(vec![Val::object(vec![
                    ("type", Val::str("text")),
                    ("text", Val::str("go")),
                ])]),
            ),
            ("timestamp", Val::Num(0.0)),
        ]);
        let new_messages = Obj::array(vec![prompt.clone()]);
        let context = Rc::new(RefCell::new(vec![prompt.clone()]));
        emit(&w, event("agent_start", vec![])).await?;
        emit(&w, event("turn_start", vec![])).await?;
        emit(
            &w,
            event("message_start", vec![("message", prompt.clone())]),
        )
        .await?;
        emit(&w, event("message_end", vec![("message", prompt)])).await?;
        let run = w
            .realm
            .spawn(run_loop(w.clone(), context, new_messages.clone()));
        w.realm.wait(&run).await?;
        Ok(Val::Obj(new_messages))
    })
}

fn push(list: &Obj, value: Val) {
    let len = list.entries().len();
    list.set(&len.to_string(), value);
}

/// `(await config.<poll>?.()) || []` and the like: the poll's answer
/// (`None`: not configured), one job later.
async fn poll(w: &W, of: Poll) -> Completion<Option<Val>> {
    let answer = w.poll(of);
    w.realm.tick().await?;
    Ok(answer)
}

fn is_empty_list(v: &Option<Val>) -> bool {
    v.as_ref()
        .and_then(Val::as_obj)
        .is_none_or(|l| l.entries().is_empty())
}

/// `runLoop`: turns while the model calls tools or messages are queued;
/// then follow-up messages, if any, start it again.
async fn run_loop(w: W, context: Rc<RefCell<Vec<Val>>>, new_messages: Obj) -> Completion<()> {
    let mut pending = poll(&w, Poll::Steering).await?;
    let mut completed_a_turn = false;
    loop {
        let mut more = true;
        while more || !is_empty_list(&pending) {
            if completed_a_turn {
                // prepareNextTurn?.(): not configured
                w.realm.tick().await?;
                if is_empty_list(&pending) {
                    pending = poll(&w, Poll::Steering).await?;
                }
                emit(&w, event("turn_start", vec![])).await?;
            }
            if let Some(list) = pending.take().as_ref().and_then(Val::as_obj) {
                for (_, m) in list.entries() {
                    emit(&w, event("message_start", vec![("message", m.clone())])).await?;
                    emit(&w, event("message_end", vec![("message", m.clone())])).await?;
                    context.borrow_mut().push(m.clone());
                    push(&new_messages, m);
                }
            }
            let streamed = w
                .realm
                .spawn(stream_assistant_response(w.clone(), context.clone()));
            let message = w.realm.wait(&streamed).await?;
            push(&new_messages, message.clone());
            let stop = message.get("stopReason")?;
            if stop.strict_eq(&Val::str("error")) || stop.strict_eq(&Val::str("aborted")) {
                let no_results = Val::array(Vec::new());
                emit(
                    &w,
                    event(
                        "turn_end",
                        vec![("message", message), ("toolResults", no_results)],
                    ),
                )
                .await?;
                emit(
                    &w,
                    event("agent_end", vec![("messages", Val::Obj(new_messages))]),
                )
                .await?;
                return Ok(());
            }
            let calls = tool_calls(&message)?;
            let results = Obj::array(Vec::new());
            more = false;
            if !calls.is_empty() {
                let batch = if stop.strict_eq(&Val::str("length")) {
                    w.realm.spawn(fail_truncated(w.clone(), calls))
                } else {
                    execute_tool_calls(&w, context.clone(), message.clone(), calls)
                };
                let (messages, terminate) = w.realm.wait(&batch).await?;
                more = !terminate;
                for m in messages {
                    push(&results, m.clone());
                    context.borrow_mut().push(m.clone());
                    push(&new_messages, m);
                }
            }
            emit(
                &w,
                event(
                    "turn_end",
                    vec![("message", message), ("toolResults", Val::Obj(results))],
                ),
            )
            .await?;
            completed_a_turn = true;
            if poll(&w, Poll::StopAfterTurn)
                .await?
                .is_some_and(|v| v.truthy())
            {
                emit(
                    &w,
                    event("agent_end", vec![("messages", Val::Obj(new_messages))]),
                )
                .await?;
                return Ok(());
            }
            pending = poll(&w, Poll::Steering).await?;
        }
        let follow_up = poll(&w, Poll::FollowUp).await?;
        if !is_empty_list(&follow_up) {
            pending = follow_up;
            continue;
        }
        break;
    }
    emit(
        &w,
        event("agent_end", vec![("messages", Val::Obj(new_messages))]),
    )
    .await
}

fn tool_calls(message: &Val) -> Completion<Vec<Val>> {
    let content = message.get("content")?;
    let Some(list) = content.as_obj() else {
        return Ok(Vec::new());
    };
    Ok(list
        .entries()
        .into_iter()
        .map(|(_, b)| b)
        .filter(|b| b.get_opt("type").strict_eq(&Val::str("toolCall")))
        .collect())
}

/// `streamAssistantResponse`: the scripted stream's one final event.
async fn stream_assistant_response(w: W, context: Rc<RefCell<Vec<Val>>>) -> Completion<Val> {
    // await convertToLlm(messages)
    let llm: Vec<Val> = context
        .borrow()
        .iter()
        .filter(|m| {
            ["system", "user", "assistant", "toolResult"]
                .iter()
                .any(|r| m.get_opt("role").strict_eq(&Val::str(*r)))
        })
        .cloned()
        .collect();
    w.realm.tick().await?;
    let message = w.provider_answer(&llm)?;
    // await streamFunction(...); the push on a microtask; the async
    // iterator's turns; await response.result()
    for _ in 0..4 {
        w.realm.tick().await?;
    }
    context.borrow_mut().push(message.clone());
    emit(
        &w,
        event("message_start", vec![("message", shallow_copy(&message))]),
    )
    .await?;
    emit(&w, event("message_end", vec![("message", message.clone())])).await?;
    Ok(message)
}

type Batch = (Vec<Val>, bool);

/// `failToolCallsFromTruncatedMessage`: a `length` stop fails every call.
async fn fail_truncated(w: W, calls: Vec<Val>) -> Completion<Batch> {
    let mut messages = Vec::new();
    for call in calls {
        emit(&w, start_event(&call)?).await?;
        let text = format!(
            "Tool call \"{}\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.",
            call.get("name")?.to_js_string()
        );
        let finalized = Finalized {
            call,
            result: error_result(Val::str(text)),
            is_error: Val::Bool(true),
        };
        let message = end_and_message(&w, &finalized).await?;
        messages.push(message);
    }
    Ok((messages, false))
}

fn start_event(call: &Val) -> Completion<Val> {
    Ok(event(
        "tool_execution_start",
        vec![
            ("toolCallId", call.get("id")?),
            ("toolName", call.get("name")?),
            ("args", call.get("arguments")?),
        ],
    ))
}

/// `createErrorToolResult(message)`.
fn error_result(text: Val) -> Val {
    Val::object(vec![
        (
            "content",
            Val::array(vec![Val::object(vec![
                ("type", Val::str("text")),
                ("text", text),
            ])]),
        ),
        ("details", Val::object(vec![])),
    ])
}

fn aborted_result() -> Val {
    error_result(Val::str("Operation aborted"))
}

/// A call with its result (pi's `finalized`).
#[derive(Clone)]
struct Finalized {
    call: Val,
    result: Val,
    is_error: Val,
}

/// What `prepareToolCall` decides.
#[derive(Clone)]
enum Preparation {
    Immediate {
        result: Val,
        is_error: bool,
    },
    Prepared {
        call: Val,
        tool: Rc<ToolSpec>,
        args: Val,
    },
}

async fn emit_end(w: W, f: Finalized) -> Completion<()> {
    emit(
        &w,
        event(
            "tool_execution_end",
            vec![
                ("toolCallId", f.call.get("id")?),
                ("toolName", f.call.get("name")?),
                ("result", f.result.clone()),
                ("isError", f.is_error.clone()),
            ],
        ),
    )
    .await
}

/// One finalized call's end event, then its result message, each emitted
/// and awaited in place as pi does (a nested Rust future costs no job
/// turn): the result message.
async fn end_and_message(w: &W, finalized: &Finalized) -> Completion<Val> {
    let end = w.realm.spawn(emit_end(w.clone(), finalized.clone()));
    w.realm.wait(&end).await?;
    let message = tool_result_message(finalized)?;
    let sent = w
        .realm
        .spawn(emit_result_message(w.clone(), message.clone()));
    w.realm.wait(&sent).await?;
    Ok(message)
}

async fn emit_result_message(w: W, message: Val) -> Completion<()> {
    emit(
        &w,
        event("message_start", vec![("message", message.clone())]),
    )
    .await?;
    emit(&w, event("message_end", vec![("message", message)])).await
}

/// `createToolResultMessage(finalized)`.
fn tool_result_message(f: &Finalized) -> Completion<Val> {
    let content = f.result.get("content")?.or_else(Val::array(Vec::new()));
    let mut pairs = vec![
        ("role", Val::str("toolResult")),
        ("toolCallId", f.call.get("id")?),
        ("toolName", f.call.get("name")?),
        ("content", content),
        ("details", f.result.get("details")?),
        ("usage", f.result.get("usage")?),
    ];
    let added = f.result.get("addedToolNames")?;
    if added.get_opt("length").truthy() {
        pairs.push(("addedToolNames", added));
    }
    pairs.push(("isError", f.is_error.clone()));
    pairs.push(("timestamp", Val::Num(0.0)));
    Ok(Val::object(pairs))
}

/// `shouldTerminateToolBatch`.
fn should_terminate(finalized: &[Finalized]) -> Completion<bool> {
    if finalized.is_empty() {
        return Ok(false);
    }
    for f in finalized {
        if !f.result.get("terminate")?.is_true() {
            return Ok(false);
        }
    }
    Ok(true)
}

fn tool_of(w: &W, name: &Val) -> Option<Rc<ToolSpec>> {
    w.scenario
        .tools
        .iter()
        .find(|t| name.strict_eq(&Val::str(t.name.as_str())))
        .map(|t| Rc::new(t.clone()))
}

/// `executeToolCalls`: sequential when configured or when any called
/// tool (the first of its name) says so. It returns the batch's promise
/// without awaiting it, which costs two more turns.
fn execute_tool_calls(
    w: &W,
    context: Rc<RefCell<Vec<Val>>>,
    assistant: Val,
    calls: Vec<Val>,
) -> Promise<Batch> {
    let w = w.clone();
    let realm = w.realm.clone();
    realm.spawn_adopting(async move {
        let sequential_tool = calls.iter().any(|c| {
            tool_of(&w, &c.get_opt("name"))
                .is_some_and(|t| t.execution_mode == Some(ExecutionMode::Sequential))
        });
        let sequential =
            w.scenario.config.tool_execution == Some(ExecutionMode::Sequential) || sequential_tool;
        let batch = if sequential {
            w.realm
                .spawn(sequential_batch(w.clone(), context, assistant, calls))
        } else {
            w.realm
                .spawn(parallel_batch(w.clone(), context, assistant, calls))
        };
        Ok(batch)
    })
}

fn signal_aborted(w: &W) -> bool {
    w.run_signal.as_ref().is_some_and(Signal::aborted)
}

async fn sequential_batch(
    w: W,
    context: Rc<RefCell<Vec<Val>>>,
    assistant: Val,
    calls: Vec<Val>,
) -> Completion<Batch> {
    let mut finalized_calls = Vec::new();
    let mut messages = Vec::new();
    for call in calls {
        emit(&w, start_event(&call)?).await?;
        let prep = w.realm.spawn(prepare_tool_call(
            w.clone(),
            context.clone(),
            assistant.clone(),
            call.clone(),
        ));
        let finalized = match w.realm.wait(&prep).await? {
            Preparation::Immediate { result, is_error } => Finalized {
                call,
                result,
                is_error: Val::Bool(is_error),
            },
            Preparation::Prepared { call, tool, args } => {
                execute_and_finalize(&w, context.clone(), assistant.clone(), call, tool, args)
                    .await?
            }
        };
        let message = end_and_message(&w, &finalized).await?;
        finalized_calls.push(finalized);
        messages.push(message);
        if signal_aborted(&w) {
            break;
        }
    }
    let terminate = should_terminate(&finalized_calls)?;
    Ok((messages, terminate))
}

async fn parallel_batch(
    w: W,
    context: Rc<RefCell<Vec<Val>>>,
    assistant: Val,
    calls: Vec<Val>,
) -> Completion<Batch> {
    // each entry: a finalized call, or the async function that will run it
    enum Entry {
        Done(Finalized),
        Run(Val, Rc<ToolSpec>, Val),
    }
    let mut entries = Vec::new();
    for call in calls {
        emit(&w, start_event(&call)?).await?;
        let prep = w.realm.spawn(prepare_tool_call(
            w.clone(),
            context.clone(),
            assistant.clone(),
            call.clone(),
        ));
        match w.realm.wait(&prep).await? {
            Preparation::Immediate { result, is_error } => {
                let finalized = Finalized {
                    call,
                    result,
                    is_error: Val::Bool(is_error),
                };
                let end = w.realm.spawn(emit_end(w.clone(), finalized.clone()));
                w.realm.wait(&end).await?;
                entries.push(Entry::Done(finalized));
                if signal_aborted(&w) {
                    break;
                }
            }
            Preparation::Prepared { call, tool, args } => {
                entries.push(Entry::Run(call, tool, args));
                if signal_aborted(&w) {
                    break;
                }
            }
        }
    }
    let promises: Vec<Promise<Finalized>> = entries
        .into_iter()
        .map(|entry| match entry {
            Entry::Done(f) => Promise::resolved(Ok(f)),
            Entry::Run(call, tool, args) => w.realm.spawn(run_prepared(
                w.clone(),
                context.clone(),
                assistant.clone(),
                call,
                tool,
                args,
            )),
        })
        .collect();
    let all = w.realm.all(promises);
    let ordered = w.realm.wait(&all).await?;
    let mut messages = Vec::new();
    for finalized in &ordered {
        let message = tool_result_message(finalized)?;
        let sent = w
            .realm
            .spawn(emit_result_message(w.clone(), message.clone()));
        w.realm.wait(&sent).await?;
        messages.push(message);
    }
    let terminate = should_terminate(&ordered)?;
    Ok((messages, terminate))
}

/// The parallel batch's async function for one prepared call.
async fn run_prepared(
    w: W,
    context: Rc<RefCell<Vec<Val>>>,
    assistant: Val,
    call: Val,
    tool: Rc<ToolSpec>,
    args: Val,
) -> Completion<Finalized> {
    if signal_aborted(&w) {
        let finalized = Finalized {
            call,
            result: aborted_result(),
            is_error: Val::Bool(true),
        };
        let end = w.realm.spawn(emit_end(w.clone(), finalized.clone()));
        w.realm.wait(&end).await?;
        return Ok(finalized);
    }
    let finalized = execute_and_finalize(&w, context, assistant, call, tool, args).await?;
    let end = w.realm.spawn(emit_end(w.clone(), finalized.clone()));
    w.realm.wait(&end).await?;
    Ok(finalized)
}

/// `await executePreparedToolCall(…)` then `await
/// finalizeExecutedToolCall(…)`, as both batches write them. A plain Rust
/// `async fn` awaited in place: it adds no job-queue turn of its own.
async fn execute_and_finalize(
    w: &W,
    context: Rc<RefCell<Vec<Val>>>,
    assistant: Val,
    call: Val,
    tool: Rc<ToolSpec>,
    args: Val,
) -> Completion<Finalized> {
    let executed = w.realm.spawn(execute_prepared(
        w.clone(),
        call.clone(),
        tool,
        args.clone(),
    ));
    let (result, is_error) = w.realm.wait(&executed).await?;
    let finalized = w.realm.spawn(finalize_executed(
        w.clone(),
        context,
        assistant,
        call,
        args,
        result,
        is_error,
    ));
    w.realm.wait(&finalized).await
}

/// `await f(...)` of what a scripted function gave.
async fn await_called(w: &W, called: Called) -> Completion<Val> {
    match called {
        Called::Sync(Err(e)) => Err(e),
        Called::Sync(Ok(v)) => {
            w.realm.tick().await?;
            Ok(v)
        }
        Called::Async(p) => w.realm.wait(&p).await,
    }
}

fn immediate_error(text: Val) -> Preparation {
    Preparation::Immediate {
        result: error_result(text),
        is_error: true,
    }
}

/// The hooks' context object, in pi's key order.
fn hook_context(
    assistant: &Val,
    call: &Val,
    args: &Val,
    outcome: Option<(&Val, &Val)>,
    context: &Rc<RefCell<Vec<Val>>>,
) -> Obj {
    let mut pairs = vec![
        ("assistantMessage".to_owned(), assistant.clone()),
        ("toolCall".to_owned(), call.clone()),
        ("args".to_owned(), args.clone()),
    ];
    if let Some((result, is_error)) = outcome {
        pairs.push(("result".to_owned(), result.clone()));
        pairs.push(("isError".to_owned(), is_error.clone()));
    }
    pairs.push((
        "context".to_owned(),
        Val::object(vec![("messages", Val::array(context.borrow().clone()))]),
    ));
    Obj::plain(pairs)
}

/// `prepareToolCall`: lookup, `prepareArguments`, validation,
/// `beforeToolCall`, the abort checks.
async fn prepare_tool_call(
    w: W,
    context: Rc<RefCell<Vec<Val>>>,
    assistant: Val,
    call: Val,
) -> Completion<Preparation> {
    let name = call.get("name")?;
    let Some(tool) = tool_of(&w, &name) else {
        return Ok(immediate_error(Val::str(format!(
            "Tool {} not found",
            name.to_js_string()
        ))));
    };
    match prepare_checked(&w, &context, &assistant, &call, &tool).await {
        Ok(p) => Ok(p),
        Err(e) => Ok(immediate_error(Val::str(e.text()))),
    }
}

/// The `try` block of `prepareToolCall`.
async fn prepare_checked(
    w: &W,
    context: &Rc<RefCell<Vec<Val>>>,
    assistant: &Val,
    call: &Val,
    tool: &Rc<ToolSpec>,
) -> Completion<Preparation> {
    let raw = call.get("arguments")?;
    let prepared_args = if tool.prepare_arguments.is_some() {
        w.call_prepare(tool, &raw)?
    } else {
        raw
    };
    let args = validate(w, tool, &prepared_args)?;
    if w.has_hook(Hook::Before) {
        let ctx = hook_context(assistant, call, &args, None, context);
        let called = w.call_hook(Hook::Before, &ctx, w.run_signal.as_ref());
        let decision = await_called(w, called).await?;
        if signal_aborted(w) {
            return Ok(Preparation::Immediate {
                result: aborted_result(),
                is_error: true,
            });
        }
        if decision.get_opt("block").truthy() {
            let reason = decision.get("reason")?;
            let text = if reason.truthy() {
                reason
            } else {
                Val::str("Tool execution was blocked")
            };
            let result = error_result(text);
            if decision.get("terminate")?.is_true() {
                if let Some(o) = result.as_obj() {
                    o.set("terminate", Val::Bool(true));
                }
            }
            return Ok(Preparation::Immediate {
                result,
                is_error: true,
            });
        }
    }
    if signal_aborted(w) {
        return Ok(Preparation::Immediate {
            result: aborted_result(),
            is_error: true,
        });
    }
    Ok(Preparation::Prepared {
        call: call.clone(),
        tool: tool.clone(),
        args,
    })
}

/// pi-ai's `validateToolArguments(tool, toolCall)` on the prepared
/// arguments: the converted copy, or pi's `Error` with the text.
fn validate(w: &W, tool: &ToolSpec, args: &Val) -> Completion<Val> {
    let refuse = |e: Error| {
        w.refuse(e);
        Thrown::type_error("toolgate: outside the modelled subset")
    };
    let Some(json) = super::value::to_json(args).map_err(&refuse)? else {
        return validate_undefined(w, tool);
    };
    if super::value::holds_undefined(args) {
        return Err(refuse(Error::model(
            "arguments holding undefined are not modelled by the validation reference",
        )));
    }
    let schema = match tool.parameters_kind {
        ParametersKind::Json => tool.parameters.clone(),
        ParametersKind::Typebox => super::typebox::typebox_of(&tool.parameters).map_err(&refuse)?,
    };
    match validate_tool_arguments(&tool.name, &schema, &json) {
        Ok(v) => Ok(from_json(&v)),
        Err(Rejection::Invalid(text)) => Err(Thrown::Error {
            name: "Error".to_owned(),
            message: text,
        }),
        Err(Rejection::Unsupported(e)) => Err(refuse(e)),
    }
}

/// `undefined` arguments: with an object schema, refused as `null` is
/// (`root: must be object`), printed as `undefined`; other schemas are
/// not modelled.
fn validate_undefined(w: &W, tool: &ToolSpec) -> Completion<Val> {
    let object_root = tool.parameters.get("type") == Some(&serde_json::json!("object"));
    let schema = match tool.parameters_kind {
        ParametersKind::Json => Ok(tool.parameters.clone()),
        ParametersKind::Typebox => super::typebox::typebox_of(&tool.parameters),
    };
    let verdict = schema.map(|s| validate_tool_arguments(&tool.name, &s, &serde_json::Value::Null));
    match verdict {
        Ok(Err(Rejection::Invalid(text))) if object_root && text.ends_with("\nnull") => {
            Err(Thrown::Error {
                name: "Error".to_owned(),
                message: format!("{}undefined", &text[..text.len() - 4]),
            })
        }
        _ => {
            w.refuse(Error::model(
                "undefined arguments with a schema whose root is not an object",
            ));
            Err(Thrown::type_error("toolgate: outside the modelled subset"))
        }
    }
}

/// `executePreparedToolCall`: execute with updates, then every update's
/// emit awaited.
async fn execute_prepared(
    w: W,
    call: Val,
    tool: Rc<ToolSpec>,
    args: Val,
) -> Completion<(Val, bool)> {
    let updates: Rc<RefCell<Vec<Promise<()>>>> = Rc::new(RefCell::new(Vec::new()));
    let accepting = Rc::new(Cell::new(true));
    let on_update: Rc<dyn Fn(Val)> = {
        let (w, call, updates, accepting) =
            (w.clone(), call.clone(), updates.clone(), accepting.clone());
        Rc::new(move |partial: Val| {
            if !accepting.get() {
                return;
            }
            let returned = emitted(
                &w,
                &event(
                    "tool_execution_update",
                    vec![
                        ("toolCallId", call.get_opt("id")),
                        ("toolName", call.get_opt("name")),
                        ("args", call.get_opt("arguments")),
                        ("partialResult", partial),
                    ],
                ),
            );
            updates.borrow_mut().push(returned);
        })
    };
    let id = call.get("id")?;
    let called = w.call_execute(&tool, &id, args, w.run_signal.as_ref(), on_update);
    let outcome = await_called(&w, called).await;
    accepting.set(false);
    let pending = std::mem::take(&mut *updates.borrow_mut());
    let all = w.realm.all(pending);
    w.realm.wait(&all).await?;
    Ok(match outcome {
        Ok(result) => (result, false),
        Err(e) => (error_result(Val::str(e.text())), true),
    })
}

/// `finalizeExecutedToolCall`: `afterToolCall` and its patch.
async fn finalize_executed(
    w: W,
    context: Rc<RefCell<Vec<Val>>>,
    assistant: Val,
    call: Val,
    args: Val,
    result: Val,
    is_error: bool,
) -> Completion<Finalized> {
    let mut result = result;
    let mut is_error = Val::Bool(is_error);
    if w.has_hook(Hook::After) {
        let ctx = hook_context(
            &assistant,
            &call,
            &args,
            Some((&result, &is_error)),
            &context,
        );
        let called = w.call_hook(Hook::After, &ctx, w.run_signal.as_ref());
        let patched = match await_called(&w, called).await {
            Ok(patch) if patch.truthy() => patch_result(&result, &patch).map(|r| {
                let flag = patch.get_opt("isError").or_else(is_error.clone());
                (r, flag)
            }),
            Ok(_) => Ok((result.clone(), is_error.clone())),
            Err(e) => Err(e),
        };
        match patched {
            Ok((r, flag)) => {
                result = r;
                is_error = flag;
            }
            Err(e) => {
                result = error_result(Val::str(e.text()));
                is_error = Val::Bool(true);
            }
        }
    }
    Ok(Finalized {
        call,
        result,
        is_error,
    })
}

/// `{...result, content: patch.content ?? result.content, details: …,
/// usage: …, terminate: …}`, evaluated in that order.
fn patch_result(result: &Val, patch: &Val) -> Completion<Val> {
    let mut pairs = Vec::new();
    spread(&mut pairs, result);
    let obj = Obj::plain(pairs);
    for key in ["content", "details", "usage", "terminate"] {
        let mine = patch.get_opt(key);
        let value = if mine.is_nullish() {
            result.get(key)?
        } else {
            mine
        };
        obj.set(key, value);
    }
    Ok(Val::Obj(obj))
}
