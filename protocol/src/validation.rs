//! The runner's side of the protocol (the `validate` feature): traffic
//! checked against `protocol/schema/protocol.schema.json`, observations
//! against their suite's schema. An adapter does not need it.

use crate::Request;
use serde_json::Value as Json;
use std::sync::OnceLock;
use toolgate_suite::{observation_validator, schema_errors, SuiteDef};

const PROTOCOL_SCHEMA: &str = include_str!("../schema/protocol.schema.json");

/// Which message a line is checked as.
#[derive(Debug, Clone, Copy)]
pub enum Message {
    Request,
    StartReply,
    RunReply,
    BenchReply,
}

struct Validators {
    request: jsonschema::Validator,
    start_reply: jsonschema::Validator,
    run_reply: jsonschema::Validator,
    bench_reply: jsonschema::Validator,
}

fn validators() -> &'static Validators {
    static VALIDATORS: OnceLock<Validators> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let protocol: Json =
            serde_json::from_str(PROTOCOL_SCHEMA).expect("protocol schema is JSON");
        // one definition of the schema validated as the whole document, so
        // the file stays the single source of truth
        let def = |name: &str| {
            let mut schema = protocol.clone();
            let root = schema.as_object_mut().expect("schema is an object");
            root.remove("oneOf");
            root.insert("$ref".into(), Json::String(format!("#/$defs/{name}")));
            jsonschema::options()
                .offline()
                .build(&schema)
                .unwrap_or_else(|e| panic!("protocol schema $defs/{name}: {e}"))
        };
        Validators {
            request: def("request"),
            start_reply: def("startReply"),
            run_reply: def("runReply"),
            bench_reply: def("benchReply"),
        }
    })
}

/// Checks an observation against `suite`'s
/// [`observation_schema`](SuiteDef::observation_schema); the error names
/// the first few places that do not match.
pub fn validate_observation(suite: &dyn SuiteDef, value: &Json) -> Result<(), String> {
    schema_errors(observation_validator(suite)?, value)
}

/// Checks `value` against the schema of `message`; the error names the first
/// few places that do not match.
pub fn validate(message: Message, value: &Json) -> Result<(), String> {
    let v = validators();
    let validator = match message {
        Message::Request => &v.request,
        Message::StartReply => &v.start_reply,
        Message::RunReply => &v.run_reply,
        Message::BenchReply => &v.bench_reply,
    };
    schema_errors(validator, value)
}

/// One JSON line of a request, validated against the schema like replies
/// are; `Err` says what is wrong (a runner bug, or a case file the schema
/// refuses).
pub fn request_line(request: &Request) -> Result<String, String> {
    let value = serde_json::to_value(request).map_err(|e| e.to_string())?;
    validate(Message::Request, &value)
        .map_err(|e| format!("the request does not match the protocol: {e}"))?;
    let mut line = serde_json::to_string(&value).map_err(|e| e.to_string())?;
    line.push('\n');
    Ok(line)
}
