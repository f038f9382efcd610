// The pipeline harness on the real pi installs (node --test): the corpus
// (corpus/cases/pipeline/) against its schemas and layout, every stored
// expectation still being what pi 0.85.0 does (and the 1.6.0 baseline what
// 1.6.0 does), determinism, the format additions (steering/follow-up polls,
// rejecting sinks), and facts observed on the package (pipeline.md, kept
// with seed 003) asserted on 0.85.0 and 1.6.0.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { loadPi } from '../load.mjs';
import { missingCapabilities, observePipeline, observeScenario } from '../observe.mjs';
import { casesOf, loadCaseFiles } from '../../case-files.mjs';
import { layoutCaseFile } from '../format.mjs';
import { checkCaseFile, checkObservationFile } from '../validate.mjs';
import { encode, materialize } from '../values.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const repo = path.resolve(here, '../../../..');
const casesDir = path.join(repo, 'corpus/cases/pipeline');
const baselineFile = path.resolve(here, '../recorded/pi-1.6.0.json');
const loaded = loadCaseFiles([casesDir]);
const cases = casesOf(loaded);
const byId = new Map(cases.map((c) => [c.id, c.case]));
const scenario = (id) => {
  const c = byId.get(id);
  assert.ok(c, `no case ${id}`);
  return c.scenario;
};
const expectOf = (id) => byId.get(id).expect;
const baseline = JSON.parse(fs.readFileSync(baselineFile, 'utf8'));
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
  const s = scenario('pipeline-order-parallel/parallel-out-of-order');
  const a = JSON.stringify(await observePipeline(pi085, s, SETTLE));
  const b = JSON.stringify(await observePipeline(pi085, s, SETTLE));
  assert.equal(a, b);
  const ends = JSON.parse(a).trace.filter((e) => e.kind === 'event' && e.event.type === 'tool_execution_end');
  assert.deepEqual(ends.map((e) => e.event.toolCallId), ['c2', 'c1', 'c3']);
});

test('the pipeline case files validate (fields, names, requirement ids, scenarios and expects against the schemas)', () => {
  for (const { path: p, file } of loaded) assert.deepEqual(checkCaseFile(file, path.basename(p)), [], p);
  assert.ok(cases.length >= 160, `${cases.length} cases`);
  assert.equal(new Set(cases.map((c) => c.id)).size, cases.length);
  for (const c of cases) assert.ok(Object.hasOwn(c.case, 'expect'), `${c.id} has no expect`);
});

test('the pipeline case files validate against corpus/schema/case-file.schema.json', () => {
  const require = createRequire(path.resolve(here, '../../runtimes/toolgate-wall/package.json'));
  const Ajv2020 = require('ajv/dist/2020').default;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const schemaDir = path.join(repo, 'corpus/schema');
  // registered under one base, as the corpus lint does, so the relative refs resolve
  for (const name of fs.readdirSync(schemaDir).filter((n) => n.endsWith('.schema.json'))) {
    const schema = JSON.parse(fs.readFileSync(path.join(schemaDir, name), 'utf8'));
    ajv.addSchema({ ...schema, $id: `https://toolgate.dev/schema/${name}` });
  }
  const validate = ajv.getSchema('https://toolgate.dev/schema/case-file.schema.json');
  for (const { path: p, file } of loaded) assert.ok(validate(file), `${p}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
  const bad = structuredClone(loaded[0].file);
  bad.cases[0].scenario.tools = 'none';
  assert.equal(validate(bad), false);
});

test('the case files are in their canonical layout (format.mjs layoutCaseFile)', () => {
  for (const { path: p, file } of loaded) {
    const text = fs.readFileSync(p, 'utf8');
    assert.equal(layoutCaseFile(file), text, p);
    assert.deepEqual(JSON.parse(layoutCaseFile(file)), file);
  }
});

test('the scenario schema refuses a timer, an unknown step and a stray "$"', () => {
  const file = structuredClone(loaded.find((l) => l.file.group === 'pipeline-events').file);
  const bad = file.cases.find((c) => c.name === 'single-call');
  bad.scenario.tools[0].execute.do.push({ sleep: 10 });
  bad.scenario.model[0].content[0].toolCall.arguments = { $: 'date' };
  bad.scenario.triggers = [{ on: { event: 'tool_execution_start', afterMs: 5 }, do: [{ release: 'L' }] }];
  bad.scenario.config = { steering: ['not an array of texts'] };
  const errors = checkCaseFile(file, 'pipeline-events.json');
  assert.ok(errors.some((e) => e.includes('/tools/0/execute')), errors.join('\n'));
  assert.ok(errors.some((e) => e.includes('/model/0/content/0')), errors.join('\n'));
  assert.ok(errors.some((e) => e.includes('/triggers/0/on')), errors.join('\n'));
  assert.ok(errors.some((e) => e.includes('/config/steering/0')), errors.join('\n'));
});

test('the 1.6.0 baseline validates against pipeline-observation.schema.json and has every case 1.6.0 can run', () => {
  assert.deepEqual(checkObservationFile(baseline), []);
  // the cases naming 0.85's harness queue need harnessQueue, which 1.6.0 lacks: no entry
  const runnable = cases.filter((c) => missingCapabilities(pi16, c.case.scenario).length === 0);
  assert.deepEqual(Object.keys(baseline), runnable.map((c) => c.id));
  assert.ok(runnable.length < cases.length);
  for (const c of cases) if (!runnable.includes(c)) assert.deepEqual(missingCapabilities(pi16, c.case.scenario), ['harnessQueue'], c.id);
});

test('the observation schema refuses an unknown trace entry and an unknown ending', () => {
  const o = structuredClone(expectOf('pipeline-events/single-call'));
  o.trace.push({ kind: 'sleep', ms: 5 });
  o.trace.push({ kind: 'invoke', of: 'getSteeringMessages' });
  o.end = { outcome: 'timeout' };
  const errors = checkObservationFile({ x: o });
  assert.ok(errors.some((e) => e.includes(`/trace/${o.trace.length - 2}`)), errors.join('\n'));
  assert.ok(errors.some((e) => e.includes(`/trace/${o.trace.length - 1}`)), errors.join('\n'));
  assert.ok(errors.some((e) => e.includes('/end')), errors.join('\n'));
});

test('0.85.0: every case\'s expect is what pi does now (run in reverse order: no case depends on another)', async () => {
  const differing = [];
  for (const c of [...cases].reverse()) {
    const o = await observeScenario(pi085, c.case.scenario, SETTLE);
    if (JSON.stringify(o) !== JSON.stringify(c.case.expect)) differing.push(c.id);
  }
  assert.deepEqual(differing, []);
});

test('1.6.0: recorded/pi-1.6.0.json is what pi 1.6.0 does now', async () => {
  const differing = [];
  for (const c of cases) {
    if (missingCapabilities(pi16, c.case.scenario).length > 0) continue;
    const o = await observeScenario(pi16, c.case.scenario, SETTLE);
    if (JSON.stringify(o) !== JSON.stringify(baseline[c.id])) differing.push(c.id);
  }
  assert.deepEqual(differing, []);
});

test('0.85.0: an unknown tool gets "Tool <name> not found" (F9), no hooks run', async () => {
  const o = await observePipeline(pi085, scenario('pipeline-lookup/unknown-tool'), SETTLE);
  assert.deepEqual(resultTexts(o), [['c1', true, 'Tool missing_tool not found']]);
  assert.deepEqual(JSON.parse(o.toolResults[0].json).details, {});
  assert.equal(o.trace.filter((e) => e.kind === 'invoke').length, 0);
  assert.equal(o.providerCalls, 2);
});

test('0.85.0: the toolResult message key order (F29) and the seed validation text (F15)', async () => {
  const one = await observePipeline(pi085, scenario('pipeline-events/single-call'), SETTLE);
  assert.equal(
    one.toolResults[0].json,
    '{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"file body"}],"details":{"path":"a.txt"},"isError":false,"timestamp":"<timestamp>"}',
  );
  const message = one.messages.find((m) => m.role === 'toolResult');
  assert.deepEqual(Object.keys(message), ['role', 'toolCallId', 'toolName', 'content', 'details', 'usage', 'isError', 'timestamp']);
  const v = await observePipeline(pi085, scenario('pipeline-validation/validation-missing-required'), SETTLE);
  assert.equal(
    resultTexts(v)[0][2],
    'Validation failed for tool "ok":\n  - path: must have required properties path\n\nReceived arguments:\n{\n  "offset": 20\n}',
  );
});

test('0.85.0 vs 1.6.0: an abort right after the assistant message (F34, D2)', async () => {
  const s = scenario('pipeline-abort/abort-after-assistant-message-parallel');
  const old = await observePipeline(pi085, s, SETTLE);
  const now = await observePipeline(pi16, s, SETTLE);
  assert.deepEqual(resultTexts(old), [['c1', true, 'Operation aborted']]);
  assert.deepEqual(resultTexts(now).map((r) => r[0]), ['c1', 'c2', 'c3']);
  const hooked = (o) => o.trace.filter((e) => e.kind === 'invoke' && e.of === 'beforeToolCall').map((e) => e.signal);
  assert.deepEqual(hooked(old), ['aborted']);
  assert.deepEqual(hooked(now), []);
});

test('steering and follow-up polls are recorded, and their messages reach the provider (AL:83, 158, 161)', async () => {
  const o = await observePipeline(pi085, scenario('pipeline-queue/steering-and-follow-up'), SETTLE);
  const polls = o.trace.filter((e) => e.kind === 'invoke' && e.index !== undefined).map((e) => `${e.of}#${e.index}`);
  assert.deepEqual(polls, [
    'getSteeringMessages#0',
    'getSteeringMessages#1',
    'getSteeringMessages#2',
    'getFollowUpMessages#0',
    'getSteeringMessages#3',
    'getFollowUpMessages#1',
    'getSteeringMessages#4',
    'getFollowUpMessages#2',
  ]);
  const provider = o.trace.filter((e) => e.kind === 'provider').map((e) => e.messages.join(','));
  assert.equal(provider[1], 'user,assistant,toolResult(c1),user,user');
  const terminate = await observePipeline(pi085, scenario('pipeline-queue/steering-overrides-terminate'), SETTLE);
  assert.equal(terminate.providerCalls, 2); // F39b: the queued message beats the vote
  const none = await observePipeline(pi085, { ...scenario('pipeline-queue/steering-overrides-terminate'), config: {} }, SETTLE);
  assert.equal(none.providerCalls, 1);
});

test('shouldStopAfterTurn (0.85 only, D10) and the hook context (ORDER-10) are recorded', async () => {
  const s = scenario('pipeline-stop/should-stop-after-first-turn');
  const old = await observePipeline(pi085, s, SETTLE);
  const now = await observePipeline(pi16, s, SETTLE);
  const stops = (o) => o.trace.filter((e) => e.kind === 'invoke' && e.of === 'shouldStopAfterTurn').length;
  assert.deepEqual([stops(old), old.providerCalls], [1, 1]);
  assert.deepEqual([stops(now), now.providerCalls], [0, 2]);
  const h = await observePipeline(pi085, scenario('pipeline-events/hook-context-sequential'), SETTLE);
  const seen = h.trace.filter((e) => e.kind === 'invoke' && e.of === 'beforeToolCall').map((e) => e.messages.join(','));
  assert.deepEqual(seen, ['user,assistant', 'user,assistant']);
});

test('a sink that rejects makes runAgentLoop reject with that value (F8)', async () => {
  const o = await observePipeline(pi085, scenario('pipeline-events/listener-rejects-on-end'), SETTLE);
  assert.deepEqual(o.end, { outcome: 'rejected', name: 'Error', message: 'listener failed on end' });
  assert.deepEqual(o.toolResults, []);
  const s = await observePipeline(pi085, scenario('pipeline-events/listener-rejects-non-error'), SETTLE);
  assert.deepEqual(s.end, { outcome: 'rejected', name: 'string', message: 'sink is full' });
});

test('a tool that never settles and ignores the signal is recorded as pending', async () => {
  const o = await observePipeline(pi085, scenario('pipeline-abort/pending-tool'), { settleMs: 200 });
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
