//! The adapter protocol of `runner/PROTOCOL.md` as types: requests, replies,
//! and the validation of traffic against `protocol/schema/protocol.schema.json`
//! (and of observations against their suite's schema). Both sides use it:
//! the runner (`toolgate_runner::adapter`, which re-exports this crate as
//! `toolgate_runner::protocol`) and the adapters written in Rust ([`serve`]:
//! the reference adapter, toolgate-harness). A crate of its own so that an
//! adapter builds without the runner.
//! Suites, scenarios, observations and capabilities are ids and JSON here:
//! each suite (`SuiteDef`) says what its own are.
//!
//! The validation (`validate`, `validate_observation`, `request_line`) is
//! the `validate` feature's (on by default): the runner's side. An adapter
//! built without it has the messages and [`serve`], without a JSON Schema
//! validator.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::io::{BufRead, Write};

#[cfg(feature = "validate")]
mod validation;
#[cfg(feature = "validate")]
pub use validation::{request_line, validate, validate_observation, Message};

/// The version of the protocol this runner speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// A runner-to-adapter message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cmd", rename_all = "camelCase", deny_unknown_fields)]
pub enum Request {
    Start {
        protocol: u64,
    },
    Run {
        seq: u64,
        case: Box<CaseRequest>,
    },
    /// Time one family of `toolgate bench` at one size, in the adapter's
    /// own process (runner/BENCH.md); only sent to an adapter announcing
    /// the capability [`BENCH_CAPABILITY`].
    Bench {
        seq: u64,
        bench: BenchRequest,
    },
    Stop,
}

/// The capability an adapter announces when it answers `bench` requests.
pub const BENCH_CAPABILITY: &str = "bench";

/// What a `bench` request asks for: build the family's value at `size`
/// (not timed), then time calls as [`BenchPlan`] says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BenchRequest {
    pub family: String,
    pub size: u64,
    #[serde(flatten)]
    pub plan: BenchPlan,
}

/// How a measurement is taken, as criterion takes a flat-sampled one:
/// one first call; when it took longer than `cap_ms`, nothing more (the
/// family stops there). Else calls until `warmup_ms` have passed, which
/// estimate a call's time; then `samples` samples (at least 5, fewer when
/// a call is so slow that `samples` would take more than twice
/// `measure_ms`), each of the same number of calls, chosen so that the
/// samples take about `measure_ms` in all.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BenchPlan {
    pub warmup_ms: u64,
    pub measure_ms: u64,
    pub samples: u32,
    pub cap_ms: u64,
}

/// One sample: `iterations` calls (or batches) that took `nanos` in all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchSample {
    pub iterations: u64,
    pub nanos: u64,
}

/// The adapter's answer to `bench`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchReply {
    pub seq: u64,
    #[serde(flatten)]
    pub body: BenchReplyBody,
}

/// What a `bench` reply carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BenchReplyBody {
    Measured(Measured),
    /// The adapter cannot build or run this family.
    Skipped {
        reason: String,
    },
    Error {
        message: String,
    },
}

/// A measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Measured {
    /// Building the value and the calls (not part of the samples).
    pub build_nanos: u64,
    /// The first call, alone.
    pub first_nanos: u64,
    /// Empty when the first call exceeded the cap.
    pub samples: Vec<BenchSample>,
    /// Growth of peak memory while the calls ran, over what was in use
    /// once the value was built; `memory` says what was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_bytes: Option<u64>,
    /// `heap`: bytes allocated (the reference's counting allocator);
    /// `rss`: the process's peak resident set (`maxRSS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The first call's result text (the core contract's `content`, or a
    /// runtime's delivered result as JSON), when it is at most
    /// [`OUTPUT_ECHO`] UTF-16 units long.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// That text's length in UTF-16 units, whatever it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_length: Option<u64>,
    /// The first call rejected (threw, or its runtime's turn did) with
    /// this error, `Name: message`: a rejection is an outcome like a
    /// result, and the calls were timed all the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected: Option<String>,
}

/// The longest result text a `bench` reply echoes.
pub const OUTPUT_ECHO: u64 = 16_384;

/// The case of a `run` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseRequest {
    pub id: String,
    /// The id of the case's suite (`"core"`).
    pub suite: String,
    /// In the scenario format of that suite.
    pub scenario: Json,
    /// The capability names the case needs, as its suite derives them
    /// (`SuiteDef::capabilities`), so that an adapter answering
    /// `notApplicable` per feature never derives them again. Added to
    /// version 1: an adapter may ignore it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
    /// How many times its usual window the adapter should wait before it
    /// calls something pending (absent: once). The runner sends it when it
    /// runs a case again because the first verdict rested on time. Added
    /// to version 1: an adapter may ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patience: Option<u32>,
}

/// The adapter's answer to `start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    pub protocol: u64,
    pub implementation: Implementation,
    /// The ids of the suites the adapter runs.
    pub suites: Vec<String>,
    /// The capability names it announces (each suite derives the ones a
    /// case needs: [`SuiteDef::capabilities`]).
    pub capabilities: Vec<String>,
}

/// Who answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Implementation {
    pub name: String,
    pub version: String,
    pub language: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
}

/// The adapter's answer to `run`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReply {
    pub seq: u64,
    #[serde(flatten)]
    pub body: ReplyBody,
}

/// What a `run` reply carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReplyBody {
    /// In the observation format of the case's suite.
    Observation(Json),
    /// The adapter cannot express this case.
    Skipped {
        reason: String,
    },
    /// The case (or the requirement it tests) cannot exist in this
    /// implementation: a runtime without a dispatcher has no unknown tool.
    NotApplicable {
        reason: String,
    },
    Error {
        message: String,
    },
}

/// The adapter side: reads requests from `input` and answers with `answer`
/// until `stop` or the end of input. Malformed requests are answered with an
/// `error` reply when they carry a `seq`, else reported on stderr.
pub fn serve(
    input: impl BufRead,
    mut output: impl Write,
    hello: &Hello,
    mut answer: impl FnMut(&CaseRequest) -> ReplyBody,
) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Request>(&line) {
            Ok(Request::Start { .. }) => serde_json::to_string(hello)?,
            Ok(Request::Run { seq, case }) => serde_json::to_string(&RunReply {
                seq,
                body: answer(&case),
            })?,
            // an adapter served here does not announce `bench`
            Ok(Request::Bench { seq, .. }) => serde_json::to_string(&BenchReply {
                seq,
                body: BenchReplyBody::Error {
                    message: "this adapter does not time calls".into(),
                },
            })?,
            Ok(Request::Stop) => return Ok(()),
            Err(e) => {
                let seq = serde_json::from_str::<Json>(&line)
                    .ok()
                    .and_then(|v| v.get("seq").and_then(Json::as_u64));
                match seq {
                    Some(seq) => serde_json::to_string(&RunReply {
                        seq,
                        body: ReplyBody::Error {
                            message: format!("malformed request: {e}"),
                        },
                    })?,
                    None => {
                        eprintln!("malformed request ignored: {e}");
                        continue;
                    }
                }
            }
        };
        output.write_all(reply.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}
