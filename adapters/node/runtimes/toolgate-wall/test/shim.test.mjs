// The executor on a few turns of each kind, and mutants.json kept exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { LIMITS, argumentsProblem, describeThrown, notApplicable, renderJson, runTurn, runtime } from '../shim.mjs';
import { recordingTool, rejectOnAbort, sleep, timeLimit } from '../../test-support.mjs';

const LIMIT = timeLimit(20_000);

// Unhandled rejections anywhere in this file fail the test that checks them.
const escaped = [];
process.on('unhandledRejection', (reason) => escaped.push(reason));

function turn(tools, calls, { signal = new AbortController().signal, limits } = {}) {
  return runTurn({ tools, calls, signal, limits });
}

const call = (id, name, args = { path: 'a.txt' }) => ({ id, name, arguments: args });

/** The UTF-8 bytes of the delivered part as JSON text. */
const bytes = (part) => Buffer.byteLength(JSON.stringify(part), 'utf8');

test('the module says what it is', () => {
  assert.equal(runtime.id, 'toolgate-wall');
  const own = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  assert.equal(runtime.package, own.name);
  assert.equal(runtime.version, own.version);
  const ajv = JSON.parse(readFileSync(new URL('../node_modules/ajv/package.json', import.meta.url), 'utf8'));
  assert.equal(ajv.version, own.dependencies.ajv);
  assert.match(runtime.path, new RegExp(`ajv ${ajv.version.replaceAll('.', '\\.')}`));
  assert.deepEqual(notApplicable, {});
});

test('a success is a tool_result part linked to its call, the output as JSON text', LIMIT, async () => {
  const read = recordingTool('read', (args) => ({ text: `read ${args.path}` }));
  const out = await turn([read.tool], [call('call_1', 'read')]);
  assert.deepEqual(out, {
    results: [
      {
        callId: 'call_1',
        isError: false,
        delivered: { type: 'tool_result', tool_use_id: 'call_1', content: '{"text":"read a.txt"}', is_error: false },
      },
    ],
    registrationError: undefined,
    notes: [],
  });
  assert.equal(read.seen.length, 1);
  assert.deepEqual(read.seen[0].args, { path: 'a.txt' });
  assert.equal(read.seen[0].context.callId, 'call_1');
  assert.ok(read.seen[0].context.signal instanceof AbortSignal);
  assert.equal(typeof read.seen[0].context.progress, 'function');
});

test('a string output is delivered as itself; undefined as "(no output)"', LIMIT, async () => {
  const text = recordingTool('text', () => '42');
  const nothing = recordingTool('nothing', () => undefined);
  const out = await turn([text.tool, nothing.tool], [call('a', 'text'), call('b', 'nothing')]);
  assert.deepEqual(out.results.map((r) => [r.isError, r.delivered.content]), [
    [false, '42'],
    [false, '(no output)'],
  ]);
});

test('the calls of a turn run at once, and each gets its own result in call order', LIMIT, async () => {
  const started = [];
  const slow = recordingTool('slow', (args) => {
    started.push(args.path);
    return new Promise((resolve) => setTimeout(() => resolve(args.path), 30));
  });
  const out = await turn([slow.tool], [call('c1', 'slow', { path: '1' }), call('c2', 'slow', { path: '2' })]);
  assert.deepEqual(started, ['1', '2']);
  assert.deepEqual(out.results.map((r) => [r.callId, r.delivered.content]), [
    ['c1', '1'],
    ['c2', '2'],
  ]);
});

test('an unknown tool gives an error result and nothing runs', LIMIT, async () => {
  const read = recordingTool('read', () => 'never');
  const out = await turn([read.tool], [call('call_1', 'READ'), call('call_2', 'read ')]);
  assert.deepEqual(out.results.map((r) => [r.callId, r.isError, r.delivered.content]), [
    ['call_1', true, 'unknown tool "READ"; the tools are: "read"'],
    ['call_2', true, 'unknown tool "read "; the tools are: "read"'],
  ]);
  assert.equal(read.seen.length, 0);
  const none = await turn([], [call('call_1', 'read')]);
  assert.equal(none.results[0].delivered.content, 'unknown tool "read"; the tools are: (none)');
});

test('arguments the schema refuses give an error result before the tool runs, uncoerced', LIMIT, async () => {
  const read = recordingTool('read', () => 'never');
  const add = recordingTool('add', () => 'never', {
    inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false },
  });
  const out = await turn(
    [read.tool, add.tool],
    [call('c1', 'read', { path: 42 }), call('c2', 'read', {}), call('c3', 'add', { a: '1' }), call('c4', 'add', { a: 1, b: 2 })],
  );
  assert.deepEqual(out.results.map((r) => [r.isError, r.delivered.content]), [
    [true, 'invalid arguments for "read": arguments/path must be string'],
    [true, 'invalid arguments for "read": the arguments must have required property \'path\''],
    [true, 'invalid arguments for "add": arguments/a must be number'],
    [true, 'invalid arguments for "add": the arguments must NOT have additional properties ("b")'],
  ]);
  assert.equal(read.seen.length + add.seen.length, 0);
});

test('the extra check refuses like the schema, after it, and a throwing check refuses too', LIMIT, async () => {
  const checked = [];
  const read = recordingTool('read', () => 'ran', {
    check: (args) => {
      checked.push(args.path);
      return args.path === '/etc/passwd' ? 'path is outside the workspace' : null;
    },
  });
  const odd = recordingTool('odd', () => 'never', {
    check: () => {
      throw new Error('check broke');
    },
  });
  const out = await turn(
    [read.tool, odd.tool],
    [call('c1', 'read', { path: '/etc/passwd' }), call('c2', 'read', { path: 1 }), call('c3', 'read'), call('c4', 'odd')],
  );
  assert.deepEqual(out.results.map((r) => [r.isError, r.delivered.content]), [
    [true, 'invalid arguments for "read": path is outside the workspace'],
    [true, 'invalid arguments for "read": arguments/path must be string'],
    [false, 'ran'],
    [true, 'invalid arguments for "odd": the tool\'s check failed: Error: check broke'],
  ]);
  assert.deepEqual(checked, ['/etc/passwd', 'a.txt']);
  assert.deepEqual(read.seen.map((s) => s.args.path), ['a.txt']);
  assert.equal(odd.seen.length, 0);
});

test('throws and rejections of any value give error results; siblings keep theirs', LIMIT, async () => {
  const values = [
    ['error', new Error('disk on fire'), 'tool error: Error: disk on fire'],
    ['typeError', new TypeError(''), 'tool error: TypeError (without a message)'],
    ['string', 'no', 'tool error: no'],
    ['emptyString', '', 'tool error: an empty string was thrown'],
    ['object', { code: 'E42' }, 'tool error: a non-error value was thrown: {"code":"E42"}'],
    ['number', 42, 'tool error: a non-error value was thrown: 42'],
    ['null', null, 'tool error: a non-error value was thrown: null'],
    ['undefined', undefined, 'tool error: undefined was thrown'],
    ['bigint', 12n, 'tool error: a non-error value was thrown: "12"'],
  ];
  const tools = [];
  const calls = [];
  for (const [name, value] of values) {
    tools.push(recordingTool(`throw_${name}`, () => {
      throw value;
    }).tool);
    tools.push(recordingTool(`reject_${name}`, () => Promise.reject(value)).tool);
    calls.push(call(`t_${name}`, `throw_${name}`), call(`r_${name}`, `reject_${name}`));
  }
  tools.push(recordingTool('ok', () => 'fine').tool);
  calls.push(call('ok', 'ok'));
  const out = await turn(tools, calls);
  const expected = values.flatMap(([name, , message]) => [
    [`t_${name}`, true, message],
    [`r_${name}`, true, message],
  ]);
  expected.push(['ok', false, 'fine']);
  assert.deepEqual(out.results.map((r) => [r.callId, r.isError, r.delivered.content]), expected);
  assert.equal(describeThrown({ get message() { throw new Error('x'); } }), 'a non-error value was thrown: {"message":"[unreadable: x]"}');
});

test('hostile outputs get a bounded success result', LIMIT, async () => {
  const cyclic = { name: 'loop' };
  cyclic.self = cyclic;
  let deep = { leaf: true };
  for (let i = 0; i < 100_000; i += 1) deep = { next: deep };
  const wide = {};
  for (let i = 0; i < 200_000; i += 1) wide[`k${i}`] = i;
  const getter = { ok: true };
  Object.defineProperty(getter, 'broken', { enumerable: true, get() { throw new Error('getter exploded'); } });
  const shared = { x: 1 };
  const outputs = {
    cyclic: [cyclic, '{"name":"loop","self":"[circular]"}'],
    shared: [{ a: shared, b: shared }, '{"a":{"x":1},"b":{"x":1}}'],
    bigint: [{ total: 12n }, '{"total":"12"}'],
    fn: [function toolOutputFunction() {}, '"[function toolOutputFunction]"'],
    inArray: [[undefined, () => {}, Symbol('s'), NaN], '[null,"[function (anonymous)]","[symbol s]",null]'],
    getter: [getter, '{"ok":true,"broken":"[unreadable: getter exploded]"}'],
    toJSON: [{ ok: true, toJSON() { throw new Error('toJSON exploded'); } }, '"[toJSON failed: toJSON exploded]"'],
    date: [{ when: new Date(0) }, '{"when":"1970-01-01T00:00:00.000Z"}'],
    deep: [deep, undefined],
    wide: [wide, undefined],
    long: ['x'.repeat(10_000_000), undefined],
    quotes: ['"'.repeat(100_000), undefined],
    astral: ['😀'.repeat(50_000), undefined],
  };
  const names = Object.keys(outputs);
  const out = await turn(
    names.map((name) => recordingTool(name, () => outputs[name][0]).tool),
    names.map((name) => call(name, name)),
  );
  for (const [i, name] of names.entries()) {
    const r = out.results[i];
    assert.equal(r.callId, name);
    assert.equal(r.isError, false, name);
    assert.ok(bytes(r.delivered) <= LIMITS.resultBytes, `${name}: ${bytes(r.delivered)} bytes`);
    if (outputs[name][1] !== undefined) assert.equal(r.delivered.content, outputs[name][1], name);
  }
  const content = (name) => out.results[names.indexOf(name)].delivered.content;
  assert.match(content('deep'), /^(\{"next":){64}"\[nested too deep\]"(\}){64}$/);
  for (const name of ['wide', 'long', 'quotes', 'astral']) {
    assert.match(content(name), /\n\[toolgate-wall: cut to fit \d+ bytes\]$/, name);
    assert.ok(bytes(out.results[names.indexOf(name)].delivered) > LIMITS.resultBytes - 64, `${name} uses its budget`);
  }
  assert.ok(!/[\ud800-\udbff]\n\[toolgate/.test(content('astral')), 'no lone surrogate at the cut');
});

test('error messages are bounded like outputs', LIMIT, async () => {
  const loud = recordingTool('loud', () => {
    throw new Error('!'.repeat(10_000_000));
  });
  const out = await turn([loud.tool], [call('c1', 'loud', { path: 'x'.repeat(100_000) })]);
  assert.equal(out.results[0].isError, true);
  assert.ok(bytes(out.results[0].delivered) <= LIMITS.resultBytes);
  assert.match(out.results[0].delivered.content, /^tool error: Error: !+\n\[toolgate-wall: cut to fit \d+ bytes\]$/);
});

test('renderJson matches JSON.stringify on plain values', () => {
  const values = [null, true, 0, -1.5, 1e21, 'é"\\\n', [], {}, [1, [2, [3]]], { a: { b: [null, 'x'] }, c: 1 }, { u: undefined, n: NaN }];
  for (const v of values) {
    assert.deepEqual(renderJson(v, { depth: 64, nodes: 1000, chars: 10_000 }), { text: JSON.stringify(v), cut: false });
  }
  assert.deepEqual(renderJson(undefined, { depth: 64, nodes: 1000, chars: 10_000 }), { text: undefined, cut: false });
});

test('huge arguments are refused before validation, fast', LIMIT, async () => {
  let deep = { leaf: true };
  for (let i = 0; i < 100_000; i += 1) deep = { next: deep };
  const wide = {};
  for (let i = 0; i < 200_000; i += 1) wide[`k${i}`] = i;
  const take = recordingTool('take', () => 'taken', { inputSchema: { type: 'object' } });
  const started = performance.now();
  const out = await turn(
    [take.tool],
    [call('deep', 'take', deep), call('wide', 'take', wide), call('long', 'take', { blob: 'x'.repeat(10_000_000) }), call('items', 'take', { list: new Array(200_000).fill(0) })],
  );
  assert.ok(performance.now() - started < 1_000);
  assert.deepEqual(out.results.map((r) => [r.isError, r.delivered.content]), [
    [true, 'invalid arguments for "take": the arguments are nested deeper than 64 levels'],
    [true, 'invalid arguments for "take": the arguments hold more than 100000 values'],
    [true, 'invalid arguments for "take": the arguments hold more than 1048576 characters'],
    [true, 'invalid arguments for "take": the arguments hold more than 100000 values'],
  ]);
  assert.equal(take.seen.length, 0);
  assert.equal(argumentsProblem({ a: [1, { b: 'c' }] }), null);
  const cyclic = {};
  cyclic.self = cyclic;
  assert.equal(argumentsProblem(cyclic), 'the arguments are nested deeper than 64 levels');
});

test('a validator that throws (a recursive schema past the stack) refuses instead', LIMIT, async () => {
  const node = { $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } } } }, $ref: '#/$defs/node' };
  let deep = { leaf: true };
  for (let i = 0; i < 100_000; i += 1) deep = { next: deep };
  const walk = recordingTool('walk', () => 'never', { inputSchema: node });
  const out = await turn([walk.tool], [call('c1', 'walk', deep)], { limits: { argumentDepth: Infinity, argumentNodes: Infinity } });
  assert.equal(out.results[0].isError, true);
  assert.match(out.results[0].delivered.content, /^invalid arguments for "walk": the arguments could not be validated: Maximum call stack size exceeded/);
  assert.equal(walk.seen.length, 0);
});

test('duplicate names are refused at registration; nothing runs', LIMIT, async () => {
  const a = recordingTool('read', () => 'first');
  const b = recordingTool('read', () => 'second');
  const out = await turn([a.tool, b.tool], [call('c1', 'read')]);
  assert.deepEqual(out.results, []);
  assert.deepEqual(out.registrationError, {
    name: 'DuplicateToolNameError',
    message: 'two tools are named "read" (tools 0 and 1): the model could not tell which one it calls',
  });
  assert.equal(a.seen.length + b.seen.length, 0);
  const bad = await turn([recordingTool('bad', () => 1, { inputSchema: { type: 12 } }).tool], []);
  assert.equal(bad.registrationError.name, 'InvalidToolSchemaError');
});

test('a tool that never settles is timed out, and its signal aborts', LIMIT, async () => {
  let reason;
  const stuck = recordingTool('stuck', (args, { signal }) => {
    signal.addEventListener('abort', () => (reason = signal.reason));
    return new Promise(() => {});
  });
  const ok = recordingTool('ok', () => 'fine');
  const started = performance.now();
  const out = await turn([stuck.tool, ok.tool], [call('c1', 'stuck'), call('c2', 'ok')], { limits: { deadlineMs: 50 } });
  assert.ok(performance.now() - started < 1_000);
  assert.deepEqual(out.results.map((r) => [r.isError, r.delivered.content]), [
    [true, 'timed out: the tool did not settle within 50 ms'],
    [false, 'fine'],
  ]);
  assert.equal(reason?.name, 'TimeoutError');
  assert.equal(LIMITS.deadlineMs, 1_000);
});

test('aborted before the turn: no tool starts, every call is answered', LIMIT, async () => {
  const controller = new AbortController();
  controller.abort();
  const read = recordingTool('read', () => 'never');
  const out = await turn([read.tool], [call('c1', 'read'), call('c2', 'ghost'), call('c3', 'read', {})], { signal: controller.signal });
  assert.deepEqual(out.results.map((r) => [r.callId, r.isError, r.delivered.content]), [
    ['c1', true, 'aborted: the turn was aborted before the tool started'],
    ['c2', true, 'unknown tool "ghost"; the tools are: "read"'],
    ['c3', true, 'invalid arguments for "read": the arguments must have required property \'path\''],
  ]);
  assert.equal(read.seen.length, 0);
});

test('an abort ends the turn at once, keeps finished results, and never waits for a deaf tool', LIMIT, async () => {
  const controller = new AbortController();
  const ok = recordingTool('ok', () => 'done');
  const deaf = recordingTool('deaf', () => new Promise(() => {}));
  const listening = recordingTool('listening', (args, { signal }) => rejectOnAbort(signal));
  const pending = turn([ok.tool, deaf.tool, listening.tool], [call('c1', 'ok'), call('c2', 'deaf'), call('c3', 'listening')], {
    signal: controller.signal,
    limits: { deadlineMs: 60_000 },
  });
  await sleep(20);
  const abortedAt = performance.now();
  controller.abort();
  const out = await pending;
  assert.ok(performance.now() - abortedAt < 100);
  assert.deepEqual(out.results.map((r) => [r.callId, r.isError, r.delivered.content]), [
    ['c1', false, 'done'],
    ['c2', true, 'aborted: the turn was aborted while the tool ran'],
    ['c3', true, 'aborted: the turn was aborted while the tool ran'],
  ]);
});

test('progress reaches the turn notes while the call runs', LIMIT, async () => {
  const long = recordingTool('long', (args, { progress }) => {
    progress({ percent: 10 });
    progress(5n);
    return 'done';
  });
  const out = await turn([long.tool], [call('c1', 'long')]);
  assert.deepEqual(out.notes, ['progress for c1: {"percent":10}', 'progress for c1: "5"']);
});

test('no unhandled rejection is left behind by bodies that lose the race', LIMIT, async () => {
  const before = escaped.length;
  const controller = new AbortController();
  const late = recordingTool('late', (args, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => setTimeout(() => reject(new Error('late')), 5))));
  const slow = recordingTool('slow', () => new Promise((_, reject) => setTimeout(() => reject(new Error('after the deadline')), 60)));
  const pending = turn([late.tool, slow.tool], [call('c1', 'late'), call('c2', 'slow')], { signal: controller.signal, limits: { deadlineMs: 20 } });
  setTimeout(() => controller.abort(), 5);
  const out = await pending;
  assert.deepEqual(out.results.map((r) => r.isError), [true, true]);
  await sleep(120);
  assert.equal(escaped.length, before);
});

test('mutants.json: each find occurs exactly once in shim.mjs and names known requirements', () => {
  const shim = readFileSync(new URL('../shim.mjs', import.meta.url), 'utf8');
  const mutants = JSON.parse(readFileSync(new URL('../mutants.json', import.meta.url), 'utf8'));
  const known = new Set(['LINK-01', 'RUN-01', 'UNK-01', 'VAL-01', 'ERR-01', 'TURN-01', 'OUT-01', 'CAN-01', 'PROC-01', 'FLAG-01', 'SIZE-01', 'ARGS-01', 'CAN-02', 'CAN-03', 'DUP-01', 'TIME-01'].map((id) => `BOUNDARY-${id}`));
  const names = new Set();
  const covered = new Set();
  for (const m of mutants) {
    assert.deepEqual(Object.keys(m).sort(), ['description', 'find', 'name', 'replace', 'requirements']);
    assert.ok(!names.has(m.name), m.name);
    names.add(m.name);
    assert.equal(shim.split(m.find).length - 1, 1, `${m.name}: find occurs once`);
    assert.notEqual(m.find, m.replace);
    assert.ok(m.requirements.length > 0);
    for (const id of m.requirements) {
      assert.ok(known.has(id), `${m.name}: ${id}`);
      covered.add(id);
    }
  }
  assert.deepEqual([...known].filter((id) => !covered.has(id)), []);
});
