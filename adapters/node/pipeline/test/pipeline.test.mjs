// The pipeline harness on the real pi installs (node --test): determinism of
// a latch-ordered scenario, the schemas against the example files (and that
// they refuse broken ones), the recorded examples still being what pi
// 0.85.0 does, and facts observed on the package (pipeline.md, kept with seed 003) asserted on
// 0.85.0 and 1.6.0.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadPi } from '../load.mjs';
import { observePipeline } from '../observe.mjs';
import { checkObservationFile, checkScenarioFile } from '../validate.mjs';
import { encode, materialize } from '../values.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const examples = path.join(here, '..', 'examples');
const readJson = (name) => JSON.parse(fs.readFileSync(path.join(examples, name), 'utf8'));
const scenarios = readJson('scenarios.json');
const scenario = (id) => scenarios.scenarios.find((s) => s.id === id);
const pi085 = await loadPi('0.85');
const pi16 = await loadPi('1.6');
const SETTLE = { settleMs: 1000 };

function resultTexts(observation) {
  return observation.toolResults.map((t) => {
    const m = JSON.parse(t.json);
    return [m.toolCallId, m.isError, m.content.map((c) => c.text).join('')];
  });
}

test('a parallel batch completing out of order is recorded byte-identically twice', async () => {
  const s = scenario('parallel-out-of-order');
  const a = JSON.stringify(await observePipeline(pi085, s, SETTLE));
  const b = JSON.stringify(await observePipeline(pi085, s, SETTLE));
  assert.equal(a, b);
  const ends = JSON.parse(a).trace.filter((e) => e.kind === 'event' && e.event.type === 'tool_execution_end');
  assert.deepEqual(ends.map((e) => e.event.toolCallId), ['c2', 'c1', 'c3']);
});

test('the example scenarios validate against pipeline-scenario.schema.json', () => {
  assert.deepEqual(checkScenarioFile(scenarios), []);
  assert.ok(scenarios.scenarios.length >= 30);
});

test('the scenario schema refuses a timer, an unknown step and a stray "$"', () => {
  const bad = structuredClone(scenario('single-call'));
  bad.tools[0].execute.do.push({ sleep: 10 });
  bad.model[0].content[0].toolCall.arguments = { $: 'date' };
  bad.triggers = [{ on: { event: 'tool_execution_start', afterMs: 5 }, do: [{ release: 'L' }] }];
  const errors = checkScenarioFile({ suite: 'pipeline', scenarios: [bad] });
  assert.ok(errors.some((e) => e.includes('/tools/0/execute')), errors.join('\n'));
  assert.ok(errors.some((e) => e.includes('/model/0/content/0')), errors.join('\n'));
  assert.ok(errors.some((e) => e.includes('/triggers/0/on')), errors.join('\n'));
});

test('the recorded observations validate against pipeline-observation.schema.json', () => {
  for (const name of ['observed-0.85.0.json', 'observed-1.6.0.json']) {
    assert.deepEqual(checkObservationFile(readJson(name)), [], name);
  }
});

test('the observation schema refuses an unknown trace entry and an unknown ending', () => {
  const doc = structuredClone(readJson('observed-0.85.0.json'));
  doc.observations = [doc.observations[0]];
  doc.observations[0].observation.trace.push({ kind: 'sleep', ms: 5 });
  doc.observations[0].observation.end = { outcome: 'timeout' };
  const errors = checkObservationFile(doc);
  assert.ok(errors.some((e) => e.includes('/trace/')), errors.join('\n'));
  assert.ok(errors.some((e) => e.includes('/end')), errors.join('\n'));
});

test('0.85.0: the recorded examples are what pi does now (first ten scenarios)', async () => {
  const recorded = readJson('observed-0.85.0.json');
  for (const { id, observation } of recorded.observations.slice(0, 10)) {
    assert.deepEqual(await observePipeline(pi085, scenario(id), SETTLE), observation, id);
  }
});

test('0.85.0: an unknown tool gets "Tool <name> not found" (F9), no hooks run', async () => {
  const o = await observePipeline(pi085, scenario('unknown-tool'), SETTLE);
  assert.deepEqual(resultTexts(o), [['c1', true, 'Tool missing_tool not found']]);
  assert.deepEqual(JSON.parse(o.toolResults[0].json).details, {});
  assert.equal(o.trace.filter((e) => e.kind === 'invoke').length, 0);
  assert.equal(o.providerCalls, 2);
});

test('0.85.0: the toolResult message key order (F29) and the seed validation text (F15)', async () => {
  const one = await observePipeline(pi085, scenario('single-call'), SETTLE);
  assert.equal(
    one.toolResults[0].json,
    '{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"file body"}],"details":{"path":"a.txt"},"isError":false,"timestamp":"<timestamp>"}',
  );
  const message = one.messages.find((m) => m.role === 'toolResult');
  assert.deepEqual(Object.keys(message), ['role', 'toolCallId', 'toolName', 'content', 'details', 'usage', 'isError', 'timestamp']);
  const v = await observePipeline(pi085, scenario('validation-missing-required'), SETTLE);
  assert.equal(
    resultTexts(v)[0][2],
    'Validation failed for tool "ok":\n  - path: must have required properties path\n\nReceived arguments:\n{\n  "offset": 20\n}',
  );
});

test('0.85.0 vs 1.6.0: an abort right after the assistant message (F34, D2)', async () => {
  const s = scenario('abort-after-assistant-message-parallel');
  const old = await observePipeline(pi085, s, SETTLE);
  const now = await observePipeline(pi16, s, SETTLE);
  assert.deepEqual(resultTexts(old), [['c1', true, 'Operation aborted']]);
  assert.deepEqual(resultTexts(now).map((r) => r[0]), ['c1', 'c2', 'c3']);
  const hooked = (o) => o.trace.filter((e) => e.kind === 'invoke' && e.of === 'beforeToolCall').map((e) => e.signal);
  assert.deepEqual(hooked(old), ['aborted']);
  assert.deepEqual(hooked(now), []);
});

test('a tool that never settles and ignores the signal is recorded as pending', async () => {
  const o = await observePipeline(pi085, scenario('pending-tool'), { settleMs: 200 });
  assert.deepEqual(o.end, { outcome: 'pending' });
  assert.equal(o.providerCalls, 1);
});

test('a __proto__ key stays an own key, built and encoded (as JSON.parse keeps it)', () => {
  const spec = JSON.parse('{"__proto__":{"x":1},"a":[{"__proto__":2}]}');
  const built = materialize(spec);
  assert.deepEqual(Object.keys(built), ['__proto__', 'a']);
  assert.equal(Object.getPrototypeOf(built), Object.prototype);
  assert.equal(JSON.stringify(encode(built)), '{"__proto__":{"x":1},"a":[{"__proto__":2}]}');
});
