//! The families of `toolgate bench` (runner/BENCH.md), built as whole tool
//! calls on the reference.
//!
//! An adapter times `executeToolCall` (or its runtime's turn) end to end, so
//! the reference is timed the same way: a model heap holding a tool
//! definition and the calls, registered once, each call run by
//! `drive_call`. Output families are the serializer's hostile values of
//! [`crate::families`] returned by the tool; argument families put the
//! hostile value in the call's `arguments` (which every implementation
//! copies before validation) and the tool returns `"ok"`.
//!
//! [`catalogue`] is the language-neutral list: names, what a size counts,
//! the sizes, and from which size an exact bounded serializer's work no
//! longer grows. Every adapter builds the same values from BENCH.md; the
//! runner compares the JavaScript implementation's output with this one's,
//! byte for byte, so a builder that drifts is seen.

use crate::{family, Input};
use toolgate_core::model::{
    definition::register, drive_call, Driven, Heap, HeapBuilder, ModelRegistry, Node, ObjectNode,
    Property, Proto, RegistryArg, Runtime, Trace, Value,
};
use toolgate_core::{AbortSignal, Error, ErrorKind, JsString, ToolResult};

/// What a family's hostile value is to the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The tool returns it: the serializer's budgets bound the work.
    Output,
    /// The call carries it as arguments: copied in full before validation.
    Arguments,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Output => "output",
            Kind::Arguments => "arguments",
        }
    }
}

/// A family of `toolgate bench`.
#[derive(Debug, Clone, Copy)]
pub struct BenchFamily {
    pub name: &'static str,
    pub kind: Kind,
    /// What a size counts.
    pub unit: &'static str,
    /// Sizes, ascending.
    pub sizes: &'static [u64],
    /// The size from which an implementation that keeps the contract's
    /// budgets does no more work (None: the work is meant to grow).
    pub saturates_at: Option<u64>,
    pub about: &'static str,
}

const POWERS_6: &[u64] = &[100, 1_000, 10_000, 100_000, 1_000_000];
const POWERS_7: &[u64] = &[100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

/// Every family, in table order.
pub fn catalogue() -> Vec<BenchFamily> {
    use Kind::{Arguments, Output};
    let output = |name, unit, sizes, saturates_at: u64, about| BenchFamily {
        name,
        kind: Output,
        unit,
        sizes,
        saturates_at: Some(saturates_at),
        about,
    };
    vec![
        output(
            "wide_object",
            "keys",
            POWERS_6,
            1_000,
            "{k0: 0, k1: 1, ...}: 256 entries are read",
        ),
        output(
            "wide_array",
            "slots",
            POWERS_6,
            1_000,
            "[0, 1, 2, ...]: 128 values are read",
        ),
        output(
            "sparse_array",
            "length",
            POWERS_7,
            1_000,
            "length n, slots 0, n/2 and n-1 set: 256 slots are read",
        ),
        output(
            "deep_nest",
            "levels",
            POWERS_6,
            100,
            "[[[...]]]: 33 levels are read",
        ),
        output(
            "cyclic",
            "objects",
            POWERS_6,
            100,
            "a ring of {a: self, b: root, c: prev, d: next}",
        ),
        output(
            "shared_paths",
            "paths",
            &[
                128,
                1_024,
                16_384,
                131_072,
                1_048_576,
                16_777_216,
                4_294_967_296,
            ],
            1_024,
            "log2(n) levels of {a: next, b: next}: n paths through log2(n)+1 objects",
        ),
        output(
            "string_ascii",
            "characters",
            POWERS_7,
            10_000,
            "printable ASCII: 4096 characters are read",
        ),
        output(
            "string_escapes",
            "characters",
            POWERS_7,
            10_000,
            "U+0000..U+001F: six characters written per character read",
        ),
        output(
            "string_surrogates",
            "code units",
            POWERS_7,
            10_000,
            "a pair (U+1F600) then a lone high surrogate, repeated",
        ),
        output(
            "bigint",
            "bits",
            POWERS_6,
            10_000,
            "2^n: written below 2^4096, cut without conversion above",
        ),
        output(
            "long_keys",
            "prefix units",
            &[100, 1_000, 8_190, 10_000, 100_000, 1_000_000],
            10_000,
            "256 shuffled keys sharing an n-unit prefix",
        ),
        output(
            "worst_mix",
            "tail units",
            &[100, 1_000, 10_000, 100_000, 1_000_000],
            100,
            "3 BigInts near 2^4095 and 252 keys equal over 8190 units, with an n-unit tail",
        ),
        BenchFamily {
            name: "args_wide",
            kind: Arguments,
            unit: "keys",
            sizes: POWERS_6,
            saturates_at: None,
            about: "arguments {k0: 0, k1: 1, ...}",
        },
        BenchFamily {
            name: "args_deep",
            kind: Arguments,
            unit: "levels",
            sizes: &[100, 1_000, 10_000, 100_000],
            saturates_at: None,
            about: "arguments {a: {a: ... {}}}",
        },
        BenchFamily {
            name: "args_long_string",
            kind: Arguments,
            unit: "characters",
            sizes: POWERS_7,
            saturates_at: None,
            about: "arguments {text: <n printable ASCII characters>}",
        },
        BenchFamily {
            name: "many_calls",
            kind: Arguments,
            unit: "calls",
            sizes: &[10, 100, 1_000, 10_000],
            saturates_at: None,
            about: "n calls {i: <index>} in one batch; the time is the batch's",
        },
    ]
}

/// The family of this name.
pub fn bench_family(name: &str) -> Option<BenchFamily> {
    catalogue().into_iter().find(|f| f.name == name)
}

/// The tool's name in every family's calls.
pub const TOOL: &str = "bench";

/// A family at one size as a heap with a definition and calls, ready to be
/// registered and run any number of times.
pub struct CallInput {
    heap: Heap,
    definition: Value,
    calls: Vec<Value>,
}

/// A [`CallInput`] registered on a runtime.
pub struct PreparedCall<'a> {
    rt: Runtime<'a>,
    trace: Trace,
    registry: ModelRegistry,
    calls: &'a [Value],
}

/// Why a family could not be built or run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError(pub String);

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a run of the calls did not give results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The model of the host does not model this input (arguments of more
    /// than a million values): a limit of the reference, not a result.
    OutsideModel(String),
    /// Anything else: a bench bug.
    Broken(String),
}

/// `{type: "toolCall", id, name: "bench", arguments}`.
fn call(b: &mut HeapBuilder, id: &str, arguments: Value) -> Value {
    Value::Ref(b.object([
        ("type", Value::from("toolCall")),
        ("id", Value::from(id)),
        ("name", Value::from(TOOL)),
        ("arguments", arguments),
    ]))
}

/// The definition `{name: "bench", description, validate, execute}`: the
/// validator accepts (with `{}` as the value, since a script returns a fixed
/// value), the executor returns `returns`.
fn definition(b: &mut HeapBuilder, returns: Value) -> Value {
    let decision = b.object([("ok", Value::Bool(true)), ("value", Value::Undefined)]);
    let empty = b.object::<&str, Value>([]);
    if let Some(o) = b.object_mut(decision) {
        o.define("value", Property::data(empty));
    }
    let validate = b.returning(decision);
    let execute = b.returning(returns);
    Value::Ref(b.object([
        ("name", Value::from(TOOL)),
        ("description", Value::from("a benchmark tool")),
        ("validate", Value::Ref(validate)),
        ("execute", Value::Ref(execute)),
    ]))
}

/// The output families' value, as the serializer bench builds it (which
/// counts `shared_paths` in levels, where this catalogue counts the paths
/// they make, the input's real size: 2^levels).
fn output_value(name: &str, size: u64) -> Result<(HeapBuilder, Value), BuildError> {
    let family = family(name).ok_or_else(|| BuildError(format!("no family {name}")))?;
    let size = if name == "shared_paths" {
        if !size.is_power_of_two() {
            return Err(BuildError(format!(
                "shared_paths: {size} paths is not a power of two"
            )));
        }
        u64::from(size.trailing_zeros())
    } else {
        size
    };
    match (family.build)(size) {
        Input::Model { heap, root } => Ok((heap.into_builder(), root)),
        Input::Json(_) => Err(BuildError(format!("{name} is a serde_json family"))),
    }
}

fn ascii(n: u64) -> JsString {
    let pattern: Vec<u16> = (0x20u16..0x7F)
        .filter(|&c| c != 0x22 && c != 0x5C)
        .collect();
    let len = usize::try_from(n).unwrap_or(usize::MAX);
    JsString::from_units(
        pattern
            .iter()
            .copied()
            .cycle()
            .take(len)
            .collect::<Vec<_>>(),
    )
}

/// Builds `name` at `size`.
pub fn build(name: &str, size: u64) -> Result<CallInput, BuildError> {
    let family = bench_family(name).ok_or_else(|| BuildError(format!("no bench family {name}")))?;
    let (b, definition, calls) = match family.kind {
        Kind::Output => {
            let (mut b, root) = output_value(name, size)?;
            let definition = definition(&mut b, root);
            let args = b.object::<&str, Value>([]);
            let calls = vec![call(&mut b, "call-1", Value::Ref(args))];
            (b, definition, calls)
        }
        Kind::Arguments => {
            // (an output family's size may pass u32: 2^32 paths)
            let count = u32::try_from(size)
                .map_err(|_| BuildError(format!("{name}: size {size} is too large")))?;
            let mut b = HeapBuilder::new();
            let definition = definition(&mut b, Value::from("ok"));
            let mut calls = Vec::new();
            match name {
                "args_wide" => {
                    let mut o = ObjectNode::new(Proto::ObjectPrototype);
                    for i in 0..count {
                        o.define(
                            JsString::new(&format!("k{i}")),
                            Property::data(f64::from(i)),
                        );
                    }
                    let args = b.alloc(Node::Object(o));
                    calls.push(call(&mut b, "call-1", Value::Ref(args)));
                }
                "args_deep" => {
                    let mut args = b.object::<&str, Value>([]);
                    for _ in 1..count {
                        args = b.object([("a", Value::Ref(args))]);
                    }
                    calls.push(call(&mut b, "call-1", Value::Ref(args)));
                }
                "args_long_string" => {
                    let args = b.object([("text", Value::from(ascii(size)))]);
                    calls.push(call(&mut b, "call-1", Value::Ref(args)));
                }
                "many_calls" => {
                    for i in 0..count {
                        let args = b.object([("i", Value::from(f64::from(i)))]);
                        calls.push(call(&mut b, &format!("call-{}", i + 1), Value::Ref(args)));
                    }
                }
                other => return Err(BuildError(format!("no argument family {other}"))),
            }
            (b, definition, calls)
        }
    };
    let heap = b
        .finish()
        .map_err(|e| BuildError(format!("{name} {size}: {e}")))?;
    Ok(CallInput {
        heap,
        definition,
        calls,
    })
}

impl CallInput {
    /// The runtime over the heap with the tool registered: not measured.
    pub fn prepare(&self) -> Result<PreparedCall<'_>, BuildError> {
        let trace = Trace::default();
        let rt = Runtime::new(&self.heap, AbortSignal::new(), trace.clone());
        let mut registry = ModelRegistry::new();
        register(&rt, &mut registry, &self.definition)
            .map_err(|e| BuildError(format!("registering the bench tool: {e}")))?;
        Ok(PreparedCall {
            rt,
            trace,
            registry,
            calls: &self.calls,
        })
    }

    /// How many calls one run makes.
    pub fn calls(&self) -> usize {
        self.calls.len()
    }
}

impl PreparedCall<'_> {
    /// One run: every call of the input, in order, each a result or the
    /// contract's rejection (`executeToolCall` rejects a call it cannot
    /// inspect: a rejection is an outcome, timed like a result). What is
    /// measured.
    pub fn run(&self) -> Result<Vec<Result<ToolResult, Error>>, RunError> {
        // the trace only grows, by a few events a call: emptied so that a
        // long measurement does not measure a growing vector
        self.trace.lock().unwrap_or_else(|e| e.into_inner()).clear();
        self.calls
            .iter()
            .map(
                |call| match drive_call(&self.rt, RegistryArg::Real(&self.registry), call, None) {
                    Driven::Done(Ok(result)) => Ok(Ok(result)),
                    Driven::Done(Err(e)) => match e.kind() {
                        ErrorKind::Model(what) => Err(RunError::OutsideModel(what.clone())),
                        _ => Ok(Err(e)),
                    },
                    Driven::Pending => Err(RunError::Broken("the call stayed pending".into())),
                },
            )
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_runs_at_its_smallest_size_and_outputs_stay_within_the_cap() {
        for family in catalogue() {
            let size = family.sizes[0];
            let input = build(family.name, size).unwrap();
            let prepared = input.prepare().unwrap();
            let results: Vec<ToolResult> = prepared
                .run()
                .unwrap()
                .into_iter()
                .map(|r| r.unwrap_or_else(|e| panic!("{}: {e}", family.name)))
                .collect();
            assert_eq!(results.len(), input.calls(), "{}", family.name);
            for r in &results {
                assert!(r.content.chars().count() <= 4096, "{}", family.name);
                if family.kind == Kind::Arguments && family.name != "args_deep" {
                    assert_eq!(r.content, r#""ok""#, "{}", family.name);
                }
            }
            // twice: the registration and the heap serve every run
            let again: Vec<ToolResult> = prepared
                .run()
                .unwrap()
                .into_iter()
                .map(Result::unwrap)
                .collect();
            assert_eq!(again, results, "{}", family.name);
        }
    }

    #[test]
    fn shared_paths_builds_at_two_to_the_thirty_two_paths() {
        let input = build("shared_paths", 1 << 32).unwrap();
        let results = input.prepare().unwrap().run().unwrap();
        assert!(results[0].as_ref().unwrap().truncated);
        assert!(build("shared_paths", 1000).is_err());
    }

    #[test]
    fn output_families_return_what_the_serializer_bench_serializes() {
        for name in ["wide_object", "cyclic", "bigint", "long_keys"] {
            let direct = family(name).unwrap();
            let input = (direct.build)(1_000);
            let serialized = input.prepare().run();
            let call = build(name, 1_000).unwrap();
            let results = call.prepare().unwrap().run().unwrap();
            let first = results[0].as_ref().unwrap();
            assert_eq!(first.content, serialized.content, "{name}");
        }
    }
}
