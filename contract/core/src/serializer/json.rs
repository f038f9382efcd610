//! `serde_json::Value` as an output source: what a Rust tool returns when its
//! output is plain data. Maps are walked in their own iteration order (the
//! order the value was built in), which stands in for own-key order.

use super::{Classified, Entry, Failure, Opened, OutputSource, Slot};
use crate::js_string::StrRef;
use serde_json::Value;
use std::convert::Infallible;
use std::marker::PhantomData;
use std::ops::ControlFlow;

/// Serializes borrowed `serde_json` values.
#[derive(Debug, Default, Clone, Copy)]
pub struct JsonSource<'a>(PhantomData<&'a Value>);

impl<'a> JsonSource<'a> {
    pub fn new() -> Self {
        JsonSource(PhantomData)
    }
}

/// A JSON container, identified by address (JSON trees have no cycles, but
/// the walk still keeps its path).
#[derive(Debug, Clone, Copy)]
pub struct JsonHandle<'a>(&'a Value);

impl PartialEq for JsonHandle<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl<'a> OutputSource for JsonSource<'a> {
    type Value = &'a Value;
    type Key = &'a str;
    type Handle = JsonHandle<'a>;
    type Thrown = Infallible;

    fn classify<'v>(&'v self, value: &'v &'a Value) -> Classified<'v, JsonHandle<'a>> {
        match *value {
            Value::Null => Classified::Null,
            Value::Bool(b) => Classified::Bool(*b),
            // like JSON.parse: every number is an IEEE double
            Value::Number(n) => Classified::Number(n.as_f64().unwrap_or(f64::NAN)),
            Value::String(s) => Classified::Str(StrRef::Utf8(s)),
            Value::Array(_) | Value::Object(_) => Classified::Container(JsonHandle(value)),
        }
    }

    fn key_str<'k>(&'k self, key: &'k &'a str) -> StrRef<'k> {
        StrRef::Utf8(key)
    }

    fn open(&self, h: JsonHandle<'a>) -> Result<Opened, Failure<Infallible>> {
        Ok(match h.0 {
            // a longer array cannot exist in JavaScript; the walk stops at 256 anyway
            Value::Array(items) => Opened::Array {
                length: u32::try_from(items.len()).unwrap_or(u32::MAX),
            },
            _ => Opened::Object,
        })
    }

    fn slot(&self, h: JsonHandle<'a>, index: u32) -> Result<Slot<&'a Value>, Infallible> {
        let item = match h.0 {
            Value::Array(items) => usize::try_from(index).ok().and_then(|i| items.get(i)),
            _ => None,
        };
        Ok(item.map_or(Slot::Hole, Slot::Data))
    }

    fn entries(
        &self,
        h: JsonHandle<'a>,
        visit: &mut dyn FnMut(Entry<&'a str, &'a Value>) -> ControlFlow<()>,
    ) -> Result<(), Infallible> {
        if let Value::Object(map) = h.0 {
            for (k, v) in map {
                if visit(Entry::Data(k.as_str(), v)).is_break() {
                    break;
                }
            }
        }
        Ok(())
    }
}
