//! The idiomatic Rust API: the same steps and bytes as the model, with tools
//! as closures, a real tokio executor, cancellation through the signal, and
//! concurrent calls on one registry.

use serde_json::{json, Value as Json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use toolgate_core::api::{
    execute_tool_call, Decision, FnTool, Output, Tool, ToolContext, ToolError, ToolRegistry,
};
use toolgate_core::model::{HeapBuilder, Property, Value};
use toolgate_core::{AbortReason, AbortSignal, ContractCode, Error, ErrorKind, ToolResult};

/// Compares a call's outcome with the expected content (results) or error.
fn check(outcome: Result<ToolResult, Error>, expect: Result<&str, ErrorKind>) {
    match (outcome, expect) {
        (Ok(result), Ok(content)) => assert_eq!(result.content, content),
        (Err(error), Err(kind)) => assert_eq!(error.kind(), &kind),
        (outcome, expect) => panic!("expected {expect:?}, got {outcome:?}"),
    }
}

fn call(id: &str, name: &str, arguments: Json) -> Json {
    json!({"type": "toolCall", "id": id, "name": name, "arguments": arguments})
}

type Validate = fn(&Json) -> Result<Decision, ToolError>;

/// A tool that echoes its validated value, counting executions.
fn echo(name: &str, validate: Validate, executions: Arc<AtomicUsize>) -> Arc<dyn Tool> {
    FnTool::new(name, "echoes", validate, move |value, ctx: ToolContext| {
        let executions = executions.clone();
        async move {
            executions.fetch_add(1, Ordering::SeqCst);
            Ok(Output::Json(
                json!({"value": value, "call": ctx.tool_call_id}),
            ))
        }
    })
    .into_tool()
}

fn accept(args: &Json) -> Result<Decision, ToolError> {
    Ok(Decision::Accept(args.clone()))
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

#[test]
fn success_results_are_serialized_and_linked() {
    let registry =
        ToolRegistry::with_tools(vec![echo("echo", accept, Default::default())]).unwrap();
    let outcome = block_on(execute_tool_call(
        &registry,
        &call("c1", "echo", json!({"b": 1, "a": [true, null]})),
        &AbortSignal::new(),
    ));
    let result = outcome.clone().unwrap();
    assert_eq!(result.to_json()["id"], "tool-result-c1");
    assert_eq!(result.to_json()["toolName"], "echo");
    check(
        outcome,
        Ok(r#"{"call":"c1","value":{"a":[true,null],"b":1}}"#),
    );
}

#[test]
fn invalid_calls_and_unknown_tools() {
    let registry =
        ToolRegistry::with_tools(vec![echo("echo", accept, Default::default())]).unwrap();
    let invalid = ErrorKind::Contract(ContractCode::InvalidToolCall);
    for bad in [
        json!(null),
        json!({"type": "toolCall", "id": "c", "name": "echo"}),
        call(" ", "echo", json!({})),
        call("c", "echo", json!([])),
        json!({"type": "tool_call", "id": "c", "name": "echo", "arguments": {}}),
    ] {
        check(
            block_on(execute_tool_call(&registry, &bad, &AbortSignal::new())),
            Err(invalid.clone()),
        );
    }
    check(
        block_on(execute_tool_call(
            &registry,
            &call("c", "echo ", json!({})),
            &AbortSignal::new(),
        )),
        Ok(r#"{"error":{"code":"TOOL_NOT_FOUND","message":"Unknown Tool \"echo \""}}"#),
    );
}

#[test]
fn rejected_arguments_never_execute() {
    let executions = Arc::new(AtomicUsize::new(0));
    let reject: Validate = |_| Ok(Decision::Reject("left must be a number".into()));
    let blank: Validate = |_| Ok(Decision::Reject("  ".into()));
    let throws: Validate = |_| Err(ToolError::failed("validator broke"));
    let silent: Validate = |_| Err(ToolError::Failed(None));
    let registry = ToolRegistry::with_tools(vec![
        echo("reject", reject, executions.clone()),
        echo("blank", blank, executions.clone()),
        echo("throws", throws, executions.clone()),
        echo("silent", silent, executions.clone()),
    ])
    .unwrap();
    for (name, content) in [
        (
            "reject",
            r#"{"error":{"code":"TOOL_ARGUMENTS_INVALID","message":"left must be a number"}}"#,
        ),
        (
            "blank",
            r#"{"error":{"code":"TOOL_VALIDATION_FAILED","message":"A rejected Tool validation must include a non-empty error"}}"#,
        ),
        (
            "throws",
            r#"{"error":{"code":"TOOL_VALIDATION_FAILED","message":"validator broke"}}"#,
        ),
        (
            "silent",
            r#"{"error":{"code":"TOOL_VALIDATION_FAILED","message":"Tool validation failed"}}"#,
        ),
    ] {
        check(
            block_on(execute_tool_call(
                &registry,
                &call("c", name, json!({})),
                &AbortSignal::new(),
            )),
            Ok(content),
        );
    }
    assert_eq!(executions.load(Ordering::SeqCst), 0);
}

#[test]
fn execution_failures_non_recoverable_errors_and_graph_outputs() {
    let failing = FnTool::new("fail", "fails", accept, |_, _| async {
        Err(ToolError::failed("disk full"))
    })
    .into_tool();
    let fatal = FnTool::new("fatal", "fatal", accept, |_, _| async {
        Err(ToolError::NonRecoverable("stop the run".into()))
    })
    .into_tool();
    let graph = FnTool::new("graph", "cyclic output", accept, |_, _| async {
        let mut b = HeapBuilder::new();
        let o = b.object([("n", 1)]);
        b.object_mut(o).unwrap().define("self", Property::data(o));
        let heap = b.finish().map_err(|e| ToolError::failed(e.to_string()))?;
        Ok(Output::Graph {
            heap: Arc::new(heap),
            root: Value::Ref(o),
        })
    })
    .into_tool();
    let registry = ToolRegistry::with_tools(vec![failing, fatal, graph]).unwrap();
    let run = |name: &str| {
        block_on(execute_tool_call(
            &registry,
            &call("c", name, json!({})),
            &AbortSignal::new(),
        ))
    };
    check(
        run("fail"),
        Ok(r#"{"error":{"code":"TOOL_EXECUTION_FAILED","message":"disk full"}}"#),
    );
    check(
        run("fatal"),
        Err(ErrorKind::NonRecoverable {
            origin: 0,
            message: "stop the run".into(),
        }),
    );
    check(run("graph"), Ok(r#"{"n":1,"self":"[Circular]"}"#));
}

#[test]
fn an_abort_while_the_executor_waits_rejects_with_the_reason() {
    let started = Arc::new(tokio::sync::Notify::new());
    let saw_abort = Arc::new(AtomicUsize::new(0));
    let (s, a) = (started.clone(), saw_abort.clone());
    let waits = FnTool::new(
        "wait",
        "waits for the abort",
        accept,
        move |_, ctx: ToolContext| {
            let (started, saw_abort) = (s.clone(), a.clone());
            async move {
                started.notify_one();
                ctx.signal.aborted().await;
                saw_abort.fetch_add(1, Ordering::SeqCst);
                Ok(Output::Json(json!("finished anyway")))
            }
        },
    )
    .into_tool();
    let registry = ToolRegistry::with_tools(vec![waits]).unwrap();
    let signal = AbortSignal::new();
    let reason = AbortReason::Value(json!({"by": "user"}));
    let outcome = block_on(async {
        let aborter = {
            let (signal, reason) = (signal.clone(), reason.clone());
            async move {
                started.notified().await;
                signal.abort(reason);
            }
        };
        let c = call("c", "wait", json!({}));
        let (outcome, ()) = tokio::join!(execute_tool_call(&registry, &c, &signal), aborter);
        outcome
    });
    check(outcome, Err(ErrorKind::Cancelled(reason)));
}

#[test]
fn an_aborted_signal_rejects_before_validation() {
    let executions = Arc::new(AtomicUsize::new(0));
    let registry =
        ToolRegistry::with_tools(vec![echo("echo", accept, executions.clone())]).unwrap();
    let signal = AbortSignal::new();
    signal.abort(AbortReason::AbortError);
    check(
        block_on(execute_tool_call(
            &registry,
            &call("c", "echo", json!({})),
            &signal,
        )),
        Err(ErrorKind::Cancelled(AbortReason::AbortError)),
    );
    assert_eq!(executions.load(Ordering::SeqCst), 0);
}

#[test]
fn concurrent_calls_on_one_registry_never_cross_wire() {
    let registry = Arc::new(
        ToolRegistry::with_tools(vec![
            echo("a", accept, Default::default()),
            echo("b", accept, Default::default()),
        ])
        .unwrap(),
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let handles: Vec<_> = (0..64)
        .map(|i| {
            let registry = registry.clone();
            runtime.spawn(async move {
                let name = if i % 2 == 0 { "a" } else { "b" };
                let c = call(&format!("call-{i}"), name, json!({"i": i}));
                (
                    i,
                    name,
                    execute_tool_call(&registry, &c, &AbortSignal::new()).await,
                )
            })
        })
        .collect();
    for handle in handles {
        let (i, name, outcome) = runtime.block_on(handle).unwrap();
        let result = outcome.clone().unwrap();
        assert_eq!(result.to_json()["toolCallId"], format!("call-{i}"));
        assert_eq!(result.to_json()["toolName"], name);
        check(
            outcome,
            Ok(&format!(r#"{{"call":"call-{i}","value":{{"i":{i}}}}}"#)),
        );
    }
    assert_eq!(registry.names(), ["a", "b"]);
}

#[test]
fn settling_while_aborted_the_abort_wins() {
    // the executor aborts its own signal and resolves in the same poll: only
    // the check after settling (step 15) can see it
    let aborts = FnTool::new(
        "aborts",
        "aborts then returns",
        accept,
        |_, ctx: ToolContext| async move {
            ctx.signal.abort(AbortReason::Value(json!("from inside")));
            Ok(Output::Json(json!("done")))
        },
    )
    .into_tool();
    let registry = ToolRegistry::with_tools(vec![aborts]).unwrap();
    check(
        block_on(execute_tool_call(
            &registry,
            &call("c", "aborts", json!({})),
            &AbortSignal::new(),
        )),
        Err(ErrorKind::Cancelled(AbortReason::Value(json!(
            "from inside"
        )))),
    );
}
