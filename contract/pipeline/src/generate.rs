//! Generated pipeline scenarios: hostile but well-formed runs of Pi's loop
//! built from a stream of bytes (`arbitrary::Unstructured`). One generator
//! serves the fuzz target (`fuzzing::pipeline`), the property tests and
//! `toolgate run --suite pipeline --generate` (proptest draws and shrinks
//! the bytes; an exhausted stream answers every choice with its minimum,
//! so fewer bytes give one tool, one call and the plainest outcome).
//!
//! The menus are the pipeline's moving parts: batch sizes and modes (the
//! config, a tool's sequential vote), outcome mixes (returns, odd results,
//! throws of errors and non-errors, terminate votes), completion orders
//! (a chain of latches, each released by the previous call's end event),
//! updates before and after a wait and late ones, hook decisions (blocks,
//! patches, `null` patches, throws, argument mutation), `prepareArguments`
//! (a new object, in-place mutation, a throw), arguments on both sides of
//! each schema for the coercion tables, unknown tools and repeated names,
//! `length`/`error` stops, steering and follow-up polls, and every abort
//! point. Every scenario ends on pi without a timer: a latch waits only on
//! an event that comes, and with an abort every wait honours the signal.

use super::spec::PipelineScenario;
use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value as Json};

/// Tool names; a tool rarely repeats an earlier one's (the first wins).
const NAMES: [&str; 4] = ["read", "edit", "grep", "bash"];

/// Schemas, each with arguments on both sides of it (coercion included).
const SCHEMAS: [(&str, &[&str]); 5] = [
    (
        r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#,
        &[
            r#"{"path":"a.txt"}"#,
            r#"{"path":5}"#,
            r#"{"path":null}"#,
            r#"{}"#,
            r#"{"path":true}"#,
            r#"{"path":["a"]}"#,
            r#""{\"path\":\"a\"}""#,
        ],
    ),
    (
        r#"{"type":"object","properties":{"n":{"type":"number","minimum":0,"maximum":10},"k":{"type":"integer"}},"required":["n"]}"#,
        &[
            r#"{"n":3}"#,
            r#"{"n":"4"}"#,
            r#"{"n":"0x10"}"#,
            r#"{"n":""}"#,
            r#"{"n":11}"#,
            r#"{"n":2,"k":2.5}"#,
            r#"{"n":2,"k":"7"}"#,
            r#"{"n":null}"#,
            r#"[1]"#,
        ],
    ),
    (
        r#"{"type":"object","properties":{"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string","minLength":1},"new":{"type":"string"}},"required":["old","new"]}}},"required":["edits"],"additionalProperties":false}"#,
        &[
            r#"{"edits":[{"old":"a","new":"b"}]}"#,
            r#"{"edits":{"old":"a","new":"b"}}"#,
            r#"{"edits":[{"old":"","new":"b"}]}"#,
            r#"{"edits":[{"old":"a"}]}"#,
            r#"{"edits":[],"extra":1}"#,
            r#"{"edits":"[]"}"#,
        ],
    ),
    (
        r#"{"type":"object","properties":{"mode":{"anyOf":[{"const":"fast"},{"const":"slow"}]},"flag":{"type":"boolean"},"note":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["mode"]}"#,
        &[
            r#"{"mode":"fast"}"#,
            r#"{"mode":"medium"}"#,
            r#"{"mode":"slow","flag":"TRUE"}"#,
            r#"{"mode":"slow","flag":"yes"}"#,
            r#"{"mode":"fast","note":null}"#,
            r#"{"mode":"fast","note":5}"#,
        ],
    ),
    (
        r#"{"type":"object"}"#,
        &[r#"{}"#, r#"{"any":[1,{"b":null}]}"#, r#""text""#, r#"null"#],
    ),
];

/// Names of calls that match no tool.
const UNKNOWN: [&str; 3] = ["ghost", "Read", "read "];

/// Results a tool may return besides the default.
const RESULTS: [&str; 8] = [
    r#"{"content":[{"type":"text","text":"custom"}],"details":{"n":1}}"#,
    r#"{"content":[{"type":"text","text":"stop here"}],"details":{},"terminate":true}"#,
    r#"{"$":"undefined"}"#,
    r#"null"#,
    r#""plain string""#,
    r#"{"details":{}}"#,
    r#"{"content":[],"details":{},"isError":true}"#,
    r#"{"content":[{"type":"text","text":"more"}],"details":{},"addedToolNames":["x"]}"#,
];

/// Values thrown.
const THROWN: [&str; 5] = [
    r#"{"error":"boom"}"#,
    r#"{"error":"bad type","name":"TypeError"}"#,
    r#"{"value":"a string"}"#,
    r#"{"value":null}"#,
    r#"{"value":{"code":7}}"#,
];

/// What a beforeToolCall hook returns.
const DECISIONS: [&str; 6] = [
    r#"{"block":true,"reason":"denied"}"#,
    r#"{"block":true}"#,
    r#"{"block":true,"reason":"stop","terminate":true}"#,
    r#"{"block":false}"#,
    r#"{"terminate":true}"#,
    r#"{"block":1,"reason":""}"#,
];

/// What an afterToolCall hook returns.
const PATCHES: [&str; 6] = [
    r#"{"content":[{"type":"text","text":"patched"}]}"#,
    r#"{"details":null,"isError":false}"#,
    r#"{"isError":true}"#,
    r#"{"terminate":true}"#,
    r#"{"content":null,"usage":{"input":1}}"#,
    r#"{"terminate":false,"details":{"after":true}}"#,
];

/// Schema `i` of [`SCHEMAS`] with its sample arguments.
fn schema(i: usize) -> (&'static str, &'static [&'static str]) {
    SCHEMAS
        .get(i)
        .copied()
        .unwrap_or((r#"{"type":"object"}"#, &["{}"]))
}

fn name_at(i: usize) -> &'static str {
    NAMES.get(i).copied().unwrap_or("read")
}

fn parse(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or(Json::Null)
}

/// A generated scenario from `data` (an exhausted stream still gives one:
/// the smallest).
pub fn scenario_from_bytes(data: &[u8]) -> PipelineScenario {
    let mut u = Unstructured::new(data);
    let json = Generator { u: &mut u }
        .scenario()
        .unwrap_or_else(|_| json!({"tools": [], "model": []}));
    serde_json::from_value(json).unwrap_or_else(|_| PipelineScenario {
        id: String::new(),
        description: String::new(),
        hook_context: false,
        signal: true,
        config: Default::default(),
        tools: Vec::new(),
        hooks: Default::default(),
        model: Vec::new(),
        triggers: Vec::new(),
    })
}

struct Generator<'u, 'a> {
    u: &'u mut Unstructured<'a>,
}

/// What the scenario's calls are, for the choices that depend on it.
struct Plan {
    /// `(id, tool index or None for unknown)` in source order.
    calls: Vec<(String, Option<usize>)>,
    sequential: bool,
    aborts: bool,
}

impl Generator<'_, '_> {
    /// True about once in `n`; false when the bytes have run out.
    fn rarely(&mut self, n: u8) -> Result<bool> {
        Ok(!self.u.ratio(n - 1, n)?)
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> Result<T> {
        self.u.choose(from).copied()
    }

    fn scenario(&mut self) -> Result<Json> {
        let mut out = Map::new();
        let signal = !self.rarely(12)?;
        // tools
        let mut tools = Vec::new();
        let mut schemas = Vec::new();
        for i in 0..self.u.int_in_range(1usize..=3)? {
            let name = if i > 0 && self.rarely(8)? {
                name_at(self.u.choose_index(i)?)
            } else {
                name_at(i)
            };
            let index = self.u.choose_index(SCHEMAS.len())?;
            schemas.push(index);
            let mut tool = Map::new();
            tool.insert("name".into(), json!(name));
            tool.insert("parameters".into(), parse(schema(index).0));
            if !self.rarely(3)? {
                tool.insert("parametersKind".into(), json!("typebox"));
            }
            if self.rarely(6)? {
                tool.insert(
                    "executionMode".into(),
                    json!(self.pick(&["sequential", "parallel"])?),
                );
            }
            if self.rarely(6)? {
                tool.insert("prepareArguments".into(), self.prepare()?);
            }
            tools.push(tool);
        }
        let config_mode = if self.rarely(4)? {
            Some(self.pick(&["sequential", "parallel"])?)
        } else {
            None
        };
        // the first turn's calls
        let mut calls = Vec::new();
        let mut blocks = Vec::new();
        for i in 0..self.u.int_in_range(1usize..=5)? {
            let id = format!("c{}", i + 1);
            let (name, tool) = if self.rarely(8)? {
                (self.pick(&UNKNOWN)?.to_owned(), None)
            } else {
                let t = self.u.choose_index(tools.len())?;
                let name = tools
                    .get(t)
                    .and_then(|x| x.get("name"))
                    .and_then(Json::as_str)
                    .unwrap_or("read")
                    .to_owned();
                // the first tool of that name is the one pi runs
                let first = tools
                    .iter()
                    .position(|x| x["name"] == json!(name))
                    .unwrap_or(t);
                (name, Some(first))
            };
            let of_tool = tool.and_then(|t| schemas.get(t).copied()).unwrap_or(0);
            let args = parse(self.pick(schema(of_tool).1)?);
            blocks.push(json!({"toolCall": {"id": id, "name": name, "arguments": args}}));
            calls.push((id, tool));
        }
        let sequential = config_mode == Some("sequential")
            || calls.iter().any(|(_, t)| {
                t.and_then(|t| tools.get(t))
                    .is_some_and(|t| t.get("executionMode") == Some(&json!("sequential")))
            });
        let aborts = signal && self.rarely(3)?;
        let plan = Plan {
            calls,
            sequential,
            aborts,
        };
        // execute scripts: outcomes, updates, a completion order
        let order = self.completion_order(&plan)?;
        let mut triggers = Vec::new();
        for (t, tool) in tools.iter_mut().enumerate() {
            let mut per_call = Map::new();
            for (k, (id, tool_index)) in plan.calls.iter().enumerate() {
                if *tool_index != Some(t) {
                    continue;
                }
                let after = order
                    .iter()
                    .position(|c| *c == k)
                    .and_then(|p| p.checked_sub(1));
                let waits_for = after
                    .and_then(|p| order.get(p))
                    .and_then(|k| plan.calls.get(*k))
                    .map(|(id, _)| id.clone());
                per_call.insert(
                    id.clone(),
                    self.execute(&plan, id, waits_for.as_deref(), &mut triggers)?,
                );
            }
            if !per_call.is_empty() {
                tool.insert("execute".into(), json!({"calls": per_call}));
            }
        }
        // hooks
        let mut hooks = Map::new();
        if self.rarely(3)? {
            hooks.insert("beforeToolCall".into(), self.hook(&plan, true)?);
        }
        if self.rarely(3)? {
            hooks.insert("afterToolCall".into(), self.hook(&plan, false)?);
        }
        // the model: a stop reason, maybe a text block, maybe a second turn
        let stop = if self.rarely(10)? {
            self.pick(&["length", "error", "stop", "aborted"])?
        } else {
            "toolUse"
        };
        if self.rarely(6)? {
            blocks.insert(0, json!({"text": "working"}));
        }
        let mut model = vec![json!({"stopReason": stop, "content": blocks})];
        if self.rarely(5)? {
            let first = tools.first().and_then(|t| t.get("name")).cloned();
            let samples = schema(schemas.first().copied().unwrap_or(0)).1;
            let args = parse(samples.first().copied().unwrap_or("{}"));
            let name = first.unwrap_or(Json::Null);
            model.push(
                json!({"content": [{"toolCall": {"id": "d1", "name": name, "arguments": args}}]}),
            );
        }
        if plan.aborts {
            self.abort_point(&plan, &mut triggers)?;
        }
        let mut config = Map::new();
        if let Some(mode) = config_mode {
            config.insert("toolExecution".into(), json!(mode));
        }
        if self.rarely(8)? {
            config.insert("steering".into(), json!([[], ["steer"]]));
        }
        if self.rarely(8)? {
            config.insert("followUp".into(), json!([["follow up"]]));
        }
        if !signal {
            out.insert("signal".into(), json!(false));
        }
        if !config.is_empty() {
            out.insert("config".into(), Json::Object(config));
        }
        out.insert(
            "tools".into(),
            Json::Array(tools.into_iter().map(Json::Object).collect()),
        );
        if !hooks.is_empty() {
            out.insert("hooks".into(), Json::Object(hooks));
        }
        out.insert("model".into(), Json::Array(model));
        if !triggers.is_empty() {
            out.insert("triggers".into(), Json::Array(triggers));
        }
        Ok(Json::Object(out))
    }

    /// A permutation of the calls (by index) in which their executes
    /// finish; the source order for sequential batches, which run one
    /// call at a time.
    fn completion_order(&mut self, plan: &Plan) -> Result<Vec<usize>> {
        let mut order: Vec<usize> = (0..plan.calls.len()).collect();
        if plan.sequential || self.rarely(3)? {
            return Ok(order);
        }
        for i in (1..order.len()).rev() {
            let j = self.u.int_in_range(0..=i)?;
            order.swap(i, j);
        }
        Ok(order)
    }

    /// A latch wait: with an abort in the scenario, it honours the signal.
    fn wait(&mut self, plan: &Plan, latch: &str) -> Result<Json> {
        Ok(if plan.aborts {
            let outcome = if self.rarely(2)? {
                json!({"throw": {"error": "aborted while waiting"}})
            } else {
                json!({"return": {"content": [{"type": "text", "text": "partial"}], "details": {}}})
            };
            json!({"wait": latch, "onAbort": outcome})
        } else {
            json!({"wait": latch})
        })
    }

    fn outcome(&mut self) -> Result<Option<Json>> {
        Ok(match self.u.int_in_range(0u8..=5)? {
            0..=2 => None,
            3 | 4 => Some(json!({"return": parse(self.pick(&RESULTS)?)})),
            _ => Some(json!({"throw": parse(self.pick(&THROWN)?)})),
        })
    }

    /// The execute script of call `id`; `waits_for`: the call whose end
    /// event lets it finish.
    fn execute(
        &mut self,
        plan: &Plan,
        id: &str,
        waits_for: Option<&str>,
        triggers: &mut Vec<Json>,
    ) -> Result<Json> {
        let mut steps = Vec::new();
        if self.rarely(3)? {
            steps.push(json!({"update": {"content": [{"type": "text", "text": format!("{id} early")}], "details": {}}}));
        }
        if let Some(previous) = waits_for {
            let latch = format!("after-{previous}");
            steps.push(self.wait(plan, &latch)?);
            triggers.push(json!({"on": {"event": "tool_execution_end", "toolCallId": previous}, "do": [{"release": latch}]}));
            if self.rarely(3)? {
                steps.push(json!({"update": {"content": [{"type": "text", "text": format!("{id} late")}], "details": {}}}));
            }
        }
        if self.rarely(8)? {
            steps.push(json!({"mutateArgs": {"touched": true}}));
        }
        if plan.aborts && self.rarely(4)? {
            steps.push(json!({"ifAborted": {"throw": {"error": "saw the abort"}}}));
        }
        let mut script = Map::new();
        if waits_for.is_none() && self.rarely(6)? {
            script.insert("sync".into(), json!(true));
        }
        if !steps.is_empty() {
            script.insert("do".into(), Json::Array(steps));
        }
        if let Some(o) = self.outcome()? {
            script.insert("then".into(), o);
        }
        Ok(Json::Object(script))
    }

    fn prepare(&mut self) -> Result<Json> {
        Ok(match self.u.int_in_range(0u8..=3)? {
            0 => json!({}),
            1 => {
                json!({"then": {"return": {"path": "prepared", "n": 1, "mode": "fast", "edits": []}}})
            }
            2 => json!({"do": [{"mutateArgs": {"prepared": true}}]}),
            _ => json!({"then": {"throw": parse(self.pick(&THROWN)?)}}),
        })
    }

    /// A hook: one script for every call, or one per call.
    fn hook(&mut self, plan: &Plan, before: bool) -> Result<Json> {
        let mut calls = Map::new();
        for (id, _) in &plan.calls {
            if !self.rarely(2)? {
                continue;
            }
            let mut script = Map::new();
            if self.rarely(4)? {
                script.insert("sync".into(), json!(true));
            }
            if before && self.rarely(6)? {
                script.insert("do".into(), json!([{"mutateArgs": {"hooked": 1}}]));
            }
            let outcome = match (self.u.int_in_range(0u8..=4)?, before) {
                (0, _) => json!({"return": {"$": "undefined"}}),
                (1, _) => json!({"throw": parse(self.pick(&THROWN)?)}),
                (_, true) => json!({"return": parse(self.pick(&DECISIONS)?)}),
                (_, false) => json!({"return": parse(self.pick(&PATCHES)?)}),
            };
            script.insert("then".into(), outcome);
            calls.insert(id.clone(), Json::Object(script));
        }
        Ok(json!({"calls": calls, "default": {}}))
    }

    /// Where the run is aborted: before it, when an event is emitted, or
    /// inside a function (an `abort` step in its script).
    fn abort_point(&mut self, plan: &Plan, triggers: &mut Vec<Json>) -> Result<()> {
        let at = self.u.choose_index(plan.calls.len())?;
        let id = plan
            .calls
            .get(at)
            .map(|(id, _)| id.clone())
            .unwrap_or_default();
        let on = match self.u.int_in_range(0u8..=4)? {
            0 => json!("beforeRun"),
            1 => json!({"event": "message_end", "role": "assistant"}),
            2 => json!({"event": "tool_execution_start", "toolCallId": id}),
            3 => json!({"event": "tool_execution_end", "toolCallId": id}),
            _ => json!({"event": "tool_execution_update", "toolCallId": id}),
        };
        triggers.push(json!({"on": on, "do": [{"abort": true}]}));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every seeded byte string gives a scenario the suite accepts and the
    /// reference observes, without a pending run.
    #[test]
    fn generated_scenarios_are_observed() {
        use toolgate_suite::SuiteDef;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for n in 0..400 {
            let bytes: Vec<u8> = (0..256)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 24) as u8
                })
                .collect();
            let s = scenario_from_bytes(&bytes);
            let json = serde_json::to_value(&s).expect("encodes");
            crate::PIPELINE
                .check_scenario(&json)
                .unwrap_or_else(|e| panic!("{n}: {e}\n{json}"));
            let o = crate::reference::observe(&s).unwrap_or_else(|e| panic!("{n}: {e}\n{json}"));
            assert_ne!(o["end"]["outcome"], "pending", "{n}: {json}");
        }
    }
}
