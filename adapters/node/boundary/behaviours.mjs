// Tools of the boundary suite as JavaScript: a case's values (the hostile
// output and argument families) and executor behaviours, built the same way
// in the adapter's process and in a runtime's tool process (an MCP server
// over stdio). The vocabulary is `adapters/node/runtimes/SHIM.md`'s; the
// Rust side decodes the same JSON (`contract/boundary/src/`).

/**
 * Sets an own data property as `JSON.parse` does: an assignment to
 * `__proto__` would set the prototype instead, and the key would be lost.
 */
export function setOwn(object, key, value) {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/** The JavaScript value a case's value `spec` describes. */
export function materialize(spec) {
  if (Array.isArray(spec)) return spec.map(materialize);
  if (spec === null || typeof spec !== "object") return spec;
  if (!Object.hasOwn(spec, "$")) {
    const out = {};
    for (const [k, v] of Object.entries(spec)) setOwn(out, k, materialize(v));
    return out;
  }
  switch (spec.$) {
    case "literal":
      return spec.value;
    case "cyclic": {
      const loop = { name: "loop" };
      loop.self = loop;
      return loop;
    }
    case "deep": {
      // built bottom-up: no recursion, whatever the depth
      let node = { leaf: true };
      for (let i = 0; i < spec.depth; i++) node = { next: node };
      return node;
    }
    case "wide": {
      const out = {};
      for (let i = 0; i < spec.keys; i++) out[`k${i}`] = i;
      return out;
    }
    case "longString":
      return "x".repeat(spec.length);
    case "bigint":
      return BigInt(spec.value);
    case "undefined":
      return undefined;
    case "function":
      return function toolOutputFunction() {};
    case "throwingGetter": {
      const out = { ok: true };
      Object.defineProperty(out, "broken", {
        enumerable: true,
        get() {
          throw new Error(spec.message);
        },
      });
      return out;
    }
    case "throwingToJSON":
      return {
        ok: true,
        toJSON() {
          throw new Error(spec.message);
        },
      };
    case "number":
      // "NaN", "Infinity", "-Infinity"
      return Number(spec.value);
    case "set":
      return new Set(spec.items.map(materialize));
    case "bytes":
      // `fill` 128-255 makes bytes that are not UTF-8
      return new Uint8Array(spec.length).fill(spec.fill ?? 0);
    default:
      throw new TypeError(`unknown value family ${JSON.stringify(spec.$)}`);
  }
}

/** The thrown (or rejected) value a case's `E` describes. */
export function thrown(spec) {
  if (Object.hasOwn(spec, "error")) return new Error(spec.error);
  if (Object.hasOwn(spec, "string")) return spec.string;
  if (Object.hasOwn(spec, "value")) return materialize(spec.value);
  throw new TypeError(`unknown thrown value ${JSON.stringify(spec)}`);
}

/**
 * The body of a tool behaving as `behaviour` says: `(args, { signal,
 * callId, progress }) => value`. It emits `onEvent({ event, index, callId,
 * ... })` when it starts, reports progress and settles, so whoever runs it
 * (here or in another process) learns whether and when the tool ran.
 */
export function executorFor(behaviour, { index, onEvent = () => {} }) {
  // values are built now, before any turn is timed: what a case measures is
  // the runtime's cost, not the building of a 10^6-key output
  const built = new Map();
  const prebuild = (b) => {
    if (Object.hasOwn(b, 'returns')) built.set(b, materialize(b.returns));
    else if (Object.hasOwn(b, 'resolves')) built.set(b, materialize(b.resolves));
    else if (Object.hasOwn(b, 'progress')) prebuild(b.then);
  };
  prebuild(behaviour);
  return function execute(args, context = {}) {
    const callId = context?.callId;
    onEvent({ event: "start", index, callId });
    return run(behaviour, context, (outcome) =>
      onEvent({ event: "settle", index, callId, outcome }),
    );
  };

  function run(b, context, settled) {
    if (Object.hasOwn(b, "progress")) {
      for (const value of b.progress) {
        onEvent({ event: "progress", index, callId: context?.callId });
        context?.progress?.(materialize(value));
      }
      return run(b.then, context, settled);
    }
    if (Object.hasOwn(b, "returns")) {
      const value = materialize(b.returns);
      settled("fulfilled");
      return value;
    }
    if (Object.hasOwn(b, "throws")) {
      settled("rejected");
      throw thrown(b.throws);
    }
    if (Object.hasOwn(b, "resolves")) {
      const value = materialize(b.resolves);
      return Promise.resolve().then(() => {
        settled("fulfilled");
        return value;
      });
    }
    if (Object.hasOwn(b, "rejects")) {
      const reason = thrown(b.rejects);
      return Promise.resolve().then(() => {
        settled("rejected");
        throw reason;
      });
    }
    if (Object.hasOwn(b, "pending")) {
      return new Promise((_, reject) => {
        const signal = context?.signal;
        if (b.pending.onAbort !== "reject" || !signal) return;
        const stop = () => {
          settled("rejected");
          reject(signal.reason);
        };
        if (signal.aborted) stop();
        else signal.addEventListener("abort", stop, { once: true });
      });
    }
    throw new TypeError(`unknown behaviour ${JSON.stringify(b)}`);
  }
}
