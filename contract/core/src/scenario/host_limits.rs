//! Behaviour the contract leaves to the host, and how the comparison leaves
//! it out.
//!
//! The course copies call arguments recursively (`snapshotJsonObject` in its
//! `messages.ts`), so arguments nested deeper than its host's stack allows
//! make the copy throw a `RangeError`, which the call snapshot turns into
//! `INVALID_TOOL_CALL`. Where that happens depends on the engine, the stack
//! size and the frames around the call (3,164 levels under Node 20 in one
//! measurement), not on a rule. SPEC.md (CORE-CALL-06) therefore makes the
//! outcome of a call whose arguments nest deeper than
//! [`HOST_DEFINED_ARGUMENT_DEPTH`] implementation-defined between the
//! reference's (a copy of any depth) and `INVALID_TOOL_CALL`; the reference
//! itself copies iteratively and never refuses.
//!
//! [`excuse`] is applied by every judge of observations (the runner, the
//! checks' users) before comparing: it replaces such a call's observation by
//! the expected one when the implementation refused it, and says so.

use super::build::{build, Built};
use super::observation::{CallObserved, Observation, Outcome};
use super::oracle::abort_points;
use super::spec::{AbortPlan, Scenario};
use crate::error::ContractCode;
use crate::model::{Completion, Node, NodeId, PropKey, Property, Value};
use crate::signal::AbortReason;
use std::collections::HashMap;

/// Arguments nested deeper than this many containers may be refused.
pub const HOST_DEFINED_ARGUMENT_DEPTH: usize = 1_000;

/// `actual` with every call the host was allowed to refuse (and did) taken
/// as expected, and one note per such call; `None` when nothing was excused.
pub fn excuse(
    scenario: &Scenario,
    expected: &Observation,
    actual: &Observation,
) -> Option<(Observation, Vec<String>)> {
    if expected == actual {
        return None;
    }
    let refused = |a: &CallObserved| {
        matches!(
            a.outcome,
            Outcome::ContractError(ContractCode::InvalidToolCall)
        )
    };
    // the common case costs no build: no call was refused where the
    // reference accepted it
    let mut adjusted = actual.clone();
    let mut notes = Vec::new();
    excuse_turns(scenario, expected, &mut adjusted, &mut notes);
    let candidates: Vec<usize> = (0..expected.calls.len().min(actual.calls.len()))
        .filter(|&i| match (expected.calls.get(i), adjusted.calls.get(i)) {
            (Some(e), Some(a)) => refused(a) && !refused(e),
            _ => false,
        })
        .collect();
    if candidates.is_empty() {
        return (!notes.is_empty()).then_some((adjusted, notes));
    }
    let Ok(built) = build(scenario) else {
        return (!notes.is_empty()).then_some((adjusted, notes));
    };
    for i in candidates {
        let depth = built.calls.get(i).map_or(0, |c| arguments_depth(&built, c));
        if depth <= HOST_DEFINED_ARGUMENT_DEPTH {
            continue;
        }
        let (Some(e), Some(a)) = (expected.calls.get(i), adjusted.calls.get_mut(i)) else {
            continue;
        };
        // what the copy did before the stack ran out is the host's too; the
        // unhandled rejections are still compared
        let unhandled = a.unhandled_rejections;
        *a = e.clone();
        a.unhandled_rejections = unhandled;
        notes.push(format!(
            "call {i}: arguments {depth} levels deep were refused with INVALID_TOOL_CALL, \
             which CORE-CALL-06 allows beyond {HOST_DEFINED_ARGUMENT_DEPTH} levels"
        ));
    }
    (!notes.is_empty()).then_some((adjusted, notes))
}

/// The job-queue turns an abort takes to land are the host's too: an
/// implementation may take more or fewer jobs than the course. A call
/// aborted `afterTurns` N passes when it gave one of the reference's abort
/// points (`oracle::abort_points`), and no earlier point than a call of the
/// same sweep (the same call, registry and reason) with fewer turns gave.
/// Such calls are taken as expected, with a note naming the point.
fn excuse_turns(
    scenario: &Scenario,
    expected: &Observation,
    adjusted: &mut Observation,
    notes: &mut Vec<String>,
) {
    let calls = sweep_calls(scenario);
    let differ = calls
        .iter()
        .any(|(i, _, _)| expected.calls.get(*i) != adjusted.calls.get(*i));
    if !differ {
        return;
    }
    let sweeps = sweep_points(scenario, &calls);
    // the order is judged on what the implementation gave, not on calls
    // already taken as expected
    let actual = adjusted.clone();
    for (i, turns, group) in calls.iter().cloned() {
        let (Some(e), Some(a)) = (expected.calls.get(i), adjusted.calls.get(i)) else {
            continue;
        };
        if e == a {
            continue;
        }
        let Some(Some(points)) = sweeps.get(&i) else {
            continue;
        };
        let Some(point) = points.iter().position(|p| p == a) else {
            continue;
        };
        // the latest point an earlier turn of this sweep gave
        let earlier = calls
            .iter()
            .filter(|(j, t, g)| *g == group && *t < turns && *j != i)
            .filter_map(|(j, _, _)| {
                let j = *j;
                let given = actual.calls.get(j)?;
                sweeps.get(&j)?.as_ref()?.iter().position(|p| p == given)
            })
            .max();
        if earlier.is_some_and(|before| before > point) {
            continue;
        }
        let e = e.clone();
        if let Some(slot) = adjusted.calls.get_mut(i) {
            *slot = e;
        }
        notes.push(format!(
            "call {i}: the abort after {turns} turn(s) landed at the reference's abort point {point}, \
             which CORE-CAN-09 allows"
        ));
    }
}

/// The calls aborted after some turns: index, turns, and the sweep they
/// belong to (the call, its registry and the reason, as JSON).
fn sweep_calls(scenario: &Scenario) -> Vec<(usize, u32, String)> {
    scenario
        .calls
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match &c.abort {
            Some(AbortPlan::AfterTurns(t)) => {
                let group = serde_json::to_string(&(&c.call, &c.registry, &t.reason)).ok()?;
                Some((i, t.turns, group))
            }
            _ => None,
        })
        .collect()
}

/// The reference's abort points of each of `calls` (from [`sweep_calls`]).
fn sweep_points(
    scenario: &Scenario,
    calls: &[(usize, u32, String)],
) -> HashMap<usize, Option<Vec<CallObserved>>> {
    calls
        .iter()
        .filter_map(|(i, _, _)| match &scenario.calls.get(*i)?.abort {
            Some(AbortPlan::AfterTurns(t)) => {
                let reason = AbortReason::from_option(t.reason.clone());
                Some((*i, abort_points(scenario, *i, &reason).ok()))
            }
            _ => None,
        })
        .collect()
}

/// How many containers deep the `arguments` of `call` nest at most: the
/// longest chain of data properties and slots through objects, arrays and
/// proxies' targets (cycles count once; a copy refuses them anyway). The
/// call may be a proxy, and `arguments` a getter returning the value.
pub fn arguments_depth(built: &Built, call: &Value) -> usize {
    let Value::Ref(mut id) = call else { return 0 };
    for _ in 0..=crate::model::MAX_CHAIN {
        match built.heap.node(id) {
            Some(Node::Proxy(p)) => id = p.target,
            Some(Node::Object(o)) => {
                let root = match o.own(&PropKey::from("arguments")) {
                    Some(Property::Data {
                        value: Value::Ref(root),
                        ..
                    }) => Some(*root),
                    Some(Property::Accessor {
                        getter: Some(g), ..
                    }) => match built.heap.node(*g) {
                        Some(Node::Function(f)) => match &f.script.completion {
                            Completion::Return(Value::Ref(root)) => Some(*root),
                            _ => None,
                        },
                        _ => None,
                    },
                    _ => None,
                };
                return root.map_or(0, |r| depth_from(built, r));
            }
            _ => return 0,
        }
    }
    0
}

/// Longest container chain from `root`, iteratively (a nest may be 10^6
/// deep), each node measured once.
fn depth_from(built: &Built, root: NodeId) -> usize {
    let mut done: HashMap<NodeId, usize> = HashMap::new();
    let mut open: HashMap<NodeId, ()> = HashMap::new();
    let mut stack: Vec<(NodeId, bool)> = vec![(root, false)];
    while let Some((id, children_done)) = stack.pop() {
        if children_done {
            open.remove(&id);
            let deepest = children(built, id)
                .filter_map(|c| done.get(&c).copied())
                .max()
                .unwrap_or(0);
            let own = usize::from(is_container(built, id));
            done.insert(id, deepest + own);
            continue;
        }
        if done.contains_key(&id) || open.contains_key(&id) {
            continue;
        }
        open.insert(id, ());
        stack.push((id, true));
        for c in children(built, id) {
            if !done.contains_key(&c) && !open.contains_key(&c) {
                stack.push((c, false));
            }
        }
    }
    done.get(&root).copied().unwrap_or(0)
}

fn is_container(built: &Built, id: NodeId) -> bool {
    matches!(
        built.heap.node(id),
        Some(Node::Object(_)) | Some(Node::Array(_))
    )
}

fn children(built: &Built, id: NodeId) -> Box<dyn Iterator<Item = NodeId> + '_> {
    let data = |p: &Property| match p {
        Property::Data {
            value: Value::Ref(c),
            ..
        } => Some(*c),
        _ => None,
    };
    match built.heap.node(id) {
        Some(Node::Object(o)) => Box::new(
            o.keys()
                .filter_map(move |k| o.own(k))
                .filter_map(data)
                .collect::<Vec<_>>()
                .into_iter(),
        ),
        Some(Node::Array(a)) => Box::new(a.slots.values().filter_map(data)),
        Some(Node::Proxy(p)) => Box::new(std::iter::once(p.target)),
        _ => Box::new(std::iter::empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::observe;

    fn scenario(arguments: serde_json::Value) -> Scenario {
        serde_json::from_value(serde_json::json!({
            "nodes": {
                "tool": {"$": "object", "props": {
                    "name": "t", "description": "d",
                    "validate": {"$": "function", "returns": {"$": "object", "props": {"ok": true, "value": 1}}},
                    "execute": {"$": "function", "returns": 1}}}
            },
            "registrations": [{"$": "array", "items": [{"ref": "tool"}]}],
            "calls": [{"call": {"$": "object", "props": {
                "type": "toolCall", "id": "c", "name": "t", "arguments": arguments}}}]
        }))
        .expect("a scenario")
    }

    fn refused(o: &Observation) -> Observation {
        let mut o = o.clone();
        o.calls[0].outcome = Outcome::ContractError(ContractCode::InvalidToolCall);
        o.calls[0].trace.clear();
        o
    }

    #[test]
    fn refusing_arguments_deeper_than_the_limit_is_excused() {
        let deep = scenario(serde_json::json!({"$": "object", "props": {
            "deep": {"$": "nest", "depth": HOST_DEFINED_ARGUMENT_DEPTH, "kind": "array"}}}));
        let expected = observe(&deep).expect("observed");
        let (adjusted, notes) = excuse(&deep, &expected, &refused(&expected)).expect("excused");
        assert_eq!(adjusted, expected);
        assert_eq!(notes.len(), 1, "{notes:?}");
    }

    #[test]
    fn refusing_arguments_at_the_limit_is_not_excused() {
        let shallow = scenario(serde_json::json!({"$": "object", "props": {
            "deep": {"$": "nest", "depth": HOST_DEFINED_ARGUMENT_DEPTH - 1, "kind": "object"}}}));
        let built = build(&shallow).expect("built");
        assert_eq!(
            arguments_depth(&built, &built.calls[0]),
            HOST_DEFINED_ARGUMENT_DEPTH,
            "the arguments object and the nest's containers"
        );
        let expected = observe(&shallow).expect("observed");
        assert!(excuse(&shallow, &expected, &refused(&expected)).is_none());
    }

    #[test]
    fn arguments_read_through_a_getter_are_measured() {
        let s: Scenario = serde_json::from_value(serde_json::json!({
            "calls": [{"call": {"$": "proxy", "target": {"$": "object",
                "props": {"type": "toolCall", "id": "c", "name": "t"},
                "define": [{"key": "arguments", "get": {"$": "function", "returns":
                    {"$": "object", "props": {"deep": {"$": "nest", "depth": 5}}}}}]}}}]
        }))
        .expect("a scenario");
        let built = build(&s).expect("built");
        assert_eq!(arguments_depth(&built, &built.calls[0]), 6);
    }

    /// Two calls of one sweep (an output with a `then` getter) aborted after
    /// 0 and 1 turns: another implementation's turns may land elsewhere,
    /// but only at the reference's points and in order.
    #[test]
    fn aborts_after_turns_are_judged_by_point_and_order() {
        let calls: Vec<serde_json::Value> = [0, 1]
            .map(|turns| {
                serde_json::json!({
                    "call": {"$": "object", "props": {"type": "toolCall", "id": "c", "name": "t",
                        "arguments": {"$": "object"}}},
                    "abort": {"afterTurns": {"turns": turns, "reason": "stop"}}})
            })
            .to_vec();
        let s: Scenario = serde_json::from_value(serde_json::json!({
            "nodes": {
                "getter": {"$": "function", "returns": 5},
                "tool": {"$": "object", "props": {"name": "t", "description": "d",
                    "validate": {"$": "function", "returns": {"$": "object", "props": {"ok": true, "value": 1}}},
                    "execute": {"$": "function", "returns": {"$": "object", "props": {"x": 1},
                        "define": [{"key": "then", "get": {"ref": "getter"}}]}}}}
            },
            "registrations": [{"$": "array", "items": [{"ref": "tool"}]}],
            "calls": calls
        }))
        .expect("a scenario");
        let expected = observe(&s).expect("observed");
        let reason = AbortReason::Value(serde_json::json!("stop"));
        let points = abort_points(&s, 0, &reason).expect("points");
        assert_eq!(points.len(), 3);
        let with = |first: usize, second: usize| {
            let mut o = expected.clone();
            o.calls[0] = points[first].clone();
            o.calls[1] = points[second].clone();
            o
        };
        // the reference's own turns: no excuse needed
        assert_eq!(with(0, 1), expected);
        // a slower implementation: both turns land at the first point
        let (adjusted, notes) = excuse(&s, &expected, &with(0, 0)).expect("excused");
        assert_eq!(adjusted, expected);
        assert_eq!(notes.len(), 1, "{notes:?}");
        // a faster one: both at the last point (the result)
        assert!(excuse(&s, &expected, &with(2, 2)).is_some());
        // going back is not excused
        let back = with(2, 0);
        let kept = excuse(&s, &expected, &back).map_or(back.clone(), |(a, _)| a);
        assert_ne!(kept.calls[1], expected.calls[1]);
        // nor is a trace no point has
        let mut odd = expected.clone();
        odd.calls[1].trace.pop();
        assert!(excuse(&s, &expected, &odd).is_none());
    }

    #[test]
    fn equal_observations_need_no_excuse() {
        let s = scenario(serde_json::json!({"$": "object"}));
        let expected = observe(&s).expect("observed");
        assert!(excuse(&s, &expected, &expected).is_none());
    }
}
