// The shim on a few turns, through ToolNode and @langchain/core tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runtime, notApplicable, runTurn } from '../shim.mjs';
import { overlapProbe, recordingTool, timeLimit } from '../../test-support.mjs';

const LIMIT = timeLimit();

test('the module says what it drives', LIMIT, () => {
  assert.equal(runtime.id, 'langgraph-toolnode');
  assert.equal(runtime.version, '1.7.3');
  assert.deepEqual(runtime.core, { package: '@langchain/core', version: '1.4.0' });
  assert.deepEqual(Object.keys(notApplicable), ['check']);
});

test('a successful call is delivered as the ToolMessage, linked to its call', LIMIT, async () => {
  const echo = recordingTool('echo', (args) => `read ${args.path}`);
  const out = await runTurn({
    tools: [echo.tool],
    calls: [{ id: 'call_1', name: 'echo', arguments: { path: 'a.txt' } }],
    signal: new AbortController().signal,
  });
  assert.deepEqual(out.results, [
    { callId: 'call_1', isError: false, delivered: { content: 'read a.txt', tool_call_id: 'call_1', status: 'success' } },
  ]);
  // The runtime gave the tool its call id and its own signal.
  assert.equal(echo.seen.length, 1);
  assert.equal(echo.seen[0].context.callId, 'call_1');
  assert.ok(echo.seen[0].context.signal instanceof AbortSignal);
});

test('a non-string output is JSON.stringify-ed by @langchain/core', LIMIT, async () => {
  const t = recordingTool('obj', () => ({ a: 1 }));
  const out = await runTurn({ tools: [t.tool], calls: [{ id: 'c', name: 'obj', arguments: { path: 'a' } }], signal: new AbortController().signal });
  assert.equal(out.results[0].delivered.content, '{"a":1}');
});

test("an unknown tool gives ToolNode's error message, and no tool runs", LIMIT, async () => {
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
      delivered: { content: 'Error: Tool "nope" not found.\n Please fix your mistakes.', tool_call_id: 'call_1', status: 'error' },
    },
  ]);
  assert.equal(echo.seen.length, 0);
});

test('schema-invalid arguments are refused by the JSON Schema validation before the tool runs', LIMIT, async () => {
  const echo = recordingTool('echo', () => 'never');
  const out = await runTurn({
    tools: [echo.tool],
    calls: [{ id: 'call_1', name: 'echo', arguments: { path: 1 } }],
    signal: new AbortController().signal,
  });
  assert.deepEqual(out.results[0].delivered, {
    content: 'Error: Received tool input did not match expected schema\n Please fix your mistakes.',
    tool_call_id: 'call_1',
    status: 'error',
  });
  assert.equal(echo.seen.length, 0);
});

test('two calls in one turn give two results, run together', LIMIT, async () => {
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
    out.results.map((r) => [r.callId, r.isError, r.delivered.content]),
    [
      ['call_1', false, 'first'],
      ['call_2', false, 'second'],
    ],
  );
  assert.ok(probe.overlapped);
});

test('duplicate names are not refused: the first tool of the name runs', LIMIT, async () => {
  const a = recordingTool('x', () => 'one');
  const b = recordingTool('x', () => 'two');
  const out = await runTurn({ tools: [a.tool, b.tool], calls: [{ id: 'c', name: 'x', arguments: { path: 'a' } }], signal: new AbortController().signal });
  assert.equal(out.registrationError, undefined);
  assert.equal(out.results[0].delivered.content, 'one');
  assert.equal(b.seen.length, 0);
});

test('the abort signal reaches the runtime: the pending call becomes an error ToolMessage', LIMIT, async () => {
  const controller = new AbortController();
  let toolSignal;
  const pending = recordingTool('wait', (args, { signal }) => {
    toolSignal = signal;
    setTimeout(() => controller.abort(), 10);
    return new Promise(() => {}); // ignores the signal
  });
  const out = await runTurn({ tools: [pending.tool], calls: [{ id: 'call_1', name: 'wait', arguments: { path: 'a' } }], signal: controller.signal });
  assert.deepEqual(out.results, [
    {
      callId: 'call_1',
      isError: true,
      delivered: { content: 'Error: This operation was aborted\n Please fix your mistakes.', tool_call_id: 'call_1', status: 'error' },
    },
  ]);
  assert.equal(toolSignal.aborted, true);
});

test('progress goes to the LangGraph writer', LIMIT, async () => {
  const t = recordingTool('p', (args, { progress }) => {
    progress({ done: 1 });
    return 'ok';
  });
  const out = await runTurn({ tools: [t.tool], calls: [{ id: 'c', name: 'p', arguments: { path: 'a' } }], signal: new AbortController().signal });
  assert.deepEqual(out.notes, ['writer: {"done":1}']);
});
