// Values across the language boundary, both ways.
//
// `materialize(spec, refs)`: a scenario's value (JSON, where an object with a
// "$" key is special) as the JavaScript value a tool, hook or model turn
// produces. `{"$":"undefined"}` is undefined, `{"$":"literal","value":J}` is J
// taken as it is (no "$" decoding inside), `{"$":"args"}` is the argument
// object the running function received (by reference), everything else is
// copied structurally (a fresh object per materialization).
//
// `encode(value)`: what pi produced, as JSON that keeps what JSON.stringify
// loses: own enumerable keys in their order even when undefined
// (`{"$":"undefined"}`), non-finite numbers and -0, bigints, functions,
// symbols, Error instances, cycles; an object that has a "$" key of its own
// is wrapped as `{"$":"object","value":{…}}`.
//
// `errorOf(spec)`: a thrown value, `{"error": message, "name"?}` (an Error, of
// the named built-in class when there is one) or `{"value": V}` (a non-Error).

import { setOwn } from '../boundary/behaviours.mjs';

export function materialize(spec, refs = {}) {
  if (spec === null || typeof spec !== 'object') return spec;
  if (Array.isArray(spec)) return spec.map((s) => materialize(s, refs));
  if (Object.hasOwn(spec, '$')) {
    switch (spec.$) {
      case 'undefined':
        return undefined;
      case 'literal':
        return structuredClone(spec.value);
      case 'args':
        if (!Object.hasOwn(refs, 'args')) throw new Error('{"$":"args"} used where no arguments were received');
        return refs.args;
      default:
        throw new Error(`unknown value family ${JSON.stringify(spec.$)}`);
    }
  }
  // own data properties, as JSON.parse makes them (`out[k] =` would set
  // the prototype for a `__proto__` key and lose it)
  const out = {};
  for (const [k, v] of Object.entries(spec)) setOwn(out, k, materialize(v, refs));
  return out;
}

const ERROR_CLASSES = { Error, TypeError, RangeError, SyntaxError, ReferenceError };

export function errorOf(spec, refs = {}) {
  if (Object.hasOwn(spec, 'error')) {
    const name = spec.name ?? 'Error';
    const Class = ERROR_CLASSES[name] ?? Error;
    const e = new Class(spec.error);
    if (!ERROR_CLASSES[name]) e.name = name;
    return e;
  }
  if (Object.hasOwn(spec, 'value')) return materialize(spec.value, refs);
  throw new Error(`a thrown value needs "error" or "value": ${JSON.stringify(spec)}`);
}

export function encode(value, seen = new Set()) {
  switch (typeof value) {
    case 'undefined':
      return { $: 'undefined' };
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      if (Object.is(value, -0)) return { $: 'number', value: '-0' };
      return Number.isFinite(value) ? value : { $: 'number', value: String(value) };
    case 'bigint':
      return { $: 'bigint', value: value.toString() };
    case 'function':
      return { $: 'function' };
    case 'symbol':
      return { $: 'symbol', description: value.description ?? null };
    default:
      break;
  }
  if (value === null) return null;
  if (seen.has(value)) return { $: 'cycle' };
  seen.add(value);
  try {
    if (value instanceof Error) return { $: 'error', name: String(value.name), message: String(value.message) };
    if (Array.isArray(value)) {
      const out = [];
      for (let i = 0; i < value.length; i++) out.push(encode(value[i], seen));
      return out;
    }
    const out = {};
    for (const k of Object.keys(value)) setOwn(out, k, encode(value[k], seen));
    return Object.hasOwn(out, '$') ? { $: 'object', value: out } : out;
  } finally {
    seen.delete(value);
  }
}

/**
 * `value` with its top-level `timestamp` and `durationMs` (numbers: wall
 * clock and measured time) replaced by the strings "<timestamp>" and
 * "<durationMs>", same key order. Shallow copy; non-objects as they are.
 */
export function masked(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out = {};
  for (const k of Object.keys(value)) {
    const v = value[k];
    if (k === 'timestamp' && typeof v === 'number') setOwn(out, k, '<timestamp>');
    else if (k === 'durationMs' && typeof v === 'number') setOwn(out, k, '<durationMs>');
    else setOwn(out, k, v);
  }
  return out;
}
