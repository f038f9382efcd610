//! A tool's output as the text the model reads, bounded: the output's own
//! `Serialize` drives a serializer of this module's that builds a JSON
//! value no deeper than `depth` (deeper containers become
//! `"[nested too deep]"` without their `Serialize` being called, so a
//! cyclic or 10^5-deep output costs 64 levels of recursion), of at most
//! `nodes` containers and about `chars` characters of text; the bounded
//! value is then written by serde_json, whose recursion is now bounded too.

use serde::ser::{self, Serialize};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// How an output was rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub text: String,
    /// Whether the rendering stopped at a bound.
    pub cut: bool,
}

/// A serialization the output's own code failed (a value that cannot be
/// serialized, a `Serialize` that errs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError(pub String);

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RenderError {}

impl ser::Error for RenderError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        RenderError(message.to_string())
    }
}

struct Budget {
    depth: usize,
    nodes: usize,
    chars: usize,
    full: bool,
}

impl Budget {
    /// Counts `n` characters of text; false once the budget is spent.
    fn spend(&mut self, n: usize) -> bool {
        self.chars = self.chars.saturating_sub(n);
        if self.chars == 0 {
            self.full = true;
        }
        !self.full
    }
}

/// `value` as JSON text within the bounds; a string as itself.
pub fn render<T: Serialize + ?Sized>(
    value: &T,
    depth: usize,
    nodes: usize,
    chars: usize,
) -> Result<Rendered, RenderError> {
    let budget = RefCell::new(Budget {
        depth,
        nodes,
        chars,
        full: false,
    });
    let bounded = value.serialize(Bounded {
        level: 0,
        budget: &budget,
    })?;
    let cut = budget.borrow().full;
    let text = match bounded {
        Value::String(text) => text,
        other => serde_json::to_string(&other).map_err(|e| RenderError(e.to_string()))?,
    };
    Ok(Rendered { text, cut })
}

const TOO_DEEP: &str = "[nested too deep]";
const TOO_MANY: &str = "[too many objects]";

#[derive(Clone, Copy)]
struct Bounded<'a> {
    level: usize,
    budget: &'a RefCell<Budget>,
}

impl<'a> Bounded<'a> {
    /// Opens a container: `None` when it is not to be entered (a marker
    /// goes in its place).
    fn open(self) -> Result<Container<'a>, RenderError> {
        let mut budget = self.budget.borrow_mut();
        let marker = if budget.full {
            Some(TOO_MANY)
        } else if self.level >= budget.depth {
            Some(TOO_DEEP)
        } else if budget.nodes == 0 {
            budget.full = true;
            Some(TOO_MANY)
        } else {
            budget.nodes -= 1;
            None
        };
        Ok(Container {
            inner: Bounded {
                level: self.level + 1,
                budget: self.budget,
            },
            marker,
            items: Vec::new(),
            map: Map::new(),
            key: None,
            variant: None,
        })
    }

    fn text(self, text: &str) -> Value {
        let mut budget = self.budget.borrow_mut();
        let room = budget.chars;
        let kept: String = text.chars().take(room + 1).collect();
        budget.spend(kept.chars().count() + 2);
        Value::String(kept)
    }

    fn scalar(self, value: Value) -> Value {
        self.budget.borrow_mut().spend(4);
        value
    }
}

struct Container<'a> {
    inner: Bounded<'a>,
    marker: Option<&'static str>,
    items: Vec<Value>,
    map: Map<String, Value>,
    key: Option<String>,
    /// An enum variant's name, wrapping the container as serde_json does.
    variant: Option<&'static str>,
}

impl Container<'_> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), RenderError> {
        if self.marker.is_none() && !self.inner.budget.borrow().full {
            self.items.push(value.serialize(self.inner)?);
        }
        Ok(())
    }

    fn entry<T: Serialize + ?Sized>(&mut self, key: String, value: &T) -> Result<(), RenderError> {
        if self.marker.is_none() && !self.inner.budget.borrow().full {
            self.inner
                .budget
                .borrow_mut()
                .spend(key.chars().count() + 3);
            let value = value.serialize(self.inner)?;
            self.map.insert(key, value);
        }
        Ok(())
    }

    fn wrap(self, value: Value) -> Value {
        match (self.marker, self.variant) {
            (Some(marker), _) => Value::String(marker.into()),
            (None, Some(variant)) => Value::Object(Map::from_iter([(variant.to_string(), value)])),
            (None, None) => value,
        }
    }

    fn end_seq(mut self) -> Value {
        let items = std::mem::take(&mut self.items);
        self.wrap(Value::Array(items))
    }

    fn end_map(mut self) -> Value {
        let map = std::mem::take(&mut self.map);
        self.wrap(Value::Object(map))
    }
}

impl<'a> ser::Serializer for Bounded<'a> {
    type Ok = Value;
    type Error = RenderError;
    type SerializeSeq = Container<'a>;
    type SerializeTuple = Container<'a>;
    type SerializeTupleStruct = Container<'a>;
    type SerializeTupleVariant = Container<'a>;
    type SerializeMap = Container<'a>;
    type SerializeStruct = Container<'a>;
    type SerializeStructVariant = Container<'a>;

    fn serialize_bool(self, v: bool) -> Result<Value, RenderError> {
        Ok(self.scalar(Value::Bool(v)))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, RenderError> {
        Ok(self.scalar(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<Value, RenderError> {
        Ok(self.scalar(v.into()))
    }
    fn serialize_i128(self, v: i128) -> Result<Value, RenderError> {
        Ok(match i64::try_from(v) {
            Ok(small) => self.scalar(small.into()),
            Err(_) => match u64::try_from(v) {
                Ok(unsigned) => self.scalar(unsigned.into()),
                // past 64 bits the digits go as text: a JSON reader would round them
                Err(_) => self.text(&v.to_string()),
            },
        })
    }
    fn serialize_u128(self, v: u128) -> Result<Value, RenderError> {
        match u64::try_from(v) {
            Ok(small) => Ok(self.scalar(small.into())),
            Err(_) => Ok(self.text(&v.to_string())),
        }
    }
    fn serialize_i8(self, v: i8) -> Result<Value, RenderError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Value, RenderError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Value, RenderError> {
        self.serialize_i64(v.into())
    }
    fn serialize_u8(self, v: u8) -> Result<Value, RenderError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Value, RenderError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Value, RenderError> {
        self.serialize_u64(v.into())
    }
    fn serialize_f32(self, v: f32) -> Result<Value, RenderError> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<Value, RenderError> {
        // NaN and the infinities as serde_json writes them: null
        Ok(self.scalar(Number::from_f64(v).map_or(Value::Null, Value::Number)))
    }
    fn serialize_char(self, v: char) -> Result<Value, RenderError> {
        Ok(self.text(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<Value, RenderError> {
        Ok(self.text(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, RenderError> {
        Ok(self.text(&format!("[{} bytes]", v.len())))
    }
    fn serialize_none(self) -> Result<Value, RenderError> {
        Ok(self.scalar(Value::Null))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, RenderError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, RenderError> {
        Ok(self.scalar(Value::Null))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value, RenderError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Value, RenderError> {
        Ok(self.text(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Value, RenderError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, RenderError> {
        let mut container = self.open()?;
        container.entry(variant.to_string(), value)?;
        Ok(container.end_map())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Container<'a>, RenderError> {
        self.open()
    }
    fn serialize_tuple(self, _len: usize) -> Result<Container<'a>, RenderError> {
        self.open()
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Container<'a>, RenderError> {
        self.open()
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Container<'a>, RenderError> {
        let mut container = self.open()?;
        container.variant = Some(variant);
        Ok(container)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Container<'a>, RenderError> {
        self.open()
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Container<'a>, RenderError> {
        self.open()
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Container<'a>, RenderError> {
        let mut container = self.open()?;
        container.variant = Some(variant);
        Ok(container)
    }
}

/// The sequence-like containers: each element pushed, an array at the end.
macro_rules! sequence {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Container<'_> {
            type Ok = Value;
            type Error = RenderError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), RenderError> {
                self.push(value)
            }
            fn end(self) -> Result<Value, RenderError> {
                Ok(self.end_seq())
            }
        }
    )*};
}

sequence!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl ser::SerializeMap for Container<'_> {
    type Ok = Value;
    type Error = RenderError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), RenderError> {
        self.key = Some(key.serialize(KeyText)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), RenderError> {
        let key = self.key.take().unwrap_or_default();
        self.entry(key, value)
    }
    fn end(self) -> Result<Value, RenderError> {
        Ok(self.end_map())
    }
}

/// The struct-like containers: each field an entry, an object at the end.
macro_rules! structure {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Container<'_> {
            type Ok = Value;
            type Error = RenderError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), RenderError> {
                self.entry(key.to_string(), value)
            }
            fn end(self) -> Result<Value, RenderError> {
                Ok(self.end_map())
            }
        }
    )*};
}

structure!(SerializeStruct, SerializeStructVariant);

/// Key serializers that write a scalar as its text.
macro_rules! as_text {
    ($($method:ident : $ty:ty),*) => {$(
        fn $method(self, v: $ty) -> Result<String, RenderError> {
            Ok(v.to_string())
        }
    )*};
}

/// A map key as JSON text has it: a string, or a number or bool as its
/// text (as serde_json converts them); anything else is refused.
struct KeyText;

impl ser::Serializer for KeyText {
    type Ok = String;
    type Error = RenderError;
    type SerializeSeq = ser::Impossible<String, RenderError>;
    type SerializeTuple = ser::Impossible<String, RenderError>;
    type SerializeTupleStruct = ser::Impossible<String, RenderError>;
    type SerializeTupleVariant = ser::Impossible<String, RenderError>;
    type SerializeMap = ser::Impossible<String, RenderError>;
    type SerializeStruct = ser::Impossible<String, RenderError>;
    type SerializeStructVariant = ser::Impossible<String, RenderError>;

    as_text!(
        serialize_str: &str,
        serialize_bool: bool,
        serialize_i64: i64,
        serialize_u64: u64,
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_f32: f32,
        serialize_f64: f64,
        serialize_char: char
    );
    fn serialize_bytes(self, _v: &[u8]) -> Result<String, RenderError> {
        Err(RenderError("a map key that is bytes".into()))
    }
    fn serialize_none(self) -> Result<String, RenderError> {
        Err(RenderError("a map key that is none".into()))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<String, RenderError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<String, RenderError> {
        Err(RenderError("a map key that is ()".into()))
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<String, RenderError> {
        Err(RenderError(format!(
            "a map key that is the unit struct {name}"
        )))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, RenderError> {
        Ok(variant.to_string())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<String, RenderError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _value: &T,
    ) -> Result<String, RenderError> {
        Err(RenderError(format!(
            "a map key that is the variant {variant}"
        )))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, RenderError> {
        Err(RenderError("a map key that is a sequence".into()))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, RenderError> {
        Err(RenderError("a map key that is a tuple".into()))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, RenderError> {
        Err(RenderError(format!(
            "a map key that is the tuple struct {name}"
        )))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, RenderError> {
        Err(RenderError(format!(
            "a map key that is the variant {variant}"
        )))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, RenderError> {
        Err(RenderError("a map key that is a map".into()))
    }
    fn serialize_struct(
        self,
        name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, RenderError> {
        Err(RenderError(format!("a map key that is the struct {name}")))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, RenderError> {
        Err(RenderError(format!(
            "a map key that is the variant {variant}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolgate_harness::values::materialize;

    fn check(spec: Value, depth: usize, expected: Result<(&str, bool), &str>) {
        let value = materialize(&spec).unwrap();
        let got = render(&value, depth, 100, 1_000);
        let got = got
            .as_ref()
            .map(|r| (r.text.as_str(), r.cut))
            .map_err(|e| e.0.as_str());
        assert_eq!(got, expected, "{spec}");
        value.dismantle();
    }

    #[test]
    fn hostile_outputs_render_within_their_bounds() {
        check(json!({"a": [1, "é"]}), 8, Ok((r#"{"a":[1,"é"]}"#, false)));
        check(json!("plain text"), 8, Ok(("plain text", false)));
        check(
            json!({"$": "cyclic"}),
            2,
            Ok((
                r#"{"name":"loop","self":{"name":"loop","self":"[nested too deep]"}}"#,
                false,
            )),
        );
        check(
            json!({"$": "deep", "depth": 100_000}),
            1,
            Ok((r#"{"next":"[nested too deep]"}"#, false)),
        );
        check(
            json!({"$": "function"}),
            8,
            Err("a function cannot be serialized"),
        );
        check(
            json!({"$": "throwingGetter", "message": "no"}),
            8,
            Err("no"),
        );
        check(
            json!({"$": "number", "value": "NaN"}),
            8,
            Ok(("null", false)),
        );
        check(
            json!({"$": "bytes", "length": 3}),
            8,
            Ok(("[3 bytes]", false)),
        );
        check(
            json!({"$": "bigint", "value": "123456789012345678901234567890"}),
            8,
            Ok(("123456789012345678901234567890", false)),
        );
        let wide = render(
            &materialize(&json!({"$": "wide", "keys": 1000})).unwrap(),
            8,
            100,
            1_000,
        )
        .unwrap();
        assert!(wide.cut && wide.text.len() < 1_100, "{}", wide.text.len());
        let long = render(
            &materialize(&json!({"$": "longString", "length": 5000})).unwrap(),
            8,
            100,
            1_000,
        )
        .unwrap();
        assert_eq!(long.text.len(), 1_001);
    }
}
