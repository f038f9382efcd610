// What a runtime delivers to the model, as JSON for the observation. Most
// runtimes deliver plain JSON; some hand over live values (pi keeps a tool's
// output unserialized), which may be cyclic, hold BigInts, functions or
// `undefined`, or be 10 MB long. The encoding is total and bounded: it
// never throws, never recurses, and cuts what would make the reply line
// huge, while `utf8Bytes` still counts the whole value.

import { setOwn } from './behaviours.mjs';

/** Longest string kept whole in an observation. */
export const KEPT_STRING = 65_536;
/** Deepest container kept in an observation. */
export const KEPT_DEPTH = 64;
/** Most entries of one container kept in an observation. */
export const KEPT_ENTRIES = 4_096;

/** The UTF-8 bytes of `value` as JSON text (strings as themselves when the
 * whole value is a string), cycles counted once, without building the text. */
export function utf8Bytes(value) {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  let total = 0;
  const seen = new Set();
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') total += Buffer.byteLength(v, 'utf8') + 2;
    else if (typeof v === 'bigint') total += v.toString().length;
    else if (v === null || typeof v === 'number' || typeof v === 'boolean') total += String(v).length;
    else if (typeof v === 'object') {
      if (seen.has(v)) continue;
      seen.add(v);
      let keys;
      try {
        keys = Object.keys(v);
      } catch {
        continue;
      }
      total += 2 + Math.max(0, keys.length - 1);
      for (const k of keys) {
        if (!Array.isArray(v)) total += Buffer.byteLength(k, 'utf8') + 3;
        try {
          stack.push(v[k]);
        } catch {
          // a throwing getter delivers nothing
        }
      }
    }
  }
  return total;
}

/** `value` as JSON for the observation: cycles, BigInts, functions,
 * `undefined`, throwing getters and values met again (a cycle or a shared
 * value: `{"$seen": true}`) described by `{"$...": ...}` objects;
 * strings over KEPT_STRING and containers past KEPT_DEPTH or KEPT_ENTRIES
 * cut with a marker. */
export function encodeDelivered(value) {
  const root = { value: undefined };
  const seen = new Set();
  // work items: [value, depth, set(result)]
  const stack = [[value, 0, (v) => (root.value = v)]];
  while (stack.length > 0) {
    const [v, depth, set] = stack.pop();
    if (v === undefined) set({ $undefined: true });
    else if (typeof v === 'string') set(v.length > KEPT_STRING ? { $string: v.slice(0, KEPT_STRING), length: v.length } : v);
    else if (typeof v === 'bigint') set({ $bigint: v.toString() });
    else if (typeof v === 'function') set({ $function: v.name || '(anonymous)' });
    else if (typeof v === 'symbol') set({ $symbol: v.description ?? '' });
    else if (typeof v === 'number') set(Number.isFinite(v) ? v : { $number: String(v) });
    else if (v === null || typeof v === 'boolean') set(v);
    else if (seen.has(v)) set({ $seen: true });
    else if (depth >= KEPT_DEPTH) set({ $cut: 'depth' });
    else {
      seen.add(v);
      const isArray = Array.isArray(v);
      const out = isArray ? [] : {};
      set(out);
      let keys;
      try {
        keys = Object.keys(v);
      } catch (error) {
        set({ $unreadable: String(error?.message ?? error) });
        continue;
      }
      if (keys.length > KEPT_ENTRIES) {
        if (isArray) out.push({ $cut: 'entries', length: keys.length });
        else out.$cut = { entries: keys.length };
        keys = keys.slice(0, KEPT_ENTRIES);
      }
      for (const k of keys) {
        let item;
        try {
          item = v[k];
        } catch (error) {
          item = { toolgateThrew: String(error?.message ?? error) };
        }
        if (isArray) {
          const at = out.length;
          out.push(null);
          stack.push([item, depth + 1, (r) => (out[at] = r)]);
        } else {
          // the key is placed now, so keys keep their order whatever order
          // the stack settles them in
          setOwn(out, k, null);
          stack.push([item, depth + 1, (r) => setOwn(out, k, r)]);
        }
      }
    }
  }
  return root.value;
}
