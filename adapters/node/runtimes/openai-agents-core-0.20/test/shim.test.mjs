// The openai-agents-core-0.20 shim on a few turns, through the SDK's own Runner.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { notApplicable, runTurn, runtime } from '../shim.mjs';
import { deferred, recordingTool, rejectOnAbort, timeLimit } from '../../test-support.mjs';

const T = timeLimit();
const DEFAULT_ERROR_TEXT = 'An error occurred while running the tool. Please try again.';

test('the module names the runtime and what it cannot express', T, () => {
  assert.equal(runtime.id, 'openai-agents-core-0.20');
  assert.equal(runtime.package, '@openai/agents-core');
  assert.equal(runtime.version, '0.20.0');
  assert.ok(notApplicable.progress);
  for (const key of ['abort', 'duplicateNames', 'unknownTool', 'check', 'parallel']) assert.equal(notApplicable[key], undefined);
});

test('a successful call is delivered as a function_call_result linked to its callId', T, async () => {
  const { seen, tool } = recordingTool('read_file');
  const turn = await runTurn({
    tools: [tool],
    calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a.txt' } }],
    signal: new AbortController().signal,
  });
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].args, { path: 'a.txt' });
  assert.equal(seen[0].context.callId, 'call_1');
  assert.ok(seen[0].context.signal instanceof AbortSignal);
  assert.equal(turn.results.length, 1);
  const [result] = turn.results;
  assert.equal(result.callId, 'call_1');
  assert.equal(result.isError, null);
  assert.deepEqual(result.delivered, {
    type: 'function_call_result',
    name: 'read_file',
    callId: 'call_1',
    status: 'completed',
    output: { type: 'text', text: '{"read":"a.txt"}' },
  });
});

test('an unknown tool rejects the whole run with ModelBehaviorError (observed default)', T, async () => {
  const { seen, tool } = recordingTool('read_file');
  await assert.rejects(
    runTurn({
      tools: [tool],
      calls: [
        { id: 'call_1', name: 'read_file', arguments: { path: 'x' } },
        { id: 'call_2', name: 'no_such_tool', arguments: { path: 'x' } },
      ],
      signal: new AbortController().signal,
    }),
    { name: 'ModelBehaviorError', message: 'Tool no_such_tool not found in agent toolgate.' },
  );
  // The sibling call never ran: the response is refused before any tool executes.
  assert.equal(seen.length, 0);
});

test('two calls in one turn give two results, each linked to its callId', T, async () => {
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
      ['call_a', null, { type: 'text', text: 'from a' }],
      ['call_b', null, { type: 'text', text: DEFAULT_ERROR_TEXT }],
    ],
  );
});

test('schema-invalid arguments reach the tool: a plain JSON Schema is parsed, not validated (observed)', T, async () => {
  const { seen, tool } = recordingTool('read_file');
  const turn = await runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 42 } }], signal: new AbortController().signal });
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].args, { path: 42 });
  assert.equal(turn.results[0].delivered.output.text, '{"read":42}');
});

test('check is wired as a tool input guardrail: a refused call never runs, its message is delivered', T, async () => {
  const { seen, tool } = recordingTool('read_file');
  tool.check = (args) => (typeof args.path === 'string' ? null : 'path must be a string');
  const turn = await runTurn({ tools: [tool], calls: [{ id: 'call_1', name: 'read_file', arguments: { path: 42 } }], signal: new AbortController().signal });
  assert.equal(seen.length, 0);
  assert.equal(turn.results[0].callId, 'call_1');
  assert.deepEqual(turn.results[0].delivered.output, { type: 'text', text: 'path must be a string' });
});

test('the abort signal reaches the runtime: the tool sees it abort and the run rejects', T, async () => {
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
