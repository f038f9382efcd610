//! The structure layer (the seed's `validate_action`): an action text
//! becomes an [`Action`] or the first refusal in FORMAT.md's order, with
//! its code and the JSON Pointer of the field at fault. Nothing here knows
//! the task: a well-typed action may still be refused by
//! [`super::authorize`].

use super::spec::limits;
use super::spec::{Code, FINISH_STATUSES, TOOL_NAMES};
use super::strict_json::{self, Value};

/// A well-formed action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Finish {
        status: String,
    },
    Search {
        query: String,
    },
    Document {
        item_id: String,
    },
    Stock {
        item_id: String,
    },
    Reserve {
        item_id: String,
        quantity: i64,
        expected_revision: i64,
        idempotency_key: String,
    },
}

impl Action {
    /// The tool's name, `None` for `finish`.
    pub fn tool(&self) -> Option<&'static str> {
        match self {
            Action::Finish { .. } => None,
            Action::Search { .. } => Some("search"),
            Action::Document { .. } => Some("document"),
            Action::Stock { .. } => Some("stock"),
            Action::Reserve { .. } => Some("reserve"),
        }
    }
}

/// Why an action was refused: the code, the field (a JSON Pointer; `None`
/// for codes that point nowhere), and, for `invalid_json`, which rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub code: Code,
    pub field: Option<String>,
    pub json: Option<strict_json::Refusal>,
}

impl Refused {
    fn at(code: Code, pointer: &str) -> Refused {
        Refused {
            code,
            field: Some(pointer.to_string()),
            json: None,
        }
    }

    /// A refusal that points nowhere (the authorization layer's).
    pub fn code(code: Code) -> Refused {
        Refused {
            code,
            field: None,
            json: None,
        }
    }
}

/// `text` parsed strictly and checked, in FORMAT.md's order.
pub fn validate_text(text: &str) -> Result<Action, Refused> {
    validate_bytes(text.as_bytes())
}

/// The same over raw bytes (the fuzz target's input).
pub fn validate_bytes(text: &[u8]) -> Result<Action, Refused> {
    let value = strict_json::parse(text).map_err(|refusal| Refused {
        code: Code::InvalidJson,
        field: Some(String::new()),
        json: Some(refusal),
    })?;
    validate_value(&value)
}

fn member<'a>(members: &'a [(String, Value)], name: &str) -> Option<&'a Value> {
    members.iter().find(|(n, _)| n == name).map(|(_, v)| v)
}

/// RFC 6901's escaping of one reference token.
pub fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// The first key outside `allowed` (text order), then the first of
/// `allowed` missing (its order), each under `prefix`.
fn exact_keys(members: &[(String, Value)], allowed: &[&str], prefix: &str) -> Result<(), Refused> {
    if let Some((name, _)) = members.iter().find(|(n, _)| !allowed.contains(&n.as_str())) {
        return Err(Refused::at(
            Code::UnknownField,
            &format!("{prefix}/{}", pointer_token(name)),
        ));
    }
    if let Some(name) = allowed.iter().find(|a| member(members, a).is_none()) {
        return Err(Refused::at(Code::MissingField, &format!("{prefix}/{name}")));
    }
    Ok(())
}

/// An already parsed action, checked.
pub fn validate_value(value: &Value) -> Result<Action, Refused> {
    let Value::Object(members) = value else {
        return Err(Refused::at(Code::NotObject, ""));
    };
    let kind = match member(members, "kind") {
        None => return Err(Refused::at(Code::MissingField, "/kind")),
        Some(Value::String(k)) if k == "tool" || k == "finish" => k.as_str(),
        Some(_) => return Err(Refused::at(Code::UnknownKind, "/kind")),
    };
    if kind == "finish" {
        exact_keys(members, &["kind", "status"], "")?;
        let status = match member(members, "status") {
            Some(Value::String(s)) => s,
            _ => return Err(Refused::at(Code::NotString, "/status")),
        };
        if !FINISH_STATUSES.contains(&status.as_str()) {
            return Err(Refused::at(Code::UnknownStatus, "/status"));
        }
        return Ok(Action::Finish {
            status: status.clone(),
        });
    }
    exact_keys(members, &["kind", "name", "args"], "")?;
    let name = match member(members, "name") {
        Some(Value::String(n)) => n.as_str(),
        _ => return Err(Refused::at(Code::NotString, "/name")),
    };
    if !TOOL_NAMES.contains(&name) {
        return Err(Refused::at(Code::UnknownTool, "/name"));
    }
    let Some(Value::Object(args)) = member(members, "args") else {
        return Err(Refused::at(Code::NotObject, "/args"));
    };
    let arg = |name: &str| member(args, name).unwrap_or(&Value::Null);
    match name {
        "search" => {
            exact_keys(args, &["query"], "/args")?;
            Ok(Action::Search {
                query: string_arg(arg("query"), "query", limits::QUERY_CHARS)?,
            })
        }
        "document" | "stock" => {
            exact_keys(args, &["item_id"], "/args")?;
            let item_id = string_arg(arg("item_id"), "item_id", limits::ID_CHARS)?;
            Ok(if name == "document" {
                Action::Document { item_id }
            } else {
                Action::Stock { item_id }
            })
        }
        _ => {
            exact_keys(
                args,
                &[
                    "item_id",
                    "quantity",
                    "expected_revision",
                    "idempotency_key",
                ],
                "/args",
            )?;
            Ok(Action::Reserve {
                item_id: string_arg(arg("item_id"), "item_id", limits::ID_CHARS)?,
                quantity: integer_arg(arg("quantity"), "quantity", limits::QUANTITY)?,
                expected_revision: integer_arg(
                    arg("expected_revision"),
                    "expected_revision",
                    limits::REVISION,
                )?,
                idempotency_key: string_arg(
                    arg("idempotency_key"),
                    "idempotency_key",
                    limits::KEY_CHARS,
                )?,
            })
        }
    }
}

fn integer_arg(value: &Value, name: &str, (low, high): (i64, i64)) -> Result<i64, Refused> {
    let pointer = format!("/args/{name}");
    match value {
        Value::Integer(Some(n)) if (low..=high).contains(n) => Ok(*n),
        Value::Integer(_) => Err(Refused::at(Code::OutOfRange, &pointer)),
        _ => Err(Refused::at(Code::NotInteger, &pointer)),
    }
}

fn string_arg(value: &Value, name: &str, most: usize) -> Result<String, Refused> {
    let pointer = format!("/args/{name}");
    let Value::String(s) = value else {
        return Err(Refused::at(Code::NotString, &pointer));
    };
    check_string(s, most).map_err(|code| Refused::at(code, &pointer))?;
    Ok(s.clone())
}

/// The string rules of FORMAT.md, in order: at most `most` code points, no
/// control character (general category Cc), not blank (empty, or only
/// characters with the Unicode `White_Space` property, which is what
/// `char::is_whitespace` tests).
pub fn check_string(s: &str, most: usize) -> Result<(), Code> {
    if s.chars().count() > most {
        return Err(Code::TooLong);
    }
    if s.chars().any(char::is_control) {
        return Err(Code::ControlCharacter);
    }
    if s.chars().all(char::is_whitespace) {
        return Err(Code::Blank);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> (&'static str, String) {
        match validate_text(text) {
            Ok(action) => panic!("{text} was accepted as {action:?}"),
            Err(r) => (r.code.name(), r.field.unwrap_or_default()),
        }
    }

    fn reserve(quantity: &str) -> String {
        format!(
            r#"{{"kind":"tool","name":"reserve","args":{{"item_id":"camera","quantity":{quantity},"expected_revision":0,"idempotency_key":"k"}}}}"#
        )
    }

    #[test]
    fn the_seeds_typed_boundary() {
        assert!(validate_text(&reserve("1")).is_ok());
        for bad in ["true", "1.0", "\"1\""] {
            assert_eq!(
                refused(&reserve(bad)),
                ("not_integer", "/args/quantity".into())
            );
        }
        for bad in ["0", "11", "-0", &"9".repeat(5000)] {
            assert_eq!(
                refused(&reserve(bad)),
                ("out_of_range", "/args/quantity".into())
            );
        }
    }

    #[test]
    fn the_seeds_strict_key_sets() {
        assert!(validate_text(r#"{"kind":"tool","name":"stock","args":{"item_id":"x"}}"#).is_ok());
        assert_eq!(
            refused(
                r#"{"kind":"tool","name":"stock","args":{"item_id":"x"},"path":"/tmp/secret"}"#
            ),
            ("unknown_field", "/path".into())
        );
        assert_eq!(
            refused(r#"{"kind":"tool","name":"stock","args":{"item_id":"x","a/b":1}}"#),
            ("unknown_field", "/args/a~1b".into())
        );
        assert_eq!(
            refused(r#"{"kind":"tool","name":"stock","args":{}}"#),
            ("missing_field", "/args/item_id".into())
        );
        assert_eq!(
            refused(r#"{"kind":"tool","name":"wipe","args":{}}"#),
            ("unknown_tool", "/name".into())
        );
    }

    #[test]
    fn strings_are_bounded_and_not_blank() {
        let search = |q: &str| {
            format!(
                r#"{{"kind":"tool","name":"search","args":{{"query":{}}}}}"#,
                serde_json::to_string(q).unwrap_or_default()
            )
        };
        assert!(validate_text(&search("\u{200b}")).is_ok());
        assert!(validate_text(&search(&"é".repeat(200))).is_ok());
        assert_eq!(refused(&search(&"é".repeat(201))).0, "too_long");
        assert_eq!(refused(&search("\u{3000}")).0, "blank");
        assert_eq!(refused(&search("")).0, "blank");
        assert_eq!(refused(&search("\u{1c}")).0, "control_character");
        assert_eq!(refused(&search("a\u{85}")).0, "control_character");
    }
}
