//! Runs CONTRACT.md's worked examples through the reference contract and prints
//! each result content, so a reader can see the bytes the suite expects.
//! Until the runner lands, this is the project's main job.

use serde_json::json;
use toolgate_core::api::{execute_tool_call, Decision, FnTool, Output, ToolRegistry};
use toolgate_core::bigint::BigIntValue;
use toolgate_core::model::{Heap, HeapBuilder, Property, Value};
use toolgate_core::AbortSignal;

type Built = Result<(Heap, Value), toolgate_core::Error>;

fn examples() -> Vec<(&'static str, Built)> {
    let mut out: Vec<(&'static str, Built)> = Vec::new();
    let mut b = HeapBuilder::new();
    let o = b.object([("sum", Value::from(42)), ("exact", true.into())]);
    out.push((
        "{ sum: 42, exact: true }",
        b.finish().map(|h| (h, o.into())),
    ));

    let mut b = HeapBuilder::new();
    let cycle = b.object::<&str, Value>([]);
    let getter = b.returning("never read");
    let to_json = b.returning("never called");
    let o = b.object::<&str, Value>([]);
    if let Some(obj) = b.object_mut(cycle) {
        obj.define("self", Property::data(cycle));
    }
    if let Some(obj) = b.object_mut(o) {
        obj.define("zUndefined", Property::data(Value::Undefined));
        obj.define(
            "aBigInt",
            Property::data(BigIntValue::from_i64(9007199254740993)),
        );
        obj.define("cycle", Property::data(cycle));
        obj.define("getter", Property::getter(getter));
        obj.define("toJSON", Property::data(to_json));
    }
    out.push((
        "markers, BigInt, cycle, getter, toJSON",
        b.finish().map(|h| (h, o.into())),
    ));

    let huge = BigIntValue::power_of_two(false, 2_000_000, 0).map(Value::BigInt);
    out.push((
        "2n ** 2000000n",
        Ok((Heap::default(), huge.unwrap_or(Value::Undefined))),
    ));

    let mut b = HeapBuilder::new();
    let a = b.array((0..228).map(Value::from));
    out.push(("an array of 228 numbers", b.finish().map(|h| (h, a.into()))));

    let mut b = HeapBuilder::new();
    let a = b.array([1e21, 5e-7, 0.1, -0.0, f64::NAN, f64::INFINITY, f64::MAX]);
    out.push(("numbers", b.finish().map(|h| (h, a.into()))));

    let mut b = HeapBuilder::new();
    let keys = ["b", "a", "10", "9", "é", "😀", "\u{FFFF}"];
    let o = b.object(keys.map(|k| (k, Value::from(1))));
    out.push(("keys in UTF-16 order", b.finish().map(|h| (h, o.into()))));
    out
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runtime = tokio::runtime::Builder::new_current_thread().build()?;
    for (label, built) in examples() {
        let (heap, root) = built?;
        let heap = std::sync::Arc::new(heap);
        let tool = FnTool::new(
            "example",
            "returns one worked example",
            |_| Ok(Decision::Accept(json!(null))),
            move |_, _| {
                let (heap, root) = (heap.clone(), root.clone());
                async move { Ok(Output::Graph { heap, root }) }
            },
        );
        let registry = ToolRegistry::with_tools(vec![tool.into_tool()])?;
        let call = json!({"type": "toolCall", "id": "example", "name": "example", "arguments": {}});
        let result = runtime.block_on(execute_tool_call(&registry, &call, &AbortSignal::new()))?;
        let shown: String = result.content.chars().take(160).collect();
        let more = result.content.chars().count().saturating_sub(160);
        println!(
            "{label}\n  {shown:?}{}",
            if more > 0 {
                format!(" (+{more} code points)")
            } else {
                String::new()
            }
        );
    }
    Ok(())
}
