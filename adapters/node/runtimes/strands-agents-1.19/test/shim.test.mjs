// The strands-agents-1.19 shim on a few turns, through the SDK's own Agent loop.
// Fast, no network; every test is bounded by a timeout.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { notApplicable, runTurn, runtime } from '../shim.mjs';
import { deferred, liveSignal, plainTool, recordingTool, rejectOnAbort, timeLimit } from '../../test-support.mjs';

const T = timeLimit();
const result = (toolUseId, status, content) => ({ toolResult: { toolUseId, status, content } });

test('the module names the runtime and expresses every feature of the suite', T, () => {
  assert.equal(runtime.id, 'strands-agents-1.19');
  assert.equal(runtime.package, '@strands-agents/sdk');
  assert.equal(runtime.version, '1.19.0');
  assert.deepEqual(notApplicable, {});
});

test('a successful call is delivered as a toolResult block of the second model request, linked to its id', T, async () => {
  const signal = liveSignal();
  const { seen, tool } = recordingTool('read_file');
  const turn = await runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } }], signal });
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].args, { path: 'a.txt' });
  assert.equal(seen[0].context.callId, 'call_1');
  assert.ok(seen[0].context.signal instanceof AbortSignal, "the tool gets strands' cancelSignal");
  assert.equal(seen[0].context.signal.aborted, false);
  assert.equal(typeof seen[0].context.progress, 'function');
  assert.deepEqual(turn.results, [
    { callId: 'call_1', isError: false, delivered: result('call_1', 'success', [{ json: { read: 'a.txt' } }]) },
  ]);
  assert.ok(turn.notes.includes('model requests: 2; stopReason: endTurn'));
});

test('an unknown tool gets an error result and its sibling still runs', T, async () => {
  const { seen, tool } = recordingTool('read_file', () => 'body');
  const turn = await runTurn({
    tools: [tool],
    calls: [
      { id: 'call_1', name: 'read_file', arguments: { path: 'x' } },
      { id: 'call_2', name: 'Read_file', arguments: { path: 'x' } },
    ],
    signal: liveSignal(),
  });
  assert.equal(seen.length, 1);
  assert.deepEqual(turn.results, [
    { callId: 'call_1', isError: false, delivered: result('call_1', 'success', [{ text: 'body' }]) },
    { callId: 'call_2', isError: true, delivered: result('call_2', 'error', [{ text: "Tool 'Read_file' not found in registry" }]) },
  ]);
});

test('schema-invalid arguments reach the tool: a JSON Schema inputSchema is not validated (observed)', T, async () => {
  const { seen, tool } = recordingTool('read_file');
  const turn = await runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 42 } }], signal: liveSignal() });
  assert.deepEqual(seen[0].args, { path: 42 });
  assert.deepEqual(turn.results[0], { callId: 'call_1', isError: false, delivered: result('call_1', 'success', [{ json: { read: 42 } }]) });
});

test('check is a BeforeToolCallEvent hook: a refused call never runs and its message is an error result', T, async () => {
  const { seen, tool } = recordingTool('read_file', undefined, {
    check: (args) => (args.path === '/etc/passwd' ? 'path is outside the workspace' : null),
  });
  const turn = await runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: '/etc/passwd' } }], signal: liveSignal() });
  assert.equal(seen.length, 0);
  assert.deepEqual(turn.results, [
    { callId: 'call_1', isError: true, delivered: result('call_1', 'error', [{ text: 'path is outside the workspace' }]) },
  ]);
});

test('a throw and a rejection become error results worded "Error: <message>"', T, async () => {
  const turn = await runTurn({
    tools: [
      plainTool('a', () => {
        throw new Error('boom');
      }),
      plainTool('b', async () => {
        throw 'str boom';
      }),
    ],
    calls: [
      { id: 'call_a', name: 'a', arguments: {} },
      { id: 'call_b', name: 'b', arguments: {} },
    ],
    signal: liveSignal(),
  });
  assert.deepEqual(
    turn.results.map((r) => [r.callId, r.isError, r.delivered.toolResult.content]),
    [
      ['call_a', true, [{ text: 'Error: boom' }]],
      ['call_b', true, [{ text: 'Error: str boom' }]],
    ],
  );
});

test('progress then a value: the progress goes to strands\' stream, the value is delivered', T, async () => {
  const turn = await runTurn({
    tools: [
      plainTool('long', async (_args, { progress }) => {
        progress({ percent: 10 });
        await Promise.resolve();
        progress({ percent: 90 });
        return 'done';
      }),
    ],
    calls: [{ id: 'call_1', name: 'long', arguments: {} }],
    signal: liveSignal(),
  });
  assert.deepEqual(turn.results, [{ callId: 'call_1', isError: false, delivered: result('call_1', 'success', [{ text: 'done' }]) }]);
  assert.ok(turn.notes.includes('tool progress events: 2'), "both values reached strands' stream");
});

test('a cyclic output becomes an error result (strands deep-copies results as JSON)', T, async () => {
  const cyclic = { name: 'loop' };
  cyclic.self = cyclic;
  const turn = await runTurn({ tools: [plainTool('get', () => cyclic)], calls: [{ id: 'call_1', name: 'get', arguments: {} }], signal: liveSignal() });
  assert.equal(turn.results[0].isError, true);
  assert.match(turn.results[0].delivered.toolResult.content[0].text, /^Error: Unable to serialize tool result: Converting circular structure to JSON/);
});

test('two tools of one name: the registry refuses them, the turn is not run', T, async () => {
  const first = recordingTool('read_file');
  const second = recordingTool('read_file');
  const turn = await runTurn({ tools: [first.tool, second.tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'x' } }], signal: liveSignal() });
  assert.deepEqual(turn.registrationError, { name: 'ToolValidationError', message: "Tool with name 'read_file' already registered" });
  assert.deepEqual(turn.results, []);
  assert.equal(first.seen.length + second.seen.length, 0);
});

test('the signal is strands\' cancelSignal: a pending tool sees it abort, the run resolves cancelled with both results', T, async () => {
  const controller = new AbortController();
  const started = deferred();
  const slow = recordingTool('slow', (_args, { signal }) => {
    started.resolve();
    return rejectOnAbort(signal);
  });
  const quick = recordingTool('quick', () => 'fast');
  const turn = runTurn({
    tools: [slow.tool, quick.tool],
    calls: [
      { id: 'call_1', name: 'slow', arguments: { path: 'x' } },
      { id: 'call_2', name: 'quick', arguments: { path: 'y' } },
    ],
    signal: controller.signal,
  });
  await started.promise;
  controller.abort();
  const out = await turn;
  assert.equal(slow.seen[0].context.signal.aborted, true);
  assert.ok(out.notes.includes('model requests: 1; stopReason: cancelled'));
  assert.deepEqual(out.results, [
    { callId: 'call_1', isError: true, delivered: result('call_1', 'error', [{ text: 'Error: This operation was aborted' }]) },
    { callId: 'call_2', isError: false, delivered: result('call_2', 'success', [{ text: 'fast' }]) },
  ]);
});

test('a signal aborted before the turn: the model is never asked, no tool runs', T, async () => {
  const controller = new AbortController();
  controller.abort();
  const { seen, tool } = recordingTool('read_file');
  const turn = await runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'x' } }], signal: controller.signal });
  assert.equal(seen.length, 0);
  assert.deepEqual(turn.results, []);
  assert.ok(turn.notes.includes('model requests: 0; stopReason: cancelled'));
});

test('arguments 100,000 levels deep: strands cannot deep-copy them, and the turn rejects at the next model request', T, async () => {
  let deep = { leaf: true };
  for (let i = 0; i < 100_000; i++) deep = { next: deep };
  const { seen, tool } = recordingTool('take', () => 'taken', { inputSchema: { type: 'object' } });
  await assert.rejects(runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'take', arguments: deep }], signal: liveSignal() }), {
    name: 'Error',
    message: 'Unable to serialize tool result: Maximum call stack size exceeded',
  });
  assert.equal(seen.length, 0);
});
