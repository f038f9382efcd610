//! Tool definitions in the model: snapshots of the four own fields, each read
//! exactly once, and batches read by index.

use super::heap::{NodeId, PropKey, Value};
use super::runtime::Runtime;
use crate::error::{ContractCode, Error};
use crate::js_string::JsString;
use crate::registry::{Named, Registry};

/// A frozen definition snapshot: the values read, never read again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelTool {
    pub name: JsString,
    pub description: JsString,
    pub validate: NodeId,
    pub execute: NodeId,
}

impl Named for ModelTool {
    fn name(&self) -> &JsString {
        &self.name
    }
}

/// A registry of model definitions.
pub type ModelRegistry = Registry<ModelTool>;

fn invalid_definition() -> Error {
    Error::contract(ContractCode::InvalidToolDefinition)
}

fn invalid_batch() -> Error {
    Error::contract(ContractCode::InvalidToolBatch)
}

/// Snapshots one definition, any object or function. The four fields are
/// read first, in the order name, description, validate, execute (each
/// `Object.hasOwn` then `Reflect.get`; the first that is missing or throws
/// ends the reading), and only then checked in the same order.
pub fn snapshot_definition(rt: &Runtime<'_>, definition: &Value) -> Result<ModelTool, Error> {
    let Value::Ref(id) = definition else {
        return Err(invalid_definition());
    };
    let read = |key: &str| -> Result<Value, Error> {
        rt.read_own(*id, &PropKey::from(key))
            .map_err(|_| invalid_definition())?
            .ok_or_else(invalid_definition)
    };
    let text = |v: Value| match v {
        Value::String(s) if !s.is_blank() => Ok(s),
        _ => Err(invalid_definition()),
    };
    let function = |v: Value| match v {
        Value::Ref(f) if rt.is_function(&v) => Ok(f),
        _ => Err(invalid_definition()),
    };
    let name = read("name")?;
    let description = read("description")?;
    let validate = read("validate")?;
    let execute = read("execute")?;
    let name = text(name)?;
    let description = text(description)?;
    let validate = function(validate)?;
    let execute = function(execute)?;
    Ok(ModelTool {
        name,
        description,
        validate,
        execute,
    })
}

/// Snapshots a batch: an array read by index (no iterator), without holes.
/// Entries are read and snapshotted in index order; the first failure decides.
pub fn snapshot_batch(rt: &Runtime<'_>, batch: &Value) -> Result<Vec<ModelTool>, Error> {
    let Value::Ref(id) = batch else {
        return Err(invalid_batch());
    };
    if !rt.is_object(batch) || !rt.is_array(*id).map_err(|_| invalid_batch())? {
        return Err(invalid_batch());
    }
    let length = match rt.get(batch, &PropKey::from("length")) {
        Ok(Value::Number(n)) if n >= 0.0 && n <= f64::from(u32::MAX) => n as u32,
        _ => return Err(invalid_batch()),
    };
    let mut tools = Vec::new();
    for index in 0..length {
        let key = PropKey::String(JsString::from(index.to_string()));
        let entry = rt
            .read_own(*id, &key)
            .map_err(|_| invalid_batch())?
            .ok_or_else(invalid_batch)?;
        tools.push(snapshot_definition(rt, &entry)?);
    }
    Ok(tools)
}

/// `registry.registerMany(batch)`: all or nothing.
pub fn register_many(
    rt: &Runtime<'_>,
    registry: &mut ModelRegistry,
    batch: &Value,
) -> Result<(), Error> {
    let tools = snapshot_batch(rt, batch)?;
    registry.register_many(tools)
}

/// `new ToolRegistry(batch)`: `registerMany`'s rules, except that a missing
/// batch (`undefined`) is the default parameter `[]`, as in the course.
pub fn construct(
    rt: &Runtime<'_>,
    registry: &mut ModelRegistry,
    batch: &Value,
) -> Result<(), Error> {
    if matches!(batch, Value::Undefined) {
        return Ok(());
    }
    register_many(rt, registry, batch)
}

/// `registry.register(definition)`.
pub fn register(
    rt: &Runtime<'_>,
    registry: &mut ModelRegistry,
    definition: &Value,
) -> Result<(), Error> {
    let tool = snapshot_definition(rt, definition)?;
    registry.register(tool)
}
