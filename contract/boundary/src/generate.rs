//! Generated boundary scenarios: hostile but well-formed turns built from
//! a stream of bytes (`arbitrary::Unstructured`). One generator serves the
//! fuzz target (`fuzzing::boundary`, where libFuzzer steers every choice),
//! the property tests and `toolgate run --suite boundary --generate`
//! (where proptest draws and shrinks the bytes: fewer or smaller bytes
//! give fewer tools, fewer calls and the first, plainest choice of each
//! menu, because an exhausted stream answers every choice with its
//! minimum).
//!
//! The menus come from what real runtimes differ on (the corpus groups):
//! schemas the corpus uses with arguments near their edges, unknown names
//! and near-misses, hostile outputs (cycles, `undefined`, functions,
//! BigInts, throwing getters and `toJSON`, deep, wide and long values),
//! thrown non-errors, progress, tools that never settle, every abort
//! timing, repeated names. Whether a call's arguments are valid is never
//! decided here: the reference asks the schema (`translate::verdict`).

use super::spec::{AbortTiming, BoundaryScenario, CheckSpec, ToolSpec, TurnCall};
use super::translate;
use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value as Json};
use toolgate_suite::fuzzing::Size;

/// Tool names; a generated tool takes the one at its index, or (rarely) an
/// earlier tool's, which the boundary must refuse (BOUNDARY-DUP-01).
const NAMES: [&str; 4] = ["read_file", "write_file", "search", "add"];

/// Names of calls that match no tool: plainly unknown, and near-misses a
/// lenient lookup would accept.
const UNKNOWN: [&str; 5] = ["no_such_tool", "Read_file", "read_file ", "read-file", ""];

/// The schemas of the corpus, each with arguments on both sides of it.
const SCHEMAS: [(&str, &[&str]); 5] = [
    (
        r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#,
        &[
            r#"{"path":"notes.txt"}"#,
            r#"{"path":"/etc/passwd"}"#,
            r#"{"path":42}"#,
            r#"{}"#,
            r#"{"path":null}"#,
            r#"{"path":"a","extra":true}"#,
            r#"{"path":["notes.txt"]}"#,
        ],
    ),
    (
        r#"{"type":"object","additionalProperties":false,"properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}"#,
        &[
            r#"{"a":1,"b":2}"#,
            r#"{"a":1.5,"b":-0.25}"#,
            r#"{"a":"1","b":2}"#,
            r#"{"a":1}"#,
            r#"{"a":1,"b":2,"c":3}"#,
            r#"{"a":1e308,"b":1e308}"#,
        ],
    ),
    (
        r#"{"type":"object","properties":{"query":{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":50},"tags":{"type":"array","items":{"type":"string"}}},"required":["limit"]}},"required":["query"]}"#,
        &[
            r#"{"query":{"limit":10}}"#,
            r#"{"query":{"limit":10,"tags":["a","b"]}}"#,
            r#"{"query":{"limit":0}}"#,
            r#"{"query":{"limit":2.5}}"#,
            r#"{"query":{"limit":51}}"#,
            r#"{"query":{"limit":5,"tags":[1]}}"#,
            r#"{"query":"limit=5"}"#,
        ],
    ),
    (
        r#"{"type":"object","properties":{"path":{"type":"string","minLength":1},"content":{"type":"string","maxLength":100},"mode":{"enum":["create","append"]}},"required":["path","content"]}"#,
        &[
            r#"{"path":"a.txt","content":"hi"}"#,
            r#"{"path":"a.txt","content":"hi","mode":"append"}"#,
            r#"{"path":"","content":"hi"}"#,
            r#"{"path":"a.txt","content":"hi","mode":"delete"}"#,
            r#"{"path":"a.txt"}"#,
        ],
    ),
    (
        r#"{"type":"object"}"#,
        &[r#"{}"#, r#"{"anything":[1,{"b":null}]}"#],
    ),
];

/// The extra check a tool may carry beside its schema.
fn check() -> CheckSpec {
    CheckSpec {
        key: "path".into(),
        equals: json!("/etc/passwd"),
        message: "path is outside the workspace".into(),
    }
}

/// Sizes of the large families: ordinary, then huge (at least
/// `judge::HUGE_ARGUMENTS`, so BOUNDARY-ARGS-01 applies), then beyond
/// what a JSON serializer's recursion or a result budget survives.
const DEPTHS: [u64; 4] = [3, 200, 10_000, 100_000];
const KEYS: [u64; 3] = [3, 300, 10_000];
const LENGTHS: [u64; 4] = [5, 5_000, 70_000, 1_000_000];

/// Builds boundary scenarios from bytes.
/// The most `{"data": ..., "ok": true}` wrappers around a generated value:
/// without a bound a stream of high bytes nested them as deep as it was
/// long (thousands of levels: the `boundary_fast` target's stack overflowed
/// on 2026-12-05), deeper than a case file can hold (JSON is read to 128
/// levels).
const MAX_WRAPPERS: u8 = 16;

pub struct Generator<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    size: Size,
}

/// A generated scenario from `data` (an exhausted stream still gives one:
/// the smallest), its values at every size.
pub fn scenario_from_bytes(data: &[u8]) -> BoundaryScenario {
    scenario_of_size(data, Size::Hostile)
}

/// A generated scenario from `data`; with [`Size::Small`], its deep, wide
/// and long values and its huge arguments keep their ordinary sizes.
pub fn scenario_of_size(data: &[u8], size: Size) -> BoundaryScenario {
    let mut u = Unstructured::new(data);
    // every choice answers its minimum once the bytes run out, so this
    // cannot fail; the fallback keeps that a property of the code, not of
    // the arbitrary crate
    Generator::sized(&mut u, size)
        .scenario()
        .unwrap_or_else(|_| BoundaryScenario {
            tools: Vec::new(),
            turn: Vec::new(),
            abort: None,
        })
}

impl<'u, 'a> Generator<'u, 'a> {
    pub fn new(u: &'u mut Unstructured<'a>) -> Self {
        Generator::sized(u, Size::Hostile)
    }

    pub fn sized(u: &'u mut Unstructured<'a>, size: Size) -> Self {
        Generator { u, size }
    }

    /// The sizes of a large family this generator draws from: all of them,
    /// or the ordinary and the large one (the first two; not the sizes
    /// that take a serializer's recursion or a result budget to its end).
    fn sizes(&self, all: &'static [u64]) -> &'static [u64] {
        match self.size {
            Size::Hostile => all,
            Size::Small => all.get(..2).unwrap_or(all),
        }
    }

    /// True about once in `n`; false when the bytes have run out (so the
    /// smallest scenario is the plain one).
    fn rarely(&mut self, n: u8) -> Result<bool> {
        Ok(!self.u.ratio(n - 1, n)?)
    }

    fn pick<T: Clone>(&mut self, from: &[T]) -> Result<T> {
        self.u.choose(from).cloned()
    }

    /// One scenario: up to four tools, up to four calls, maybe an abort.
    pub fn scenario(&mut self) -> Result<BoundaryScenario> {
        let mut tools = Vec::new();
        // the smallest scenario has one tool and one call to it
        for i in 0..self.u.int_in_range(1usize..=4)? {
            tools.push(self.tool(i, &tools)?);
        }
        let mut turn = Vec::new();
        for i in 0..self.u.int_in_range(1usize..=4)? {
            turn.push(self.call(i, &tools)?);
        }
        let mut scenario = BoundaryScenario {
            tools,
            turn,
            abort: None,
        };
        self.abort(&mut scenario)?;
        Ok(scenario)
    }

    fn tool(&mut self, index: usize, earlier: &[ToolSpec]) -> Result<ToolSpec> {
        // repeated names, an extra check and progress are what many runtimes
        // cannot express (their cases come back n/a): drawn rarely enough
        // that every row of the matrix runs four generated cases in five
        let repeat = !earlier.is_empty() && self.rarely(30)?;
        let name = match (repeat, earlier.len()) {
            (true, n) => earlier
                .get(self.u.choose_index(n)?)
                .map_or("read_file".into(), |t| t.name.clone()),
            (false, _) => NAMES.get(index).copied().unwrap_or("read_file").into(),
        };
        let (schema, _) = self.pick(&SCHEMAS)?;
        let check = self.rarely(20)?.then(check);
        Ok(ToolSpec {
            name,
            description: String::new(),
            input_schema: serde_json::from_str(schema).unwrap_or(Json::Null),
            check,
            behaviour: self.behaviour(true)?,
        })
    }

    fn behaviour(&mut self, may_progress: bool) -> Result<Json> {
        let kind = if may_progress && self.rarely(20)? {
            6
        } else {
            self.u.int_in_range(0u8..=5)?
        };
        Ok(match kind {
            0 => json!({"returns": self.value()?}),
            1 => json!({"resolves": self.value()?}),
            2 => json!({"throws": self.thrown()?}),
            3 => json!({"rejects": self.thrown()?}),
            4 => json!({"pending": {"onAbort": self.pick(&["reject", "ignore"])?}}),
            5 => json!({"returns": self.plain(2)?}),
            _ => {
                let values = (0..self.u.int_in_range(1usize..=3)?)
                    .map(|_| self.plain(1))
                    .collect::<Result<Vec<_>>>()?;
                json!({"progress": values, "then": self.behaviour(false)?})
            }
        })
    }

    /// What a body throws or rejects with: an `Error`, a bare string, or
    /// any value (`null`, `undefined`, a number, an object).
    fn thrown(&mut self) -> Result<Json> {
        let message = self.pick(&["disk full", "", "Error: nested", "\u{1F600} é"])?;
        Ok(match self.u.int_in_range(0u8..=3)? {
            0 => json!({"error": message}),
            1 => json!({"string": message}),
            2 => {
                json!({"value": self.pick(&[json!(null), json!({"$": "undefined"}), json!(42), json!({"code": 7})])?})
            }
            _ => json!({"value": self.value()?}),
        })
    }

    /// A tool's output: plain JSON, a hostile family, or plain JSON
    /// holding one.
    fn value(&mut self) -> Result<Json> {
        self.value_within(MAX_WRAPPERS)
    }

    /// [`value`](Self::value) inside at most `wrappers` more levels of
    /// `{"data": ..., "ok": true}`: past them the wrapper is plain JSON.
    fn value_within(&mut self, wrappers: u8) -> Result<Json> {
        Ok(match self.u.int_in_range(0u8..=13)? {
            0..=3 => self.plain(3)?,
            4 => json!({"$": "cyclic"}),
            5 => json!({"$": self.pick(&["undefined", "function"])?}),
            6 => json!({"$": "deep", "depth": self.pick(self.sizes(&DEPTHS))?}),
            7 => json!({"$": "wide", "keys": self.pick(self.sizes(&KEYS))?}),
            8 => json!({"$": "longString", "length": self.pick(self.sizes(&LENGTHS))?}),
            9 => {
                json!({"$": "bigint", "value": self.pick(&["0", "-1", "9007199254740993", "123456789012345678901234567890"])?})
            }
            10 => {
                json!({"$": self.pick(&["throwingGetter", "throwingToJSON"])?, "message": "read refused"})
            }
            11 => {
                json!({"$": "literal", "value": {"$": "cyclic", "note": "plain data with a dollar key"}})
            }
            // what is hostile in Python (json.dumps refuses them) and odd
            // in JavaScript (NaN becomes null, a Set `{}`)
            12 => match self.u.int_in_range(0u8..=2)? {
                0 => json!({"$": "number", "value": self.pick(&["NaN", "Infinity", "-Infinity"])?}),
                1 => json!({"$": "set", "items": ["a", 1]}),
                // zeros are UTF-8; 255s are not (a `.decode()` raises)
                _ => match self.pick(&[(0u64, 0u8), (3, 0), (4096, 0), (3, 255)])? {
                    (length, 0) => json!({"$": "bytes", "length": length}),
                    (length, fill) => json!({"$": "bytes", "length": length, "fill": fill}),
                },
            },
            // built in place: `json!` would copy the nested value again at
            // every level (it serializes what it is given), quadratic in a
            // chain of these, which a stream of high bytes makes
            _ if wrappers == 0 => self.plain(3)?,
            _ => {
                let mut wrapper = Map::new();
                wrapper.insert("data".into(), self.value_within(wrappers - 1)?);
                wrapper.insert("ok".into(), Json::Bool(true));
                Json::Object(wrapper)
            }
        })
    }

    /// Plain JSON up to `depth` levels.
    fn plain(&mut self, depth: u8) -> Result<Json> {
        let leaf = depth == 0 || self.u.ratio(1u8, 2)?;
        if leaf {
            return Ok(match self.u.int_in_range(0u8..=6)? {
                0 => json!("ok"),
                1 => Json::Null,
                2 => json!(self.pick(&[0, 1, -7, 4096])?),
                3 => json!(self.pick(&[0.5, -1e-7, 1e21])?),
                4 => json!(self.u.arbitrary::<bool>()?),
                5 => json!(self.pick(&[
                    "",
                    "line\nbreak",
                    "quote\"back\\slash",
                    "\u{1F600}",
                    "\u{2028}"
                ])?),
                _ => json!(self
                    .u
                    .arbitrary::<String>()?
                    .chars()
                    .take(12)
                    .collect::<String>()),
            });
        }
        if self.u.arbitrary::<bool>()? {
            let items = (0..self.u.int_in_range(0usize..=3)?)
                .map(|_| self.plain(depth - 1))
                .collect::<Result<Vec<_>>>()?;
            Ok(Json::Array(items))
        } else {
            let mut object = Map::new();
            for _ in 0..self.u.int_in_range(0usize..=3)? {
                let key = self.pick(&["a", "b", "path", "__proto__", "toJSON", "then", ""])?;
                object.insert(key.into(), self.plain(depth - 1)?);
            }
            Ok(Json::Object(object))
        }
    }

    fn call(&mut self, index: usize, tools: &[ToolSpec]) -> Result<TurnCall> {
        let id = format!("call_{index}");
        let unknown = tools.is_empty() || self.rarely(7)?;
        let (name, samples) = if unknown {
            (self.pick(&UNKNOWN)?.to_string(), &[r#"{}"#][..])
        } else {
            let tool = tools.get(self.u.choose_index(tools.len())?);
            let name = tool.map_or(String::new(), |t| t.name.clone());
            let schema = tool.map(|t| t.input_schema.clone()).unwrap_or_default();
            let samples = SCHEMAS
                .iter()
                .find(|(s, _)| serde_json::from_str::<Json>(s).ok().as_ref() == Some(&schema))
                .map_or(&[r#"{}"#][..], |(_, samples)| *samples);
            (name, samples)
        };
        let arguments = match self.u.int_in_range(0u8..=9)? {
            0..=6 => serde_json::from_str(self.pick(samples)?).unwrap_or(Json::Null),
            7 => match self.plain(2)? {
                object @ Json::Object(_) => object,
                other => json!({ "value": other }),
            },
            // huge arguments (BOUNDARY-ARGS-01): as a whole, or in a field
            8 if self.size == Size::Hostile => self.pick(&[
                json!({"$": "deep", "depth": 100_000}),
                json!({"$": "wide", "keys": 10_000}),
                json!({"$": "deep", "depth": 3}),
            ])?,
            8 => json!({"$": "deep", "depth": 3}),
            _ => json!({"path": {"$": "longString", "length": self.pick(self.sizes(&LENGTHS))?}}),
        };
        Ok(TurnCall {
            id,
            name,
            arguments,
        })
    }

    /// An abort timing, made to fit the turn: `whilePending` names a call
    /// whose tool never settles; `afterSettled` keeps the turn's first
    /// call that settles on its own, first, and only calls that never
    /// settle after it. A timing that cannot fit is dropped.
    fn abort(&mut self, scenario: &mut BoundaryScenario) -> Result<()> {
        let Ok(behaviours) = translate::decode(scenario) else {
            return Ok(());
        };
        // per call: whether its tool never settles (`None`: no such tool)
        let pending_of = |name: &str| -> Option<bool> {
            let i = scenario.tools.iter().position(|t| t.name == name)?;
            behaviours.get(i).map(translate::Behaviour::is_pending)
        };
        let pending: Vec<(TurnCall, Option<bool>)> = scenario
            .turn
            .iter()
            .map(|c| (c.clone(), pending_of(&c.name)))
            .collect();
        let timing = match self.u.int_in_range(0u8..=5)? {
            0..=2 => None,
            3 => Some(AbortTiming::Before {}),
            4 => pending
                .iter()
                .find(|(_, p)| *p == Some(true))
                .map(|(c, _)| AbortTiming::WhilePending(c.id.clone())),
            _ => match pending.iter().find(|(_, p)| *p == Some(false)) {
                Some((first, _)) => {
                    let mut turn = vec![first.clone()];
                    turn.extend(
                        pending
                            .iter()
                            .filter(|(_, p)| *p == Some(true))
                            .map(|(c, _)| c.clone()),
                    );
                    scenario.turn = turn;
                    Some(AbortTiming::AfterSettled(first.id.clone()))
                }
                None => None,
            },
        };
        scenario.abort = timing;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_of_high_bytes_gives_a_scenario_a_case_file_can_hold() {
        for size in [Size::Hostile, Size::Small] {
            for byte in [0xFF, 0xFE, 0xF0, 0xDD] {
                let data = vec![byte; 60_000];
                let scenario = scenario_of_size(&data, size);
                let text = serde_json::to_string(&scenario).expect("it writes");
                let back: BoundaryScenario =
                    serde_json::from_str(&text).expect("a case file can hold it");
                assert_eq!(back, scenario, "{byte:#x} {size:?}");
            }
        }
        // bytes of 13 choose the wrapper at every level of a value
        let data = vec![13u8; 60_000];
        let mut u = Unstructured::new(&data);
        let value = Generator::sized(&mut u, Size::Hostile)
            .value()
            .expect("a value");
        let text = serde_json::to_string(&value).expect("it writes");
        assert!(
            text.matches("\"data\"").count() >= usize::from(MAX_WRAPPERS),
            "{text}"
        );
        let back: Json = serde_json::from_str(&text).expect("a case file can hold it");
        assert_eq!(back, value);
    }

    #[test]
    fn the_smallest_scenario_is_one_call_to_one_plain_tool() {
        let s = scenario_from_bytes(&[]);
        assert_eq!(s.tools.len(), 1);
        assert_eq!(s.turn.len(), 1);
        assert_eq!(s.abort, None);
        assert_eq!(s.turn[0].name, "read_file");
        assert!(translate::decode(&s).is_ok());
    }

    /// The value families and `progress`, as they are spelt in a scenario.
    const FAMILIES: [&str; 14] = [
        "cyclic",
        "undefined",
        "function",
        "deep",
        "wide",
        "longString",
        "bigint",
        "throwingGetter",
        "throwingToJSON",
        "literal",
        "number",
        "set",
        "bytes",
        "progress",
    ];

    /// Over seeded random bytes, the generator reaches every feature the
    /// suite's requirements are about, and every scenario decodes.
    #[test]
    fn random_bytes_reach_every_feature() {
        use crate::judge::{Judge, Kind};
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(0xb0_0da7);
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..3_000 {
            let bytes: Vec<u8> = (0..rng.random_range(0..400))
                .map(|_| rng.random())
                .collect();
            let s = scenario_from_bytes(&bytes);
            let judge = Judge::new(&s).unwrap_or_else(|e| panic!("{e}: {s:?}"));
            for kind in judge.kinds() {
                seen.insert(match kind {
                    Kind::Unknown => "unknown",
                    Kind::Invalid => "invalid",
                    Kind::Fails => "fails",
                    Kind::Pending => "pending",
                    Kind::Hostile => "hostile",
                    Kind::Works(_) => "works",
                });
            }
            seen.insert(match &s.abort {
                None => "no abort",
                Some(AbortTiming::Before {}) => "abort before",
                Some(AbortTiming::WhilePending(_)) => "abort while pending",
                Some(AbortTiming::AfterSettled(_)) => "abort after settled",
            });
            let mut names: Vec<&str> = s.tools.iter().map(|t| t.name.as_str()).collect();
            names.sort_unstable();
            if names.windows(2).any(|w| w.first() == w.get(1)) {
                seen.insert("duplicate names");
            }
            if s.turn
                .iter()
                .any(|c| crate::judge::huge_arguments(&c.arguments))
            {
                seen.insert("huge arguments");
            }
            if s.tools.iter().any(|t| t.check.is_some()) {
                seen.insert("check");
            }
            let text = serde_json::to_string(&s).unwrap_or_default();
            for family in FAMILIES {
                if text.contains(&format!("\"{family}\"")) {
                    seen.insert(family);
                }
            }
        }
        let want = [
            "unknown",
            "invalid",
            "fails",
            "pending",
            "hostile",
            "works",
            "no abort",
            "abort before",
            "abort while pending",
            "abort after settled",
            "duplicate names",
            "huge arguments",
            "check",
        ];
        let missing: Vec<&str> = want
            .iter()
            .chain(FAMILIES.iter())
            .copied()
            .filter(|w| !seen.contains(w))
            .collect();
        assert!(missing.is_empty(), "never generated: {missing:?}");
    }

    #[test]
    fn every_menu_schema_is_usable_and_its_samples_are_objects() {
        for (schema, samples) in SCHEMAS {
            let schema: Json = serde_json::from_str(schema).unwrap();
            for sample in samples {
                let args: Json = serde_json::from_str(sample).unwrap();
                assert!(args.is_object(), "{sample}");
                translate::verdict(&schema, None, &args, "").unwrap();
            }
        }
    }
}
