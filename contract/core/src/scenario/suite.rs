//! The core suite as a [`SuiteDef`]: [`CORE`] (whole observations, every
//! requirement a MUST). It decodes the JSON the runner holds into
//! [`Scenario`] and [`Observation`], runs the [`oracle`](super::oracle),
//! applies [`excuse`] and the [`checks`](super::checks), and derives
//! capabilities from the scenario.

use super::checks::{check_core, same_as_written};
use super::host_limits::excuse;
use super::observation::Observation;
use super::oracle;
use super::spec::{AbortPlan, CallSpec, Scenario};
use serde::Deserialize;
use serde_json::Value as Json;
use std::collections::BTreeSet;
use toolgate_suite::Error;
use toolgate_suite::{Judgement, Level, SuiteDef, Violation};

/// The core suite: the whole contract of CONTRACT.md.
pub static CORE: CoreVocabulary = CoreVocabulary {
    id: "core",
    prefix: "CORE-",
    check: check_core,
    exact: true,
};

/// The JSON Schema of core observations.
const OBSERVATION_SCHEMA: &str = toolgate_corpus::schema::CORE_OBSERVATION;

type Check = fn(&Scenario, &Observation, &Observation) -> Vec<Violation>;

/// A suite over the core scenario and observation formats
/// (`corpus/README.md`).
pub struct CoreVocabulary {
    id: &'static str,
    prefix: &'static str,
    check: Check,
    /// Whether a case passes only on equal observations: a difference no
    /// check names is then an unnamed violation.
    exact: bool,
}

/// What a core scenario may need of an implementation beyond plain objects,
/// arrays, functions, errors and promises (runner/PROTOCOL.md#capabilities),
/// by the names adapters announce.
pub mod capability {
    pub const PROXY: &str = "proxy";
    pub const BIGINT: &str = "bigint";
    pub const SYMBOL: &str = "symbol";
    pub const ACCESSORS: &str = "accessors";
    pub const OTHER_REALM: &str = "otherRealm";
    pub const LONE_SURROGATES: &str = "loneSurrogates";
    pub const CONCURRENT: &str = "concurrent";
    /// Aborts after a number of job-queue turns (`afterTurns`).
    pub const JOB_TURNS: &str = "jobTurns";

    /// All of them, in the order PROTOCOL.md lists them.
    pub const ALL: [&str; 8] = [
        PROXY,
        BIGINT,
        SYMBOL,
        ACCESSORS,
        OTHER_REALM,
        LONE_SURROGATES,
        CONCURRENT,
        JOB_TURNS,
    ];
}

fn decode<'a, T: Deserialize<'a>>(what: &str, value: &'a Json) -> Result<T, Error> {
    T::deserialize(value).map_err(|e| Error::scenario(format!("{what}: {e}")))
}

impl SuiteDef for CoreVocabulary {
    fn id(&self) -> &'static str {
        self.id
    }

    fn requirement_prefix(&self) -> &'static str {
        self.prefix
    }

    fn level(&self, _requirement: &str) -> Level {
        Level::Must
    }

    /// Decodes the scenario's format. The grammar of the values inside
    /// (nodes, references, sizes) is checked when the scenario is built:
    /// building every case costs seconds (the corpus's million-node cases),
    /// too much for each load of the corpus.
    fn check_scenario(&self, scenario: &Json) -> Result<(), Error> {
        Scenario::deserialize(scenario)
            .map(|_| ())
            .map_err(|e| Error::scenario(format!("{}: {e}", fault_pointer(scenario))))
    }

    fn observe(&self, scenario: &Json) -> Result<Json, Error> {
        let scenario: Scenario = decode("the scenario", scenario)?;
        let observation = oracle::observe(&scenario)?;
        serde_json::to_value(observation).map_err(|e| Error::scenario(e.to_string()))
    }

    fn capabilities(&self, scenario: &Json) -> Vec<String> {
        match decode::<Scenario>("the scenario", scenario) {
            Ok(scenario) => needed(&scenario).into_iter().map(str::to_string).collect(),
            // a scenario that does not decode is refused when loaded
            Err(_) => Vec::new(),
        }
    }

    fn observation_schema(&self) -> &'static str {
        OBSERVATION_SCHEMA
    }

    fn judge(&self, scenario: &Json, expected: &Json, actual: &Json) -> Judgement {
        // the common case: the same text, nothing to decode
        if toolgate_suite::same_text(expected, actual) {
            return Judgement::default();
        }
        let decoded = (|| {
            Ok::<_, Error>((
                decode::<Scenario>("the scenario", scenario)?,
                decode::<Observation>("the expected observation", expected)?,
                decode::<Observation>("the observation", actual)?,
            ))
        })();
        let (scenario, expected, actual) = match decoded {
            Ok(d) => d,
            Err(e) => {
                return Judgement {
                    violations: vec![Violation::unnamed(format!("cannot be judged: {e}"))],
                    ..Judgement::default()
                }
            }
        };
        // what the contract leaves to the host is taken as expected
        let (actual, notes) = match excuse(&scenario, &expected, &actual) {
            Some((adjusted, notes)) => (adjusted, notes),
            None => (actual, Vec::new()),
        };
        // the checks analyse the scenario again to name requirements; an
        // equal observation has nothing to name
        let same = same_as_written(&actual, &expected);
        let mut violations = if same {
            Vec::new()
        } else {
            (self.check)(&scenario, &expected, &actual)
        };
        if violations.is_empty() && self.exact && !same {
            // a core case passes only on equal observations, whatever the
            // checks recognise
            violations.push(Violation::unnamed(
                "the observation differs from the reference's, but no check names the difference (see the diff)",
            ));
        }
        Judgement {
            violations,
            notes,
            measures: Vec::new(),
            timing: false,
            window: false,
            unmet: None,
        }
    }

    fn capability_names(&self) -> &'static [&'static str] {
        &capability::ALL
    }

    fn canonical_observation(&self, observation: &Json) -> Result<Json, Error> {
        let decoded: Observation = decode("the observation", observation)?;
        serde_json::to_value(decoded).map_err(|e| Error::scenario(e.to_string()))
    }
}

/// Where a scenario that does not decode goes wrong, as closely as the
/// format's parts say: `/calls/<i>` for a call that does not decode on its
/// own, else the whole scenario (`/`).
fn fault_pointer(scenario: &Json) -> String {
    let calls = scenario.get("calls").and_then(Json::as_array);
    for (i, call) in calls.into_iter().flatten().enumerate() {
        if CallSpec::deserialize(call).is_err() {
            return format!("/calls/{i}");
        }
    }
    "/".to_string()
}

/// Every capability `scenario` needs, in a stable order.
pub fn needed(scenario: &Scenario) -> BTreeSet<&'static str> {
    use capability::*;
    let mut found = BTreeSet::new();
    if scenario.concurrent {
        found.insert(CONCURRENT);
    }
    if scenario
        .calls
        .iter()
        .any(|c| matches!(c.abort, Some(AbortPlan::AfterTurns(_))))
    {
        found.insert(JOB_TURNS);
    }
    let mut stack: Vec<&Json> = scenario.nodes.values().collect();
    stack.extend(scenario.initial.iter());
    stack.extend(scenario.registrations.iter());
    stack.extend(scenario.calls.iter().map(|c| &c.call));
    // iterative: scenario values may nest deeper than the stack allows
    while let Some(value) = stack.pop() {
        match value {
            Json::Array(items) => stack.extend(items.iter()),
            Json::Object(map) => {
                match map.get("$").and_then(Json::as_str) {
                    Some("proxy") => {
                        found.insert(PROXY);
                    }
                    Some("bigint") => {
                        found.insert(BIGINT);
                    }
                    Some("symbol") => {
                        found.insert(SYMBOL);
                    }
                    Some("getter") => {
                        found.insert(ACCESSORS);
                    }
                    _ => {}
                }
                if map.len() == 1 && map.contains_key("symbol") {
                    found.insert(SYMBOL);
                }
                if map.contains_key("key")
                    && (map.contains_key("get") || map.contains_key("setterOnly"))
                {
                    found.insert(ACCESSORS);
                }
                if let Some(Json::String(proto)) = map.get("proto") {
                    if proto == "otherRealmObject" || proto == "otherRealmArray" {
                        found.insert(OTHER_REALM);
                    }
                }
                if let Some(Json::Array(units)) = map.get("units") {
                    if has_lone_surrogate(units) {
                        found.insert(LONE_SURROGATES);
                    }
                }
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    found
}

/// Whether code units (as JSON numbers) hold a surrogate not paired within
/// them. Repetition keeps a fully paired piece paired, so looking at each
/// `units` array alone is enough.
fn has_lone_surrogate(units: &[Json]) -> bool {
    let units: Vec<u64> = units.iter().filter_map(Json::as_u64).collect();
    let mut pending_high = false;
    for &u in &units {
        let high = (0xD800..0xDC00).contains(&u);
        let low = (0xDC00..0xE000).contains(&u);
        if pending_high {
            if low {
                pending_high = false;
                continue;
            }
            return true;
        }
        if low {
            return true;
        }
        pending_high = high;
    }
    pending_high
}

#[cfg(test)]
mod tests {
    use super::capability::*;
    use super::*;
    use serde_json::json;

    fn check(scenario: Json, expected: &[&str]) {
        let mut expected = expected.to_vec();
        expected.sort_unstable();
        assert_eq!(CORE.capabilities(&scenario), expected);
        let scenario: Scenario = serde_json::from_value(scenario).expect("scenario");
        let got: Vec<&str> = needed(&scenario).into_iter().collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn each_capability_is_found_where_the_format_puts_it() {
        check(json!({"calls": [{"call": {"$": "object"}}]}), &[]);
        check(
            json!({"calls": [{"call": {"$": "proxy", "target": {"$": "object"}}}]}),
            &[PROXY],
        );
        check(
            json!({"nodes": {"b": {"$": "object", "props": {"n": {"$": "bigint", "decimal": "1"}}}}}),
            &[BIGINT],
        );
        check(
            json!({"nodes": {"o": {"$": "object", "define": [{"key": {"symbol": 0}, "value": 1}]}}}),
            &[SYMBOL],
        );
        check(
            json!({"nodes": {"o": {"$": "object", "define": [{"key": "a", "get": {"$": "function"}}]}}}),
            &[ACCESSORS],
        );
        check(
            json!({"nodes": {"a": {"$": "array", "items": [{"$": "getter"}]}}}),
            &[ACCESSORS],
        );
        check(
            json!({"nodes": {"o": {"$": "object", "proto": "otherRealmObject"}}}),
            &[OTHER_REALM],
        );
        check(
            json!({"concurrent": true, "calls": [{"call": 1}]}),
            &[CONCURRENT],
        );
        check(
            json!({"calls": [{"call": 1, "abort": {"afterTurns": {"turns": 2}}}]}),
            &[JOB_TURNS],
        );
    }

    #[test]
    fn only_unpaired_surrogates_need_lone_surrogate_support() {
        let units = |u: Json| json!({"calls": [{"call": {"$": "string", "units": u}}]});
        check(units(json!([97, 0xD83D, 0xDE00])), &[]);
        check(units(json!([0xD83D])), &[LONE_SURROGATES]);
        check(units(json!([0xDE00, 0xD83D])), &[LONE_SURROGATES]);
        check(units(json!([0xD83D, 97])), &[LONE_SURROGATES]);
        check(units(json!([0xD83D, 0xD83D, 0xDE00])), &[LONE_SURROGATES]);
    }

    fn scenario() -> Json {
        json!({
            "nodes": {
                "validate": {"$": "function", "returns": {"$": "object", "props": {
                    "ok": true, "value": {"$": "object", "props": {"left": 2}}}}},
                "execute": {"$": "function", "returns": {"$": "object", "props": {"sum": 5}}}
            },
            "registrations": [{"$": "array", "items": [{"$": "object", "props": {
                "name": "add", "description": "the add tool",
                "validate": {"ref": "validate"}, "execute": {"ref": "execute"}}}]}],
            "calls": [{"call": {"$": "object", "props": {
                "type": "toolCall", "id": "call-1", "name": "add",
                "arguments": {"$": "object", "props": {"left": 2}}}}}]
        })
    }

    #[test]
    fn core_passes_only_equal_observations() {
        let s = scenario();
        CORE.check_scenario(&s).expect("well-formed");
        let expected = CORE.observe(&s).expect("observed");
        assert_eq!(CORE.judge(&s, &expected, &expected), Judgement::default());
        assert_eq!(CORE.canonical_observation(&expected).unwrap(), expected);
        // the names at the end differ: a core violation
        let mut other = expected.clone();
        other["names"] = json!([]);
        let core = CORE.judge(&s, &expected, &other);
        assert!(!core.violations.is_empty(), "{core:?}");
        // not an observation at all
        let broken = CORE.judge(&s, &expected, &json!({"calls": 3}));
        assert_eq!(broken.violations.len(), 1);
        assert!(broken.violations[0].requirement.is_none());
        assert!(CORE.canonical_observation(&json!({"calls": 3})).is_err());
        assert!(CORE.check_scenario(&json!({"calls": 3})).is_err());
        let err = CORE
            .check_scenario(&json!({"calls": [{"call": 1}, {"call": 1, "abort": "now"}]}))
            .unwrap_err()
            .to_string();
        assert!(err.contains("scenario: /calls/1: "), "{err}");
        assert_eq!(CORE.level("CORE-SER-07"), Level::Must);
    }
}
