//! Shared scaffolding of the integration tests: build a model heap, register
//! tools, drive a call, read the trace. No assertions live here; each test
//! file has its own `check`.
#![allow(dead_code)]

use toolgate_core::model::*;
use toolgate_core::serializer::{serialize, Failure, Serialized};
use toolgate_core::{AbortReason, AbortSignal, Error, ToolResult};

/// A heap under construction plus the conveniences tests need.
#[derive(Default)]
pub struct World {
    pub b: HeapBuilder,
}

impl World {
    pub fn new() -> World {
        World::default()
    }

    /// An object with a null, plain or other prototype.
    pub fn object_with(&mut self, proto: Proto, props: Vec<(&str, Property)>) -> NodeId {
        let mut o = ObjectNode::new(proto);
        for (k, p) in props {
            o.define(k, p);
        }
        self.b.alloc(Node::Object(o))
    }

    /// A definition object with these own fields.
    pub fn definition(&mut self, name: &str, validate: NodeId, execute: NodeId) -> NodeId {
        self.object_with(
            Proto::ObjectPrototype,
            vec![
                ("name", Property::data(name)),
                ("description", Property::data("a tool")),
                ("validate", Property::data(validate)),
                ("execute", Property::data(execute)),
            ],
        )
    }

    /// A validator accepting with `value`.
    pub fn accepting(&mut self, value: impl Into<Value>) -> NodeId {
        let decision = self
            .b
            .object([("ok", Value::Bool(true)), ("value", value.into())]);
        self.b.returning(decision)
    }

    /// A validator rejecting with `error`.
    pub fn rejecting(&mut self, error: &str) -> NodeId {
        let decision = self
            .b
            .object([("ok", Value::Bool(false)), ("error", Value::from(error))]);
        self.b.returning(decision)
    }

    /// A well-formed call `{type, id, name, arguments: {}}`.
    pub fn call(&mut self, id: &str, name: &str) -> NodeId {
        let args = self.b.object::<&str, Value>([]);
        self.b.object([
            ("type", Value::from("toolCall")),
            ("id", Value::from(id)),
            ("name", Value::from(name)),
            ("arguments", Value::Ref(args)),
        ])
    }

    pub fn finish(self) -> Heap {
        match self.b.finish() {
            Ok(heap) => heap,
            Err(e) => panic!("test heap refused: {e}"),
        }
    }
}

/// What a driven call produced, with its trace and the registry after.
#[derive(Debug)]
pub struct Observed {
    pub outcome: Driven,
    pub trace: Vec<TraceEvent>,
    pub names: Vec<String>,
}

impl Observed {
    pub fn result(&self) -> &ToolResult {
        match &self.outcome {
            Driven::Done(Ok(r)) => r,
            other => panic!("expected a result, got {other:?}"),
        }
    }
    pub fn error(&self) -> &Error {
        match &self.outcome {
            Driven::Done(Err(e)) => e,
            other => panic!("expected a rejection, got {other:?}"),
        }
    }
    /// How many times `function` was called.
    pub fn calls(&self, function: NodeId) -> usize {
        self.trace
            .iter()
            .filter(|e| matches!(e, TraceEvent::Called { function: f, .. } if *f == function))
            .count()
    }
    /// The arguments of the calls of `function`.
    pub fn args(&self, function: NodeId) -> Vec<Vec<Arg>> {
        self.trace
            .iter()
            .filter_map(|e| match e {
                TraceEvent::Called { function: f, args } if *f == function => Some(args.clone()),
                _ => None,
            })
            .collect()
    }
}

/// The inputs of one model call.
pub struct Run<'a> {
    pub heap: &'a Heap,
    /// Definitions registered first, one `registerMany` batch (an array node).
    pub batch: Option<NodeId>,
    pub call: Value,
    pub signal: AbortSignal,
    pub abort_when_pending: Option<AbortReason>,
    pub real_registry: bool,
}

impl<'a> Run<'a> {
    pub fn new(heap: &'a Heap, batch: Option<NodeId>, call: impl Into<Value>) -> Run<'a> {
        Run {
            heap,
            batch,
            call: call.into(),
            signal: AbortSignal::new(),
            abort_when_pending: None,
            real_registry: true,
        }
    }

    pub fn go(self) -> Observed {
        let trace = Trace::default();
        let rt = Runtime::new(self.heap, self.signal.clone(), trace.clone());
        let mut registry = ModelRegistry::new();
        if let Some(batch) = self.batch {
            if let Err(e) = register_many(&rt, &mut registry, &Value::Ref(batch)) {
                panic!("batch refused: {e}");
            }
        }
        let arg = if self.real_registry {
            RegistryArg::Real(&registry)
        } else {
            RegistryArg::NotARegistry
        };
        let outcome = drive_call(&rt, arg, &self.call, self.abort_when_pending);
        let trace = trace.lock().unwrap().clone();
        Observed {
            outcome,
            trace,
            names: registry
                .names()
                .iter()
                .map(|n| n.to_string_lossy())
                .collect(),
        }
    }
}

/// Serializes `root` of `heap` with a fresh signal and trace.
pub fn serialize_model(
    heap: &Heap,
    root: &Value,
) -> (Result<Serialized, Failure<Thrown>>, Vec<TraceEvent>) {
    let trace = Trace::default();
    let rt = Runtime::new(heap, AbortSignal::new(), trace.clone());
    let out = serialize(&rt, root);
    let events = trace.lock().unwrap().clone();
    (out, events)
}

/// The outcome a test expects of a driven call.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect<'a> {
    /// A success result with this content.
    Success(&'a str),
    /// An error result with this code and message.
    Failure(&'a str, &'a str),
    /// A contract error.
    Contract(toolgate_core::ContractCode),
    /// Rejected with this abort reason.
    Cancelled(AbortReason),
    /// Rejected with the non-recoverable error thrown as this node.
    NonRecoverable(NodeId),
    /// Still pending.
    Pending,
}

/// Compares an outcome with what is expected; `Err` says how it differs.
pub fn outcome_matches(observed: &Observed, expect: &Expect<'_>) -> Result<(), String> {
    use toolgate_core::ErrorKind;
    let ok = match (&observed.outcome, expect) {
        (Driven::Done(Ok(r)), Expect::Success(content)) => !r.is_error && r.content == *content,
        (Driven::Done(Ok(r)), Expect::Failure(code, message)) => {
            let payload = serde_json::json!({"error": {"code": code, "message": message}});
            r.is_error
                && r.error_code.map(|c| c.as_str()) == Some(*code)
                && (r.truncated || r.content.as_str() == payload.to_string().as_str())
        }
        (Driven::Done(Err(e)), Expect::Contract(code)) => e.contract_code() == Some(*code),
        (Driven::Done(Err(e)), Expect::Cancelled(reason)) => e.abort_reason() == Some(reason),
        (Driven::Done(Err(e)), Expect::NonRecoverable(id)) => {
            matches!(e.kind(), ErrorKind::NonRecoverable { origin, .. } if *origin == u64::from(id.0))
        }
        (Driven::Pending, Expect::Pending) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expect:?}, got {:?}", observed.outcome))
    }
}

/// Builds one part of a test world: the data of table-driven cases.
pub type Make<T> = Box<dyn FnOnce(&mut World) -> T>;
