//! Generated scenarios of every suite that has a generator, as JSON, so
//! that `toolgate run --generate` draws, judges and shrinks cases of any
//! suite without knowing its insides. `core` renders a shrinkable [`Plan`];
//! `boundary`, `pipeline`, `workspace` and `actions` draw a byte string and build the scenario from
//! it with their fuzz target's generator (`boundary::generate`,
//! `pipeline::generate`), so one generator serves
//! fuzzing, the property tests and the runner, and proptest shrinks the
//! bytes (shorter, smaller bytes give a plainer scenario).

use crate::plan::Plan;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use serde_json::Value as Json;
use toolgate_boundary::generate::scenario_from_bytes;
use toolgate_boundary::BoundaryScenario;
use toolgate_pipeline::file_queue::FileQueueScenario;
use toolgate_pipeline::spec::PipelineScenario;

/// The bytes one boundary scenario is built from (enough for four tools
/// and four calls with every choice made).
pub const BOUNDARY_BYTES: usize = 384;

/// Scenarios of the `boundary` suite.
pub fn boundary() -> impl Strategy<Value = BoundaryScenario> {
    proptest::collection::vec(any::<u8>(), 0..=BOUNDARY_BYTES).prop_map(|b| scenario_from_bytes(&b))
}

/// The bytes one pipeline scenario is built from (enough for three tools,
/// five calls, both hooks and an abort with every choice made).
pub const PIPELINE_BYTES: usize = 512;

/// Scenarios of the `pipeline` suite.
pub fn pipeline() -> impl Strategy<Value = PipelineScenario> {
    proptest::collection::vec(any::<u8>(), 0..=PIPELINE_BYTES)
        .prop_map(|b| toolgate_pipeline::generate::scenario_from_bytes(&b))
}

/// The bytes one file-queue scenario is built from (a full tree, two
/// environments and ten steps).
pub const FILE_QUEUE_BYTES: usize = 160;

/// File-queue scenarios of the `pipeline` suite (`PIPE-QUEUE-*`).
pub fn file_queue() -> impl Strategy<Value = FileQueueScenario> {
    proptest::collection::vec(any::<u8>(), 0..=FILE_QUEUE_BYTES)
        .prop_map(|b| toolgate_pipeline::file_queue::generate::scenario_from_bytes(&b))
}

/// The bytes one workspace scenario is built from (every optional link and
/// four calls of five segments each).
pub const WORKSPACE_BYTES: usize = 192;

/// Scenarios of the `workspace` suite (read and write calls on hostile
/// trees and paths).
pub fn workspace() -> impl Strategy<Value = toolgate_workspace::spec::WorkspaceScenario> {
    proptest::collection::vec(any::<u8>(), 0..=WORKSPACE_BYTES)
        .prop_map(|b| toolgate_workspace::generate::scenario_from_bytes(&b))
}

/// The bytes one actions scenario is built from (four items, two runs of
/// ten entries with every choice made).
pub const ACTIONS_BYTES: usize = 256;

/// Scenarios of the `actions` suite (hostile action texts, replays, stale
/// revisions and outside changes on a small inventory).
pub fn actions() -> impl Strategy<Value = toolgate_actions::spec::ActionsScenario> {
    proptest::collection::vec(any::<u8>(), 0..=ACTIONS_BYTES)
        .prop_map(|b| toolgate_actions::generate::scenario_from_bytes(&b))
}

/// The scenarios of suite `id` as JSON, when it has a generator.
pub fn scenarios(id: &str) -> Option<BoxedStrategy<Json>> {
    match id {
        "core" => Some(
            crate::strategy::plan()
                .prop_map(|p: Plan| serde_json::to_value(p.render().0).unwrap_or(Json::Null))
                .boxed(),
        ),
        "boundary" => Some(
            boundary()
                .prop_map(|s| serde_json::to_value(s).unwrap_or(Json::Null))
                .boxed(),
        ),
        // one generated pipeline case in ten is a file-queue run
        "pipeline" => Some(
            prop_oneof![
                9 => pipeline().prop_map(|s| serde_json::to_value(s).unwrap_or(Json::Null)),
                1 => file_queue().prop_map(|s| serde_json::to_value(s).unwrap_or(Json::Null)),
            ]
            .boxed(),
        ),
        "workspace" => Some(
            workspace()
                .prop_map(|s| serde_json::to_value(s).unwrap_or(Json::Null))
                .boxed(),
        ),
        "actions" => Some(
            actions()
                .prop_map(|s| serde_json::to_value(s).unwrap_or(Json::Null))
                .boxed(),
        ),
        _ => None,
    }
}
