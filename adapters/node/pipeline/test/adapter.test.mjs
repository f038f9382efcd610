// The pipeline suite's protocol adapter (../adapter.mjs) and its mutants
// (../mutants.json, ../mutants.mjs), on the real pi installs (node --test):
// the handshake; scenarios (agent-loop and file-queue) through the adapter
// process giving what the harness gives directly; a case needing a
// capability the install lacks answered skipped; garbage, unknown requests
// and malformed file-queue scenarios answered
// without a crash; a hanging scenario answered as pending within the
// window; every mutant changing the observation of at least one scenario,
// and the kill check failing for a mutant that does nothing.
//
// Scenarios come from ../examples/scenarios.json while it exists, else from
// corpus/cases/pipeline/*.json.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runReplyValid, startAdapter as start, startReplyValid } from '../../test/protocol-client.mjs';
import { loadPi } from '../load.mjs';
import { missingCapabilities, observePipeline, observeScenario } from '../observe.mjs';
import { DRIFTED, DRIFTS, IMPLEMENTED, MUTANTS, applyMutant } from '../mutants.mjs';
import { checkObservationFile } from '../validate.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pipelineDir = path.resolve(here, '..');
const repo = path.resolve(pipelineDir, '../../..');
const adapterPath = path.join(pipelineDir, 'adapter.mjs');

// ---------------------------------------------------------------- scenarios

/** `[{id, scenario}]` from the examples file, or else the corpus case files. */
function loadScenarios() {
  const examples = path.join(pipelineDir, 'examples', 'scenarios.json');
  const corpus = path.join(repo, 'corpus', 'cases', 'pipeline');
  const fromDoc = (doc, file) => {
    if (Array.isArray(doc)) return doc.flatMap((d) => fromDoc(d, file));
    if (Array.isArray(doc?.scenarios)) return doc.scenarios.map((s, i) => ({ id: s.id ?? `${file}#${i}`, scenario: s }));
    if (Array.isArray(doc?.cases)) {
      const group = doc.group ?? path.basename(file, '.json');
      return doc.cases.map((c, i) => ({ id: `${group}/${c.name ?? c.id ?? i}`, scenario: c.scenario }));
    }
    if (doc && typeof doc === 'object' && (doc.model || doc.tools || doc.fileQueue)) return [{ id: doc.id ?? path.basename(file, '.json'), scenario: doc }];
    return [];
  };
  if (fs.existsSync(examples)) {
    return { source: examples, list: fromDoc(JSON.parse(fs.readFileSync(examples, 'utf8')), examples) };
  }
  const files = fs.existsSync(corpus) ? fs.readdirSync(corpus).filter((f) => f.endsWith('.json')).sort() : [];
  const list = files.flatMap((f) => fromDoc(JSON.parse(fs.readFileSync(path.join(corpus, f), 'utf8')), f));
  return { source: corpus, list };
}

const { source, list: scenarios } = loadScenarios();
const SETTLE_MS = 300;
const VERSIONS = ['0.85', '1.6'];
const installs = Object.fromEntries(await Promise.all(VERSIONS.map(async (v) => [v, await loadPi(v)])));

/**
 * Baseline observations per version, as JSON text; scenarios whose run is
 * pending are left out of the kill check, and so are those needing a
 * capability the install lacks (no baseline: the 0.85 harness queue on 1.6).
 */
const baselines = {};
for (const v of VERSIONS) {
  baselines[v] = new Map();
  for (const { id, scenario } of scenarios) {
    if (missingCapabilities(installs[v], scenario).length > 0) continue;
    baselines[v].set(id, JSON.stringify(await observeScenario(installs[v], scenario, { settleMs: SETTLE_MS })));
  }
}
const isPending = (json) => json === undefined || JSON.parse(json).end?.outcome === 'pending';
const LOOP = ['steering', 'followUp', 'stopAfterTurn'];
const CAPABILITIES = { '0.85': [...LOOP, 'fileQueue', 'harnessQueue'], '1.6': [...LOOP, 'fileQueue'] };
// A file-queue scenario of our own: one op on a file, released.
const FILE_QUEUE = {
  fileQueue: {
    tree: [{ path: 'a.txt', kind: 'file' }],
    steps: [{ register: 'op1', path: '$ROOT/a.txt', queue: 'codingAgent' }, { release: 'op1' }],
  },
};

// A scenario of our own (kept here, whatever the corpus holds): one call to
// a tool nobody has.
const UNKNOWN_TOOL = {
  tools: [{ name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }],
  model: [{ stopReason: 'toolUse', content: [{ toolCall: { id: 'c1', name: 'nope', arguments: { path: 'a' } } }] }],
};
// A tool that waits on a latch nobody releases and ignores the signal.
const HANGING = {
  tools: [{ name: 'hang', parameters: { type: 'object' }, execute: { do: [{ wait: 'never' }] } }],
  model: [{ stopReason: 'toolUse', content: [{ toolCall: { id: 'c1', name: 'hang', arguments: {} } }] }],
};

// ----------------------------------------------------------------- schemas

function assertRunReply(reply, seq) {
  assert.ok(runReplyValid(reply), JSON.stringify(runReplyValid.errors));
  assert.equal(reply.seq, seq);
  if (reply.observation) {
    assert.deepEqual(checkObservationFile({ suite: 'pipeline', observations: [{ id: `seq ${seq}`, observation: reply.observation }] }), []);
  }
}

const startAdapter = (args) => start(adapterPath, args);

const runRequest = (seq, id, scenario, suite = 'pipeline') => ({ cmd: 'run', seq, case: { id, suite, scenario } });

// ------------------------------------------------------------------- tests

test(`scenarios are there to run (${path.relative(repo, source)})`, () => {
  assert.ok(scenarios.length >= 10, `only ${scenarios.length} scenarios in ${source}`);
});

test('the handshake: protocol 1, pi-agent-core at the installed version, the pipeline suite', async () => {
  for (const v of VERSIONS) {
    const a = startAdapter(['--pi', v]);
    const hello = await a.request({ cmd: 'start', protocol: 1 });
    assert.ok(startReplyValid(hello), JSON.stringify(startReplyValid.errors));
    assert.equal(hello.protocol, 1);
    assert.equal(hello.implementation.name, '@earendil-works/pi-agent-core');
    assert.equal(hello.implementation.version, installs[v].version);
    assert.equal(hello.implementation.language, 'javascript');
    assert.deepEqual(hello.suites, ['pipeline']);
    assert.deepEqual(hello.capabilities, CAPABILITIES[v]);
    assert.deepEqual(await a.stop(), { code: 0, signal: null });
  }
});

test('scenarios through the adapter give the observations the harness gives directly', async () => {
  for (const v of VERSIONS) {
    const a = startAdapter(['--pi', v, '--settle-ms', String(SETTLE_MS)]);
    await a.request({ cmd: 'start', protocol: 1 });
    let seq = 0;
    for (const { id, scenario } of scenarios) {
      if (isPending(baselines[v].get(id))) continue;
      seq += 1;
      const reply = await a.request(runRequest(seq, id, scenario));
      assertRunReply(reply, seq);
      assert.ok(reply.observation, `${v} ${id}: ${JSON.stringify(reply)}`);
      assert.equal(JSON.stringify(reply.observation), baselines[v].get(id), `${v} ${id}`);
    }
    assert.ok(seq >= 10);
    assert.deepEqual(await a.stop(), { code: 0, signal: null });
  }
});

test('file-queue scenarios through the adapter: observed, skipped without the harness queue, malformed ones refused', async () => {
  const harness = {
    fileQueue: {
      tree: [{ path: 'a.txt', kind: 'file' }],
      envs: { envA: '' },
      steps: [{ register: 'op1', path: 'a.txt', queue: 'harness:envA' }, { release: 'op1' }],
    },
  };
  const observed = { fileQueue: [{ step: 0, start: 'op1' }, { step: 1, resolve: 'op1' }] };
  for (const v of VERSIONS) {
    const a = startAdapter(['--pi', v]);
    await a.request({ cmd: 'start', protocol: 1 });
    const ok = await a.request(runRequest(1, 'own/file-queue', FILE_QUEUE));
    assertRunReply(ok, 1);
    assert.deepEqual(ok.observation, observed);
    const h = await a.request(runRequest(2, 'own/harness-queue', harness));
    assertRunReply(h, 2);
    if (v === '0.85') assert.deepEqual(h.observation, observed);
    else assert.deepEqual(h.skipped, { reason: `needs capability harnessQueue (pi-agent-core ${installs[v].version} here)` });
    const malformed = [
      [{ fileQueue: { steps: [{ release: 'ghost' }] } }, /step 0: release of "ghost", which no earlier step registers/],
      [{ fileQueue: { steps: [FILE_QUEUE.fileQueue.steps[0], FILE_QUEUE.fileQueue.steps[0]] } }, /step 1: op id "op1" is registered twice/],
      [{ fileQueue: { steps: [{ sleep: 5 }] } }, /step 0: a step has exactly one of register, release, make, remove/],
      [{ fileQueue: { tree: [{ path: '../x', kind: 'file' }], steps: [] } }, /tree\[0\]\.path: "\.\.\/x": tree paths are relative to the root/],
    ];
    let seq = 3;
    for (const [scenario, message] of malformed) {
      const reply = await a.request(runRequest(seq, 'own/malformed', scenario));
      assertRunReply(reply, seq);
      assert.match(reply.error.message, /^case own\/malformed: the harness refused the scenario: fileQueue: /);
      assert.match(reply.error.message, message);
      seq += 1;
    }
    // the session goes on, in the cwd it started in
    const again = await a.request(runRequest(seq, 'own/file-queue', FILE_QUEUE));
    assert.deepEqual(again.observation, observed);
    assert.deepEqual(await a.stop(), { code: 0, signal: null });
  }
});

test('garbage lines and unknown requests are answered (or logged) without a crash', async () => {
  const a = startAdapter(['--pi', '0.85', '--settle-ms', String(SETTLE_MS)]);
  await a.request({ cmd: 'start', protocol: 1 });
  // Lines with no seq to answer are logged on stderr and get no reply.
  for (const line of ['garbage', '{"cmd":', '42', '[]', 'null', '"run"', '{}', '{"cmd":"run"}', '{"cmd":"run","seq":0}', '   ']) {
    a.send(line);
  }
  // An unknown command with a seq is answered error.
  const unknown = await a.request({ cmd: 'explode', seq: 1 });
  assertRunReply(unknown, 1);
  assert.match(unknown.error.message, /unknown request "explode"/);
  // A case of another suite: skipped (what the runner reports for a suite not in the hello).
  const other = await a.request(runRequest(2, 'calls/unknown-tool', {}, 'core'));
  assertRunReply(other, 2);
  assert.match(other.skipped.reason, /pipeline suite, not "core"/);
  // A run without a case, and scenarios the harness refuses: error with the message.
  const noCase = await a.request({ cmd: 'run', seq: 3 });
  assertRunReply(noCase, 3);
  assert.match(noCase.error.message, /case/);
  const refused = await a.request(runRequest(4, 'broken/tools', { tools: 5 }));
  assertRunReply(refused, 4);
  assert.match(refused.error.message, /^case broken\/tools: the harness refused the scenario: .*is not a function/);
  const badTrigger = await a.request(
    runRequest(5, 'broken/trigger', { ...structuredClone(UNKNOWN_TOOL), triggers: [{ on: 'beforeRun', do: [{ explode: true }] }] }),
  );
  assertRunReply(badTrigger, 5);
  assert.match(badTrigger.error.message, /unknown trigger action/);
  const notObject = await a.request(runRequest(6, 'broken/scenario', 'not an object'));
  assertRunReply(notObject, 6);
  assert.match(notObject.error.message, /not an object/);
  // The session goes on: a real case, a second start.
  const ok = await a.request(runRequest(7, 'own/unknown-tool', UNKNOWN_TOOL));
  assertRunReply(ok, 7);
  assert.equal(JSON.parse(ok.observation.toolResults[0].json).content[0].text, 'Tool nope not found');
  const hello = await a.request({ cmd: 'start', protocol: 1 });
  assert.ok(startReplyValid(hello));
  assert.equal(a.pendingReplies(), 0, 'a line with nothing to answer got a reply');
  assert.deepEqual(await a.stop(), { code: 0, signal: null });
  assert.match(a.stderr(), /not JSON/);
  assert.match(a.stderr(), /not a JSON object/);
});

test('end of stdin ends the adapter with status 0', async () => {
  const a = startAdapter(['--pi', '0.85']);
  await a.request({ cmd: 'start', protocol: 1 });
  a.child.stdin.end();
  assert.deepEqual(await a.exited, { code: 0, signal: null });
});

test('a hanging scenario is answered as pending within the window, and the session goes on', async () => {
  const a = startAdapter(['--pi', '0.85', '--settle-ms', '400']);
  await a.request({ cmd: 'start', protocol: 1 });
  const started = performance.now();
  const reply = await a.request(runRequest(1, 'own/hanging', HANGING), 5000);
  const elapsed = performance.now() - started;
  assertRunReply(reply, 1);
  assert.deepEqual(reply.observation.end, { outcome: 'pending' });
  assert.equal(reply.observation.providerCalls, 1);
  assert.ok(elapsed >= 400 && elapsed < 4000, `answered after ${elapsed} ms`);
  const next = await a.request(runRequest(2, 'own/unknown-tool', UNKNOWN_TOOL));
  assertRunReply(next, 2);
  assert.deepEqual(next.observation.end, { outcome: 'resolved' });
  assert.deepEqual(await a.stop(), { code: 0, signal: null });
});

test('bad arguments: exit 2 with a usage line', async () => {
  for (const args of [[], ['--pi', '0.85', '--mutant', 'no-such-mutant'], ['--pi', '0.85', '--settle-ms', '-1'], ['--bogus']]) {
    const a = startAdapter(args);
    const { code } = await a.exited;
    assert.equal(code, 2, args.join(' '));
    assert.match(a.stderr(), /usage:/);
  }
});

test('an install that cannot be loaded: a hello, then error on every case', async () => {
  const a = startAdapter(['--pi', path.join(here, 'no-such-install')]);
  const hello = await a.request({ cmd: 'start', protocol: 1 });
  assert.ok(startReplyValid(hello));
  const reply = await a.request(runRequest(1, 'own/unknown-tool', UNKNOWN_TOOL));
  assertRunReply(reply, 1);
  assert.match(reply.error.message, /could not load pi/);
  assert.deepEqual(await a.stop(), { code: 0, signal: null });
});

// ------------------------------------------------------------------ mutants

const REQUIREMENT = /^PIPE-(LOOKUP|PREP|VAL|HOOK|ORDER|RESULT|TERM|ABORT|STOP|QUEUE)-\d\d$/;
// the requirements as SPEC.md states them (`- **PIPE-...**`)
const spec = fs.readFileSync(new URL('../../../../corpus/SPEC.md', import.meta.url), 'utf8');

test('mutants.json: at least 12, unique ids, each implemented, each breaking PIPE requirements', () => {
  assert.ok(MUTANTS.length >= 12);
  const ids = MUTANTS.map((m) => m.id);
  assert.equal(new Set(ids).size, ids.length, 'duplicate ids');
  assert.deepEqual([...ids].sort(), [...IMPLEMENTED].sort(), 'mutants.json and mutants.mjs differ');
  for (const m of MUTANTS) {
    assert.deepEqual(Object.keys(m), ['id', 'description', 'requirements'], m.id);
    assert.match(m.id, /^[a-z0-9]+(-[a-z0-9]+)*$/);
    assert.ok(m.description.length > 10, m.id);
    assert.ok(m.requirements.length > 0, m.id);
    for (const r of m.requirements) {
      assert.match(r, REQUIREMENT, m.id);
      assert.ok(spec.includes(`- **${r}**`), `${m.id}: ${r} is not a requirement of SPEC.md`);
    }
  }
  assert.throws(() => applyMutant(installs['0.85'], 'no-such-mutant'), /unknown mutant/);
});

test('drift-mutants.json: unique ids (none a mutant\'s), each implemented, each listing PIPE requirements or none', () => {
  assert.ok(DRIFTS.length >= 5);
  const ids = DRIFTS.map((m) => m.id);
  assert.equal(new Set(ids).size, ids.length, 'duplicate ids');
  assert.deepEqual([...ids].sort(), [...DRIFTED].sort(), 'drift-mutants.json and mutants.mjs differ');
  for (const m of DRIFTS) {
    assert.ok(!IMPLEMENTED.includes(m.id), `${m.id} is also a mutant`);
    assert.deepEqual(Object.keys(m), ['id', 'description', 'requirements'], m.id);
    assert.ok(m.description.length > 10, m.id);
    for (const r of m.requirements) {
      assert.match(r, REQUIREMENT, m.id);
      assert.ok(spec.includes(`- **${r}**`), `${m.id}: ${r} is not a requirement of SPEC.md`);
    }
  }
});

/** The first scenario (not pending unmutated) whose observation `pi` changes, or undefined. */
async function killedBy(pi, version) {
  for (const { id, scenario } of scenarios) {
    const base = baselines[version].get(id);
    if (isPending(base)) continue;
    let seen;
    try {
      seen = JSON.stringify(await observeScenario(pi, scenario, { settleMs: SETTLE_MS }));
    } catch (error) {
      seen = `harness threw: ${error?.message ?? error}`;
    }
    if (seen !== base) return id;
  }
  return undefined;
}

// Mutants that break only a 0.85 behaviour: no scenario can tell them apart
// on 1.6 (1.6 never rejects where 0.85 does, D5).
const EQUIVALENT_ON = { '1.6': new Set(['loop-rejection-resolves']) };

test('the kill check fails for a mutant that does nothing (and for a no-op emit wrapper)', async () => {
  for (const v of VERSIONS) {
    assert.equal(await killedBy(applyMutant(installs[v], 'nothing', {}), v), undefined);
    const passThrough = { emit: (emit) => (event) => emit(event), tools: (tools) => tools, config: (config) => config };
    assert.equal(await killedBy(applyMutant(installs[v], 'pass-through', passThrough), v), undefined);
  }
});

for (const v of VERSIONS) {
  test(`${v}: every mutant changes the observation of at least one scenario`, async (t) => {
    const survivors = [];
    for (const m of MUTANTS) {
      const id = await killedBy(applyMutant(installs[v], m.id), v);
      if (id !== undefined) t.diagnostic(`${m.id}: killed by ${id}`);
      else if (EQUIVALENT_ON[v]?.has(m.id)) t.diagnostic(`${m.id}: equivalent on ${v} (expected)`);
      else survivors.push(m.id);
    }
    assert.deepEqual(survivors, [], `surviving mutants on ${v}`);
  });
}

test('--mutant through the adapter: the version says so, the observation changes', async () => {
  const a = startAdapter(['--pi', '0.85', '--mutant', 'unknown-tool-quoted-name']);
  const hello = await a.request({ cmd: 'start', protocol: 1 });
  assert.ok(startReplyValid(hello));
  assert.equal(hello.implementation.version, `${installs['0.85'].version}+mutant.unknown-tool-quoted-name`);
  const reply = await a.request(runRequest(1, 'own/unknown-tool', UNKNOWN_TOOL));
  assertRunReply(reply, 1);
  assert.equal(JSON.parse(reply.observation.toolResults[0].json).content[0].text, 'Tool "nope" not found');
  const direct = await observePipeline(installs['0.85'], UNKNOWN_TOOL, { settleMs: SETTLE_MS });
  assert.notEqual(JSON.stringify(reply.observation), JSON.stringify(direct));
  assert.deepEqual(await a.stop(), { code: 0, signal: null });
});
