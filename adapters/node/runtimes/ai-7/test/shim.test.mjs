// The ai-7 shim on a few turns, through the AI SDK's own generateText loop.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { notApplicable, runTurn, runtime } from '../shim.mjs';
import { deferred, recordingTool, rejectOnAbort, timeLimit } from '../../test-support.mjs';

const T = timeLimit();

test('the module names the runtime and what it cannot express', T, () => {
  assert.equal(runtime.id, 'ai-7');
  assert.equal(runtime.package, 'ai');
  assert.equal(runtime.version, '7.0.173');
  assert.ok(notApplicable.duplicateNames);
  assert.ok(notApplicable.progress);
  assert.equal(notApplicable.abort, undefined);
  assert.equal(notApplicable.unknownTool, undefined);
  assert.equal(notApplicable.check, undefined);
});

test('a successful call is delivered as a tool-result part linked to its id', T, async () => {
  const { seen, tool } = recordingTool('read_file');
  const signal = new AbortController().signal;
  const turn = await runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } }], signal });
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].args, { path: 'a.txt' });
  assert.equal(seen[0].context.callId, 'call_1');
  assert.ok(seen[0].context.signal instanceof AbortSignal);
  assert.equal(turn.results.length, 1);
  const [result] = turn.results;
  assert.equal(result.callId, 'call_1');
  assert.equal(result.isError, false);
  // As JSON (the part carries `providerOptions: undefined`, which JSON drops).
  assert.deepEqual(JSON.parse(JSON.stringify(result.delivered)), {
    type: 'tool-result',
    toolCallId: 'call_1',
    toolName: 'read_file',
    output: { type: 'json', value: { read: 'a.txt' } },
  });
});

test('an unknown tool is delivered as an error-text result naming NoSuchToolError (observed)', T, async () => {
  const { seen, tool } = recordingTool('read_file');
  const turn = await runTurn({
    tools: [tool],
    calls: [{ id: 'call_9', name: 'no_such_tool', arguments: { path: 'x' } }],
    signal: new AbortController().signal,
  });
  assert.equal(seen.length, 0);
  assert.equal(turn.results.length, 1);
  assert.equal(turn.results[0].callId, 'call_9');
  assert.equal(turn.results[0].isError, true);
  assert.deepEqual(turn.results[0].delivered.output, {
    type: 'error-text',
    value: "AI_NoSuchToolError: Model tried to call unavailable tool 'no_such_tool'. Available tools: read_file.",
  });
});

test('two calls in one turn give two results, in call order, each linked to its id', T, async () => {
  const a = recordingTool('a', () => 'from a');
  const b = recordingTool('b', async () => {
    throw new Error('b broke');
  });
  const turn = await runTurn({
    tools: [a.tool, b.tool],
    calls: [
      { id: 'call_a', name: 'a', arguments: { path: '1' } },
      { id: 'call_b', name: 'b', arguments: { path: '2' } },
    ],
    signal: new AbortController().signal,
  });
  assert.deepEqual(
    turn.results.map((r) => [r.callId, r.isError, r.delivered.output]),
    [
      ['call_a', false, { type: 'text', value: 'from a' }],
      ['call_b', true, { type: 'error-text', value: 'Error: b broke' }],
    ],
  );
});

test('schema-invalid arguments reach the tool: jsonSchema() does not validate (observed)', T, async () => {
  const { seen, tool } = recordingTool('read_file');
  const turn = await runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 42 } }], signal: new AbortController().signal });
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].args, { path: 42 });
  assert.equal(turn.results[0].isError, false);
});

test('check is wired into jsonSchema validate: a refused call never runs and is an error result', T, async () => {
  const { seen, tool } = recordingTool('read_file');
  tool.check = (args) => (typeof args.path === 'string' ? null : 'path must be a string');
  const turn = await runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 42 } }], signal: new AbortController().signal });
  assert.equal(seen.length, 0);
  assert.equal(turn.results[0].isError, true);
  assert.match(turn.results[0].delivered.output.value, /^AI_InvalidToolInputError: .*path must be a string/s);
});

test('the abort signal reaches the runtime: the tool sees it abort and generateText rejects', T, async () => {
  const controller = new AbortController();
  const started = deferred();
  const { seen, tool } = recordingTool('slow', (_args, { signal }) => {
    started.resolve();
    return rejectOnAbort(signal);
  });
  const turn = runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'slow', arguments: { path: 'x' } }], signal: controller.signal });
  await started.promise;
  controller.abort();
  await assert.rejects(turn, { name: 'AbortError' });
  assert.equal(seen[0].context.signal.aborted, true);
});

test('a signal aborted before the turn rejects it before any tool runs', T, async () => {
  const controller = new AbortController();
  controller.abort(new Error('stop before'));
  const { seen, tool } = recordingTool('read_file');
  await assert.rejects(
    runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'x' } }], signal: controller.signal }),
    { message: 'stop before' },
  );
  assert.equal(seen.length, 0);
});
