//! The supported subset of JSON Schema, decoded from JSON, with TypeBox's
//! `~kind` marker on the nodes a TypeBox builder made.
//!
//! Why `~kind` on each node and not one flag for the whole schema: TypeBox's
//! `Value.Convert` dispatches on each node's own `~kind` (a non-enumerable
//! property in JavaScript, so `JSON.stringify` drops it), and a node without
//! one is left unconverted even inside a TypeBox schema. Carrying the marker
//! per node says exactly what pi's conversion sees, mixed schemas included;
//! a node without it is a plain JSON Schema node, which only pi's own
//! fallback coercion touches.
//!
//! Everything outside the subset is refused with "unsupported schema
//! keyword X" (or a malformed-schema message), never guessed: an unknown
//! keyword could change the verdict.

use super::js::{as_f64, js_ordered};
use serde_json::{Map, Value};
use toolgate_suite::Error;

/// The JSON types the subset knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JsonType {
    String,
    Number,
    Integer,
    Boolean,
    Null,
    Array,
    Object,
}

impl JsonType {
    fn parse(name: &str) -> Option<JsonType> {
        Some(match name {
            "string" => JsonType::String,
            "number" => JsonType::Number,
            "integer" => JsonType::Integer,
            "boolean" => JsonType::Boolean,
            "null" => JsonType::Null,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            _ => return None,
        })
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Number => "number",
            JsonType::Integer => "integer",
            JsonType::Boolean => "boolean",
            JsonType::Null => "null",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

/// The `type` keyword: one name or a list (the messages differ).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Types {
    One(JsonType),
    Many(Vec<JsonType>),
}

impl Types {
    pub(crate) fn list(&self) -> Vec<JsonType> {
        match self {
            Types::One(t) => vec![*t],
            Types::Many(ts) => ts.clone(),
        }
    }
}

/// TypeBox's `~kind`s of the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Object,
    Array,
    String,
    Number,
    Integer,
    Boolean,
    Null,
    Union,
    Literal,
    Enum,
    Any,
    Unknown,
}

/// A schema: a boolean (only as `additionalProperties`) or a node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Schema {
    Bool(bool),
    Node(Box<Node>),
}

/// One schema object of the subset.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Node {
    pub kind: Option<Kind>,
    pub types: Option<Types>,
    /// In JavaScript key order, as `Object.entries` walks them.
    pub properties: Option<Vec<(String, Schema)>>,
    pub required: Option<Vec<String>>,
    pub additional: Option<Schema>,
    pub items: Option<Schema>,
    pub any_of: Option<Vec<Schema>>,
    /// A primitive (null, boolean, number or string).
    pub constant: Option<Value>,
    /// Primitives only.
    pub enumeration: Option<Vec<Value>>,
    pub min_length: Option<f64>,
    pub max_length: Option<f64>,
    pub min_items: Option<f64>,
    pub max_items: Option<f64>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
}

/// Keywords that change nothing the validator does.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    // TypeBox's marker of `Type.Optional`: only `Value.Convert` reads it,
    // for `undefined` values, which JSON cannot carry
    "~optional",
];

/// Names `Object.prototype` carries: `key in value` and `value[key]` see
/// them on every object, so schemas naming them are outside the subset.
const PROTOTYPE_NAMES: &[&str] = &[
    "__proto__",
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
];

/// Characters special in a JavaScript regular expression: TypeBox's
/// `Value.Convert` matches keys against `new RegExp("^" + name + "$")`
/// without escaping, so such a name would match other keys or throw.
const REGEXP_SPECIAL: &[char] = &[
    '\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}',
];

pub(crate) fn unsupported(keyword: &str) -> Error {
    Error::model(format!("unsupported schema keyword {keyword}"))
}

fn malformed(what: impl std::fmt::Display) -> Error {
    Error::model(format!("malformed schema: {what}"))
}

/// Decodes the root: it must be a schema object whose compiled check
/// nests at most [`MAX_COMPILED_NESTING`] levels.
pub(crate) fn decode_root(json: &Value) -> Result<Node, Error> {
    let node = match decode(&js_ordered(json), "#")? {
        Schema::Node(node) => *node,
        Schema::Bool(_) => return Err(malformed("the root schema is a boolean")),
    };
    let nesting = compiled_nesting(&node);
    if nesting > MAX_COMPILED_NESTING {
        return Err(Error::model(format!(
            "a schema whose compiled check nests {nesting} levels (more than \
             {MAX_COMPILED_NESTING}, one per property, required name, enum value, anyOf member \
             or keyword along a path): TypeBox's Compile throws RangeError: Maximum call stack \
             size exceeded on such code past a size that V8's stack sets (from about 1,600 \
             properties in one object with Node 20.20.2's default stack), which the reference \
             does not model"
        )));
    }
    Ok(node)
}

/// The most [`compiled_nesting`] the reference accepts.
///
/// TypeBox's `Compile` (which pi calls on every schema) writes a check as
/// one JavaScript expression and evaluates it with `new Function`; lists
/// become left-nested chains, `((("a" in v && "b" in v) && "c" in v) ...)`
/// for properties and required names, `||` chains for enum values, anyOf
/// members and type lists, and a property's own check sits inside its
/// term. V8's parser recurses once per nesting, so past a size that its
/// stack sets, `new Function` throws `RangeError: Maximum call stack size
/// exceeded` and so does `validateToolArguments`, for any arguments.
/// Measured with Node 20.20.2's default stack, pi answers up to 1,603
/// properties in one object (1,604 enum values, 1,604 anyOf members,
/// 1,605 required names), 693 nested objects with one required property,
/// 462 with one optional property, 414 nested arrays, 10 levels of 157
/// properties, 100 levels of 12, and throws one past each: each of those
/// counts more than 1,500 here. At or near this limit pi was seen to
/// answer, failing arguments included, for 1,020 properties in one object
/// (required or not), 1,019 enum values, 1,017 anyOf members, 920
/// properties of 100 enum values each, 255 nested arrays, 10 levels of 98
/// properties and 100 levels of 7 (nested objects stop at the schema depth
/// limit first).
pub(crate) const MAX_COMPILED_NESTING: usize = 1_024;

/// A conservative count of how deep TypeBox's compiled check of `node`
/// nests: along the deepest path of sub-schemas, each node counts one,
/// plus two and the longer of its property and required lists, plus three
/// with `items`, plus one per anyOf member, enum value, listed type and
/// keyword with a limit or a constant.
pub(crate) fn compiled_nesting(node: &Node) -> usize {
    let list = |l: Option<usize>| l.unwrap_or(0);
    let mut own = 1
        + list(node.any_of.as_ref().map(Vec::len))
        + list(node.enumeration.as_ref().map(Vec::len))
        + match &node.types {
            Some(Types::Many(ts)) => ts.len(),
            _ => 0,
        };
    if node.properties.is_some() || node.required.is_some() {
        own += 2 + list(node.properties.as_ref().map(Vec::len))
            .max(list(node.required.as_ref().map(Vec::len)));
    }
    if node.items.is_some() {
        own += 3;
    }
    own += [
        node.min_length,
        node.max_length,
        node.min_items,
        node.max_items,
        node.minimum,
        node.maximum,
        node.exclusive_minimum,
        node.exclusive_maximum,
    ]
    .iter()
    .filter(|k| k.is_some())
    .count()
        + usize::from(node.constant.is_some());
    let children = node
        .properties
        .iter()
        .flatten()
        .map(|(_, s)| s)
        .chain(&node.additional)
        .chain(&node.items)
        .chain(node.any_of.iter().flatten());
    let deepest = children
        .map(|s| match s {
            Schema::Node(n) => compiled_nesting(n),
            Schema::Bool(_) => 0,
        })
        .max()
        .unwrap_or(0);
    own.saturating_add(deepest)
}

fn decode(json: &Value, at: &str) -> Result<Schema, Error> {
    match json {
        Value::Object(map) => decode_node(map, at).map(|n| Schema::Node(Box::new(n))),
        _ => Err(malformed(format_args!("{at} is not a schema object"))),
    }
}

fn decode_schema_or_bool(json: &Value, at: &str) -> Result<Schema, Error> {
    match json {
        Value::Bool(b) => Ok(Schema::Bool(*b)),
        _ => decode(json, at),
    }
}

fn number(json: &Value, at: &str, keyword: &str) -> Result<f64, Error> {
    match json {
        Value::Number(n) => Ok(as_f64(n)),
        _ => Err(malformed(format_args!("{at}/{keyword} is not a number"))),
    }
}

fn primitive(json: &Value, at: &str) -> Result<Value, Error> {
    match json {
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => Ok(json.clone()),
        // deep equality over objects follows JavaScript's own-key rules
        // (an array's `length` is a key), outside the subset
        _ => Err(unsupported(&format!("{at} (a non-primitive constant)"))),
    }
}

fn name_ok(name: &str, at: &str) -> Result<(), Error> {
    if PROTOTYPE_NAMES.contains(&name) {
        return Err(unsupported(&format!(
            "{at} (the property name {name:?} is inherited from Object.prototype)"
        )));
    }
    Ok(())
}

fn decode_node(map: &Map<String, Value>, at: &str) -> Result<Node, Error> {
    let mut node = Node::default();
    for (key, v) in map {
        let here = format!("{at}/{key}");
        match key.as_str() {
            "~kind" => {
                let kind = match v.as_str() {
                    Some("Object") => Kind::Object,
                    Some("Array") => Kind::Array,
                    Some("String") => Kind::String,
                    Some("Number") => Kind::Number,
                    Some("Integer") => Kind::Integer,
                    Some("Boolean") => Kind::Boolean,
                    Some("Null") => Kind::Null,
                    Some("Union") => Kind::Union,
                    Some("Literal") => Kind::Literal,
                    Some("Enum") => Kind::Enum,
                    Some("Any") => Kind::Any,
                    Some("Unknown") => Kind::Unknown,
                    _ => return Err(unsupported(&format!("~kind {v}"))),
                };
                node.kind = Some(kind);
            }
            "type" => {
                node.types = Some(match v {
                    Value::String(s) => Types::One(
                        JsonType::parse(s).ok_or_else(|| unsupported(&format!("type {s}")))?,
                    ),
                    Value::Array(names) if !names.is_empty() => Types::Many(
                        names
                            .iter()
                            .map(|n| {
                                n.as_str()
                                    .and_then(JsonType::parse)
                                    .ok_or_else(|| unsupported(&format!("type {n}")))
                            })
                            .collect::<Result<_, _>>()?,
                    ),
                    _ => return Err(malformed(format_args!("{here} is not a type name"))),
                });
            }
            "properties" => {
                let Value::Object(props) = v else {
                    return Err(malformed(format_args!("{here} is not an object")));
                };
                let mut out = Vec::with_capacity(props.len());
                for (name, sub) in props {
                    name_ok(name, &here)?;
                    out.push((name.clone(), decode(sub, &format!("{here}/{name}"))?));
                }
                node.properties = Some(out);
            }
            "required" => {
                let Value::Array(names) = v else {
                    return Err(malformed(format_args!("{here} is not an array")));
                };
                let mut out = Vec::with_capacity(names.len());
                for n in names {
                    let Some(name) = n.as_str() else {
                        return Err(malformed(format_args!("{here} holds a non-string")));
                    };
                    name_ok(name, &here)?;
                    out.push(name.to_owned());
                }
                node.required = Some(out);
            }
            "additionalProperties" => node.additional = Some(decode_schema_or_bool(v, &here)?),
            "items" => {
                if v.is_array() {
                    return Err(unsupported("items (an array of schemas)"));
                }
                node.items = Some(decode(v, &here)?);
            }
            "anyOf" => {
                let Value::Array(members) = v else {
                    return Err(malformed(format_args!("{here} is not an array")));
                };
                node.any_of = Some(
                    members
                        .iter()
                        .enumerate()
                        .map(|(i, m)| decode(m, &format!("{here}/{i}")))
                        .collect::<Result<_, _>>()?,
                );
            }
            "const" => node.constant = Some(primitive(v, &here)?),
            "enum" => {
                let Value::Array(options) = v else {
                    return Err(malformed(format_args!("{here} is not an array")));
                };
                node.enumeration = Some(
                    options
                        .iter()
                        .map(|o| primitive(o, &here))
                        .collect::<Result<_, _>>()?,
                );
            }
            "minLength" => node.min_length = Some(number(v, at, key)?),
            "maxLength" => node.max_length = Some(number(v, at, key)?),
            "minItems" => node.min_items = Some(number(v, at, key)?),
            "maxItems" => node.max_items = Some(number(v, at, key)?),
            "minimum" => node.minimum = Some(number(v, at, key)?),
            "maximum" => node.maximum = Some(number(v, at, key)?),
            "exclusiveMinimum" => node.exclusive_minimum = Some(number(v, at, key)?),
            "exclusiveMaximum" => node.exclusive_maximum = Some(number(v, at, key)?),
            other if ANNOTATIONS.contains(&other) => {}
            other => return Err(unsupported(other)),
        }
    }
    kind_ok(&node, at)?;
    Ok(node)
}

/// What `Value.Convert` needs of a node of each kind, or it throws or
/// reaches code outside the subset.
fn kind_ok(node: &Node, at: &str) -> Result<(), Error> {
    match node.kind {
        Some(Kind::Object) => {
            let Some(props) = &node.properties else {
                return Err(malformed(format_args!(
                    "{at}: an Object without properties"
                )));
            };
            if let Some((name, _)) = props.iter().find(|(n, _)| n.contains(REGEXP_SPECIAL)) {
                return Err(unsupported(&format!(
                    "{at}/properties (the name {name:?} is a regular expression to Value.Convert)"
                )));
            }
        }
        Some(Kind::Union) if node.any_of.is_none() => {
            return Err(malformed(format_args!("{at}: a Union without anyOf")));
        }
        Some(Kind::Literal)
            if !matches!(
                node.constant,
                Some(Value::Bool(_) | Value::Number(_) | Value::String(_))
            ) =>
        {
            return Err(malformed(format_args!(
                "{at}: a Literal without a boolean, number or string const"
            )));
        }
        Some(Kind::Enum) => {
            let ok = node
                .enumeration
                .as_ref()
                .is_some_and(|e| e.iter().all(|v| v.is_string() || v.is_number()));
            if !ok {
                return Err(malformed(format_args!(
                    "{at}: an Enum without string or number values"
                )));
            }
        }
        _ => {}
    }
    Ok(())
}
