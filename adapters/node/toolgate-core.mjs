// toolgate-core.mjs: the core tool contract of checkpoint 06, in plain
// JavaScript (an ES module for Node 20, no dependencies).
//
//   defineTool(definition)                 a frozen snapshot of four own fields
//   new ToolRegistry(batch?)               registerMany, names, size, get, snapshot
//   executeToolCall(registry, call, signal)
//                                          resolves with a frozen result message,
//                                          rejects with the abort reason, a
//                                          ToolContractError or a genuine
//                                          NonRecoverableToolError
//
// The behaviour is the core contract (CONTRACT.md, numbered in SPEC.md):
// checkpoint 06 of the course, as the course's own implementation behaves
// (what it reads, in which order and through which operations, so that
// getters and proxy traps run as they run there). The comments name the
// requirements, and the steps as the reference's contract/core/src/call.rs
// numbers them.

// `node:util` is the one import: ECMAScript gives no way to tell a native
// promise from a look-alike without running user code (its getters), and the
// contract forbids running it where this is asked.
import { types } from 'node:util';

const { isPromise } = types;

const OUTPUT_CAP = 4096; // code points, marker included
const TRUNCATION_MARKER = '\n[Tool output truncated]'; // 24 code points
const TRUNCATED_PREFIX = OUTPUT_CAP - 24; // what a truncated content keeps
const MAX_DEPTH = 32;
const MAX_NODES = 128;
const MAX_ENTRIES = 256;
const MAX_STRING_CHARS = 4096;
const BIGINT_LIMIT = 1n << 4096n;
const MAX_THENABLE_CHAIN = 64; // `then` calls followed while awaiting a result

const INVALID_TOOL_DEFINITION = 'INVALID_TOOL_DEFINITION';
const INVALID_TOOL_BATCH = 'INVALID_TOOL_BATCH';
const DUPLICATE_TOOL_NAME = 'DUPLICATE_TOOL_NAME';
const INVALID_TOOL_CALL = 'INVALID_TOOL_CALL';

// ---------------------------------------------------------------------------
// Errors

/** A misuse of the contract: a bad definition, batch or call. Always thrown. */
export class ToolContractError extends Error {
  constructor(code, message = code) {
    super(message);
    this.code = code;
  }
}
Object.defineProperty(ToolContractError.prototype, 'name', {
  value: 'ToolContractError',
  writable: true,
  configurable: true,
});

// Genuineness is a brand the constructor sets, never a field or a prototype
// (CORE-NRE-01): look-alikes stay ordinary failures. The brand lives in a
// realm-wide registry under Symbol.for so that a second loaded copy of this
// module recognises the first one's errors. Anyone in the realm can reach it:
// it tells honest code apart, it is not a security boundary.
const GENUINE = Symbol.for('toolgate.core.NonRecoverableToolError');
const genuineErrors = (globalThis[GENUINE] ??= new WeakSet());

/** An error that must stop the agent run: it crosses the tool boundary. */
export class NonRecoverableToolError extends Error {
  constructor(message) {
    super();
    // Kept as given, not converted to a string: a message that is not a
    // string is no failure message (CORE-RES-03).
    if (message !== undefined) {
      Object.defineProperty(this, 'message', { value: message, writable: true, configurable: true });
    }
    this.code = 'NON_RECOVERABLE_TOOL_ERROR';
    this.nonRecoverable = true;
    genuineErrors.add(this);
  }
}
// On the prototype, so an instance's own enumerable fields are exactly
// `code` and `nonRecoverable`.
Object.defineProperty(NonRecoverableToolError.prototype, 'name', {
  value: 'NonRecoverableToolError',
  writable: true,
  configurable: true,
});

function isGenuineNonRecoverable(thrown) {
  // WeakSet.has runs no trap and no getter, whatever `thrown` is.
  return genuineErrors.has(thrown);
}

/**
 * The failure message of a thrown value (CORE-RES-03): a non-empty string is
 * itself; an object-like value gives the own data property `message` its
 * descriptor shows, when that holds a non-empty string; anything else gives
 * undefined (the step's fallback). Getters and prototypes are never
 * consulted; a thrown proxy answers through its getOwnPropertyDescriptor trap,
 * once, and a trap that throws (or a revoked proxy) leaves the fallback.
 */
function failureMessage(thrown) {
  if (typeof thrown === 'string') return thrown.length > 0 ? thrown : undefined;
  if (!isObjectLike(thrown)) return undefined;
  let message;
  try {
    message = ownData(thrown, 'message');
  } catch {
    return undefined;
  }
  return typeof message === 'string' && message.length > 0 ? message : undefined;
}

// ---------------------------------------------------------------------------
// Reading untrusted objects

/** "object" in the contract's sense: functions are not objects (SPEC vocabulary). */
function isObject(value) {
  return typeof value === 'object' && value !== null;
}

/** "object-like": objects and functions, what definitions, calls and decisions may be. */
function isObjectLike(value) {
  return isObject(value) || typeof value === 'function';
}

/** Blank means empty after String.prototype.trim, the ECMAScript set (CORE-DEF-03). */
function isNonBlankString(value) {
  return typeof value === 'string' && value.trim() !== '';
}

const ABSENT = Symbol('absent');

/**
 * The value of an own data property, as Object.getOwnPropertyDescriptor
 * shows it (a proxy answers that trap, once); ABSENT when there is none or
 * it is an accessor, whose getter never runs.
 */
function ownData(object, key) {
  const own = Reflect.getOwnPropertyDescriptor(object, key);
  return own !== undefined && 'value' in own ? own.value : ABSENT;
}

/**
 * Reads a field as the contract reads every field of a definition, a batch,
 * a call or a decision: `Object.hasOwn`, then `Reflect.get`. ABSENT when there
 * is no own property: inherited ones do not count and their getters never
 * run. An own getter runs once with the object as `this`; a proxy answers
 * its getOwnPropertyDescriptor trap, then its `get` trap. What either throws
 * propagates.
 */
function readOwn(object, key) {
  if (!Object.hasOwn(object, key)) return ABSENT;
  return Reflect.get(object, key);
}

// ---------------------------------------------------------------------------
// Definitions and the registry

function invalid(code, message) {
  return new ToolContractError(code, message);
}

/**
 * Snapshots a definition, any object-like value (a function too): its four
 * own fields are all read first, once each, in the order name, description,
 * validate, execute, the first missing or throwing one ending the reading;
 * only then are they checked, in the same order (CORE-DEF-05). Whatever a
 * getter or trap throws, a genuine NonRecoverableToolError included, the
 * definition is invalid (CORE-DEF-06, CORE-NRE-04).
 */
export function defineTool(definition) {
  if (!isObjectLike(definition)) {
    throw invalid(INVALID_TOOL_DEFINITION, 'A tool definition must be an object');
  }
  const read = (key) => {
    let value;
    try {
      value = readOwn(definition, key);
    } catch {
      throw invalid(INVALID_TOOL_DEFINITION, `Tool definition field ${key} could not be read`);
    }
    if (value === ABSENT) {
      throw invalid(INVALID_TOOL_DEFINITION, `Tool definition needs an own ${key}`);
    }
    return value;
  };
  const expect = (valid, key, expected) => {
    if (!valid) throw invalid(INVALID_TOOL_DEFINITION, `Tool definition ${key} must be ${expected}`);
  };
  const name = read('name');
  const description = read('description');
  const validate = read('validate');
  const execute = read('execute');
  expect(isNonBlankString(name), 'name', 'a non-blank string');
  expect(isNonBlankString(description), 'description', 'a non-blank string');
  expect(typeof validate === 'function', 'validate', 'a function');
  expect(typeof execute === 'function', 'execute', 'a function');
  // The snapshot keeps the values read (CORE-DEF-07): later changes to the
  // caller's object reach nothing.
  return Object.freeze({ name, description, validate, execute });
}

/**
 * Snapshots a batch: an array by Array.isArray (proxies to arrays count),
 * its `length` read with Reflect.get, then read by index, no iterator, each
 * entry `Object.hasOwn` then Reflect.get, once, in index order, and
 * snapshotted at once, so the first failure decides (CORE-REG-01..03).
 */
function snapshotBatch(batch) {
  const inspect = (read, message) => {
    try {
      return read();
    } catch {
      throw invalid(INVALID_TOOL_BATCH, message);
    }
  };
  if (!inspect(() => Array.isArray(batch), 'A tool batch could not be inspected')) {
    throw invalid(INVALID_TOOL_BATCH, 'A tool batch must be an array');
  }
  const length = inspect(() => Reflect.get(batch, 'length'), 'A tool batch length could not be read');
  if (!Number.isSafeInteger(length) || length < 0) {
    throw invalid(INVALID_TOOL_BATCH, 'A tool batch length must be a non-negative safe integer');
  }
  const snapshots = [];
  for (let index = 0; index < length; index += 1) {
    const at = `Tool batch entry ${index} could not be read`;
    if (!inspect(() => Object.hasOwn(batch, index), at)) {
      throw invalid(INVALID_TOOL_BATCH, `Tool batch has a hole at ${index}`);
    }
    const entry = inspect(() => Reflect.get(batch, index), at);
    snapshots.push(defineTool(entry));
  }
  return snapshots;
}

let isToolRegistry;
let lookUpTool;

/** Registered tool snapshots by exact name, in registration order. */
export class ToolRegistry {
  #tools = new Map();

  static {
    // Module-private: only registries built here pass step 2, and the check
    // runs no trap or getter of whatever was passed instead.
    isToolRegistry = (value) => isObject(value) && #tools in value;
    lookUpTool = (registry, name) => registry.#tools.get(name);
  }

  /**
   * `new ToolRegistry(batch)` follows registerMany's rules; a missing batch
   * (`undefined`) is the default `[]` (CORE-REG-06).
   */
  constructor(batch = []) {
    this.registerMany(batch);
  }

  /**
   * Registers every definition of the batch or none (CORE-REG-05): all
   * entries are snapshotted first, then duplicates are looked for inside the
   * batch and against the registry, and only then is the registry changed.
   */
  registerMany(batch) {
    const snapshots = snapshotBatch(batch);
    const pending = new Set();
    for (const tool of snapshots) {
      // Names compare as exact UTF-16 code units, as Map keys do (CORE-REG-04).
      if (this.#tools.has(tool.name) || pending.has(tool.name)) {
        throw invalid(DUPLICATE_TOOL_NAME, `Duplicate tool name ${JSON.stringify(tool.name)}`);
      }
      pending.add(tool.name);
    }
    for (const tool of snapshots) this.#tools.set(tool.name, tool);
  }

  /** The registered names in registration order, as a frozen copy. */
  get names() {
    return Object.freeze([...this.#tools.keys()]);
  }

  get size() {
    return this.#tools.size;
  }

  get(name) {
    return this.#tools.get(name);
  }

  /** Membership for one agent run; the immutable snapshots are shared. */
  snapshot() {
    const copy = new ToolRegistry();
    copy.#tools = new Map(this.#tools);
    return copy;
  }
}

// ---------------------------------------------------------------------------
// The call snapshot (step 3)

/**
 * Reads the four own fields of a call, any object-like value, in the order
 * type, id, name, arguments, all four before any is checked (the first
 * missing or throwing one ends the reading), then checks them in the same
 * order (CORE-CALL-03) and copies the arguments. Any failure throws; the
 * caller turns it into INVALID_TOOL_CALL (or the abort reason).
 */
function snapshotCall(call) {
  if (!isObjectLike(call)) throw new TypeError('a call must be an object');
  const read = (key) => {
    const value = readOwn(call, key);
    if (value === ABSENT) throw new TypeError(`a call needs an own ${key}`);
    return value;
  };
  const type = read('type');
  const id = read('id');
  const name = read('name');
  const args = read('arguments');
  if (type !== 'toolCall') throw new TypeError('type must be "toolCall"');
  if (!isNonBlankString(id)) throw new TypeError('id must be a non-blank string');
  if (!isNonBlankString(name)) throw new TypeError('name must be a non-blank string');
  if (!isObject(args) || Array.isArray(args)) throw new TypeError('arguments must be an object');
  return { id, name, arguments: copyPlainData(args) };
}

/**
 * The deep, frozen copy of call arguments (CORE-CALL-06): null, strings,
 * booleans, finite numbers (-0 kept), arrays without holes (any prototype)
 * and objects whose prototype is this realm's Object.prototype or null; no
 * cycles; a value shared by two branches is copied twice. Values are read
 * with [[Get]], so getters and `get` traps run, once each.
 *
 * An array is opened by the cycle check, then its `length`; each index is
 * then looked at with `Object.hasOwn` (a hole is refused) and read. An
 * object is opened by its prototype, then the cycle check, then
 * `Object.keys` (a proxy answers ownKeys and a descriptor per string key,
 * all at this moment); each listed key is then read. Each value read is
 * copied completely before the next is read. Iterative, so a deep argument
 * cannot overflow the stack.
 */
function copyPlainData(root) {
  const onPath = new Set();
  const stack = [];

  const enter = (value) => {
    if (onPath.has(value)) throw new TypeError('arguments hold a cycle');
    onPath.add(value);
  };

  const open = (value) => {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return { leaf: value };
      case 'number':
        if (Number.isFinite(value)) return { leaf: value };
        throw new TypeError('arguments hold a number that is not finite');
      case 'object':
        if (value === null) return { leaf: null };
        break;
      default:
        throw new TypeError(`arguments hold a ${typeof value}`);
    }
    if (Array.isArray(value)) {
      enter(value);
      const length = value.length;
      if (!Number.isSafeInteger(length) || length < 0) throw new TypeError('array with a bad length');
      return { frame: { source: value, length, index: 0, items: [] } };
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError('arguments hold an object that is not plain');
    }
    enter(value);
    return { frame: { source: value, keys: Object.keys(value), index: 0, entries: [], key: undefined } };
  };

  // Gives a finished copy to the container waiting for it; true for the root.
  const deliver = (copy) => {
    const parent = stack.at(-1);
    if (parent === undefined) return true;
    if (parent.items) parent.items.push(copy);
    else parent.entries.push([parent.key, copy]);
    return false;
  };

  let next = root;
  for (;;) {
    const opened = open(next);
    if (opened.frame) {
      stack.push(opened.frame);
    } else if (deliver(opened.leaf)) {
      return opened.leaf;
    }
    // Read the next value of the innermost open container, closing the
    // containers that have none left.
    for (;;) {
      const top = stack.at(-1);
      if (top.items && top.index < top.length) {
        const index = top.index;
        if (!Object.hasOwn(top.source, index)) throw new TypeError('arguments hold an array with a hole');
        top.index += 1;
        next = top.source[index];
        break;
      }
      if (top.entries && top.index < top.keys.length) {
        const key = top.keys[top.index];
        top.index += 1;
        top.key = key;
        next = top.source[key];
        break;
      }
      stack.pop();
      onPath.delete(top.source);
      const copy = Object.freeze(top.items ?? Object.fromEntries(top.entries));
      if (deliver(copy)) return copy;
    }
  }
}

// ---------------------------------------------------------------------------
// The bounded serializer

/**
 * Collects output code point by code point, holding at most 4096. The first
 * code point that does not fit truncates; a truncated content keeps its first
 * 4072 code points (or all, if shorter) and ends with the marker.
 */
class OutputWriter {
  text = '';
  codePoints = 0;
  cut = -1; // UTF-16 length of the text when it held TRUNCATED_PREFIX code points
  truncated = false;

  truncate() {
    this.truncated = true;
  }

  /** Writes one code point (one or two UTF-16 units); false when it did not fit. */
  put(codePoint) {
    if (this.truncated) return false;
    if (this.codePoints >= OUTPUT_CAP) {
      this.truncated = true;
      return false;
    }
    if (this.codePoints === TRUNCATED_PREFIX) this.cut = this.text.length;
    this.text += codePoint;
    this.codePoints += 1;
    return true;
  }

  /** Writes ASCII text, one code point per character. */
  ascii(text) {
    if (!this.truncated && this.codePoints + text.length < TRUNCATED_PREFIX) {
      this.text += text;
      this.codePoints += text.length;
      return;
    }
    for (const character of text) this.put(character);
  }

  finish() {
    if (!this.truncated) return this.text;
    return (this.cut < 0 ? this.text : this.text.slice(0, this.cut)) + TRUNCATION_MARKER;
  }
}

// The TypeErrors thrown for a refused prototype: their messages become the
// result's (CORE-EXE-05).
const REFUSED_ARRAY = 'Tool output arrays must use a plain prototype';
const REFUSED_OBJECT = 'Tool output objects must be plain or have a null prototype';

/** Whether `object` has an own data property `key` holding a function. */
function hasOwnMethod(object, key) {
  return typeof ownData(object, key) === 'function';
}

/**
 * Whether `proto` is a realm's `name`.prototype by its shape: its own
 * `constructor` is a function whose own `name` is `name` and whose own
 * `prototype` is `proto` (both looked at, in that order, as data).
 */
function isConstructedBy(proto, name) {
  const constructor = ownData(proto, 'constructor');
  if (typeof constructor !== 'function') return false;
  const named = ownData(constructor, 'name');
  const prototype = ownData(constructor, 'prototype');
  return named === name && prototype === proto;
}

/**
 * The prototypes an object may have (CORE-SER-08): null, Object.prototype,
 * or any realm's Object.prototype, recognised by its shape: no prototype of
 * its own, an `Object` constructor, and the own methods every
 * Object.prototype has. Only a prototype that is neither null nor this
 * realm's is looked at, so only a proxy used as a prototype runs traps
 * (getPrototypeOf, then a descriptor per look), and what they throw
 * propagates.
 */
function isPlainObjectPrototype(proto) {
  if (proto === null || proto === Object.prototype) return true;
  if (Reflect.getPrototypeOf(proto) !== null) return false;
  return (
    isConstructedBy(proto, 'Object') &&
    hasOwnMethod(proto, 'hasOwnProperty') &&
    hasOwnMethod(proto, 'propertyIsEnumerable') &&
    hasOwnMethod(proto, 'toString') &&
    hasOwnMethod(proto, 'valueOf')
  );
}

/** The same for arrays: null, or a realm's Array.prototype above a realm's Object.prototype. */
function isPlainArrayPrototype(proto) {
  if (proto === null || proto === Array.prototype) return true;
  return (
    isPlainObjectPrototype(Reflect.getPrototypeOf(proto)) &&
    isConstructedBy(proto, 'Array') &&
    hasOwnMethod(proto, 'push') &&
    hasOwnMethod(proto, Symbol.iterator)
  );
}

// UTF-16 code unit order, which is what < does on JavaScript strings.
/**
 * Keys equal over this many code units both exhaust the string budget
 * (4097 code points need at most 8194 units) before either is written in
 * full, so their order cannot change the output: the sort compares keys
 * over this window only, as the reference does, since a comparison of two
 * keys sharing a prefix of 10^6 units would otherwise read all of it
 * (`toolgate bench --family long_keys`: 500 ms a call at 10^6 before).
 * Ties keep their order (the sort is stable).
 */
const KEY_COMPARE_UNITS = 2 * (MAX_STRING_CHARS + 1);
const keyWindow = (key) => (key.length > KEY_COMPARE_UNITS ? key.slice(0, KEY_COMPARE_UNITS) : key);
/** Kept entries `[key, value, window]` by their keys' windows. */
const byKey = (a, b) => (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0);

/**
 * One serialization: a walk bounded by the budgets of CONTRACT.md, never by the
 * size of the input. Throws what a proxy trap throws (or the TypeError of a
 * revoked proxy), and a TypeError for an unsupported prototype.
 */
class BoundedWalk {
  out = new OutputWriter();
  nodes = 0; // values visited, of MAX_NODES
  entries = 0; // own properties and array slots visited, of MAX_ENTRIES
  chars = 0; // code points read from keys, strings and BigInt texts
  path = []; // the containers being written, for cycles

  value(value, depth) {
    if (this.out.truncated) return;
    if (this.nodes >= MAX_NODES) {
      this.out.truncate();
      return;
    }
    this.nodes += 1;
    switch (typeof value) {
      case 'string':
        this.quoted(value, true);
        return;
      case 'number':
        // Number::toString for finite numbers (-0 is "0"); JSON has no NaN.
        this.out.ascii(Number.isFinite(value) ? String(value) : 'null');
        return;
      case 'boolean':
        this.out.ascii(value ? 'true' : 'false');
        return;
      case 'bigint':
        // Decided on the magnitude, before any decimal conversion (CORE-SER-03).
        if (value >= BIGINT_LIMIT || value <= -BIGINT_LIMIT) this.out.truncate();
        else this.quoted(`${value}n`, true);
        return;
      case 'undefined':
        this.quoted('[Undefined]', false);
        return;
      case 'symbol':
        this.quoted('[Symbol]', false);
        return;
      case 'function':
        this.quoted('[Function]', false);
        return;
      default:
        if (value === null) this.out.ascii('null');
        else this.container(value, depth);
    }
  }

  /**
   * A quoted string, code point by code point: a valid surrogate pair as is,
   * a lone surrogate or a control character as a lower-case \u escape, " and
   * \ escaped, everything else as is. When budgeted, each code point read
   * costs one of the MAX_STRING_CHARS, spent before it is written.
   */
  quoted(text, budgeted) {
    const out = this.out;
    out.put('"');
    for (let i = 0; i < text.length; ) {
      if (out.truncated) return;
      if (budgeted) {
        if (this.chars >= MAX_STRING_CHARS) {
          out.truncate();
          return;
        }
        this.chars += 1;
      }
      const unit = text.charCodeAt(i);
      if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
        const low = text.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          out.put(text.slice(i, i + 2));
          i += 2;
          continue;
        }
      }
      if (unit < 0x20 || (unit >= 0xd800 && unit <= 0xdfff)) {
        out.ascii(`\\u${unit.toString(16).padStart(4, '0')}`);
      } else if (unit === 0x22) {
        out.ascii('\\"');
      } else if (unit === 0x5c) {
        out.ascii('\\\\');
      } else {
        out.put(text[i]);
      }
      i += 1;
    }
    out.put('"');
  }

  takeEntry() {
    if (this.entries >= MAX_ENTRIES) {
      this.out.truncate();
      return false;
    }
    this.entries += 1;
    return true;
  }

  /**
   * Per container, in this order (CORE-SER-15): the depth, the path, then
   * Array.isArray, the prototype and (arrays) the own length. Nothing deeper
   * than 32 and nothing already on the path is inspected.
   */
  container(value, depth) {
    if (depth > MAX_DEPTH) {
      this.out.truncate();
      return;
    }
    if (this.path.includes(value)) {
      this.quoted('[Circular]', false);
      return;
    }
    const isArray = Array.isArray(value);
    const proto = Reflect.getPrototypeOf(value);
    if (isArray ? !isPlainArrayPrototype(proto) : !isPlainObjectPrototype(proto)) {
      throw new TypeError(isArray ? REFUSED_ARRAY : REFUSED_OBJECT);
    }
    this.path.push(value);
    if (isArray) this.array(value, depth);
    else this.object(value, depth);
    this.path.pop();
  }

  /**
   * Slots are read as descriptors: holes and accessors are markers, getters
   * never run. A bracket or comma that does not fit ends the walk before
   * the next slot is looked at (CORE-SER-15).
   */
  array(array, depth) {
    const own = Reflect.getOwnPropertyDescriptor(array, 'length');
    const length = own?.value;
    if (!Number.isSafeInteger(length) || length < 0) throw new TypeError('Tool output array has a bad length');
    if (!this.out.put('[')) return;
    for (let index = 0; index < length; index += 1) {
      if (this.out.truncated || !this.takeEntry()) return;
      if (index > 0 && !this.out.put(',')) return;
      const slot = Reflect.getOwnPropertyDescriptor(array, String(index));
      if (slot === undefined) this.quoted('[Empty]', false);
      else if ('get' in slot) this.quoted('[Accessor omitted]', false);
      else this.value(slot.value, depth + 1);
    }
    this.out.put(']');
  }

  /**
   * Own enumerable string keys only, each visited as an entry (accessors
   * too, dropped unrun); the kept keys are all collected before any is
   * written, then sorted. The keys come from for...in, each confirmed own
   * before it costs an entry and then read as a descriptor, so a proxy
   * answers as V8 runs that loop (CORE-SER-09): ownKeys and getPrototypeOf,
   * then per string key a descriptor to learn whether it is enumerable, and
   * for an enumerable one a second (Object.hasOwn) and, once it has cost
   * its entry, a third. A brace that does not fit runs none of this.
   */
  object(object, depth) {
    if (!this.out.put('{')) return;
    const kept = [];
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      if (!this.takeEntry()) break;
      const own = Reflect.getOwnPropertyDescriptor(object, key);
      if (own === undefined) throw new TypeError('Tool output property disappeared during inspection');
      if (own.enumerable && !('get' in own)) kept.push([key, own.value, keyWindow(key)]);
    }
    if (this.out.truncated) return;
    kept.sort(byKey);
    for (let i = 0; i < kept.length; i += 1) {
      if (this.out.truncated) return;
      if (i > 0) this.out.put(',');
      this.quoted(kept[i][0], true);
      this.out.put(':');
      this.value(kept[i][1], depth + 1);
    }
    this.out.put('}');
  }
}

function serialize(value) {
  const walk = new BoundedWalk();
  walk.value(value, 0);
  return walk.out.finish();
}

// ---------------------------------------------------------------------------
// executeToolCall

function throwIfAborted(signal) {
  if (signal?.aborted) throw signal.reason;
}

function result(link, content, isError) {
  return Object.freeze({
    id: `tool-result-${link.id}`,
    role: 'toolResult',
    toolCallId: link.id,
    toolName: link.name,
    content,
    isError,
  });
}

/** Error contents go through the same serializer and budgets (CORE-RES-02). */
function errorResult(link, code, message) {
  return result(link, serialize({ error: { code, message } }), true);
}

// Stands for "nothing was thrown": it has no message, so the fallback applies.
const NOTHING_THROWN = Symbol('nothing thrown');

/**
 * The failure path of steps 7, 10, 13, 14 and 16: check first (an abort wins
 * over everything, CORE-NRE-03), then a genuine non-recoverable error
 * propagates, and anything else becomes an error result.
 */
function failed(signal, link, code, thrown, fallback) {
  throwIfAborted(signal);
  if (isGenuineNonRecoverable(thrown)) throw thrown;
  return errorResult(link, code, failureMessage(thrown) ?? fallback);
}

const ignore = () => {};

/**
 * Attaches no-op handlers to a native promise, so that its rejection is
 * never unhandled; false for anything else (nothing of it is read).
 */
function observePromise(value) {
  if (!isPromise(value)) return false;
  try {
    Promise.prototype.then.call(value, ignore, ignore);
    return true;
  } catch {
    return false;
  }
}

/**
 * Step 7's look for asynchrony in what the validator returned, any
 * object-like value (CORE-VAL-03, CORE-VAL-04). A native promise gets no-op
 * handlers. Anything else has `then` read once with [[Get]]; a function
 * `then` is called once with two no-op callbacks, and what that call
 * returns is observed in turn (followChained). A throwing getter or `then`
 * counts as asynchrony and its error is kept for the message. Returns
 * undefined when there is no asynchrony.
 */
function findAsynchrony(returned) {
  if (!isObjectLike(returned)) return undefined;
  if (observePromise(returned)) return { kept: NOTHING_THROWN };
  let then;
  try {
    then = Reflect.get(returned, 'then');
  } catch (thrown) {
    return { kept: thrown };
  }
  if (typeof then !== 'function') return undefined;
  let chained;
  try {
    chained = Reflect.apply(then, returned, [ignore, ignore]);
  } catch (thrown) {
    return { kept: thrown };
  }
  followChained(chained);
  return { kept: NOTHING_THROWN };
}

/**
 * What a validator's `then` returned, one step further: a native promise
 * gets no-op handlers; another object-like value with a function `then` has
 * it called once with two no-op callbacks, and a native promise that call
 * returns (when it is not the value itself) gets handlers too. The validator
 * is refused either way, so nothing thrown here escapes.
 */
function followChained(chained) {
  if (!isObjectLike(chained) || observePromise(chained)) return;
  try {
    const then = Reflect.get(chained, 'then');
    if (typeof then !== 'function') return;
    const further = Reflect.apply(then, chained, [ignore, ignore]);
    if (further !== chained) observePromise(further);
  } catch {
    // ignored: the asynchrony is already established
  }
}

/**
 * Step 10: the decision must be object-like (a function is, and has no own
 * `ok`) with own `ok`; `ok === true` needs an own `value`, `ok === false` an
 * own non-blank string `error`. Fields are read with `Object.hasOwn` then
 * Reflect.get: getters and traps run once, here; what they throw propagates
 * to the caller. A malformed decision gives `{ problem }`.
 */
function readDecision(returned) {
  if (!isObjectLike(returned)) return { problem: 'Tool validation must return a decision object' };
  const ok = readOwn(returned, 'ok');
  if (ok === ABSENT) return { problem: 'Expected own property ok' };
  if (ok === true) {
    const value = readOwn(returned, 'value');
    if (value === ABSENT) return { problem: 'Expected own property value' };
    return { ok, value };
  }
  if (ok === false) {
    const error = readOwn(returned, 'error');
    if (error === ABSENT) return { problem: 'Expected own property error' };
    if (!isNonBlankString(error)) {
      return { problem: 'A rejected Tool validation must include a non-empty error' };
    }
    return { ok, error };
  }
  return { problem: 'Tool validation ok must be a boolean' };
}

/**
 * Step 14: waits for what execute returned as the course does (CORE-EXE-03):
 * first `Promise.resolve(returned)` (a native promise by its state; anything
 * else by reading `then` at once and, when it is a function, calling it in a
 * later job with resolving functions), then a second promise resolved with
 * the fulfilled value, which reads `then` on it once more, unless the signal
 * has aborted by the time the first settles. Resolves with `{ output }` or
 * `{ thrown }`; rejects with the abort reason as soon as the signal aborts
 * (or at once, if it aborted inside execute) while the first is unsettled;
 * the tool's own settlement is then still observed, never unhandled, and
 * ignored.
 *
 * Unlike the native machinery, it follows at most MAX_THENABLE_CHAIN `then`
 * calls (both promises together): a `then` that keeps resolving with
 * another thenable would otherwise keep the job queue busy forever and
 * starve the whole process; here such a result stays pending, and an abort
 * still ends the call.
 */
function settle(returned, signal) {
  return new Promise((resolve, reject) => {
    let thens = 0; // `then` calls made so far

    // What a promise's resolve function does with `value`: a native promise
    // is followed by its state, a function `then` is called in a later job
    // (its first answer counts), anything else fulfils. What the last `then`
    // allowed resolves with is not looked at: the result stays pending.
    const adopt = (value, fulfil, fail) => {
      if (thens === MAX_THENABLE_CHAIN) return;
      if (isPromise(value)) {
        Promise.prototype.then.call(value, fulfil, fail);
        return;
      }
      if (!isObjectLike(value)) {
        fulfil(value);
        return;
      }
      let then;
      try {
        then = Reflect.get(value, 'then');
      } catch (thrown) {
        fail(thrown);
        return;
      }
      if (typeof then !== 'function') {
        fulfil(value);
        return;
      }
      thens += 1;
      queueMicrotask(() => {
        let answered = false;
        const once = (answer) => (outcome) => {
          if (answered) return;
          answered = true;
          answer(outcome);
        };
        const onError = once(fail);
        try {
          Reflect.apply(then, value, [once((next) => adopt(next, fulfil, fail)), onError]);
        } catch (thrown) {
          onError(thrown);
        }
      });
    };

    // The abort is listened for until the first promise settles.
    let decided = false;
    const decide = (action) => {
      if (decided) return;
      decided = true;
      signal?.removeEventListener('abort', onAbort);
      action();
    };
    const onAbort = () => decide(() => reject(signal.reason));
    const fulfilled = (output) => {
      if (signal?.aborted) onAbort();
      else decide(() => adopt(output, (value) => resolve({ output: value }), (thrown) => resolve({ thrown })));
    };
    const rejected = (thrown) => {
      if (signal?.aborted) onAbort();
      else decide(() => resolve({ thrown }));
    };

    if (isPromise(returned)) {
      Promise.prototype.then.call(returned, fulfilled, rejected);
    } else {
      // The value travels in a box, so that fulfilling the native promise
      // reads no `then` of its own.
      const first = new Promise((fulfil, fail) => adopt(returned, (value) => fulfil({ __proto__: null, value }), fail));
      Promise.prototype.then.call(first, (box) => fulfilled(box.value), rejected);
    }
    // Aborted inside execute (or by its result's `then` getter): a listener
    // added now would never fire.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs one tool call, step by step (numbered as the reference numbers its
 * eighteen steps). Resolves with a frozen result message; rejects with the
 * signal's reason when cancelled, a ToolContractError (INVALID_TOOL_CALL) for
 * a malformed call or registry, or the genuine NonRecoverableToolError a tool
 * threw.
 */
export async function executeToolCall(registry, call, signal) {
  throwIfAborted(signal); // 1
  if (!isToolRegistry(registry)) {
    throw invalid(INVALID_TOOL_CALL, 'executeToolCall needs a ToolRegistry'); // 2
  }
  let snapshot;
  try {
    snapshot = snapshotCall(call); // 3
  } catch {
    throwIfAborted(signal); // an abort during the snapshot wins over its error
    throw invalid(INVALID_TOOL_CALL, 'A tool call must be { type: "toolCall", id, name, arguments }');
  }
  throwIfAborted(signal); // 4
  const link = { id: snapshot.id, name: snapshot.name };
  const tool = lookUpTool(registry, snapshot.name);
  if (tool === undefined) {
    return errorResult(link, 'TOOL_NOT_FOUND', `Unknown Tool "${snapshot.name}"`); // 5
  }
  throwIfAborted(signal); // 6

  let returned;
  try {
    returned = Reflect.apply(tool.validate, undefined, [snapshot.arguments]); // 7
  } catch (thrown) {
    return failed(signal, link, 'TOOL_VALIDATION_FAILED', thrown, 'Tool validation failed');
  }
  const asynchrony = findAsynchrony(returned);
  throwIfAborted(signal); // 8
  if (asynchrony !== undefined) {
    // A kept error only lends its message: even a genuine non-recoverable
    // error stays a validation failure here (CORE-VAL-04).
    const message = failureMessage(asynchrony.kept) ?? 'Tool validation must return synchronously';
    return errorResult(link, 'TOOL_VALIDATION_FAILED', message); // 9
  }
  let decision;
  try {
    decision = readDecision(returned); // 10
  } catch (thrown) {
    return failed(
      signal,
      link,
      'TOOL_VALIDATION_FAILED',
      thrown,
      'Tool validation returned an invalid decision',
    );
  }
  if (decision.problem !== undefined) {
    throwIfAborted(signal);
    return errorResult(link, 'TOOL_VALIDATION_FAILED', decision.problem);
  }
  throwIfAborted(signal); // 11
  if (!decision.ok) return errorResult(link, 'TOOL_ARGUMENTS_INVALID', decision.error);
  throwIfAborted(signal); // 12

  let pending;
  try {
    const context = Object.freeze({ signal, toolCallId: snapshot.id });
    pending = Reflect.apply(tool.execute, undefined, [decision.value, context]); // 13
  } catch (thrown) {
    return failed(signal, link, 'TOOL_EXECUTION_FAILED', thrown, 'Tool execution failed');
  }
  const settled = await settle(pending, signal); // 14
  if ('thrown' in settled) {
    return failed(signal, link, 'TOOL_EXECUTION_FAILED', settled.thrown, 'Tool execution failed');
  }
  throwIfAborted(signal); // 15: settling while aborted, the abort wins

  let content;
  try {
    content = serialize(settled.output); // 16
  } catch (thrown) {
    // A refused prototype throws a TypeError whose message is the result's.
    return failed(
      signal,
      link,
      'TOOL_OUTPUT_SERIALIZATION_FAILED',
      thrown,
      'Tool output could not be serialized safely',
    );
  }
  throwIfAborted(signal); // 17: a trap may have aborted during inspection
  return result(link, content, false); // 18
}
