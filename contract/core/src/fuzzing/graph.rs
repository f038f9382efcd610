//! Output graphs built straight from the fuzzer's bytes into a model heap,
//! for the `serializer` target: no JSON, no scenario, no scenario builder
//! between the bytes and the few microseconds of serialization under test
//! (the `serializer_scenario` target keeps that path, and the corpus's
//! scenarios as seeds). The same hostile shapes as the scenario generator
//! (`generate`): cycles and sharing (a value may name any node, later ones
//! included), getters and setter-only accessors, hidden and symbol keys,
//! holes, foreign and refused prototypes, proxies with throwing, aborting
//! or revoked traps, promises, functions, lone surrogates, strings and
//! keys at the budget's edge, BigInts around 2^4096 and far beyond, wide
//! objects and arrays, long sparse arrays and deep chains. Every choice
//! reads the input, so the fuzzer steers each one; sizes are capped so
//! that one input stays cheap.

use super::generate::{HOSTILE_STRINGS, LONG_PIECES};
use crate::bigint::BigIntValue;
use crate::js_string::JsString;
use crate::model::{
    ArrayNode, Builtin, Completion, Effect, FunctionNode, Heap, HeapBuilder, Node, NodeId,
    ObjectNode, PromiseNode, PropKey, Property, Proto, ProxyNode, Script, Settlement, Slots, Trap,
    TrapBehavior, Value,
};
use arbitrary::{Result, Unstructured};
use serde_json::json;
use std::collections::BTreeMap;

/// The most nodes a graph starts with (chains, getters and wide objects
/// add their own).
const MAX_NODES: usize = 12;

/// The most properties of a wide object or slots of a filled array: past
/// the entry budget (256).
const WIDE: usize = 300;

/// The most repetitions of a piece in a long string: past the string
/// budget (4096 code points).
const LONG: usize = 4_100;

/// Each of [`LONG_PIECES`] repeated [`LONG`] times, as UTF-16 made once:
/// a long string is a copy of a prefix.
fn long_pieces() -> &'static [Vec<u16>] {
    static PIECES: std::sync::OnceLock<Vec<Vec<u16>>> = std::sync::OnceLock::new();
    PIECES.get_or_init(|| {
        LONG_PIECES
            .iter()
            .map(|p| p.repeat(LONG).encode_utf16().collect())
            .collect()
    })
}

/// The keys of wide objects, `k0`..`k299`, made once: a wide object clones
/// them instead of formatting and allocating 300 keys per input.
fn wide_keys() -> &'static [JsString] {
    static KEYS: std::sync::OnceLock<Vec<JsString>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| (0..WIDE).map(|k| JsString::new(&format!("k{k}"))).collect())
}

/// A heap and the values to serialize: one of its nodes (the bytes choose
/// which), then one more value of any kind.
pub struct Graph {
    pub heap: Heap,
    pub roots: Vec<Value>,
}

/// The graph the bytes describe; `None` when the model refuses it (never
/// by construction, but a refusal is not the serializer's bug).
pub fn output_graph(u: &mut Unstructured<'_>) -> Result<Option<Graph>> {
    let count = u.int_in_range(1..=MAX_NODES)?;
    let mut g = GraphBuilder {
        u,
        b: HeapBuilder::new(),
        count,
    };
    // placeholders first, so that any value may name any of them
    for _ in 0..count {
        g.b.alloc(Node::Object(ObjectNode::new(Proto::ObjectPrototype)));
    }
    for i in 0..count {
        let node = g.node(i)?;
        if let Some(slot) = g.b.node_mut(node_id(i)) {
            *slot = node;
        }
    }
    // one node as the root, not each in turn: the fuzzer reaches every
    // one through this choice, at a ninth of the cost per input
    let root = Value::Ref(g.any_node()?);
    let extra = g.value(2)?;
    let roots = vec![root, extra];
    Ok(g.b.finish().ok().map(|heap| Graph { heap, roots }))
}

fn node_id(i: usize) -> NodeId {
    NodeId(u32::try_from(i).unwrap_or(u32::MAX))
}

struct GraphBuilder<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    b: HeapBuilder,
    /// The placeholders: nodes `0..count`.
    count: usize,
}

impl GraphBuilder<'_, '_> {
    fn pick<T: Clone>(&mut self, from: &[T]) -> Result<T> {
        self.u.choose(from).cloned()
    }

    /// One of the placeholders, any of them.
    fn any_node(&mut self) -> Result<NodeId> {
        Ok(node_id(self.u.int_in_range(0..=self.count - 1)?))
    }

    /// Placeholder `i`'s node. Prototypes and proxy targets name only
    /// earlier placeholders, so every chain ends (the model refuses cycles
    /// there).
    fn node(&mut self, i: usize) -> Result<Node> {
        Ok(match self.u.int_in_range(0u8..=11)? {
            0..=4 => Node::Object(self.object(i, 2)?),
            5..=7 => Node::Array(self.array(i, 2)?),
            8 if i > 0 => {
                let target = node_id(self.u.int_in_range(0..=i - 1)?);
                match self.b.node_mut(target) {
                    Some(Node::Object(_) | Node::Array(_) | Node::Proxy(_)) => {
                        Node::Proxy(self.proxy(target)?)
                    }
                    _ => Node::Object(self.object(i, 1)?),
                }
            }
            9 => Node::Function(FunctionNode {
                script: self.script()?,
            }),
            10 => Node::Promise(self.promise()?),
            _ => Node::Object(self.object(i, 2)?),
        })
    }

    fn proxy(&mut self, target: NodeId) -> Result<ProxyNode> {
        let mut traps = BTreeMap::new();
        for _ in 0..self.u.int_in_range(0u8..=2)? {
            let trap = self.pick(&Trap::ALL)?;
            let behavior = match self.u.int_in_range(0u8..=2)? {
                0 => TrapBehavior::PassThrough,
                1 => TrapBehavior::Throw(self.thrown()?),
                _ => TrapBehavior::Abort(Some(json!("trap aborted"))),
            };
            traps.insert(trap, behavior);
        }
        Ok(ProxyNode {
            target,
            traps,
            revoked: self.u.ratio(1u8, 6)?,
        })
    }

    fn promise(&mut self) -> Result<PromiseNode> {
        Ok(match self.u.int_in_range(0u8..=2)? {
            0 => PromiseNode::Fulfilled(self.value(0)?),
            1 => PromiseNode::Rejected(self.thrown()?),
            _ => PromiseNode::Pending {
                after_abort: Some(Settlement::Reject("late".into())),
            },
        })
    }

    fn script(&mut self) -> Result<Script> {
        let mut effects = Vec::new();
        if self.u.ratio(1u8, 8)? {
            effects.push(Effect::Abort(Some(json!("generated abort"))));
        }
        if self.u.ratio(1u8, 8)? {
            effects.push(Effect::ListenForAbort);
        }
        let completion = if self.u.ratio(1u8, 4)? {
            Completion::Throw(self.thrown()?)
        } else {
            Completion::Return(self.value(0)?)
        };
        Ok(Script {
            effects,
            completion,
        })
    }

    /// A getter: a new function node.
    fn getter(&mut self) -> Result<NodeId> {
        let script = self.script()?;
        Ok(self.b.function(script))
    }

    /// What a throwing getter, trap or function throws.
    fn thrown(&mut self) -> Result<Value> {
        Ok(match self.u.int_in_range(0u8..=5)? {
            0 => {
                let id = self.b.error(Proto::Builtin(Builtin::Error), Some("boom"));
                Value::Ref(id)
            }
            1 => Value::Ref(self.b.error(Proto::Builtin(Builtin::TypeError), None)),
            2 => Value::Ref(
                self.b
                    .non_recoverable(Proto::Builtin(Builtin::NonRecoverableToolError), "fatal"),
            ),
            3 => Value::Number(7.0),
            4 => Value::Ref(self.any_node()?),
            _ => "plain failure".into(),
        })
    }

    fn proto(&mut self, i: usize, array: bool) -> Result<Proto> {
        Ok(match self.u.int_in_range(0u8..=11)? {
            0 => Proto::Null,
            1 if array => Proto::OtherRealmArray,
            1 => Proto::OtherRealmObject,
            2 => Proto::Builtin(self.pick(&[
                Builtin::Date,
                Builtin::Map,
                Builtin::Set,
                Builtin::RegExp,
                Builtin::NumberBox,
                Builtin::Error,
                Builtin::Promise,
            ])?),
            3 => Proto::Class(JsString::new("Point")),
            4 if i > 0 => Proto::Node(node_id(self.u.int_in_range(0..=i - 1)?)),
            _ if array => Proto::ArrayPrototype,
            _ => Proto::ObjectPrototype,
        })
    }

    fn property(&mut self, depth: u8) -> Result<Property> {
        Ok(match self.u.int_in_range(0u8..=9)? {
            0 => Property::getter(self.getter()?),
            1 => Property::Accessor {
                getter: None,
                enumerable: true,
            },
            2 => Property::data(self.value(depth)?).hidden(),
            _ => Property::data(self.value(depth)?),
        })
    }

    fn object(&mut self, i: usize, depth: u8) -> Result<ObjectNode> {
        let mut o = ObjectNode::new(self.proto(i, false)?);
        if self.u.ratio(1u8, 16)? {
            // wide: the entry budget
            let count = self.u.int_in_range(0usize..=WIDE)?;
            let enumerable = self.u.arbitrary::<bool>()?;
            for key in wide_keys().iter().take(count) {
                let prop = Property::data(1);
                o.define(key.clone(), if enumerable { prop } else { prop.hidden() });
            }
            return Ok(o);
        }
        for _ in 0..self.u.int_in_range(0u8..=5)? {
            let key = if self.u.ratio(1u8, 10)? {
                PropKey::Symbol(1)
            } else {
                PropKey::String(self.string()?)
            };
            let prop = self.property(depth)?;
            o.define(key, prop);
        }
        Ok(o)
    }

    fn array(&mut self, i: usize, depth: u8) -> Result<ArrayNode> {
        let proto = self.proto(i, true)?;
        let mut slots = Slots::new();
        let length = match self.u.int_in_range(0u8..=15)? {
            // sparse: a long length, one slot
            0 => {
                slots.insert(0, Property::data(1));
                self.u.int_in_range(0u32..=1_000_000)?
            }
            // filled: the node and entry budgets
            1 => {
                let count = self.u.int_in_range(0u32..=WIDE as u32)?;
                for k in 0..count {
                    slots.insert(k, Property::data(1));
                }
                count
            }
            _ => {
                let count = self.u.int_in_range(0u32..=6)?;
                for k in 0..count {
                    match self.u.int_in_range(0u8..=7)? {
                        0 => {}
                        1 => {
                            let getter = self.getter()?;
                            slots.insert(k, Property::getter(getter));
                        }
                        _ => {
                            slots.insert(k, self.property(depth)?);
                        }
                    }
                }
                count
            }
        };
        Ok(ArrayNode {
            proto,
            length,
            slots,
        })
    }

    /// A chain of `depth` objects or arrays, each holding the next: the
    /// depth budget. Its head.
    fn chain(&mut self) -> Result<NodeId> {
        let depth = self.u.int_in_range(1u32..=40)?;
        let arrays = self.u.arbitrary::<bool>()?;
        let mut inner = Value::Number(1.0);
        for _ in 0..depth {
            inner = Value::Ref(if arrays {
                self.b.array([inner])
            } else {
                self.b.object([("a", inner)])
            });
        }
        Ok(match inner {
            Value::Ref(id) => id,
            _ => self.b.object([("a", 1)]),
        })
    }

    fn string(&mut self) -> Result<JsString> {
        Ok(match self.u.int_in_range(0u8..=9)? {
            0..=4 => JsString::new(self.pick(&HOSTILE_STRINGS)?),
            5..=6 => {
                let len = self.u.int_in_range(0usize..=12)?;
                let units = (0..len)
                    .map(|_| {
                        Ok(match self.u.int_in_range(0u8..=3)? {
                            0 => self.u.int_in_range(0xD800u16..=0xDFFF)?,
                            1 => self.u.int_in_range(0u16..=0x1F)?,
                            _ => self.u.int_in_range(0x20u16..=0x7E)?,
                        })
                    })
                    .collect::<Result<Vec<u16>>>()?;
                JsString::from_units(units)
            }
            // at the string budget's edge
            7 => {
                let pieces = long_pieces();
                let piece = self.u.choose(pieces)?;
                let times = self.u.int_in_range(4_000usize..=LONG)?;
                JsString::from_units(piece.get(..times * piece.len() / LONG).unwrap_or_default())
            }
            _ => {
                let s: &str = self.u.arbitrary()?;
                JsString::new(&s.chars().take(24).collect::<String>())
            }
        })
    }

    fn number(&mut self) -> Result<f64> {
        Ok(match self.u.int_in_range(0u8..=5)? {
            0 => self.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0])?,
            1 => self.pick(&[1e21, 5e-7, 0.1, f64::MAX, 9_007_199_254_740_993.0, -1.5])?,
            2 => self.u.arbitrary()?,
            _ => f64::from(self.u.int_in_range(-1000i32..=1000)?),
        })
    }

    fn bigint(&mut self) -> Result<Value> {
        let big = match self.u.int_in_range(0u8..=2)? {
            0 => Some(BigIntValue::from_i64(
                self.u.int_in_range(-1_000_000i64..=1_000_000)?,
            )),
            1 => BigIntValue::power_of_two(
                self.u.arbitrary()?,
                self.u.int_in_range(4_090u64..=4_100)?,
                -1,
            ),
            _ => BigIntValue::power_of_two(false, self.u.int_in_range(10_000u64..=2_000_000)?, 0),
        };
        Ok(big.map_or(Value::Null, Value::BigInt))
    }

    /// Any value; `depth` bounds the nodes made inside it.
    fn value(&mut self, depth: u8) -> Result<Value> {
        let max = if depth == 0 { 10 } else { 15 };
        Ok(match self.u.int_in_range(0u8..=max)? {
            0 => Value::Null,
            1 => Value::Undefined,
            2 => Value::Bool(self.u.arbitrary()?),
            3 | 4 => Value::Number(self.number()?),
            5 | 6 => Value::String(self.string()?),
            7 => Value::Symbol(1),
            8 => self.bigint()?,
            9 | 10 => Value::Ref(self.any_node()?),
            11 => Value::Ref(self.chain()?),
            12 | 13 => {
                let o = self.object(0, depth - 1)?;
                Value::Ref(self.b.alloc(Node::Object(o)))
            }
            _ => {
                let a = self.array(0, depth - 1)?;
                Value::Ref(self.b.alloc(Node::Array(a)))
            }
        })
    }
}
