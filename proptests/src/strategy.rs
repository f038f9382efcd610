//! proptest strategies for plans. Sizes are weighted so that small cases are
//! common and budget-crossing ones frequent; every strategy shrinks toward
//! the first (plainest, smallest) alternative.

use crate::plan::*;
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

/// Strings as code units: ASCII, controls, quotes, BMP, lone and paired
/// surrogates.
pub fn str_plan() -> impl Strategy<Value = StrPlan> {
    let unit = prop_oneof![
        6 => 0x61u16..0x7b,
        1 => 0u16..0x20,
        1 => select(vec![0x22u16, 0x5c, 0x7f, 0x2028, 0x2029, 0xffff, 0xe9]),
        1 => 0xd800u16..0xe000,
    ];
    prop_oneof![
        4 => vec(unit.clone(), 0..6),
        1 => vec(unit, 0..40),
        1 => select(vec![vec![0xd83du16, 0xde00], vec![0xdc00, 0xd800]]),
    ]
    .prop_map(StrPlan)
}

fn thrown_plan() -> impl Strategy<Value = ThrownPlan> {
    prop_oneof![
        3 => Just(ThrownPlan::Error(Some("boom".into()))),
        1 => Just(ThrownPlan::Error(None)),
        1 => Just(ThrownPlan::Text("plain failure".into())),
        1 => Just(ThrownPlan::Text(String::new())),
        1 => Just(ThrownPlan::Number),
        1 => Just(ThrownPlan::ObjectWithMessage("object message".into())),
        1 => Just(ThrownPlan::MessageGetter),
        2 => any::<bool>().prop_map(|subclass| ThrownPlan::NonRecoverable { subclass }),
        1 => Just(ThrownPlan::FieldLookAlike),
        1 => Just(ThrownPlan::PrototypeLookAlike),
        1 => Just(ThrownPlan::ContractErrorLookAlike),
    ]
}

/// Large values that cross a budget but stay cheap to build.
fn crossing_plan() -> impl Strategy<Value = LargePlan> {
    prop_oneof![
        (30u32..36, any::<bool>()).prop_map(|(depth, array)| LargePlan::Nest { depth, array }),
        prop_oneof![120u32..140, 250u32..262].prop_map(LargePlan::WideObject),
        prop_oneof![120u32..140, 250u32..262].prop_map(LargePlan::WideArray),
        (2u32..300).prop_map(LargePlan::Sparse),
        // around the output cap: 4094 one-code-point characters fill it exactly
        (0u8..3, 4_088u32..4_100).prop_map(|(piece, times)| LargePlan::LongString { piece, times }),
        (3u8..5, 1_000u32..2_100).prop_map(|(piece, times)| LargePlan::LongString { piece, times }),
        (4_090u32..4_100).prop_map(LargePlan::HugeBigInt),
        (1u16..40, 1u32..300).prop_map(|(count, length)| LargePlan::LongKeys { count, length }),
    ]
}

/// Large values up to the sizes of the issue: 10^5 deep and wide, 10^6
/// sparse slots, 10^7 code units, 2^(10^6).
fn huge_plan() -> impl Strategy<Value = LargePlan> {
    prop_oneof![
        (1_000u32..100_000, any::<bool>())
            .prop_map(|(depth, array)| LargePlan::Nest { depth, array }),
        (1_000u32..100_000).prop_map(LargePlan::WideObject),
        (1_000u32..100_000).prop_map(LargePlan::WideArray),
        (100_000u32..1_000_000).prop_map(LargePlan::Sparse),
        (0u8..5, 10_000u32..5_000_000)
            .prop_map(|(piece, times)| LargePlan::LongString { piece, times }),
        (10_000u32..1_000_000).prop_map(LargePlan::HugeBigInt),
        (200u16..300, 5_000u32..20_000)
            .prop_map(|(count, length)| LargePlan::LongKeys { count, length }),
    ]
}

/// Plain data: what a model sends as arguments.
fn json_plan() -> impl Strategy<Value = ValuePlan> {
    let leaf = prop_oneof![
        Just(ValuePlan::Null),
        any::<bool>().prop_map(ValuePlan::Bool),
        (-1000i32..1000).prop_map(|n| ValuePlan::Number(f64::from(n))),
        Just(ValuePlan::Number(-0.0)),
        str_plan().prop_map(ValuePlan::Str),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec((0u8..12, inner.clone()), 0..4).prop_map(|props| ValuePlan::Object(ObjectPlan {
                props: props.into_iter().map(|(k, v)| (KeyPlan(k), v)).collect(),
                proto: ObjectProto::Plain,
                accessor: false,
                hidden: false,
                symbol_key: false,
            })),
            vec(inner.prop_map(SlotPlan::Value), 0..4).prop_map(ValuePlan::Array),
        ]
    })
}

fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => (-1000i32..1000).prop_map(f64::from),
        1 => select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 1e21, 5e-7, 0.1, f64::MAX, f64::MIN_POSITIVE, 9_007_199_254_740_993.0]),
        1 => any::<f64>(),
    ]
}

fn leaf() -> impl Strategy<Value = ValuePlan> {
    prop_oneof![
        2 => Just(ValuePlan::Null),
        2 => any::<bool>().prop_map(ValuePlan::Bool),
        4 => number().prop_map(ValuePlan::Number),
        4 => str_plan().prop_map(ValuePlan::Str),
        1 => prop_oneof![
            any::<i64>().prop_map(BigPlan::Small),
            (any::<bool>(), 60u64..4200, any::<i8>()).prop_map(|(negative, exp, offset)| BigPlan::Power { negative, exp, offset }),
        ]
        .prop_map(ValuePlan::BigInt),
        1 => Just(ValuePlan::Undefined),
        1 => Just(ValuePlan::Symbol),
        1 => Just(ValuePlan::Function),
        1 => (0u8..3).prop_map(ValuePlan::Ancestor),
        1 => crossing_plan().prop_map(ValuePlan::Large),
        1 => select(vec![
            UnsupportedProto::Date, UnsupportedProto::Map, UnsupportedProto::Set, UnsupportedProto::RegExp,
            UnsupportedProto::Boxed, UnsupportedProto::Class, UnsupportedProto::ArrayProtoOnObject, UnsupportedProto::Promise,
        ])
        .prop_map(ValuePlan::Unsupported),
    ]
}

fn trap_plan() -> impl Strategy<Value = TrapPlan> {
    let name = select(vec![
        TrapName::GetPrototypeOf,
        TrapName::OwnKeys,
        TrapName::GetOwnPropertyDescriptor,
    ]);
    prop_oneof![
        2 => Just(TrapPlan::PassThrough),
        2 => (name.clone(), thrown_plan()).prop_map(|(n, t)| TrapPlan::Throws(n, t)),
        1 => name.prop_map(TrapPlan::Aborts),
        1 => Just(TrapPlan::Revoked),
    ]
}

/// Tool outputs and decision values: trees of containers with every kind of
/// leaf, sharing, cycles, proxies and large families.
pub fn value_plan() -> impl Strategy<Value = ValuePlan> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        let object = (
            vec((0u8..12, inner.clone()), 0..6),
            prop_oneof![4 => Just(ObjectProto::Plain), 1 => Just(ObjectProto::Null), 1 => Just(ObjectProto::OtherRealm)],
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.2),
            prop::bool::weighted(0.2),
        )
            .prop_map(|(props, proto, accessor, hidden, symbol_key)| {
                ValuePlan::Object(ObjectPlan {
                    props: props.into_iter().map(|(k, v)| (KeyPlan(k), v)).collect(),
                    proto,
                    accessor,
                    hidden,
                    symbol_key,
                })
            });
        let slot = prop_oneof![
            6 => inner.clone().prop_map(SlotPlan::Value),
            1 => Just(SlotPlan::Hole),
            1 => Just(SlotPlan::Accessor),
        ];
        prop_oneof![
            3 => object,
            2 => vec(slot, 0..6).prop_map(ValuePlan::Array),
            1 => inner.clone().prop_map(|v| ValuePlan::Shared(Box::new(v))),
            1 => (inner, trap_plan()).prop_map(|(v, t)| ValuePlan::Proxy(Box::new(v), t)),
        ]
    })
}

fn then_plan() -> impl Strategy<Value = ThenPlan> {
    prop_oneof![
        Just(ThenPlan::Method),
        leaf().prop_map(ThenPlan::Resolves),
        thrown_plan().prop_map(ThenPlan::Rejects),
        thrown_plan().prop_map(ThenPlan::MethodThrows),
        thrown_plan().prop_map(ThenPlan::GetterThrows),
        Just(ThenPlan::NotAFunction),
    ]
}

/// An executor's output: usually a tree, sometimes a huge value, and often
/// a string whose quoted form is within a few code points of the output cap
/// (4094 characters fill it exactly).
pub fn output_plan() -> impl Strategy<Value = ValuePlan> {
    prop_oneof![
        12 => value_plan(),
        2 => (4_090u32..4_100).prop_map(|times| ValuePlan::Large(LargePlan::LongString { piece: 0, times })),
        // an output whose inspection aborts or throws: the checks after serialization
        1 => (select(vec![TrapName::GetPrototypeOf, TrapName::OwnKeys, TrapName::GetOwnPropertyDescriptor]), any::<bool>()).prop_map(|(name, abort)| {
            let target = ValuePlan::Object(ObjectPlan {
                props: vec![(KeyPlan(0), ValuePlan::Number(1.0))],
                proto: ObjectProto::Plain,
                accessor: false,
                hidden: false,
                symbol_key: false,
            });
            let trap = if abort { TrapPlan::Aborts(name) } else { TrapPlan::Throws(name, ThrownPlan::Error(Some("trap".into()))) };
            ValuePlan::Array(vec![SlotPlan::Value(ValuePlan::Proxy(Box::new(target), trap))])
        }),
        1 => huge_plan().prop_map(ValuePlan::Large),
    ]
}

/// Validators of every kind.
pub fn validator_plan() -> impl Strategy<Value = ValidatorPlan> {
    let base = prop_oneof![
        20 => json_plan().prop_map(ValidatorPlan::Accept),
        1 => value_plan().prop_map(ValidatorPlan::Accept),
        3 => prop_oneof![Just("left must be a number".to_string()), Just("  padded  ".to_string()), "[a-z ]{1,20}"].prop_map(ValidatorPlan::Reject),
        2 => thrown_plan().prop_map(ValidatorPlan::Throw),
        2 => select(vec![
            MalformedDecision::Undefined, MalformedDecision::Text, MalformedDecision::Empty, MalformedDecision::OkNotBoolean,
            MalformedDecision::AcceptWithoutValue, MalformedDecision::RejectWithoutError, MalformedDecision::RejectBlankError,
        ])
        .prop_map(ValidatorPlan::Malformed),
        1 => select(vec![PromiseState::Fulfilled, PromiseState::Rejected, PromiseState::Pending]).prop_map(ValidatorPlan::Promise),
        2 => then_plan().prop_map(ValidatorPlan::Thenable),
        1 => (any::<bool>(), proptest::option::of(thrown_plan())).prop_map(|(aborts, throws)| ValidatorPlan::DecisionGetter { aborts, throws }),
    ];
    prop_oneof![
        8 => base.clone(),
        1 => base.prop_map(|v| ValidatorPlan::Aborting(Box::new(v))),
    ]
}

/// Executors of every kind.
pub fn executor_plan() -> impl Strategy<Value = ExecutorPlan> {
    let base = prop_oneof![
        8 => output_plan().prop_map(ExecutorPlan::Returns),
        2 => thrown_plan().prop_map(ExecutorPlan::Throws),
        2 => thrown_plan().prop_map(ExecutorPlan::Rejects),
        2 => output_plan().prop_map(ExecutorPlan::Fulfills),
        2 => (any::<bool>(), proptest::option::of(any::<bool>())).prop_map(|(listen, late)| ExecutorPlan::Pending { listen, late }),
        1 => then_plan().prop_map(ExecutorPlan::Thenable),
    ];
    prop_oneof![
        8 => base.clone(),
        1 => base.prop_map(|e| ExecutorPlan::Aborting(Box::new(e))),
    ]
}

fn field() -> impl Strategy<Value = Field> {
    select(Field::ALL.to_vec())
}

fn tool_plan() -> impl Strategy<Value = ToolPlan> {
    let name = prop_oneof![
        60 => (0u8..16).prop_map(NamePlan::Plain),
        1 => (0u8..3).prop_map(NamePlan::Padded),
        1 => (0u8..6).prop_map(NamePlan::Blank),
        1 => Just(NamePlan::Empty),
    ];
    let definition = prop_oneof![
        100 => Just(DefinitionShape::Plain),
        2 => Just(DefinitionShape::Getters),
        1 => Just(DefinitionShape::Proxy),
        1 => field().prop_map(DefinitionShape::ThrowingGetter),
        1 => field().prop_map(DefinitionShape::Inherited),
        1 => field().prop_map(DefinitionShape::Missing),
        1 => field().prop_map(DefinitionShape::WrongType),
    ];
    (name, definition, validator_plan(), executor_plan()).prop_map(
        |(name, definition, validator, executor)| ToolPlan {
            name,
            definition,
            validator,
            executor,
        },
    )
}

fn batch_plan() -> impl Strategy<Value = BatchPlan> {
    let shape = prop_oneof![
        60 => Just(BatchShape::Array),
        1 => (0usize..3).prop_map(BatchShape::HoleAt),
        1 => Just(BatchShape::NotAnArray),
        1 => Just(BatchShape::ProxyToArray),
        1 => Just(BatchShape::RevokedProxy),
    ];
    (
        prop_oneof![1 => vec(tool_plan(), 0..1), 8 => vec(tool_plan(), 1..4)],
        shape,
    )
        .prop_map(|(tools, shape)| BatchPlan { tools, shape })
}

fn call_field() -> impl Strategy<Value = CallField> {
    select(vec![
        CallField::Type,
        CallField::Id,
        CallField::Name,
        CallField::Arguments,
    ])
}

fn arguments_plan() -> impl Strategy<Value = ArgumentsPlan> {
    prop_oneof![
        60 => json_plan().prop_map(ArgumentsPlan::Value),
        2 => value_plan().prop_map(ArgumentsPlan::Value),
        1 => Just(ArgumentsPlan::NullPrototype),
        1 => Just(ArgumentsPlan::OtherRealm),
        1 => Just(ArgumentsPlan::WithHole),
        1 => Just(ArgumentsPlan::Cycle),
        1 => prop_oneof![1u32..50, 1_000u32..100_000].prop_map(ArgumentsPlan::Deep),
        1 => prop_oneof![1u32..300, 1_000u32..100_000].prop_map(ArgumentsPlan::Wide),
        1 => Just(ArgumentsPlan::ThrowingGetter),
    ]
}

fn abort_plan() -> impl Strategy<Value = AbortPlanGen> {
    let reason = prop_oneof![
        Just(None),
        Just(Some(serde_json::json!("stop"))),
        Just(Some(serde_json::json!({"why": "user", "n": [1, 2]}))),
        Just(Some(serde_json::Value::Null)),
    ];
    prop_oneof![
        8 => Just(AbortPlanGen::None),
        1 => reason.clone().prop_map(AbortPlanGen::Before),
        3 => reason.clone().prop_map(AbortPlanGen::WhenPending),
        1 => (0u8..8, reason).prop_map(|(upto, reason)| AbortPlanGen::Sweep { upto, reason }),
    ]
}

fn call_plan() -> impl Strategy<Value = CallPlan> {
    let target = prop_oneof![16 => (0u8..8).prop_map(Target::Tool), 1 => Just(Target::Unknown)];
    let id = prop_oneof![30 => (0u8..4).prop_map(IdPlan::Plain), 2 => Just(IdPlan::Astral), 1 => Just(IdPlan::Blank)];
    let shape = prop_oneof![
        80 => Just(CallShape::Plain),
        2 => Just(CallShape::Getters),
        1 => Just(CallShape::AbortingGetter),
        1 => call_field().prop_map(CallShape::ThrowingGetter),
        1 => call_field().prop_map(CallShape::Inherited),
        1 => call_field().prop_map(CallShape::Missing),
        1 => call_field().prop_map(CallShape::WrongType),
        1 => Just(CallShape::RevokedProxy),
        1 => Just(CallShape::NotAnObject),
    ];
    (
        target,
        id,
        shape,
        arguments_plan(),
        abort_plan(),
        prop::bool::weighted(0.97),
    )
        .prop_map(
            |(target, id, shape, arguments, abort, real_registry)| CallPlan {
                target,
                id,
                shape,
                arguments,
                abort,
                real_registry,
            },
        )
}

/// Whole scenarios: one to three batches, one to three calls.
pub fn plan() -> impl Strategy<Value = Plan> {
    let batches = prop_oneof![4 => vec(batch_plan(), 1..2), 1 => vec(batch_plan(), 2..4)];
    (batches, vec(call_plan(), 1..4)).prop_map(|(batches, calls)| Plan { batches, calls })
}
