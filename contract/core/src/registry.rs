//! The tool registry: snapshots of definitions by name, registered all or
//! nothing. Generic over what a snapshot is, so the host model and the Rust
//! API share one implementation of the atomicity and duplicate rules.

use crate::error::{ContractCode, Error};
use crate::js_string::JsString;
use std::collections::HashMap;
use std::sync::Arc;

/// A definition snapshot the registry can hold.
pub trait Named {
    /// The name, compared by exact code units (no trimming, no normalization).
    fn name(&self) -> &JsString;
}

/// Registered tools in registration order.
#[derive(Debug)]
pub struct Registry<T> {
    tools: Vec<Arc<T>>,
    by_name: HashMap<JsString, usize>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            tools: Vec::new(),
            by_name: HashMap::new(),
        }
    }
}

impl<T> Clone for Registry<T> {
    fn clone(&self) -> Self {
        Registry {
            tools: self.tools.clone(),
            by_name: self.by_name.clone(),
        }
    }
}

impl<T: Named> Registry<T> {
    pub fn new() -> Self {
        Registry::default()
    }

    /// Adds every snapshot or none: a name repeated inside `batch` or
    /// already registered gives `DUPLICATE_TOOL_NAME` and changes nothing.
    pub fn register_many(&mut self, batch: Vec<T>) -> Result<(), Error> {
        let mut seen: HashMap<&JsString, ()> = HashMap::with_capacity(batch.len());
        for tool in &batch {
            let name = tool.name();
            if self.by_name.contains_key(name) || seen.insert(name, ()).is_some() {
                return Err(Error::contract(ContractCode::DuplicateToolName));
            }
        }
        for tool in batch {
            self.by_name.insert(tool.name().clone(), self.tools.len());
            self.tools.push(Arc::new(tool));
        }
        Ok(())
    }

    /// Adds one snapshot, with the same rules.
    pub fn register(&mut self, tool: T) -> Result<(), Error> {
        self.register_many(vec![tool])
    }

    pub fn get(&self, name: &JsString) -> Option<&Arc<T>> {
        self.tools.get(*self.by_name.get(name)?)
    }

    /// Names in registration order (a copy).
    pub fn names(&self) -> Vec<JsString> {
        self.tools.iter().map(|t| t.name().clone()).collect()
    }

    pub fn size(&self) -> usize {
        self.tools.len()
    }

    /// A copy of the membership for one agent run, sharing the immutable
    /// snapshots; later registrations on either side do not reach the other.
    pub fn snapshot(&self) -> Self {
        self.clone()
    }
}
