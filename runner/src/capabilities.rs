//! What a scenario needs of an implementation beyond plain objects, arrays,
//! functions, errors and promises (PROTOCOL.md#capabilities), derived from
//! the scenario itself so that case files never have to say it.

use crate::protocol::Capability;
use serde_json::Value as Json;
use std::collections::BTreeSet;
use toolgate_contract::scenario::{AbortPlan, Scenario};

/// Every capability `scenario` needs, in a stable order.
pub fn needed(scenario: &Scenario) -> BTreeSet<Capability> {
    let mut found = BTreeSet::new();
    if scenario.concurrent {
        found.insert(Capability::Concurrent);
    }
    if scenario
        .calls
        .iter()
        .any(|c| matches!(c.abort, Some(AbortPlan::AfterTurns(_))))
    {
        found.insert(Capability::JobTurns);
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
                        found.insert(Capability::Proxy);
                    }
                    Some("bigint") => {
                        found.insert(Capability::Bigint);
                    }
                    Some("symbol") => {
                        found.insert(Capability::Symbol);
                    }
                    Some("getter") => {
                        found.insert(Capability::Accessors);
                    }
                    _ => {}
                }
                if map.len() == 1 && map.contains_key("symbol") {
                    found.insert(Capability::Symbol);
                }
                if map.contains_key("key")
                    && (map.contains_key("get") || map.contains_key("setterOnly"))
                {
                    found.insert(Capability::Accessors);
                }
                if let Some(Json::String(proto)) = map.get("proto") {
                    if proto == "otherRealmObject" || proto == "otherRealmArray" {
                        found.insert(Capability::OtherRealm);
                    }
                }
                if let Some(Json::Array(units)) = map.get("units") {
                    if has_lone_surrogate(units) {
                        found.insert(Capability::LoneSurrogates);
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
    let mut i = 0;
    while i < units.len() {
        let u = units[i];
        if (0xD800..0xDC00).contains(&u) {
            match units.get(i + 1) {
                Some(next) if (0xDC00..0xE000).contains(next) => i += 2,
                _ => return true,
            }
        } else if (0xDC00..0xE000).contains(&u) {
            return true;
        } else {
            i += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(scenario: Json, expected: &[Capability]) {
        let scenario: Scenario = serde_json::from_value(scenario).expect("scenario");
        let got: Vec<Capability> = needed(&scenario).into_iter().collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn each_capability_is_found_where_the_format_puts_it() {
        check(json!({"calls": [{"call": {"$": "object"}}]}), &[]);
        check(
            json!({"calls": [{"call": {"$": "proxy", "target": {"$": "object"}}}]}),
            &[Capability::Proxy],
        );
        check(
            json!({"nodes": {"b": {"$": "object", "props": {"n": {"$": "bigint", "decimal": "1"}}}}}),
            &[Capability::Bigint],
        );
        check(
            json!({"nodes": {"o": {"$": "object", "define": [{"key": {"symbol": 0}, "value": 1}]}}}),
            &[Capability::Symbol],
        );
        check(
            json!({"nodes": {"o": {"$": "object", "define": [{"key": "a", "get": {"$": "function"}}]}}}),
            &[Capability::Accessors],
        );
        check(
            json!({"nodes": {"a": {"$": "array", "items": [{"$": "getter"}]}}}),
            &[Capability::Accessors],
        );
        check(
            json!({"nodes": {"o": {"$": "object", "proto": "otherRealmObject"}}}),
            &[Capability::OtherRealm],
        );
        check(
            json!({"concurrent": true, "calls": [{"call": 1}]}),
            &[Capability::Concurrent],
        );
    }

    #[test]
    fn only_unpaired_surrogates_need_lone_surrogate_support() {
        let units = |u: Json| json!({"calls": [{"call": {"$": "string", "units": u}}]});
        check(units(json!([97, 0xD83D, 0xDE00])), &[]);
        check(units(json!([0xD83D])), &[Capability::LoneSurrogates]);
        check(
            units(json!([0xDE00, 0xD83D])),
            &[Capability::LoneSurrogates],
        );
        check(units(json!([0xD83D, 97])), &[Capability::LoneSurrogates]);
    }
}
