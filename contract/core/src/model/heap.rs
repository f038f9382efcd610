//! The heap of the host model: JavaScript values as a graph of nodes with ids,
//! so cycles, sharing, getters, proxies, prototypes and promises can all be
//! written down as data. A heap is built once, checked by [`HeapBuilder::finish`],
//! and never changes afterwards: every effect a call has is recorded in the
//! trace, not in the heap.

use super::slots::Slots;
use crate::bigint::BigIntValue;
use crate::js_string::JsString;
use crate::Error;
use std::collections::{BTreeMap, HashMap};

/// Index of a node in its heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

/// A JavaScript value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Undefined,
    Null,
    Bool(bool),
    Number(f64),
    String(JsString),
    BigInt(BigIntValue),
    /// A symbol, told apart by its number.
    Symbol(u32),
    /// An object, array, function, proxy or promise.
    Ref(NodeId),
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<f64> for Value {
    fn from(n: f64) -> Value {
        Value::Number(n)
    }
}
impl From<i32> for Value {
    fn from(n: i32) -> Value {
        Value::Number(f64::from(n))
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(JsString::new(s))
    }
}
impl From<JsString> for Value {
    fn from(s: JsString) -> Value {
        Value::String(s)
    }
}
impl From<NodeId> for Value {
    fn from(id: NodeId) -> Value {
        Value::Ref(id)
    }
}
impl From<BigIntValue> for Value {
    fn from(b: BigIntValue) -> Value {
        Value::BigInt(b)
    }
}

/// A property key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PropKey {
    String(JsString),
    Symbol(u32),
}

impl From<&str> for PropKey {
    fn from(s: &str) -> PropKey {
        PropKey::String(JsString::new(s))
    }
}
impl From<JsString> for PropKey {
    fn from(s: JsString) -> PropKey {
        PropKey::String(s)
    }
}

/// An own property.
#[derive(Debug, Clone, PartialEq)]
pub enum Property {
    Data {
        value: Value,
        enumerable: bool,
    },
    /// `getter` is a function node; `None` is a setter-only accessor.
    Accessor {
        getter: Option<NodeId>,
        enumerable: bool,
    },
}

impl Property {
    pub fn data(value: impl Into<Value>) -> Property {
        Property::Data {
            value: value.into(),
            enumerable: true,
        }
    }
    pub fn getter(getter: NodeId) -> Property {
        Property::Accessor {
            getter: Some(getter),
            enumerable: true,
        }
    }
    pub fn enumerable(&self) -> bool {
        match self {
            Property::Data { enumerable, .. } | Property::Accessor { enumerable, .. } => {
                *enumerable
            }
        }
    }
    pub fn hidden(self) -> Property {
        match self {
            Property::Data { value, .. } => Property::Data {
                value,
                enumerable: false,
            },
            Property::Accessor { getter, .. } => Property::Accessor {
                getter,
                enumerable: false,
            },
        }
    }
}

/// The prototype of an object or array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proto {
    /// `Object.prototype` of this realm.
    ObjectPrototype,
    /// `Array.prototype` of this realm.
    ArrayPrototype,
    Null,
    /// `Object.prototype` of another realm (`node:vm`, an iframe).
    OtherRealmObject,
    /// `Array.prototype` of another realm.
    OtherRealmArray,
    /// A built-in prototype the serializer refuses.
    Builtin(Builtin),
    /// The prototype of instances of a class of this name.
    Class(JsString),
    /// Another node of the heap (an object with inherited fields, or a proxy).
    Node(NodeId),
}

/// Built-in prototypes that matter to the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Builtin {
    Date,
    Map,
    Set,
    RegExp,
    BooleanBox,
    NumberBox,
    StringBox,
    Function,
    Promise,
    Error,
    TypeError,
    NonRecoverableToolError,
    ToolContractError,
}

/// An ordinary object.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectNode {
    pub proto: Proto,
    /// Set only on errors constructed through `NonRecoverableToolError` (or a
    /// subclass): the brand that tells a genuine one from a look-alike.
    pub non_recoverable_brand: bool,
    props: Props,
}

/// Own properties in JavaScript's own-key order: array-index keys ascending,
/// then other strings in creation order, then symbols in creation order.
#[derive(Debug, Clone, Default)]
struct Props {
    list: Vec<(PropKey, Property)>,
    /// Each key's place in `list`, kept once there are more than
    /// [`MAPPED_PAST`] keys: a small object is searched in its list, which
    /// costs less than a map to build, to search and to free.
    by_key: Option<HashMap<PropKey, usize, foldhash::fast::RandomState>>,
    /// Positions in `list` of the enumerable string-keyed properties, set
    /// (by [`HeapBuilder::finish`]) only when some are not: a walk then
    /// skips symbols and hidden properties at no cost.
    enumerable_strings: Option<Vec<usize>>,
}

/// Keys an object holds before it keeps a map of them.
const MAPPED_PAST: usize = 8;

impl PartialEq for Props {
    /// The properties in order: the rest is derived from them.
    fn eq(&self, other: &Props) -> bool {
        self.list == other.list
    }
}

impl Props {
    fn position(&self, key: &PropKey) -> Option<usize> {
        match &self.by_key {
            Some(map) => map.get(key).copied(),
            None => self.list.iter().position(|(k, _)| k == key),
        }
    }

    fn push(&mut self, key: PropKey, prop: Property) {
        if let Some(map) = &mut self.by_key {
            map.insert(key.clone(), self.list.len());
        }
        self.list.push((key, prop));
        if self.by_key.is_none() && self.list.len() > MAPPED_PAST {
            self.map_keys();
        }
    }

    fn map_keys(&mut self) {
        self.by_key = (self.list.len() > MAPPED_PAST).then(|| {
            self.list
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.clone(), i))
                .collect()
        });
    }
}

/// An array: `length` and the slots that exist (the others are holes).
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayNode {
    pub proto: Proto,
    pub length: u32,
    pub slots: Slots,
}

/// What a function does when called.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    /// Done first, in order.
    pub effects: Vec<Effect>,
    pub completion: Completion,
}

/// A side effect of a script.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Aborts the call's signal with this reason (`None`: an `AbortError`).
    Abort(Option<serde_json::Value>),
    /// Adds an abort listener to the signal the function received (an
    /// executor's context signal); the trace records when it fires.
    ListenForAbort,
}

/// How a script ends.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Completion {
    #[default]
    ReturnUndefined,
    Return(Value),
    Throw(Value),
    /// Calls argument `index` (a callback) with `value`, then returns
    /// undefined: a `then` method resolving (0) or rejecting (1).
    CallArg {
        index: usize,
        value: Value,
    },
}

/// A function.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FunctionNode {
    pub script: Script,
}

/// How a proxy trap behaves.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum TrapBehavior {
    /// No trap: the operation reaches the target.
    #[default]
    PassThrough,
    /// The trap throws this value.
    Throw(Value),
    /// The trap aborts the signal (with this reason) then reaches the target.
    Abort(Option<serde_json::Value>),
}

/// The traps the contract can reach.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "camelCase")]
pub enum Trap {
    GetPrototypeOf,
    OwnKeys,
    GetOwnPropertyDescriptor,
    Get,
}

impl Trap {
    pub const ALL: [Trap; 4] = [
        Trap::GetPrototypeOf,
        Trap::OwnKeys,
        Trap::GetOwnPropertyDescriptor,
        Trap::Get,
    ];
    /// The operation name V8 puts in its revoked-proxy message.
    pub fn js_name(self) -> &'static str {
        match self {
            Trap::GetPrototypeOf => "getPrototypeOf",
            Trap::OwnKeys => "ownKeys",
            Trap::GetOwnPropertyDescriptor => "getOwnPropertyDescriptor",
            Trap::Get => "get",
        }
    }
}

/// A proxy over an object, array or other proxy.
#[derive(Debug, Clone, PartialEq)]
pub struct ProxyNode {
    pub target: NodeId,
    pub traps: BTreeMap<Trap, TrapBehavior>,
    pub revoked: bool,
}

impl ProxyNode {
    pub fn trap(&self, trap: Trap) -> &TrapBehavior {
        const PASS: TrapBehavior = TrapBehavior::PassThrough;
        self.traps.get(&trap).unwrap_or(&PASS)
    }
}

/// A native promise.
#[derive(Debug, Clone, PartialEq)]
pub enum PromiseNode {
    Fulfilled(Value),
    Rejected(Value),
    /// Never settles by itself; once the signal aborts it settles as given
    /// (observed and ignored by the contract).
    Pending {
        after_abort: Option<Settlement>,
    },
}

/// A late settlement of a pending promise.
#[derive(Debug, Clone, PartialEq)]
pub enum Settlement {
    Fulfill(Value),
    Reject(Value),
}

/// A node of the heap.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Object(ObjectNode),
    Array(ArrayNode),
    Function(FunctionNode),
    Proxy(ProxyNode),
    Promise(PromiseNode),
}

/// Longest prototype or proxy chain the model accepts.
pub const MAX_CHAIN: usize = 64;

/// A finished heap.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Heap {
    nodes: Vec<Node>,
}

impl Heap {
    /// The heap as a builder again, to add nodes that refer to it (a tool
    /// definition and calls around a built output, in the benchmarks); its
    /// ids stay what they were.
    pub fn into_builder(self) -> HeapBuilder {
        HeapBuilder { nodes: self.nodes }
    }

    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.0 as usize)
    }
    /// Every node's id, in order.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> {
        (0..self.nodes.len()).filter_map(|i| u32::try_from(i).ok().map(NodeId))
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

impl ObjectNode {
    pub fn new(proto: Proto) -> ObjectNode {
        ObjectNode {
            proto,
            non_recoverable_brand: false,
            props: Props::default(),
        }
    }
    /// Room for `additional` more properties, so that defining them does
    /// not grow the list and the key map step by step (a `repeat` of 10^5
    /// keys rehashed its map seventeen times).
    pub fn reserve(&mut self, additional: usize) {
        let props = &mut self.props;
        props.list.reserve(additional);
        match &mut props.by_key {
            Some(map) => map.reserve(additional),
            // the map is kept from now on: the keys to come will pass the bound
            None if props.list.len() + additional > MAPPED_PAST => {
                let mut map = HashMap::with_capacity_and_hasher(
                    props.list.len() + additional,
                    foldhash::fast::RandomState::default(),
                );
                map.extend(
                    props
                        .list
                        .iter()
                        .enumerate()
                        .map(|(i, (k, _))| (k.clone(), i)),
                );
                props.by_key = Some(map);
            }
            None => {}
        }
    }
    /// Defines or redefines an own property (a redefinition keeps its place).
    pub fn define(&mut self, key: impl Into<PropKey>, prop: Property) -> &mut ObjectNode {
        let key = key.into();
        match self.props.position(&key) {
            Some(i) => {
                if let Some(slot) = self.props.list.get_mut(i) {
                    slot.1 = prop;
                }
            }
            None => self.props.push(key, prop),
        }
        self
    }
    pub fn own(&self, key: &PropKey) -> Option<&Property> {
        let i = self.props.position(key)?;
        self.props.list.get(i).map(|(_, p)| p)
    }
    /// Own enumerable string-keyed properties in own-key order.
    pub fn enumerable_strings(&self) -> impl Iterator<Item = (&JsString, &Property)> {
        let list = &self.props.list;
        let (every, some) = match &self.props.enumerable_strings {
            None => (Some(list.iter()), None),
            Some(positions) => (None, Some(positions.iter().filter_map(|&i| list.get(i)))),
        };
        every
            .into_iter()
            .flatten()
            .chain(some.into_iter().flatten())
            .filter_map(|(k, p)| match k {
                PropKey::String(k) if p.enumerable() => Some((k, p)),
                _ => None,
            })
    }
    /// All own keys in own-key order.
    pub fn keys(&self) -> impl Iterator<Item = &PropKey> {
        self.props.list.iter().map(|(k, _)| k)
    }

    fn seal_order(&mut self) {
        // most objects are built in own-key order already; rebuilding the
        // key map of a million-key object would clone every key
        if !self.in_own_key_order() {
            self.reorder();
        }
        let list = &self.props.list;
        let walked =
            |(k, p): &(PropKey, Property)| matches!(k, PropKey::String(_)) && p.enumerable();
        self.props.enumerable_strings = (!list.iter().all(walked)).then(|| {
            list.iter()
                .enumerate()
                .filter(|(_, kp)| walked(kp))
                .map(|(i, _)| i)
                .collect()
        });
    }

    /// Whether the properties already are in JavaScript's own-key order:
    /// array indices ascending, then other strings, then symbols.
    fn in_own_key_order(&self) -> bool {
        let mut phase = 0u8;
        let mut last_index: Option<u32> = None;
        for (key, _) in &self.props.list {
            let here = match key {
                PropKey::String(s) => match array_index(s) {
                    Some(i) => {
                        if last_index.is_some_and(|l| l >= i) {
                            return false;
                        }
                        last_index = Some(i);
                        0
                    }
                    None => 1,
                },
                PropKey::Symbol(_) => 2,
            };
            if here < phase {
                return false;
            }
            phase = here;
        }
        true
    }

    fn reorder(&mut self) {
        let list = std::mem::take(&mut self.props.list);
        let mut indexed: Vec<(u32, (PropKey, Property))> = Vec::new();
        let mut named = Vec::new();
        let mut symbols = Vec::new();
        for (key, prop) in list {
            match &key {
                PropKey::String(s) => match array_index(s) {
                    Some(i) => indexed.push((i, (key, prop))),
                    None => named.push((key, prop)),
                },
                PropKey::Symbol(_) => symbols.push((key, prop)),
            }
        }
        indexed.sort_by_key(|(i, _)| *i);
        let ordered: Vec<(PropKey, Property)> = indexed
            .into_iter()
            .map(|(_, kp)| kp)
            .chain(named)
            .chain(symbols)
            .collect();
        self.props.list = ordered;
        self.props.map_keys();
    }
}

/// The array index a key denotes: a canonical decimal below 2^32 - 1.
pub fn array_index(key: &JsString) -> Option<u32> {
    let units = key.units();
    if units.is_empty()
        || units.len() > 10
        || (units.len() > 1 && units.first() == Some(&u16::from(b'0')))
    {
        return None;
    }
    let mut n: u64 = 0;
    for &u in units {
        let d = u.checked_sub(u16::from(b'0')).filter(|d| *d <= 9)?;
        n = n.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    u32::try_from(n).ok().filter(|&i| i != u32::MAX)
}

/// Builds a heap. Nodes get ids in allocation order; allocate first and fill
/// in later to make cycles.
#[derive(Debug, Clone, Default)]
pub struct HeapBuilder {
    nodes: Vec<Node>,
}

impl HeapBuilder {
    pub fn new() -> HeapBuilder {
        HeapBuilder::default()
    }

    /// Room for `additional` more nodes (a nest's levels, known at once).
    pub fn reserve(&mut self, additional: usize) {
        self.nodes.reserve(additional);
    }

    pub fn alloc(&mut self, node: Node) -> NodeId {
        let id = NodeId(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
        self.nodes.push(node);
        id
    }

    /// A plain object with these enumerable data properties, in this order.
    pub fn object<K: Into<PropKey>, V: Into<Value>>(
        &mut self,
        props: impl IntoIterator<Item = (K, V)>,
    ) -> NodeId {
        let mut o = ObjectNode::new(Proto::ObjectPrototype);
        for (k, v) in props {
            o.define(k, Property::data(v));
        }
        self.alloc(Node::Object(o))
    }

    /// A plain array with these values and no holes.
    pub fn array<V: Into<Value>>(&mut self, values: impl IntoIterator<Item = V>) -> NodeId {
        let slots: Slots = values
            .into_iter()
            .zip(0u32..)
            .map(|(v, i)| (i, Property::data(v)))
            .collect();
        let length = u32::try_from(slots.len()).unwrap_or(u32::MAX);
        self.alloc(Node::Array(ArrayNode {
            proto: Proto::ArrayPrototype,
            length,
            slots,
        }))
    }

    /// A function running `script`.
    pub fn function(&mut self, script: Script) -> NodeId {
        self.alloc(Node::Function(FunctionNode { script }))
    }

    /// A function that returns `value`.
    pub fn returning(&mut self, value: impl Into<Value>) -> NodeId {
        self.function(Script {
            effects: Vec::new(),
            completion: Completion::Return(value.into()),
        })
    }

    /// A function that throws `value`.
    pub fn throwing(&mut self, value: impl Into<Value>) -> NodeId {
        self.function(Script {
            effects: Vec::new(),
            completion: Completion::Throw(value.into()),
        })
    }

    /// An `Error` (or subclass prototype) with an own `message`, as `new Error(message)` makes.
    pub fn error(&mut self, proto: Proto, message: Option<&str>) -> NodeId {
        let mut o = ObjectNode::new(proto);
        if let Some(m) = message {
            o.define("message", Property::data(m).hidden());
        }
        self.alloc(Node::Object(o))
    }

    /// A genuine `NonRecoverableToolError`, constructed through the class
    /// (`proto` is its prototype or a subclass's).
    pub fn non_recoverable(&mut self, proto: Proto, message: &str) -> NodeId {
        let mut o = ObjectNode::new(proto);
        o.non_recoverable_brand = true;
        o.define("message", Property::data(message).hidden());
        o.define(
            "code",
            Property::data(crate::constants::NON_RECOVERABLE_CODE),
        );
        o.define("nonRecoverable", Property::data(true));
        self.alloc(Node::Object(o))
    }

    pub fn node_mut(&mut self, id: NodeId) -> Option<&mut Node> {
        self.nodes.get_mut(id.0 as usize)
    }

    /// The object at `id`, to add properties to.
    pub fn object_mut(&mut self, id: NodeId) -> Option<&mut ObjectNode> {
        match self.node_mut(id) {
            Some(Node::Object(o)) => Some(o),
            _ => None,
        }
    }

    /// Checks the graph (every id exists, proxies wrap objects, arrays or
    /// proxies, prototype and proxy chains are acyclic and at most
    /// [`MAX_CHAIN`] long) and orders properties.
    pub fn finish(mut self) -> Result<Heap, Error> {
        for node in &mut self.nodes {
            if let Node::Object(o) = node {
                o.seal_order();
            }
        }
        let heap = Heap { nodes: self.nodes };
        for (i, node) in heap.nodes.iter().enumerate() {
            check_refs(&heap, node).map_err(|what| Error::model(format!("node {i}: {what}")))?;
            let start = NodeId(u32::try_from(i).unwrap_or(u32::MAX));
            check_chain(&heap, start).map_err(|what| Error::model(format!("node {i}: {what}")))?;
        }
        Ok(heap)
    }
}

fn check_value(heap: &Heap, v: &Value) -> Result<(), String> {
    match v {
        Value::Ref(id) if heap.node(*id).is_none() => Err(format!("no node {}", id.0)),
        _ => Ok(()),
    }
}

fn check_refs(heap: &Heap, node: &Node) -> Result<(), String> {
    let check_prop = |p: &Property| match p {
        Property::Data { value, .. } => check_value(heap, value),
        Property::Accessor {
            getter: Some(g), ..
        } => match heap.node(*g) {
            Some(Node::Function(_)) => Ok(()),
            _ => Err(format!("getter {} is not a function", g.0)),
        },
        Property::Accessor { getter: None, .. } => Ok(()),
    };
    let check_proto = |p: &Proto| match p {
        Proto::Node(id) => match heap.node(*id) {
            Some(Node::Object(_) | Node::Proxy(_)) => Ok(()),
            _ => Err(format!("prototype {} is not an object", id.0)),
        },
        _ => Ok(()),
    };
    match node {
        Node::Object(o) => {
            check_proto(&o.proto)?;
            o.props.list.iter().try_for_each(|(_, p)| check_prop(p))
        }
        Node::Array(a) => {
            check_proto(&a.proto)?;
            if let Some((&last, _)) = a.slots.last_key_value() {
                if last >= a.length {
                    return Err(format!("slot {last} beyond length {}", a.length));
                }
            }
            a.slots.values().try_for_each(check_prop)
        }
        Node::Function(f) => {
            match &f.script.completion {
                Completion::Return(v) | Completion::Throw(v) => check_value(heap, v)?,
                Completion::CallArg { value, .. } => check_value(heap, value)?,
                Completion::ReturnUndefined => {}
            }
            Ok(())
        }
        Node::Proxy(p) => match heap.node(p.target) {
            Some(Node::Object(_) | Node::Array(_) | Node::Proxy(_)) => {
                p.traps.values().try_for_each(|t| match t {
                    TrapBehavior::Throw(v) => check_value(heap, v),
                    _ => Ok(()),
                })
            }
            _ => Err(format!("proxy target {} is not an object", p.target.0)),
        },
        Node::Promise(PromiseNode::Fulfilled(v) | PromiseNode::Rejected(v)) => check_value(heap, v),
        Node::Promise(PromiseNode::Pending { after_abort }) => match after_abort {
            Some(Settlement::Fulfill(v) | Settlement::Reject(v)) => check_value(heap, v),
            None => Ok(()),
        },
    }
}

/// Follows proxy targets and prototypes from `start`; fails on a cycle or a
/// chain longer than [`MAX_CHAIN`].
fn check_chain(heap: &Heap, start: NodeId) -> Result<(), String> {
    let mut current = Some(start);
    let mut steps = 0;
    while let Some(id) = current {
        if steps > MAX_CHAIN {
            return Err(format!(
                "prototype or proxy chain longer than {MAX_CHAIN} (or cyclic)"
            ));
        }
        steps += 1;
        current = match heap.node(id) {
            Some(Node::Proxy(p)) => Some(p.target),
            Some(Node::Object(ObjectNode {
                proto: Proto::Node(next),
                ..
            }))
            | Some(Node::Array(ArrayNode {
                proto: Proto::Node(next),
                ..
            })) => Some(*next),
            _ => None,
        };
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_key_order_puts_indices_first() {
        let mut b = HeapBuilder::new();
        let o = b.object([("b", 1), ("a", 2), ("10", 3), ("9", 4), ("01", 5)]);
        let heap = b.finish().unwrap();
        let Some(Node::Object(obj)) = heap.node(o) else {
            panic!()
        };
        let keys: Vec<String> = obj
            .enumerable_strings()
            .map(|(k, _)| k.to_string_lossy())
            .collect();
        assert_eq!(keys, ["9", "10", "b", "a", "01"]);
    }

    #[test]
    fn own_properties_are_found_whether_or_not_the_keys_were_reordered() {
        for pairs in [
            [("1", 1), ("3", 2), ("b", 3), ("a", 4)], // already in order
            [("b", 3), ("3", 2), ("a", 4), ("1", 1)], // reordered
        ] {
            let mut b = HeapBuilder::new();
            let o = b.object(pairs);
            let heap = b.finish().unwrap();
            let Some(Node::Object(obj)) = heap.node(o) else {
                panic!()
            };
            let keys: Vec<String> = obj
                .enumerable_strings()
                .map(|(k, _)| k.to_string_lossy())
                .collect();
            assert_eq!(keys, ["1", "3", "b", "a"], "{pairs:?}");
            for (k, v) in pairs {
                let found = obj.own(&PropKey::String(JsString::new(k)));
                assert!(
                    matches!(found, Some(Property::Data { value: Value::Number(n), .. }) if *n == f64::from(v)),
                    "{k} in {pairs:?}: {found:?}"
                );
            }
        }
    }

    #[test]
    fn cyclic_prototype_chains_are_refused() {
        let mut b = HeapBuilder::new();
        let x = b.object::<&str, Value>([]);
        let y = b.object::<&str, Value>([]);
        b.object_mut(x).unwrap().proto = Proto::Node(y);
        b.object_mut(y).unwrap().proto = Proto::Node(x);
        assert!(b.finish().is_err());
    }

    #[test]
    fn array_index_is_canonical() {
        for (k, e) in [
            ("0", Some(0)),
            ("4294967294", Some(4294967294)),
            ("4294967295", None),
            ("01", None),
            ("-1", None),
            ("", None),
        ] {
            assert_eq!(array_index(&JsString::new(k)), e, "{k}");
        }
    }
}
