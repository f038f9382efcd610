//! The `{ error: { code, message } }` payload of error results, as an output
//! source, so error contents go through the same serializer and budgets as
//! tool outputs (a long message truncates like any string).

use super::{Classified, Entry, Failure, Opened, OutputSource, Slot};
use crate::js_string::StrRef;
use std::convert::Infallible;
use std::ops::ControlFlow;

/// The payload of one error result.
#[derive(Debug, Clone, Copy)]
pub struct ErrorPayload<'a> {
    pub code: &'a str,
    pub message: StrRef<'a>,
}

/// The four values of the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadPart {
    Root,
    Error,
    Code,
    Message,
}

impl<'a> OutputSource for ErrorPayload<'a> {
    type Value = PayloadPart;
    type Key = &'static str;
    type Handle = PayloadPart;
    type Thrown = Infallible;

    fn classify<'v>(&'v self, value: &'v PayloadPart) -> Classified<'v, PayloadPart> {
        match value {
            PayloadPart::Root | PayloadPart::Error => Classified::Container(*value),
            PayloadPart::Code => Classified::Str(StrRef::Utf8(self.code)),
            PayloadPart::Message => Classified::Str(self.message),
        }
    }

    fn key_str<'k>(&'k self, key: &'k &'static str) -> StrRef<'k> {
        StrRef::Utf8(key)
    }

    fn open(&self, _: PayloadPart) -> Result<Opened, Failure<Infallible>> {
        Ok(Opened::Object)
    }

    fn slot(&self, _: PayloadPart, _: u32) -> Result<Slot<PayloadPart>, Infallible> {
        Ok(Slot::Hole)
    }

    fn entries(
        &self,
        h: PayloadPart,
        visit: &mut dyn FnMut(Entry<&'static str, PayloadPart>) -> ControlFlow<()>,
    ) -> Result<(), Infallible> {
        let fields: &[(&'static str, PayloadPart)] = match h {
            PayloadPart::Root => &[("error", PayloadPart::Error)],
            PayloadPart::Error => &[
                ("code", PayloadPart::Code),
                ("message", PayloadPart::Message),
            ],
            _ => &[],
        };
        for (k, v) in fields {
            if visit(Entry::Data(k, *v)).is_break() {
                break;
            }
        }
        Ok(())
    }
}

/// Serializes the error payload for `code` and `message`.
pub fn error_content(code: &str, message: StrRef<'_>) -> super::Serialized {
    let payload = ErrorPayload { code, message };
    match super::serialize(&payload, &PayloadPart::Root) {
        Ok(s) => s,
        Err(Failure::Thrown(never)) => match never {},
        // open() of the payload never reports an unsupported prototype
        Err(Failure::Unsupported(_)) => super::Serialized {
            content: String::new(),
            truncated: false,
            usage: Default::default(),
            steps: 0,
        },
    }
}
