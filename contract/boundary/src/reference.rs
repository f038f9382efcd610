//! The boundary suite's reference: a boundary scenario translated to core
//! scenarios (`translate`), run on the core oracle, and its observations
//! projected onto what the boundary suite sees: the registration, how the
//! turn ended, one result per call as the model receives it, which tools
//! started, and what escaped. Deterministic, as the oracle is.

use super::spec::*;
use super::translate::{to_core, DEADLINE_REASON};
use serde_json::{json, Value as Json};
use toolgate_core::call::{ResultCode, ToolResult};
use toolgate_core::scenario::observation::{encode_result, Event, Outcome, Registered};
use toolgate_core::scenario::observe as observe_core;
use toolgate_core::ContractCode;
use toolgate_suite::js_string::JsString;
use toolgate_suite::Error;

/// The code of the error result the boundary's deadline gives a call whose
/// tool never settled.
pub const TIMEOUT_CODE: &str = "TOOL_TIMEOUT";

/// The reference's observation of `scenario`.
pub fn observe(scenario: &BoundaryScenario) -> Result<BoundaryObservation, Error> {
    let cores = to_core(scenario)?;
    let mut observation = BoundaryObservation {
        registration: Registration::Ok,
        turn: TurnEnd::Completed,
        results: Vec::new(),
        ran: Vec::new(),
        uncaught: 0,
        measured: None,
        notes: Vec::new(),
    };
    let mut aborted = false;
    for (i, core) in cores.iter().enumerate() {
        let observed = observe_core(core)?;
        if let Some(registration) = observed.registrations.first() {
            match &registration.outcome {
                Registered::Ok => {}
                Registered::ContractError(code) => {
                    observation.registration = Registration::Refused {
                        name: "ToolContractError".into(),
                        message: format!("{code:?}"),
                    };
                    observation.turn = TurnEnd::NotRun;
                    return Ok(observation);
                }
                Registered::Rejected(thrown) => {
                    observation.registration = Registration::Refused {
                        name: "Error".into(),
                        message: thrown.to_string(),
                    };
                    observation.turn = TurnEnd::NotRun;
                    return Ok(observation);
                }
            }
        }
        let (Some(call), Some(spec)) = (observed.calls.first(), scenario.turn.get(i)) else {
            continue;
        };
        observation.uncaught += call.unhandled_rejections;
        for event in &call.trace {
            if let Event::Call(c) = event {
                let is_execution = c
                    .args
                    .iter()
                    .any(|a| a.get("$").and_then(Json::as_str) == Some("context"));
                let tool = c
                    .call
                    .strip_prefix("execute")
                    .and_then(|n| n.parse::<usize>().ok());
                if let (true, Some(tool)) = (is_execution, tool) {
                    observation.ran.push(RanSeen {
                        tool,
                        call_id: Some(spec.id.clone()),
                        after_abort: false,
                        settled: None,
                    });
                }
            }
        }
        match &call.outcome {
            Outcome::Result(r) => observation.results.push(ResultSeen {
                call_id: r.tool_call_id.as_str().map(str::to_string),
                is_error: Some(r.is_error),
                delivered: serde_json::to_value(r).unwrap_or(Json::Null),
                bytes: None,
            }),
            Outcome::Cancelled(reason)
                if reason.reason.as_ref().and_then(Json::as_str) == Some(DEADLINE_REASON) =>
            {
                observation.results.push(ResultSeen {
                    call_id: Some(spec.id.clone()),
                    is_error: Some(true),
                    delivered: json!({"error": {"code": TIMEOUT_CODE,
                        "message": "the tool did not settle before the deadline"}}),
                    bytes: None,
                })
            }
            Outcome::Cancelled(_) => aborted = true,
            Outcome::Pending => observation.turn = TurnEnd::Pending,
            // the core refuses a blank name as a malformed call (a
            // runtime's bug there); here the model wrote it, so it is a
            // tool the model asked for and nobody has (BOUNDARY-UNK-01),
            // worded as the core words unknown tools
            Outcome::ContractError(ContractCode::InvalidToolCall)
                if spec.name.trim().is_empty() =>
            {
                let result = ToolResult::error(
                    JsString::new(&spec.id),
                    JsString::new(&spec.name),
                    ResultCode::ToolNotFound,
                    &format!("Unknown Tool \"{}\"", spec.name),
                );
                observation.results.push(ResultSeen {
                    call_id: Some(spec.id.clone()),
                    is_error: Some(true),
                    delivered: serde_json::to_value(encode_result(&result)).unwrap_or(Json::Null),
                    bytes: None,
                })
            }
            other => observation.turn = TurnEnd::rejected("Error", format!("{other:?}")),
        }
    }
    if aborted && observation.turn == TurnEnd::Completed {
        observation.turn = TurnEnd::Aborted;
    }
    Ok(observation)
}
