// The boundary adapter's own pieces, without a runtime: the arguments text
// the shims share, the total encoding of delivered values, and the tools
// built from behaviours. Run: node --test adapters/node/boundary/test/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { argumentsText } from '../arguments-text.mjs';
import { encodeDelivered, utf8Bytes, KEPT_STRING } from '../encode-delivered.mjs';
import { executorFor, materialize } from '../behaviours.mjs';

test('argumentsText equals JSON.stringify and survives a 10^5-deep value', () => {
  const value = { a: [1, 'two', null, { b: true }], c: { d: 1.5e-7 }, e: undefined };
  assert.equal(argumentsText(value), JSON.stringify(value));
  const root = materialize({ $: 'deep', depth: 100_000 });
  const text = argumentsText(root);
  assert.equal(text.length, 100_000 * '{"next":'.length + '{"leaf":true}'.length + 100_000);
  assert.ok(text.startsWith('{"next":{"next":'));
});

test('delivered values are encoded totally: cycles, BigInts, undefined, functions, long strings', () => {
  const loop = materialize({ $: 'cyclic' });
  assert.deepEqual(encodeDelivered(loop), { name: 'loop', self: { $seen: true } });
  assert.deepEqual(encodeDelivered({ n: 12n, u: undefined, f() {} }), { n: { $bigint: '12' }, u: { $undefined: true }, f: { $function: 'f' } });
  const long = encodeDelivered('x'.repeat(KEPT_STRING + 5));
  assert.equal(long.length, KEPT_STRING + 5);
  assert.equal(long.$string.length, KEPT_STRING);
  const deep = encodeDelivered(materialize({ $: 'deep', depth: 100_000 }));
  assert.ok(JSON.stringify(deep).includes('"$cut":"depth"'));
  assert.deepEqual(encodeDelivered(materialize({ $: 'throwingGetter', message: 'no' })), { ok: true, broken: { toolgateThrew: 'no' } });
});

test('utf8Bytes counts the whole value as JSON text', () => {
  assert.equal(utf8Bytes('héllo'), 6);
  assert.equal(utf8Bytes({ a: 'xy' }), JSON.stringify({ a: 'xy' }).length);
  assert.equal(utf8Bytes([1, 2, 3]), JSON.stringify([1, 2, 3]).length);
  assert.equal(utf8Bytes(materialize({ $: 'longString', length: 10_000_000 })), 10_000_000);
});

test('executors behave as described and report their starts and settlements', async () => {
  const events = [];
  const onEvent = (e) => events.push(e);
  assert.deepEqual(executorFor({ returns: { a: 1 } }, { index: 0, onEvent })({}, { callId: 'c1' }), { a: 1 });
  await assert.rejects(executorFor({ rejects: { error: 'late' } }, { index: 1, onEvent })({}, { callId: 'c2' }), /late/);
  assert.throws(() => executorFor({ throws: { string: 'now' } }, { index: 2, onEvent })({}, {}), (e) => e === 'now');
  const controller = new AbortController();
  const pending = executorFor({ pending: { onAbort: 'reject' } }, { index: 3, onEvent })({}, { signal: controller.signal, callId: 'c4' });
  controller.abort();
  await assert.rejects(pending, { name: 'AbortError' });
  assert.deepEqual(events.map((e) => `${e.event}:${e.index}:${e.outcome ?? ''}`), [
    'start:0:', 'settle:0:fulfilled', 'start:1:', 'settle:1:rejected', 'start:2:', 'settle:2:rejected', 'start:3:', 'settle:3:rejected',
  ]);
  assert.equal(Object.keys(materialize({ $: 'wide', keys: 1000 })).length, 1000);
  assert.deepEqual(materialize({ $: 'bytes', length: 2 }), new Uint8Array([0, 0]));
  // 255s: bytes that are not UTF-8, which a strict decoder refuses
  const high = materialize({ $: 'bytes', length: 2, fill: 255 });
  assert.deepEqual(high, new Uint8Array([255, 255]));
  assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(high), TypeError);
});

test('a __proto__ key is an own property, built and encoded alike (as JSON.parse keeps it)', () => {
  const built = materialize(JSON.parse('{"__proto__":"ok","a":[{"__proto__":1}]}'));
  assert.deepEqual(Object.keys(built), ['__proto__', 'a']);
  assert.equal(Object.getPrototypeOf(built), Object.prototype);
  assert.equal(JSON.stringify(encodeDelivered(built)), '{"__proto__":"ok","a":[{"__proto__":1}]}');
});

// A runtime that runs its calls one after another and rejects the whole
// turn on the first body that throws (what the attribution must read).
const rejectsOnAThrow = {
  async runTurn({ tools, calls, signal }) {
    const results = [];
    for (const call of calls) {
      const tool = tools.find((t) => t.name === call.name);
      const value = await tool.execute(call.arguments, { signal, callId: call.id });
      results.push({ callId: call.id, isError: false, delivered: value });
    }
    return { results };
  },
};

const schema = { type: 'object' };

test('a start records how its body settled before the turn ended, and a rejection whether it followed the abort', async () => {
  const { observeCase } = await import('../observe.mjs');
  const scenario = {
    tools: [
      { name: 'ok', inputSchema: schema, behaviour: { returns: 1 } },
      { name: 'boom', inputSchema: schema, behaviour: { throws: { error: 'disk on fire' } } },
      { name: 'never', inputSchema: schema, behaviour: { returns: 2 } },
    ],
    turn: [
      { id: 'c1', name: 'ok', arguments: {} },
      { id: 'c2', name: 'boom', arguments: {} },
      { id: 'c3', name: 'never', arguments: {} },
    ],
  };
  const o = await observeCase(rejectsOnAThrow, scenario, { settleMs: 2000 });
  assert.deepEqual(o.ran, [
    { tool: 0, callId: 'c1', settled: 'fulfilled' },
    { tool: 1, callId: 'c2', settled: 'rejected' },
  ]);
  assert.deepEqual(o.turn, { rejected: { name: 'Error', message: 'disk on fire', afterAbort: false, carriesAbort: false } });

  // a body still running when the turn rejects is `pending`
  const hangs = { runTurn: ({ tools, calls, signal }) => {
    tools[0].execute(calls[0].arguments, { signal, callId: calls[0].id });
    return Promise.reject(new TypeError('gave up'));
  } };
  const stuck = await observeCase(hangs, {
    tools: [{ name: 'slow', inputSchema: schema, behaviour: { pending: { onAbort: 'ignore' } } }],
    turn: [{ id: 'c1', name: 'slow', arguments: {} }],
  }, { settleMs: 2000 });
  assert.deepEqual(stuck.ran, [{ tool: 0, callId: 'c1', settled: 'pending' }]);
});

test("the turn's waits for a CPU come from the scheduler's statistics and are part of what is measured", async (t) => {
  const { cpuWaitMs, schedstatWaitMs, observeCase, windowOwed } = await import('../observe.mjs');
  // the window is owed the waits since the turn started, up to one more
  // window, less what it was given already
  assert.equal(windowOwed(100, 100.5, 2000, 0), 0);
  assert.equal(windowOwed(100, 400, 2000, 0), 300);
  assert.equal(windowOwed(100, 400, 2000, 300), 0);
  assert.equal(windowOwed(100, 900, 2000, 300), 500);
  assert.equal(windowOwed(0, 5000, 2000, 0), 2000);
  assert.equal(windowOwed(0, 5000, 2000, 2000), 0);
  assert.equal(windowOwed(undefined, 5000, 2000, 0), 0);
  // ns on a CPU, ns waiting for one, timeslices: the second is the wait
  assert.equal(schedstatWaitMs('1373559906 760429235 201\n'), 760.429235);
  assert.equal(schedstatWaitMs('1373559906 760429235'), undefined);
  assert.equal(schedstatWaitMs('1 -2 3'), undefined);
  assert.equal(schedstatWaitMs(''), undefined);
  if (cpuWaitMs() === undefined) {
    t.skip('no /proc/thread-self/schedstat here: the wall time alone is measured');
    return;
  }
  const o = await observeCase(rejectsOnAThrow, {
    tools: [{ name: 'ok', inputSchema: schema, behaviour: { returns: 1 } }],
    turn: [{ id: 'c1', name: 'ok', arguments: {} }],
    abort: { afterSettled: 'c1' },
  }, { settleMs: 2000 });
  const m = o.measured;
  assert.equal(typeof m.cpuWaitMs, 'number');
  assert.ok(m.cpuWaitMs >= 0 && m.cpuWaitMs <= m.wallMs + 0.01, JSON.stringify(m));
  assert.equal(typeof m.abortToEndCpuWaitMs, 'number', JSON.stringify(m));
  assert.ok(m.abortToEndCpuWaitMs <= m.cpuWaitMs, JSON.stringify(m));
});

test('carriesAbort: the signal reason, an AbortError, or either in the cause chain', async () => {
  const { carriesAbort } = await import('../observe.mjs');
  const c = new AbortController();
  assert.equal(carriesAbort(new Error('x'), c.signal), false);
  c.abort();
  assert.equal(carriesAbort(c.signal.reason, c.signal), true);
  assert.equal(carriesAbort(new Error('wrapped', { cause: c.signal.reason }), c.signal), true);
  const named = new Error('stopped');
  named.name = 'AbortError';
  assert.equal(carriesAbort(new Error('outer', { cause: named }), new AbortController().signal), true);
  assert.equal(carriesAbort(new Error('disk on fire'), c.signal), false);
  const loop = new Error('loop');
  loop.cause = loop;
  assert.equal(carriesAbort(loop, c.signal), false);
});

test('a turn that rejects with undefined is a rejection, not a completion', async () => {
  const { observeCase } = await import('../observe.mjs');
  const o = await observeCase({ runTurn: () => Promise.reject(undefined) }, {
    tools: [], turn: [{ id: 'c1', name: 'ghost', arguments: {} }],
  }, { settleMs: 2000 });
  assert.deepEqual(o.turn, { rejected: { name: 'undefined', message: 'undefined', afterAbort: false, carriesAbort: false } });
});

test('--install: a bare import of a shim resolves from the install folder, nothing else moves', async () => {
  const hooks = await import('../install-hooks.mjs');
  await hooks.initialize({ shims: 'file:///repo/adapters/node/runtimes/', install: 'file:///tmp/old-version/' });
  const seen = [];
  const next = (specifier, context) => {
    seen.push([specifier, context.parentURL]);
    return { url: 'file:///resolved' };
  };
  const shim = 'file:///repo/adapters/node/runtimes/ai-7/shim.mjs';
  await hooks.resolve('ai', { parentURL: shim }, next);
  await hooks.resolve('@openai/agents-core', { parentURL: 'file:///repo/adapters/node/runtimes/pi-shim.mjs' }, next);
  await hooks.resolve('../../boundary/arguments-text.mjs', { parentURL: shim }, next);
  await hooks.resolve('node:fs', { parentURL: shim }, next);
  await hooks.resolve('zod', { parentURL: 'file:///tmp/old-version/node_modules/ai/dist/index.mjs' }, next);
  await hooks.resolve('ai', { parentURL: 'file:///repo/adapters/node/boundary/observe.mjs' }, next);
  assert.deepEqual(seen, [
    ['ai', 'file:///tmp/old-version/toolgate-install.mjs'],
    ['@openai/agents-core', 'file:///tmp/old-version/toolgate-install.mjs'],
    ['../../boundary/arguments-text.mjs', shim],
    ['node:fs', shim],
    ['zod', 'file:///tmp/old-version/node_modules/ai/dist/index.mjs'],
    ['ai', 'file:///repo/adapters/node/boundary/observe.mjs'],
  ]);
});
