// encode.mjs: how JavaScript values are written into an observation
// (corpus/README.md, "Encodings"): scenario nodes by name, tagged scalars,
// the frozen argument copy a validator receives, the execute context,
// callbacks, result messages and whatever else a call rejected with.
//
// Nothing here runs code of the scenario or of the implementation: values
// are inspected through own property descriptors, and never through a proxy.

import { types } from 'node:util';

const BIGINT_LIMIT = 1n << 4096n;
const MAX_ENCODED_DEPTH = 64;

/** A string: itself when it is valid Unicode, else its UTF-16 code units. */
export function encodeString(s) {
  if (s.isWellFormed()) return s;
  const units = new Array(s.length);
  for (let i = 0; i < s.length; i += 1) units[i] = s.charCodeAt(i);
  return { $: 'string', units };
}

export function encodeNumber(n) {
  if (Number.isNaN(n)) return { $: 'number', value: 'NaN' };
  if (n === Infinity) return { $: 'number', value: 'Infinity' };
  if (n === -Infinity) return { $: 'number', value: '-Infinity' };
  if (Object.is(n, -0)) return { $: 'number', value: '-0' };
  return n;
}

export function encodeBigInt(n) {
  if (n >= BIGINT_LIMIT || n <= -BIGINT_LIMIT) return { $: 'bigint', beyond: '2^4096' };
  return { $: 'bigint', decimal: n.toString() };
}

/**
 * A value as in scenarios: scalars tagged where JSON cannot write them,
 * scenario nodes as {ref}. `built` knows the nodes and symbols of the case.
 */
export function encodeValue(built, value) {
  switch (typeof value) {
    case 'undefined':
      return { $: 'undefined' };
    case 'boolean':
      return value;
    case 'number':
      return encodeNumber(value);
    case 'string':
      return encodeString(value);
    case 'bigint':
      return encodeBigInt(value);
    case 'symbol':
      return { $: 'symbol', id: built.symbolId(value) };
    default:
      if (value === null) return null;
      return foreign(built, value);
  }
}

/** An object or function that is not plain data: its name, or a description. */
function foreign(built, value) {
  const name = built.nameOf(value);
  if (name !== undefined) return { ref: name };
  if (typeof value === 'function') return { $: 'callback' };
  // Not a node of the case: a name no node has, so the difference shows.
  return { ref: `<not a node: ${describeObject(value)}>` };
}

/** The execute context, if `value` is one: a non-node object with an own AbortSignal `signal`. */
export function contextOf(built, value) {
  if (typeof value !== 'object' || value === null) return undefined;
  if (types.isProxy(value) || built.nameOf(value) !== undefined) return undefined;
  const signal = Reflect.getOwnPropertyDescriptor(value, 'signal');
  if (!signal || !(signal.value instanceof AbortSignal)) return undefined;
  const id = Reflect.getOwnPropertyDescriptor(value, 'toolCallId');
  return { signal: signal.value, toolCallId: id && 'value' in id ? id.value : undefined };
}

/**
 * A function argument (trace `call` events): scenario nodes by name, the
 * execute context, callbacks the implementation passed, the argument copy
 * as JSON, scalars as values.
 */
export function encodeArg(built, value) {
  if (typeof value === 'object' && value !== null && built.nameOf(value) === undefined) {
    const context = contextOf(built, value);
    if (context !== undefined) {
      return { $: 'context', toolCallId: encodeValue(built, context.toolCallId) };
    }
    return encodeCopy(built, value, 0);
  }
  return encodeValue(built, value);
}

/**
 * The argument copy as JSON: objects as objects (or {$: "object", entries}
 * when a key is `$`, `ref` or not valid Unicode), arrays as arrays, -0 and
 * lone surrogates tagged, containers deeper than 64 as {$: "deep"}. What
 * no copy can hold (a non-conforming implementation's) is written in the
 * value forms: {$: "undefined"}, tagged numbers, BigInts, symbols, {ref}.
 */
export function encodeCopy(built, value, depth) {
  if (typeof value === 'function' && built.nameOf(value) === undefined) {
    // No copy holds a function: name it as what it is not, a node.
    return { ref: '<not a node: a function>' };
  }
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'number' ? encodeNumber(value) : encodeValue(built, value);
  }
  if (built.nameOf(value) !== undefined || types.isProxy(value)) return foreign(built, value);
  if (depth >= MAX_ENCODED_DEPTH) return { $: 'deep' };
  if (Array.isArray(value)) {
    const length = Reflect.getOwnPropertyDescriptor(value, 'length')?.value ?? 0;
    const items = [];
    for (let i = 0; i < length; i += 1) {
      const slot = Reflect.getOwnPropertyDescriptor(value, String(i));
      items.push(slot && 'value' in slot ? encodeCopy(built, slot.value, depth + 1) : { $: 'undefined' });
    }
    return items;
  }
  const fields = [];
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== 'string') continue;
    const own = Reflect.getOwnPropertyDescriptor(value, key);
    if (!own?.enumerable) continue;
    fields.push([key, 'value' in own ? encodeCopy(built, own.value, depth + 1) : { $: 'undefined' }]);
  }
  const tagged = fields.some(([key]) => key === '$' || key === 'ref' || !key.isWellFormed());
  if (tagged) return { $: 'object', entries: fields.map(([key, v]) => [encodeString(key), v]) };
  // no prototype, so assigning defines an own property for any key
  // (`__proto__` too) and costs less than a descriptor per key
  const object = Object.create(null);
  for (const [key, v] of fields) object[key] = v;
  return object;
}

/** A short description of an object the adapter did not build (no user code runs). */
export function describeObject(value) {
  if (types.isProxy(value)) return 'a proxy';
  let tag;
  try {
    tag = Object.prototype.toString.call(value);
  } catch {
    tag = '[object ?]';
  }
  return tag;
}

/**
 * Describes what a registration or call threw or rejected with, for a
 * `{"rejected": ...}` outcome: the evidence for a contract failure.
 */
export function describeThrown(built, thrown) {
  if (typeof thrown !== 'object' || thrown === null) {
    return { value: encodeValue(built, thrown) };
  }
  const name = built.nameOf(thrown);
  if (name !== undefined) return { node: name };
  if (types.isProxy(thrown)) return { object: 'a proxy' };
  const own = (key) => {
    let d;
    for (let o = thrown; o !== null && d === undefined && !types.isProxy(o); o = Object.getPrototypeOf(o)) {
      d = Reflect.getOwnPropertyDescriptor(o, key);
    }
    return d && 'value' in d ? d.value : undefined;
  };
  const description = { object: describeObject(thrown) };
  for (const key of ['name', 'code', 'message']) {
    const v = own(key);
    if (v !== undefined) description[key] = encodeValue(built, v);
  }
  return description;
}

const RESULT_FIELDS = ['id', 'role', 'toolCallId', 'toolName', 'content', 'isError'];

/**
 * A result message as observed: the six fields, strings encoded. Anything
 * that is not a frozen object with exactly these six own data fields (string
 * role and content, boolean isError) is not a result message; it is
 * reported as `{"rejected": {"malformedResult": ...}}` so that the case fails
 * with the evidence.
 */
export function encodeResolved(built, value) {
  const problems = [];
  if (typeof value !== 'object' || value === null || types.isProxy(value)) {
    return { rejected: { malformedResult: { resolvedWith: describeThrown(built, value) } } };
  }
  const fields = {};
  const keys = Reflect.ownKeys(value);
  for (const key of keys) {
    if (typeof key !== 'string' || !RESULT_FIELDS.includes(key)) problems.push(`extra field ${String(key)}`);
  }
  for (const key of RESULT_FIELDS) {
    const own = Reflect.getOwnPropertyDescriptor(value, key);
    if (own === undefined || !('value' in own)) {
      problems.push(`no own data field ${key}`);
      continue;
    }
    fields[key] = own.value;
  }
  if (problems.length === 0) {
    if (typeof fields.role !== 'string') problems.push('role is not a string');
    if (typeof fields.content !== 'string') problems.push('content is not a string');
    if (typeof fields.isError !== 'boolean') problems.push('isError is not a boolean');
    if (!Object.isFrozen(value)) problems.push('the result is not frozen');
  }
  if (problems.length > 0) {
    const seen = {};
    for (const [key, v] of Object.entries(fields)) seen[key] = encodeValue(built, v);
    return { rejected: { malformedResult: { problems, fields: seen } } };
  }
  return {
    result: {
      id: encodeValue(built, fields.id),
      role: fields.role,
      toolCallId: encodeValue(built, fields.toolCallId),
      toolName: encodeValue(built, fields.toolName),
      content: fields.content,
      isError: fields.isError,
    },
  };
}
