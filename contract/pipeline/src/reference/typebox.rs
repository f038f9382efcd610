//! A scenario schema as TypeBox's builders make it (what
//! `adapters/node/pipeline/typebox.mjs` builds for `"parametersKind":
//! "typebox"`): the same JSON with TypeBox's `~kind` on every node,
//! `~optional` on properties that are not required, and `required`
//! recomputed from the properties in their order, so that the validation
//! reference converts what pi 0.85's `Value.Convert` converts.

use crate::validation::js;
use serde_json::{Map, Value as Json};
use toolgate_suite::Error;

const STRUCTURAL: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "anyOf",
    "const",
    "additionalProperties",
];

fn options(schema: &Map<String, Json>) -> Map<String, Json> {
    schema
        .iter()
        .filter(|(k, _)| !STRUCTURAL.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn node(kind: &str, mut head: Map<String, Json>, options: Map<String, Json>) -> Json {
    head.extend(options);
    head.insert("~kind".to_owned(), Json::String(kind.to_owned()));
    Json::Object(head)
}

fn typed(t: &str) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert("type".to_owned(), Json::String(t.to_owned()));
    m
}

/// The schema rebuilt as TypeBox would; what `typebox.mjs` refuses is
/// refused here too.
pub(crate) fn typebox_of(schema: &Json) -> Result<Json, Error> {
    let refuse = || {
        Error::scenario(format!(
            "parametersKind \"typebox\": no TypeBox builder for {schema}"
        ))
    };
    if *schema == Json::Bool(true) {
        return Ok(node("Unknown", Map::new(), Map::new()));
    }
    let Json::Object(map) = schema else {
        return Err(Error::scenario(format!("not a schema: {schema}")));
    };
    if map.is_empty() {
        return Ok(node("Unknown", Map::new(), Map::new()));
    }
    let opts = options(map);
    if let Some(c) = map.get("const") {
        let t = match c {
            Json::String(_) => "string",
            Json::Number(_) => "number",
            Json::Bool(_) => "boolean",
            _ => return Err(refuse()),
        };
        let mut head = typed(t);
        head.insert("const".to_owned(), c.clone());
        return Ok(node("Literal", head, opts));
    }
    if let Some(members) = map.get("anyOf") {
        let Json::Array(members) = members else {
            return Err(refuse());
        };
        let built = members
            .iter()
            .map(typebox_of)
            .collect::<Result<Vec<_>, _>>()?;
        let mut head = Map::new();
        head.insert("anyOf".to_owned(), Json::Array(built));
        return Ok(node("Union", head, opts));
    }
    let t = map.get("type").and_then(Json::as_str).ok_or_else(refuse)?;
    Ok(match t {
        "object" => {
            let required: Vec<&str> = map
                .get("required")
                .and_then(Json::as_array)
                .map(|r| r.iter().filter_map(Json::as_str).collect())
                .unwrap_or_default();
            let mut properties = Map::new();
            let mut names = Vec::new();
            if let Some(props @ Json::Object(_)) = map.get("properties") {
                // `Object.entries` order: array indices first
                let Json::Object(props) = js::js_ordered(props) else {
                    return Err(refuse());
                };
                for (k, s) in &props {
                    let mut built = typebox_of(s)?;
                    if required.contains(&k.as_str()) {
                        names.push(Json::String(k.clone()));
                    } else if let Json::Object(b) = &mut built {
                        b.insert("~optional".to_owned(), Json::Bool(true));
                    }
                    properties.insert(k.clone(), built);
                }
            }
            let mut head = typed("object");
            if !names.is_empty() {
                head.insert("required".to_owned(), Json::Array(names));
            }
            head.insert("properties".to_owned(), Json::Object(properties));
            let mut opts = opts;
            if let Some(a) = map.get("additionalProperties") {
                let a = match a {
                    Json::Bool(_) => a.clone(),
                    other => typebox_of(other)?,
                };
                opts.insert("additionalProperties".to_owned(), a);
            }
            node("Object", head, opts)
        }
        "array" => {
            let items = typebox_of(map.get("items").unwrap_or(&Json::Object(Map::new())))?;
            let mut head = typed("array");
            head.insert("items".to_owned(), items);
            node("Array", head, opts)
        }
        "string" => node("String", typed("string"), opts),
        "number" => node("Number", typed("number"), opts),
        "integer" => node("Integer", typed("integer"), opts),
        "boolean" => node("Boolean", typed("boolean"), opts),
        "null" => node("Null", typed("null"), opts),
        _ => return Err(refuse()),
    })
}
