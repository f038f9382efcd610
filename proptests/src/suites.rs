//! Generated scenarios of every suite that has a generator, as JSON, so
//! that `toolgate run --generate` draws, judges and shrinks cases of any
//! suite without knowing its insides. `core` renders a shrinkable [`Plan`];
//! `boundary` draws a byte string and builds the scenario from it with the
//! fuzz target's generator (`portable::generate`), so one generator serves
//! fuzzing, the property tests and the runner, and proptest shrinks the
//! bytes (shorter, smaller bytes give a plainer scenario).

use crate::plan::Plan;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use serde_json::Value as Json;
use toolgate_contract::portable::generate::scenario_from_bytes;
use toolgate_contract::portable::PortableScenario;

/// The bytes one boundary scenario is built from (enough for four tools
/// and four calls with every choice made).
pub const BOUNDARY_BYTES: usize = 384;

/// Portable scenarios of the `boundary` suite.
pub fn boundary() -> impl Strategy<Value = PortableScenario> {
    proptest::collection::vec(any::<u8>(), 0..=BOUNDARY_BYTES).prop_map(|b| scenario_from_bytes(&b))
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
        _ => None,
    }
}
