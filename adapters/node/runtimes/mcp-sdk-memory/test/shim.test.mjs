// The shim on a few turns, through the SDK's own server and client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runtime, notApplicable, runTurn } from '../shim.mjs';
import { overlapProbe, recordingTool, timeLimit } from '../../test-support.mjs';

const LIMIT = timeLimit();

test('the module says what it drives', LIMIT, () => {
  assert.equal(runtime.id, 'mcp-sdk-memory');
  assert.equal(runtime.version, '1.32.2');
  assert.deepEqual(notApplicable, {});
});

test('a successful call is delivered as the CallToolResult, linked to its call', LIMIT, async () => {
  const echo = recordingTool('echo', (args) => `read ${args.path}`);
  const out = await runTurn({
    tools: [echo.tool],
    calls: [{ id: 'call_1', name: 'echo', arguments: { path: 'a.txt' } }],
    signal: new AbortController().signal,
  });
  assert.deepEqual(out.results, [
    { callId: 'call_1', isError: false, delivered: { content: [{ type: 'text', text: 'read a.txt' }] } },
  ]);
  assert.equal(out.registrationError, undefined);
  // The tool ran inside the SDK's handler: it got the server's per-request
  // signal (RequestHandlerExtra.signal), and no call id.
  assert.equal(echo.seen.length, 1);
  assert.deepEqual(echo.seen[0].args, { path: 'a.txt' });
  assert.ok(echo.seen[0].context.signal instanceof AbortSignal);
  assert.equal(echo.seen[0].context.callId, undefined);
});

test('an unknown tool gives the SDK error result, and no tool runs', LIMIT, async () => {
  const echo = recordingTool('echo', () => 'never');
  const out = await runTurn({
    tools: [echo.tool],
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
  assert.equal(echo.seen.length, 0);
});

test('schema-invalid arguments are refused by the SDK before the tool runs', LIMIT, async () => {
  const echo = recordingTool('echo', () => 'never');
  const out = await runTurn({
    tools: [echo.tool],
    calls: [{ id: 'call_1', name: 'echo', arguments: { path: 1 } }],
    signal: new AbortController().signal,
  });
  assert.equal(out.results.length, 1);
  assert.equal(out.results[0].isError, true);
  assert.match(out.results[0].delivered.content[0].text, /^MCP error -32602: Input validation error: Invalid arguments for tool echo/);
  assert.equal(echo.seen.length, 0);
});

test('the check runs as the schema refinement', LIMIT, async () => {
  const echo = recordingTool('echo', () => 'ran');
  echo.tool.check = (args) => (args.path === 'bad' ? 'path must not be bad' : null);
  const out = await runTurn({
    tools: [echo.tool],
    calls: [{ id: 'call_1', name: 'echo', arguments: { path: 'bad' } }],
    signal: new AbortController().signal,
  });
  assert.equal(out.results[0].isError, true);
  assert.match(out.results[0].delivered.content[0].text, /path must not be bad/);
  assert.equal(echo.seen.length, 0);
});

test('two calls in one turn give two results, in the order of the calls', LIMIT, async () => {
  const probe = overlapProbe();
  const slow = recordingTool('slow', probe.body);
  const out = await runTurn({
    tools: [slow.tool],
    calls: [
      { id: 'call_1', name: 'slow', arguments: { path: 'first' } },
      { id: 'call_2', name: 'slow', arguments: { path: 'second' } },
    ],
    signal: new AbortController().signal,
  });
  assert.deepEqual(
    out.results.map((r) => [r.callId, r.isError, r.delivered.content[0].text]),
    [
      ['call_1', false, 'first'],
      ['call_2', false, 'second'],
    ],
  );
  assert.ok(probe.overlapped, 'the two callTool requests were in flight together');
});

test('duplicate names: the SDK refuses the second registration', LIMIT, async () => {
  const a = recordingTool('x', () => 'one');
  const b = recordingTool('x', () => 'two');
  const out = await runTurn({
    tools: [a.tool, b.tool],
    calls: [{ id: 'call_1', name: 'x', arguments: { path: 'a' } }],
    signal: new AbortController().signal,
  });
  assert.deepEqual(out, { results: [], registrationError: { name: 'Error', message: 'Tool x is already registered' }, notes: [] });
});

test('the abort signal reaches the runtime: the server aborts the handler, the client rejects', LIMIT, async () => {
  const controller = new AbortController();
  let toolSignalAborted;
  const pending = recordingTool('wait', (args, { signal }) => {
    toolSignalAborted = new Promise((resolve) => signal.addEventListener('abort', () => resolve(true), { once: true }));
    setTimeout(() => controller.abort(), 10);
    return new Promise(() => {}); // ignores the signal
  });
  await assert.rejects(
    runTurn({ tools: [pending.tool], calls: [{ id: 'call_1', name: 'wait', arguments: { path: 'a' } }], signal: controller.signal }),
    (error) => error.name === 'McpError' && error.code === -32001 && /AbortError/.test(error.message),
  );
  // notifications/cancelled went through the transport to the server, which
  // aborted the handler's signal.
  assert.equal(await toolSignalAborted, true);
});

test('a signal aborted before the turn: callTool rejects with its reason, no tool runs', LIMIT, async () => {
  const echo = recordingTool('echo', () => 'never');
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    runTurn({ tools: [echo.tool], calls: [{ id: 'call_1', name: 'echo', arguments: { path: 'a' } }], signal: controller.signal }),
    { name: 'AbortError' },
  );
  assert.equal(echo.seen.length, 0);
});
