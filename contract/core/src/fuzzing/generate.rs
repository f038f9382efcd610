//! Structure-aware generation from fuzzer bytes: scenarios, batches and
//! output graphs in the scenario grammar (see `scenario::build`), valid but
//! hostile, with sizes capped so one input stays cheap. Every choice reads
//! the input, so the fuzzer steers each one.

use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value as Json};

/// Strings the generators pick from: empty, index-like keys that sort
/// before others, an accented, an astral and the last BMP character,
/// names the host treats specially, and characters the writer escapes.
pub const HOSTILE_STRINGS: [&str; 12] = [
    "",
    "a",
    "b",
    "10",
    "9",
    "é",
    "\u{1F600}",
    "\u{FFFF}",
    "toJSON",
    "then",
    "a\"b\\c",
    "x\ny",
];

/// The pieces a long string repeats past the string budget: one, two and
/// four UTF-8 bytes, and two that the writer escapes.
pub const LONG_PIECES: [&str; 5] = ["x", "é", "\u{1F600}", "\n", "\""];

/// Named nodes a generated scenario may refer to (with back references,
/// which make cycles and sharing).
const NAMES: [&str; 6] = ["n0", "n1", "n2", "n3", "n4", "n5"];

/// Generates scenario values and nodes.
pub struct Generator<'u, 'a> {
    u: &'u mut Unstructured<'a>,
    /// Named nodes generated so far.
    nodes: Map<String, Json>,
}

impl<'u, 'a> Generator<'u, 'a> {
    pub fn new(u: &'u mut Unstructured<'a>) -> Self {
        Generator {
            u,
            nodes: Map::new(),
        }
    }

    /// The named nodes generated, to put in a scenario's `nodes`.
    pub fn into_nodes(self) -> Map<String, Json> {
        self.nodes
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> Result<T> {
        self.u.choose(from).copied()
    }

    fn string(&mut self) -> Result<Json> {
        match self.u.int_in_range(0u8..=9)? {
            0..=4 => Ok(json!(self.pick(&HOSTILE_STRINGS)?)),
            5..=6 => {
                let units: Vec<u16> = (0..self.u.int_in_range(0usize..=12)?)
                    .map(|_| {
                        Ok(match self.u.int_in_range(0u8..=3)? {
                            0 => self.u.int_in_range(0xD800u16..=0xDFFF)?,
                            1 => self.u.int_in_range(0u16..=0x1F)?,
                            _ => self.u.int_in_range(0x20u16..=0x7E)?,
                        })
                    })
                    .collect::<Result<_>>()?;
                Ok(json!({"$": "string", "units": units}))
            }
            7 => Ok(
                json!({"$": "string", "repeat": self.pick(&LONG_PIECES)?, "times": self.u.int_in_range(4_000u32..=4_100)?}),
            ),
            _ => Ok(json!(String::arbitrary_take(self.u, 24)?)),
        }
    }

    fn number(&mut self) -> Result<Json> {
        Ok(match self.u.int_in_range(0u8..=5)? {
            0 => {
                json!({"$": "number", "value": self.pick(&["NaN", "Infinity", "-Infinity", "-0"])?})
            }
            1 => json!(self.pick(&[1e21, 5e-7, 0.1, f64::MAX, 9_007_199_254_740_993.0, -1.5])?),
            2 => {
                let f: f64 = self.u.arbitrary()?;
                if f.is_finite() {
                    json!(f)
                } else {
                    json!(0)
                }
            }
            _ => json!(self.u.int_in_range(-1000i32..=1000)?),
        })
    }

    fn thrown(&mut self) -> Result<Json> {
        Ok(match self.u.int_in_range(0u8..=8)? {
            0 => json!({"$": "error", "class": "error", "message": "boom"}),
            1 => json!({"$": "error", "class": "typeError"}),
            2 => json!("plain failure"),
            3 => json!(7),
            4 => json!({"$": "object", "props": {"message": "object message"}}),
            5 => json!({"$": "nonRecoverable", "message": "fatal"}),
            6 => {
                json!({"$": "object", "props": {"code": "NON_RECOVERABLE_TOOL_ERROR", "nonRecoverable": true}})
            }
            7 => json!({"$": "object", "proto": {"builtin": "nonRecoverableToolError"}}),
            _ => {
                json!({"$": "object", "proto": {"builtin": "toolContractError"}, "props": {"code": "INVALID_TOOL_CALL"}})
            }
        })
    }

    fn effects(&mut self) -> Result<Json> {
        let mut effects = Vec::new();
        if self.u.ratio(1u8, 8)? {
            effects.push(json!({"abort": {"reason": "generated abort"}}));
        }
        if self.u.ratio(1u8, 8)? {
            effects.push(json!("listenForAbort"));
        }
        Ok(Json::Array(effects))
    }

    /// A function node; `returns` is what it returns unless it throws.
    pub fn function(&mut self, returns: Json) -> Result<Json> {
        let effects = self.effects()?;
        Ok(if self.u.ratio(1u8, 8)? {
            json!({"$": "function", "effects": effects, "throws": self.thrown()?})
        } else {
            json!({"$": "function", "effects": effects, "returns": returns})
        })
    }

    /// Any value; `depth` bounds nesting.
    pub fn value(&mut self, depth: u8) -> Result<Json> {
        let max = if depth == 0 { 9 } else { 19 };
        Ok(match self.u.int_in_range(0u8..=max)? {
            0 => Json::Null,
            1 => json!(self.u.arbitrary::<bool>()?),
            2 | 3 => self.number()?,
            4 | 5 => self.string()?,
            6 => json!({"$": "undefined"}),
            7 => json!({"$": "symbol", "id": 1}),
            8 => match self.u.int_in_range(0u8..=2)? {
                0 => {
                    json!({"$": "bigint", "decimal": self.u.int_in_range(-1_000_000i64..=1_000_000)?.to_string()})
                }
                1 => {
                    json!({"$": "bigint", "pow2": self.u.int_in_range(4_090u64..=4_100)?, "offset": -1})
                }
                _ => json!({"$": "bigint", "pow2": self.u.int_in_range(10_000u64..=2_000_000)?}),
            },
            9 => json!({"ref": self.pick(&NAMES)?}),
            10..=12 => self.object(depth - 1)?,
            13..=14 => self.array(depth - 1)?,
            15 => {
                let target = self.object(depth - 1)?;
                let trap = self.pick(&[
                    "getPrototypeOf",
                    "ownKeys",
                    "getOwnPropertyDescriptor",
                    "get",
                ])?;
                let behavior = match self.u.int_in_range(0u8..=2)? {
                    0 => json!("passThrough"),
                    1 => json!({"throw": self.thrown()?}),
                    _ => json!({"abort": {"reason": "trap aborted"}}),
                };
                json!({"$": "proxy", "target": target, "traps": {trap: behavior}, "revoked": self.u.ratio(1u8, 6)?})
            }
            16 => {
                let returns = self.value(0)?;
                self.function(returns)?
            }
            17 => {
                json!({"$": "nest", "depth": self.u.int_in_range(1u32..=40)?, "kind": self.pick(&["object", "array"])?})
            }
            18 => match self.u.int_in_range(0u8..=2)? {
                0 => {
                    json!({"$": "object", "repeat": {"count": self.u.int_in_range(0u32..=300)?, "value": 1, "enumerable": self.u.arbitrary::<bool>()?}})
                }
                1 => {
                    json!({"$": "array", "length": self.u.int_in_range(0u32..=1_000_000)?, "items": [1]})
                }
                _ => {
                    json!({"$": "array", "fill": {"count": self.u.int_in_range(0u32..=300)?, "value": 1}})
                }
            },
            _ => match self.u.int_in_range(0u8..=2)? {
                0 => json!({"$": "promise", "fulfilled": self.value(0)?}),
                1 => json!({"$": "promise", "rejected": self.thrown()?}),
                _ => json!({"$": "promise", "pending": true, "afterAbort": {"reject": "late"}}),
            },
        })
    }

    fn proto(&mut self, array: bool) -> Result<Json> {
        let plain = if array { "array" } else { "object" };
        Ok(match self.u.int_in_range(0u8..=9)? {
            0 => json!("null"),
            1 => json!(if array {
                "otherRealmArray"
            } else {
                "otherRealmObject"
            }),
            2 => {
                json!({"builtin": self.pick(&["date", "map", "set", "regExp", "numberBox", "error"])?})
            }
            3 => json!({"class": "Point"}),
            4 => json!({"ref": self.pick(&NAMES)?}),
            _ => json!(plain),
        })
    }

    fn object(&mut self, depth: u8) -> Result<Json> {
        let mut props = Map::new();
        let mut define = Vec::new();
        for _ in 0..self.u.int_in_range(0u8..=5)? {
            let key = match self.string()? {
                Json::String(s) => s,
                _ => "k".to_string(),
            };
            match self.u.int_in_range(0u8..=7)? {
                0 => define
                    .push(json!({"key": key, "get": {"$": "function", "returns": self.value(0)?}})),
                1 => define
                    .push(json!({"key": key, "value": self.value(depth)?, "enumerable": false})),
                2 => define.push(json!({"key": {"symbol": 1}, "value": 1})),
                _ => {
                    props.insert(key, self.value(depth)?);
                }
            }
        }
        Ok(json!({"$": "object", "proto": self.proto(false)?, "props": props, "define": define}))
    }

    fn array(&mut self, depth: u8) -> Result<Json> {
        let mut items = Vec::new();
        for _ in 0..self.u.int_in_range(0u8..=6)? {
            items.push(match self.u.int_in_range(0u8..=7)? {
                0 => json!({"$": "hole"}),
                1 => json!({"$": "getter", "get": {"$": "function", "returns": 1}}),
                _ => self.value(depth)?,
            });
        }
        Ok(json!({"$": "array", "proto": self.proto(true)?, "items": items}))
    }

    /// Fills the named nodes with values (cycles come from back references).
    pub fn named_nodes(&mut self) -> Result<()> {
        for name in NAMES {
            let node = match self.u.int_in_range(0u8..=2)? {
                0 => self.array(2)?,
                _ => self.object(2)?,
            };
            self.nodes.insert(name.to_string(), node);
        }
        Ok(())
    }

    /// A validator: mostly accepting with a value, sometimes anything else.
    fn validator(&mut self) -> Result<Json> {
        let returns = match self.u.int_in_range(0u8..=9)? {
            0 => json!({"$": "object", "props": {"ok": false, "error": self.string()?}}),
            1 => self.value(1)?,
            2 => {
                json!({"$": "object", "props": {"then": {"$": "function", "throws": self.thrown()?}}})
            }
            3 => {
                json!({"$": "object", "props": {"ok": true}, "define": [{"key": "value", "get": self.function(json!(1))?}]})
            }
            _ => json!({"$": "object", "props": {"ok": true, "value": self.value(1)?}}),
        };
        self.function(returns)
    }

    /// An executor: mostly returning an output graph.
    fn executor(&mut self) -> Result<Json> {
        let returns = match self.u.int_in_range(0u8..=9)? {
            0 => json!({"$": "promise", "rejected": self.thrown()?}),
            1 => json!({"$": "promise", "pending": true, "afterAbort": {"fulfill": 1}}),
            2 => {
                json!({"$": "object", "props": {"then": {"$": "function", "callsBack": {"index": self.u.int_in_range(0u8..=1)?, "value": self.value(1)?}}}})
            }
            _ => self.value(3)?,
        };
        self.function(returns)
    }

    /// A definition, mostly well formed.
    fn definition(&mut self) -> Result<Json> {
        let name = match self.u.int_in_range(0u8..=11)? {
            0 => json!(" "),
            1 => json!(""),
            2 => json!(" t0"),
            3 => json!(5),
            _ => json!(format!("t{}", self.u.int_in_range(0u8..=5)?)),
        };
        let mut props = Map::new();
        props.insert("name".into(), name);
        props.insert("description".into(), json!("a generated tool"));
        props.insert("validate".into(), self.validator()?);
        props.insert("execute".into(), self.executor()?);
        let hostile = self.u.int_in_range(0u8..=9)?;
        if hostile == 0 {
            let field = self.pick(&["name", "description", "validate", "execute"])?;
            props.remove(field);
        }
        let mut def = Map::new();
        def.insert("$".into(), json!("object"));
        def.insert("props".into(), Json::Object(props));
        if hostile == 1 {
            def.insert(
                "define".into(),
                json!([{"key": "extra", "get": {"$": "function", "throws": "getter failed"}}]),
            );
        }
        Ok(Json::Object(def))
    }

    /// A `registerMany` batch: mostly an array of definitions.
    pub fn batch(&mut self) -> Result<(Json, usize)> {
        let mut items = Vec::new();
        for _ in 0..self.u.int_in_range(0u8..=3)? {
            items.push(self.definition()?);
        }
        let count = items.len();
        Ok(match self.u.int_in_range(0u8..=11)? {
            0 => {
                items.insert(0, json!({"$": "hole"}));
                (json!({"$": "array", "items": items}), count + 1)
            }
            1 => (
                json!({"$": "proxy", "target": {"$": "array", "items": items}, "revoked": self.u.arbitrary::<bool>()?}),
                count,
            ),
            2 => (self.value(1)?, 0),
            _ => (json!({"$": "array", "items": items}), count),
        })
    }

    /// How many batches or calls: one to three.
    pub fn batch_count(&mut self) -> Result<usize> {
        self.u.int_in_range(1usize..=3)
    }

    /// A call against the tools `t0`..`t5`.
    pub fn call(&mut self) -> Result<Json> {
        let id = self.pick(&["c1", "c2", " ", "call-\u{1F600}"])?;
        let name = format!("t{}", self.u.int_in_range(0u8..=6)?);
        let arguments = match self.u.int_in_range(0u8..=5)? {
            0 => self.value(2)?,
            _ => json!({"$": "object", "props": {"input": self.value(1)?}}),
        };
        let mut call = Map::new();
        call.insert(
            "call".into(),
            json!({"$": "object", "props": {"type": "toolCall", "id": id, "name": name, "arguments": arguments}}),
        );
        match self.u.int_in_range(0u8..=9)? {
            0 => {
                call.insert("abort".into(), json!({"before": {"reason": "stop"}}));
            }
            1 | 2 => {
                call.insert("abort".into(), json!({"whenPending": {}}));
            }
            3 => {
                call.insert("call".into(), self.value(1)?);
            }
            _ => {}
        }
        Ok(Json::Object(call))
    }
}

/// Takes an arbitrary string of at most `max` characters.
trait TakeString {
    fn arbitrary_take(u: &mut Unstructured<'_>, max: usize) -> Result<String>;
}

impl TakeString for String {
    fn arbitrary_take(u: &mut Unstructured<'_>, max: usize) -> Result<String> {
        let s: String = u.arbitrary()?;
        Ok(s.chars().take(max).collect())
    }
}
