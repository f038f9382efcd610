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
// The behaviour is shared/contract/core.md, with the decisions of SPEC.md
// where core.md leaves a choice; the comments name the steps and requirements.

// `node:util` is the one import: ECMAScript gives no way to tell a proxy from
// an object, or a native promise from a look-alike, without running user code
// (traps, getters), and the contract forbids running it where these are asked.
import { types } from 'node:util';

const { isProxy, isPromise } = types;

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
 * itself; an object with an own data property `message` holding a non-empty
 * string gives that string; anything else gives undefined (the step's
 * fallback). Getters, prototypes and proxy traps are never consulted.
 */
function failureMessage(thrown) {
  if (typeof thrown === 'string') return thrown.length > 0 ? thrown : undefined;
  if (typeof thrown !== 'object' || thrown === null || isProxy(thrown)) return undefined;
  const own = Reflect.getOwnPropertyDescriptor(thrown, 'message');
  if (own === undefined || !('value' in own)) return undefined;
  return typeof own.value === 'string' && own.value.length > 0 ? own.value : undefined;
}

// ---------------------------------------------------------------------------
// Reading untrusted objects

/** "object" in the contract's sense: functions are not objects (SPEC vocabulary). */
function isObject(value) {
  return typeof value === 'object' && value !== null;
}

/** Blank means empty after String.prototype.trim, the ECMAScript set (CORE-DEF-03). */
function isNonBlankString(value) {
  return typeof value === 'string' && value.trim() !== '';
}

const ABSENT = Symbol('absent');

/**
 * The own keys to look at for enumerable string-keyed properties, in own-key
 * order. A proxy can only say which keys are enumerable by answering a
 * descriptor trap per key, so it lists all its keys (ownKeys, once) and the
 * caller asks for descriptors one at a time, stopping when its walk stops
 * (CORE-SER-09). An ordinary object lists its enumerable ones natively, so
 * hidden and symbol keys cost nothing (CORE-SER-05); nothing observable
 * differs.
 */
function candidateKeys(object) {
  return isProxy(object) ? Reflect.ownKeys(object) : Object.keys(object);
}

/**
 * Reads an own property once: its data value, or what its getter returns
 * (called with the object as `this`); a setter-only accessor reads as
 * undefined. ABSENT when there is no own property: inherited ones do not
 * count and their getters never run. A proxy answers through its
 * getOwnPropertyDescriptor trap only, never `get`.
 */
function readOwn(object, key) {
  const own = Reflect.getOwnPropertyDescriptor(object, key);
  if (own === undefined) return ABSENT;
  if (!('get' in own)) return own.value;
  return own.get === undefined ? undefined : Reflect.apply(own.get, object, []);
}

// ---------------------------------------------------------------------------
// Definitions and the registry

function invalid(code, message) {
  return new ToolContractError(code, message);
}

/**
 * Snapshots a definition: four own fields, each read exactly once and checked
 * as soon as it is read, in the order name, description, validate, execute
 * (CORE-DEF-05), so no later getter runs after a failure. Whatever a getter
 * or trap throws, a genuine NonRecoverableToolError included, the definition
 * is invalid (CORE-DEF-06, CORE-NRE-04).
 */
export function defineTool(definition) {
  if (!isObject(definition)) {
    throw invalid(INVALID_TOOL_DEFINITION, 'A tool definition must be an object');
  }
  const field = (key, isValid, expected) => {
    let value;
    try {
      value = readOwn(definition, key);
    } catch {
      throw invalid(INVALID_TOOL_DEFINITION, `Tool definition field ${key} could not be read`);
    }
    if (value === ABSENT) {
      throw invalid(INVALID_TOOL_DEFINITION, `Tool definition needs an own ${key}`);
    }
    if (!isValid(value)) {
      throw invalid(INVALID_TOOL_DEFINITION, `Tool definition ${key} must be ${expected}`);
    }
    return value;
  };
  const isFunction = (value) => typeof value === 'function';
  const name = field('name', isNonBlankString, 'a non-blank string');
  const description = field('description', isNonBlankString, 'a non-blank string');
  const validate = field('validate', isFunction, 'a function');
  const execute = field('execute', isFunction, 'a function');
  // The snapshot keeps the values read (CORE-DEF-07): later changes to the
  // caller's object reach nothing.
  return Object.freeze({ name, description, validate, execute });
}

/**
 * Snapshots a batch: an array by Array.isArray (proxies to arrays count),
 * read by index up to its own length, no iterator, each entry once, in
 * index order, the first failure deciding (CORE-REG-01..03).
 */
function snapshotBatch(batch) {
  let length;
  try {
    if (!isObject(batch) || !Array.isArray(batch)) throw new TypeError('not an array');
    length = readOwn(batch, 'length');
  } catch {
    throw invalid(INVALID_TOOL_BATCH, 'A tool batch must be an array');
  }
  if (typeof length !== 'number' || !(length >= 0 && length <= 2 ** 32 - 1)) {
    throw invalid(INVALID_TOOL_BATCH, 'A tool batch must be an array');
  }
  const snapshots = [];
  for (let index = 0; index < length; index += 1) {
    let entry;
    try {
      entry = readOwn(batch, String(index));
    } catch {
      throw invalid(INVALID_TOOL_BATCH, `Tool batch entry ${index} could not be read`);
    }
    if (entry === ABSENT) {
      throw invalid(INVALID_TOOL_BATCH, `Tool batch has a hole at ${index}`);
    }
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

  /** `new ToolRegistry(batch)` follows registerMany's rules (CORE-REG-06). */
  constructor(...batch) {
    if (batch.length > 0) this.registerMany(batch[0]);
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
 * Reads the four own fields of a call in the order type, id, name,
 * arguments, each checked as soon as it is read (CORE-CALL-03), and copies
 * the arguments. Any failure throws; the caller turns it into
 * INVALID_TOOL_CALL (or the abort reason).
 */
function snapshotCall(call) {
  if (!isObject(call)) throw new TypeError('a call must be an object');
  const field = (key) => {
    const value = readOwn(call, key);
    if (value === ABSENT) throw new TypeError(`a call needs an own ${key}`);
    return value;
  };
  if (field('type') !== 'toolCall') throw new TypeError('type must be "toolCall"');
  const id = field('id');
  if (!isNonBlankString(id)) throw new TypeError('id must be a non-blank string');
  const name = field('name');
  if (!isNonBlankString(name)) throw new TypeError('name must be a non-blank string');
  const args = field('arguments');
  if (!isObject(args) || Array.isArray(args)) throw new TypeError('arguments must be an object');
  return { id, name, arguments: copyPlainData(args) };
}

/**
 * The deep, frozen copy of call arguments (CORE-CALL-06): null, strings,
 * booleans, finite numbers (-0 kept), arrays without holes (any prototype)
 * and objects whose prototype is this realm's Object.prototype or null; no
 * cycles. Own enumerable string keys are copied in own-key order, getters
 * run once, a value shared by two branches is copied twice. Iterative, so a
 * deep argument cannot overflow the stack.
 *
 * Each container is opened once (a proxy answers its traps at that moment:
 * getPrototypeOf, then ownKeys and a descriptor per string key), and its
 * values are read one at a time, each copied completely before the next is
 * read.
 */
function copyPlainData(root) {
  const onPath = new Set();
  const stack = [];

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
    if (onPath.has(value)) throw new TypeError('arguments hold a cycle');
    onPath.add(value);
    if (Array.isArray(value)) {
      const length = Reflect.getOwnPropertyDescriptor(value, 'length');
      if (!length || typeof length.value !== 'number') throw new TypeError('array without length');
      return { frame: { source: value, length: length.value, index: 0, items: [] } };
    }
    const proto = Reflect.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new TypeError('arguments hold an object that is not plain');
    }
    const properties = [];
    for (const key of candidateKeys(value)) {
      if (typeof key !== 'string') continue;
      const own = Reflect.getOwnPropertyDescriptor(value, key);
      if (own?.enumerable) properties.push([key, own]);
    }
    return { frame: { source: value, properties, index: 0, entries: [], key: undefined } };
  };

  const valueOf = (own, source) => {
    if (!('get' in own)) return own.value;
    return own.get === undefined ? undefined : Reflect.apply(own.get, source, []);
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
        const slot = Reflect.getOwnPropertyDescriptor(top.source, String(top.index));
        if (slot === undefined) throw new TypeError('arguments hold an array with a hole');
        top.index += 1;
        next = valueOf(slot, top.source);
        break;
      }
      if (top.entries && top.index < top.properties.length) {
        const [key, own] = top.properties[top.index];
        top.index += 1;
        top.key = key;
        next = valueOf(own, top.source);
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

  /** Writes one code point (one or two UTF-16 units). */
  put(codePoint) {
    if (this.truncated) return;
    if (this.codePoints >= OUTPUT_CAP) {
      this.truncated = true;
      return;
    }
    if (this.codePoints === TRUNCATED_PREFIX) this.cut = this.text.length;
    this.text += codePoint;
    this.codePoints += 1;
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

// Thrown for an unsupported prototype. It has no `message`, so the result
// carries the step's fallback, as core.md says.
const UNSUPPORTED_OUTPUT = Object.freeze({ unsupported: 'prototype' });

/**
 * Whether `proto` is another realm's Object.prototype or Array.prototype:
 * an ordinary object whose own `constructor` is that realm's native Object
 * (or Array) function, whose non-writable `prototype` is `proto`. Only
 * descriptors of non-proxies are read, so no user code runs.
 */
function isRealmPrototype(proto, name) {
  if (!isObject(proto) || isProxy(proto)) return false;
  const constructor = Reflect.getOwnPropertyDescriptor(proto, 'constructor')?.value;
  if (typeof constructor !== 'function' || isProxy(constructor)) return false;
  const prototype = Reflect.getOwnPropertyDescriptor(constructor, 'prototype');
  return (
    prototype?.value === proto &&
    prototype.writable === false &&
    Function.prototype.toString.call(constructor) === `function ${name}() { [native code] }`
  );
}

function isPlainPrototype(proto, isArray) {
  if (proto === null) return true;
  return isArray
    ? proto === Array.prototype || isRealmPrototype(proto, 'Array')
    : proto === Object.prototype || isRealmPrototype(proto, 'Object');
}

// UTF-16 code unit order, which is what < does on JavaScript strings.
const byKey = (a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * One serialization: a walk bounded by the budgets of core.md, never by the
 * size of the input. Throws what a proxy trap throws (or the TypeError of a
 * revoked proxy) and UNSUPPORTED_OUTPUT for an unsupported prototype.
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
    if (!isPlainPrototype(Reflect.getPrototypeOf(value), isArray)) throw UNSUPPORTED_OUTPUT;
    this.path.push(value);
    if (isArray) this.array(value, depth);
    else this.object(value, depth);
    this.path.pop();
  }

  /** Slots are read as descriptors: holes and accessors are markers, getters never run. */
  array(array, depth) {
    const own = Reflect.getOwnPropertyDescriptor(array, 'length');
    const length = typeof own?.value === 'number' ? own.value : 0;
    this.out.put('[');
    for (let index = 0; index < length; index += 1) {
      if (this.out.truncated || !this.takeEntry()) return;
      if (index > 0) this.out.put(',');
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
   * written, then sorted.
   */
  object(object, depth) {
    this.out.put('{');
    const kept = [];
    for (const key of candidateKeys(object)) {
      if (typeof key !== 'string') continue;
      const own = Reflect.getOwnPropertyDescriptor(object, key);
      if (own === undefined || !own.enumerable) continue;
      if (!this.takeEntry()) break;
      if (!('get' in own)) kept.push([key, own.value]);
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
 * Step 7's look for asynchrony in what the validator returned. A native
 * promise gets no-op handlers so its rejection is never unhandled. Any other
 * object has `then` read once; a function `then` is called once with two
 * no-op callbacks, and a promise it returns is observed too. A throwing
 * getter or `then` counts as asynchrony and its error is kept for the
 * message. Returns undefined when there is no asynchrony.
 */
function findAsynchrony(returned) {
  if (!isObject(returned)) return undefined;
  if (isPromise(returned)) {
    Promise.prototype.then.call(returned, ignore, ignore);
    return { kept: NOTHING_THROWN };
  }
  let then;
  try {
    then = returned.then;
  } catch (thrown) {
    return { kept: thrown };
  }
  if (typeof then !== 'function') return undefined;
  try {
    const chained = Reflect.apply(then, returned, [ignore, ignore]);
    if (isPromise(chained)) Promise.prototype.then.call(chained, ignore, ignore);
  } catch (thrown) {
    return { kept: thrown };
  }
  return { kept: NOTHING_THROWN };
}

/**
 * Step 10: the decision must be an object with own `ok`; `ok === true` needs
 * an own `value`, `ok === false` an own non-blank string `error`. Getters run
 * once, here; what they throw propagates to the caller. A malformed decision
 * gives `{ problem }`.
 */
function readDecision(returned) {
  if (!isObject(returned)) return { problem: 'Tool validation must return a decision object' };
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
 * Step 14: awaits what execute returned as `await` does (a native promise by
 * its state, anything else by reading `then` at once and calling it in a
 * later job with resolve and reject) while listening for the abort. Resolves
 * with `{ output }` or `{ thrown }`; rejects with the abort reason as soon as
 * the signal aborts (or at once, if it aborted inside execute), and the
 * tool's own settlement is then still observed, never unhandled, and
 * ignored.
 *
 * Unlike `await`, it follows at most MAX_THENABLE_CHAIN thenables (CORE-EXE-03):
 * a `then` that keeps resolving with another thenable would otherwise keep
 * the job queue busy forever and starve the whole process; here such a
 * result stays pending, and an abort still ends the call.
 */
function settle(returned, signal) {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    // Aborted inside execute: a listener added now would never fire.
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const settled = (outcome) => {
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };

    const follow = (value, thens) => {
      if (thens === MAX_THENABLE_CHAIN) return; // stays pending
      if (isPromise(value)) {
        Promise.prototype.then.call(value, (output) => settled({ output }), (thrown) => settled({ thrown }));
        return;
      }
      if (!isObject(value) && typeof value !== 'function') {
        settled({ output: value });
        return;
      }
      let then;
      try {
        then = value.then;
      } catch (thrown) {
        settled({ thrown });
        return;
      }
      if (typeof then !== 'function') {
        settled({ output: value });
        return;
      }
      queueMicrotask(() => {
        // Resolving functions answer once, whatever `then` does after.
        let answered = false;
        const once = (answer) => (outcome) => {
          if (answered) return;
          answered = true;
          answer(outcome);
        };
        const fail = once((thrown) => settled({ thrown }));
        try {
          Reflect.apply(then, value, [once((next) => follow(next, thens + 1)), fail]);
        } catch (thrown) {
          fail(thrown);
        }
      });
    };
    follow(returned, 0);
  });
}

/**
 * Runs one tool call through the eighteen steps of core.md. Resolves with a
 * frozen result message; rejects with the signal's reason when cancelled, a
 * ToolContractError (INVALID_TOOL_CALL) for a malformed call or registry, or
 * the genuine NonRecoverableToolError a tool threw.
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
    const cause = thrown === UNSUPPORTED_OUTPUT ? NOTHING_THROWN : thrown;
    return failed(
      signal,
      link,
      'TOOL_OUTPUT_SERIALIZATION_FAILED',
      cause,
      'Tool output could not be serialized safely',
    );
  }
  throwIfAborted(signal); // 17: a trap may have aborted during inspection
  return result(link, content, false); // 18
}
