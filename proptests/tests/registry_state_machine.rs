//! A stateful test of the Rust API's registry and calls against a simple
//! model: sequences of `register`, `register_many`, `snapshot` and
//! `execute_tool_call` on several registries (snapshots included) must
//! agree with a list of names per registry. CORE-REG-04/05/07/08,
//! CORE-CALL-07, CORE-RES-04.

use proptest::prelude::*;
use proptest_state_machine::{prop_state_machine, ReferenceStateMachine, StateMachineTest};
use serde_json::json;
use toolgate_core::api::{execute_tool_call, Decision, FnTool, Output, ToolRegistry};
use toolgate_core::{AbortSignal, ContractCode};

/// Names from a small pool: duplicates, near-duplicates and blank names
/// are frequent.
const NAMES: [&str; 6] = ["a", "b", "c", " a", "", "\u{3000}"];

#[derive(Clone, Debug)]
enum Step {
    Register(usize, usize),
    RegisterMany(usize, Vec<usize>),
    Snapshot(usize),
    Execute(usize, usize),
}

/// What the last step must have given.
#[derive(Clone, Debug, PartialEq)]
enum Expected {
    Nothing,
    Registered,
    Refused(ContractCode),
    Found(bool),
}

#[derive(Clone, Debug)]
struct Model {
    registries: Vec<Vec<&'static str>>,
    last: Expected,
}

struct RegistryModel;

fn name(i: usize) -> &'static str {
    NAMES.get(i % NAMES.len()).copied().unwrap_or("a")
}

impl ReferenceStateMachine for RegistryModel {
    type State = Model;
    type Transition = Step;

    fn init_state() -> BoxedStrategy<Model> {
        Just(Model {
            registries: vec![Vec::new()],
            last: Expected::Nothing,
        })
        .boxed()
    }

    fn transitions(state: &Model) -> BoxedStrategy<Step> {
        let registries = state.registries.len();
        prop_oneof![
            3 => (0..registries, 0..NAMES.len()).prop_map(|(r, n)| Step::Register(r, n)),
            3 => (0..registries, proptest::collection::vec(0..NAMES.len(), 0..4)).prop_map(|(r, ns)| Step::RegisterMany(r, ns)),
            1 => (0..registries).prop_map(Step::Snapshot),
            3 => (0..registries, 0..NAMES.len()).prop_map(|(r, n)| Step::Execute(r, n)),
        ]
        .boxed()
    }

    fn preconditions(state: &Model, step: &Step) -> bool {
        let r = match step {
            Step::Register(r, _)
            | Step::RegisterMany(r, _)
            | Step::Snapshot(r)
            | Step::Execute(r, _) => *r,
        };
        r < state.registries.len()
    }

    fn apply(mut state: Model, step: &Step) -> Model {
        let batch: Vec<&'static str> = match step {
            Step::Register(_, n) => vec![name(*n)],
            Step::RegisterMany(_, ns) => ns.iter().map(|n| name(*n)).collect(),
            Step::Snapshot(r) => {
                let copy = state.registries.get(*r).cloned().unwrap_or_default();
                state.registries.push(copy);
                state.last = Expected::Nothing;
                return state;
            }
            Step::Execute(r, n) => {
                let found = state
                    .registries
                    .get(*r)
                    .is_some_and(|names| names.contains(&name(*n)));
                state.last = Expected::Found(found);
                return state;
            }
        };
        let r = match step {
            Step::Register(r, _) | Step::RegisterMany(r, _) => *r,
            _ => 0,
        };
        let Some(names) = state.registries.get_mut(r) else {
            return state;
        };
        state.last = if batch
            .iter()
            .any(|n| n.trim().is_empty() || *n == "\u{3000}")
        {
            Expected::Refused(ContractCode::InvalidToolDefinition)
        } else if batch
            .iter()
            .enumerate()
            .any(|(i, n)| names.contains(n) || batch[..i].contains(n))
        {
            Expected::Refused(ContractCode::DuplicateToolName)
        } else {
            names.extend(batch);
            Expected::Registered
        };
        state
    }
}

struct RegistryTest;

fn tool(name: &'static str) -> std::sync::Arc<dyn toolgate_core::api::Tool> {
    FnTool::new(
        name,
        "echoes",
        |args| Ok(Decision::Accept(args.clone())),
        move |value, ctx| async move {
            Ok(Output::Json(
                json!({"tool": name, "call": ctx.tool_call_id, "value": value}),
            ))
        },
    )
    .into_tool()
}

fn check(outcome: Expected, expected: &Expected, step: &Step) {
    assert_eq!(&outcome, expected, "after {step:?}");
}

impl StateMachineTest for RegistryTest {
    type SystemUnderTest = Vec<ToolRegistry>;
    type Reference = RegistryModel;

    fn init_test(_: &Model) -> Vec<ToolRegistry> {
        vec![ToolRegistry::new()]
    }

    fn apply(mut sut: Vec<ToolRegistry>, model: &Model, step: Step) -> Vec<ToolRegistry> {
        let registered = |result: Result<(), toolgate_core::Error>| match result {
            Ok(()) => Expected::Registered,
            Err(e) => Expected::Refused(e.contract_code().unwrap_or(ContractCode::InvalidToolCall)),
        };
        match &step {
            Step::Register(r, n) => {
                let outcome = registered(sut[*r].register(tool(name(*n))));
                check(outcome, &model.last, &step);
            }
            Step::RegisterMany(r, ns) => {
                let outcome =
                    registered(sut[*r].register_many(ns.iter().map(|n| tool(name(*n))).collect()));
                check(outcome, &model.last, &step);
            }
            Step::Snapshot(r) => {
                let copy = sut[*r].snapshot();
                sut.push(copy);
            }
            Step::Execute(r, n) => {
                let call =
                    json!({"type": "toolCall", "id": "c", "name": name(*n), "arguments": {"x": 1}});
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                let result =
                    runtime.block_on(execute_tool_call(&sut[*r], &call, &AbortSignal::new()));
                // blank names are refused as calls; everything else is a result
                let outcome = match result {
                    Ok(result) => Expected::Found(!result.is_error),
                    Err(e) => {
                        assert_eq!(
                            e.contract_code(),
                            Some(ContractCode::InvalidToolCall),
                            "after {step:?}"
                        );
                        Expected::Found(false)
                    }
                };
                check(outcome, &model.last, &step);
            }
        }
        sut
    }

    fn check_invariants(sut: &Vec<ToolRegistry>, model: &Model) {
        assert_eq!(sut.len(), model.registries.len());
        for (registry, names) in sut.iter().zip(&model.registries) {
            assert_eq!(registry.names(), *names);
            assert_eq!(registry.size(), names.len());
        }
    }
}

prop_state_machine! {
    #![proptest_config(toolgate_proptests::knobs::config(1024, "proptest-regressions/registry_state_machine.txt"))]
    #[test]
    fn registry_and_calls_agree_with_a_list_of_names(sequential 1..40 => RegistryTest);
}
