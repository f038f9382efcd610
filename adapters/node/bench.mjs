// bench.mjs: `toolgate bench` on the Node side (runner/BENCH.md): the
// families' values built exactly as the reference builds them
// (benches/src/lib.rs and benches/src/calls.rs; the runner compares the
// core implementation's result text with the reference's, byte for byte),
// the measurement the runner's plan asks for (the same steps as
// runner/src/bench/sampling.rs), and the JSON baseline (JSON.stringify of
// the 4 KiB value).
//
// An adapter answers a `bench` request with
//   benchReply(request, { prepare: (input) => run | { run, text } | reason })
// where `input` is `{ kind: 'output', value }` (a tool returns `value`) or
// `{ kind: 'arguments', calls: [{ id, arguments }] }` (the calls carry the
// arguments; the tool returns "ok"). `prepare` registers what it needs
// once, outside the samples, and returns the async function to time (its
// first result, through `text` when given, is the result text echoed to
// the runner), or a string: why this implementation cannot run the family.

/** The families, as benches/src/calls.rs lists them: name → kind. */
export const FAMILIES = Object.freeze({
  wide_object: 'output',
  wide_array: 'output',
  sparse_array: 'output',
  deep_nest: 'output',
  cyclic: 'output',
  shared_paths: 'output',
  string_ascii: 'output',
  string_escapes: 'output',
  string_surrogates: 'output',
  bigint: 'output',
  long_keys: 'output',
  worst_mix: 'output',
  args_wide: 'arguments',
  args_deep: 'arguments',
  args_long_string: 'arguments',
  many_calls: 'arguments',
});

export const BASELINE = 'json_baseline';
const OUTPUT_ECHO = 16_384;
const MIN_SAMPLES = 5;
const MASK = (1n << 64n) - 1n;

/** A deterministic permutation of 0..n (Fisher-Yates over xorshift64*), as benches/src/lib.rs `shuffled`. */
export function shuffled(n, seed) {
  let state = BigInt(seed) | 1n;
  const next = () => {
    state ^= state >> 12n;
    state = (state ^ (state << 25n)) & MASK;
    state ^= state >> 27n;
    return (state * 0x2545f4914f6cdd1dn) & MASK;
  };
  const v = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i >= 1; i -= 1) {
    const j = Number(next() % BigInt(i + 1));
    [v[i], v[j]] = [v[j], v[i]];
  }
  return v;
}

/** `count` UTF-16 units of `pattern` (code units) repeated. */
function cycled(pattern, count) {
  const unit = String.fromCharCode(...pattern);
  return unit.repeat(Math.floor(count / pattern.length)) + unit.slice(0, count % pattern.length);
}

const ASCII = [];
for (let c = 0x20; c < 0x7f; c += 1) if (c !== 0x22 && c !== 0x5c) ASCII.push(c);

const pad4 = (i) => String(i).padStart(4, '0');

function wideObject(n) {
  const out = {};
  for (let i = 0; i < n; i += 1) out[`k${i}`] = i;
  return out;
}

function keyedObject(prefix, tail, count, seed) {
  const out = {};
  shuffled(count, seed).forEach((i, position) => {
    out[`${prefix}${pad4(i)}${tail}`] = position;
  });
  return out;
}

/** The output families' values (benches/src/lib.rs). */
const OUTPUTS = {
  wide_object: wideObject,
  wide_array: (n) => Array.from({ length: n }, (_, i) => i),
  sparse_array: (n) => {
    const out = new Array(n);
    out[0] = 1;
    out[Math.floor(n / 2)] = 2;
    out[n - 1] = 3;
    return out;
  },
  deep_nest: (n) => {
    let root = [];
    for (let i = 1; i < n; i += 1) root = [root];
    return root;
  },
  cyclic: (n) => {
    const count = Math.max(n, 1);
    const ids = Array.from({ length: count }, () => ({}));
    ids.forEach((me, i) => {
      me.a = me;
      me.b = ids[0];
      me.c = i === 0 ? ids[0] : ids[i - 1];
      me.d = ids[(i + 1) % count];
    });
    return ids[0];
  },
  shared_paths: (paths) => {
    // n paths: log2(n) levels
    const levels = Math.log2(paths);
    if (!Number.isInteger(levels)) throw new RangeError(`shared_paths: ${paths} paths is not a power of two`);
    let next = 'leaf';
    for (let i = 0; i < levels; i += 1) next = { a: next, b: next };
    return next;
  },
  string_ascii: (n) => cycled(ASCII, n),
  string_escapes: (n) => cycled(Array.from({ length: 0x20 }, (_, i) => i), n),
  string_surrogates: (n) => cycled([0xd83d, 0xde00, 0xdbff], n),
  bigint: (n) => 2n ** BigInt(n),
  long_keys: (n) => keyedObject('x'.repeat(n), '', 256, 0x5eed),
  worst_mix: (n) => {
    const big = 2n ** 4095n;
    return [big + 1n, -(big - 3n), big + 12345n, keyedObject('x'.repeat(8190), 'z'.repeat(n), 252, 0xbad)];
  },
};

/** The calls of an argument family (benches/src/calls.rs). */
const ARGUMENTS = {
  args_wide: (n) => [wideObject(n)],
  args_deep: (n) => {
    let args = {};
    for (let i = 1; i < n; i += 1) args = { a: args };
    return [args];
  },
  args_long_string: (n) => [{ text: cycled(ASCII, n) }],
  many_calls: (n) => Array.from({ length: n }, (_, i) => ({ i })),
};

/** What a family's tool returns or its calls carry, at `size`. */
export function buildInput(family, size) {
  if (Object.hasOwn(OUTPUTS, family)) return { kind: 'output', value: OUTPUTS[family](size) };
  if (Object.hasOwn(ARGUMENTS, family)) {
    const calls = ARGUMENTS[family](size).map((args, i) => ({ id: `call-${i + 1}`, arguments: args }));
    return { kind: 'arguments', calls };
  }
  return undefined;
}

/** The JSON baseline's value (benches/src/lib.rs `baseline_value`): about 4 KiB of JSON. */
export function baselineValue() {
  const results = Array.from({ length: 54 }, (_, i) => ({
    id: i,
    name: `tool-${i}`,
    ok: i % 3 !== 0,
    score: i * 0.37,
    tags: ['alpha', 'beta'],
  }));
  return { results };
}

const now = () => process.hrtime.bigint();
const elapsed = (since) => Number(now() - since);
/** The process's peak resident set, in bytes. */
const peakRss = () => process.resourceUsage().maxRSS * 1024;

/**
 * Times `call` (async) as `plan` says: the first call; warm-up calls until
 * `warmupMs` have passed since the start; then the samples, each of the
 * same number of calls (runner/src/bench/sampling.rs `measure`).
 */
export async function measure(plan, call) {
  const start = now();
  await call();
  const firstNanos = elapsed(start);
  if (firstNanos > plan.capMs * 1e6) return { firstNanos, samples: [] };
  let calls = 1;
  while (elapsed(start) < plan.warmupMs * 1e6) {
    await call();
    calls += 1;
  }
  const estimate = Math.max(1, Math.floor(elapsed(start) / calls));
  const measure = plan.measureMs * 1e6;
  const fit = Math.floor((measure * 2) / estimate);
  const count = Math.max(MIN_SAMPLES, Math.min(plan.samples, fit));
  const perSample = Math.max(1, Math.floor(measure / count / estimate));
  const samples = [];
  for (let s = 0; s < count; s += 1) {
    const t = now();
    for (let i = 0; i < perSample; i += 1) await call();
    samples.push({ iterations: perSample, nanos: elapsed(t) });
  }
  return { firstNanos, samples };
}

/** The answer to a `bench` request: `{measured}` or `{skipped}` (what it throws: `{error}`, by protocol.mjs). */
export async function benchReply(request, { prepare }) {
  const { family, size } = request;
  const built = now();
  if (family === BASELINE) {
    const value = baselineValue();
    const buildNanos = elapsed(built);
    const taken = await measure(request, async () => JSON.stringify(value));
    return { measured: { buildNanos, ...taken, outputLength: JSON.stringify(value).length } };
  }
  const input = buildInput(family, size);
  if (input === undefined) return { skipped: { reason: `no family ${JSON.stringify(family)} here` } };
  const prepared = await prepare(input);
  if (typeof prepared === 'string') return { skipped: { reason: prepared } };
  const { run, text = (result) => result } = typeof prepared === 'function' ? { run: prepared } : prepared;
  const buildNanos = elapsed(built);
  const rssBefore = peakRss();
  let firstResult;
  let firstRejection;
  let called = false;
  // a rejection (the implementation throws, the runtime's turn rejects) is
  // an outcome like a result: timed all the same, and reported
  const taken = await measure(request, async () => {
    try {
      const result = await run();
      if (!called) firstResult = result;
    } catch (error) {
      if (!called) firstRejection = error;
    }
    called = true;
  });
  const peakBytes = Math.max(0, peakRss() - rssBefore);
  const measured = { buildNanos, ...taken, peakBytes, memory: 'rss' };
  if (firstRejection !== undefined) {
    const why = firstRejection instanceof Error ? `${firstRejection.name}: ${firstRejection.message}` : String(firstRejection);
    measured.rejected = why.slice(0, 2000);
    return { measured };
  }
  // the first result as text, made once and outside the samples
  const first = text(firstResult);
  if (typeof first === 'string') {
    measured.outputLength = first.length;
    if (first.length <= OUTPUT_ECHO) measured.output = first;
  }
  return { measured };
}
