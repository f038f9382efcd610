// The shim on a few turns: a real `node server.mjs` child over stdio, its
// tools built there by executorFor (adapters/node/boundary/behaviours.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runtime, notApplicable, runTurn, REQUEST_TIMEOUT_MS } from '../shim.mjs';
import { PATH_SCHEMA, sleep, timeLimit } from '../../test-support.mjs';

const LIMIT = timeLimit(20_000);

/** Tools as the adapter hands them for out-of-process runtimes; events are recorded. */
function toolsOf(specs) {
  const events = [];
  const tools = specs.map(([name, behaviour, check], index) => ({
    name,
    description: `tool ${name}`,
    inputSchema: PATH_SCHEMA,
    check,
    index,
    behaviour,
    onEvent: (event) => events.push(event),
    execute: () => {
      throw new Error('an out-of-process tool must not run in the parent');
    },
  }));
  return { tools, events };
}

const until = async (predicate, ms = 5000) => {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
};

test('the module says what it drives', LIMIT, () => {
  assert.equal(runtime.id, 'mcp-sdk-stdio');
  assert.equal(runtime.version, '1.32.2');
  assert.deepEqual(notApplicable, {});
  assert.equal(REQUEST_TIMEOUT_MS, 30_000);
});

test('a successful call is delivered as the CallToolResult, linked to its call; the events came first', LIMIT, async () => {
  const { tools, events } = toolsOf([['echo', { returns: 'hi' }]]);
  const out = await runTurn({
    tools,
    calls: [{ id: 'call_1', name: 'echo', arguments: { path: 'a.txt' } }],
    signal: new AbortController().signal,
  });
  assert.deepEqual(out.results, [{ callId: 'call_1', isError: false, delivered: { content: [{ type: 'text', text: 'hi' }] } }]);
  assert.equal(out.registrationError, undefined);
  // The tool ran in the child; its start and settle were relayed before the answer.
  assert.deepEqual(events, [
    { event: 'start', index: 0 },
    { event: 'settle', index: 0, outcome: 'fulfilled' },
  ]);
});

test('an unknown tool gives the SDK error result, and no tool runs', LIMIT, async () => {
  const { tools, events } = toolsOf([['echo', { returns: 'hi' }]]);
  const out = await runTurn({
    tools,
    calls: [{ id: 'call_1', name: 'nope', arguments: { path: 'a' } }],
    signal: new AbortController().signal,
  });
  assert.deepEqual(out.results, [
    {
      callId: 'call_1',
      isError: true,
      delivered: { content: [{ type: 'text', text: 'MCP error -32602: Tool nope not found' }], isError: true },
    },
  ]);
  assert.deepEqual(events, []);
});

test('two calls in one turn give two results; the check runs in the parent for the child', LIMIT, async () => {
  const check = (args) => (args.path === 'bad' ? 'path must not be bad' : null);
  const { tools, events } = toolsOf([['x', { resolves: { ok: true } }, check]]);
  const out = await runTurn({
    tools,
    calls: [
      { id: 'call_1', name: 'x', arguments: { path: 'bad' } },
      { id: 'call_2', name: 'x', arguments: { path: 'good' } },
    ],
    signal: new AbortController().signal,
  });
  assert.equal(out.results.length, 2);
  assert.equal(out.results[0].callId, 'call_1');
  assert.equal(out.results[0].isError, true);
  assert.match(out.results[0].delivered.content[0].text, /Input validation error: .*path must not be bad/);
  assert.deepEqual(out.results[1], { callId: 'call_2', isError: false, delivered: { content: [{ type: 'text', text: '{"ok":true}' }] } });
  assert.equal(events.filter((e) => e.event === 'start').length, 1);
});

test('duplicate names: the SDK in the child refuses the second registration', LIMIT, async () => {
  const { tools } = toolsOf([
    ['x', { returns: 'one' }],
    ['x', { returns: 'two' }],
  ]);
  const out = await runTurn({ tools, calls: [{ id: 'call_1', name: 'x', arguments: { path: 'a' } }], signal: new AbortController().signal });
  assert.deepEqual(out.results, []);
  assert.deepEqual(out.registrationError, { name: 'Error', message: 'Tool x is already registered' });
});

test('the abort signal reaches the runtime: the client rejects, the server aborts the handler in the child', LIMIT, async () => {
  const controller = new AbortController();
  const { tools, events } = toolsOf([['wait', { pending: { onAbort: 'reject' } }]]);
  tools[0].onEvent = (event) => {
    events.push(event);
    if (event.event === 'start') setTimeout(() => controller.abort(), 10);
  };
  await assert.rejects(
    runTurn({ tools, calls: [{ id: 'call_1', name: 'wait', arguments: { path: 'a' } }], signal: controller.signal }),
    (error) => error.name === 'McpError' && error.code === -32001 && /AbortError/.test(error.message),
  );
  // notifications/cancelled crossed the pipe; the child's handler signal
  // aborted and the tool settled there (a late event, still relayed).
  await until(() => events.some((e) => e.event === 'settle'));
  assert.deepEqual(events.at(-1), { event: 'settle', index: 0, outcome: 'rejected' });
});
