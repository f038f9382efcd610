// The file-queue harness (../file-queue.mjs) on the real queues (node
// --test): the settle makes every recording the same (the file-queue cases
// again and again, in any order, and a chain that needs many settle rounds);
// a scenario that throws half-way still restores the cwd and deletes its
// root; malformed scenarios are refused with a clear error before anything
// is made; the schemas take the file-queue forms strictly; the capability
// rules; the `queue-*` mutants' own queue, unbroken, observes what pi does.

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadPi } from '../load.mjs';
import { capabilitiesOf, missingCapabilities, observeScenario } from '../observe.mjs';
import { checkFileQueueScenario, errorSeen, fileQueueNeeds, observeFileQueue, settle } from '../file-queue.mjs';
import { applyMutant, brokenQueue } from '../mutants.mjs';
import { casesOf, loadCaseFiles } from '../../case-files.mjs';
import { checkCaseFile, checkObservationFile } from '../validate.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const repo = path.resolve(here, '../../../..');
const caseFile = path.join(repo, 'corpus/cases/pipeline/pipeline-file-queue.json');
const cases = casesOf(loadCaseFiles([caseFile]));
const pi085 = await loadPi('0.85');
const pi16 = await loadPi('1.6');
const queues = pi085.fileQueues;

// This process makes its roots in a temporary directory of its own (the
// harness uses os.tmpdir(), which reads TMPDIR), so that counting them is
// not disturbed by other test files running at the same time.
const ownTmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-fq-test-')));
process.env.TMPDIR = ownTmp;
test.after(() => fs.rmSync(ownTmp, { recursive: true, force: true }));
const roots = () => new Set(fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('toolgate-fq-')));

const A = '$ROOT/real/a.txt';
const TREE = [
  { path: 'real', kind: 'dir' },
  { path: 'real/a.txt', kind: 'file' },
];
const reg = (op, p = A, queue = 'codingAgent') => ({ register: op, path: p, queue });

test('the roots are made where os.tmpdir() says', () => {
  assert.equal(os.tmpdir(), ownTmp);
});

test('the installs: coding-agent 0.85.0 and 1.6.0; the harness queue on 0.85.0 only', () => {
  assert.equal(pi085.fileQueues.codingAgentVersion, '0.85.0');
  assert.equal(pi16.fileQueues.codingAgentVersion, '1.6.0');
  assert.equal(typeof pi085.fileQueues.harness, 'function');
  assert.equal(typeof pi085.fileQueues.NodeExecutionEnv, 'function');
  assert.equal(pi16.fileQueues.harness, undefined);
  assert.deepEqual(capabilitiesOf(pi085), ['steering', 'followUp', 'stopAfterTurn', 'fileQueue', 'harnessQueue']);
  assert.deepEqual(capabilitiesOf(pi16), ['steering', 'followUp', 'stopAfterTurn', 'fileQueue']);
});

test('what a file-queue scenario needs: fileQueue, and harnessQueue when a step names a harness queue', () => {
  assert.deepEqual(fileQueueNeeds({ fileQueue: { steps: [reg('op1')] } }), ['fileQueue']);
  // an env alone needs nothing more: only a register through it does
  assert.deepEqual(fileQueueNeeds({ fileQueue: { envs: { e: '' }, steps: [reg('op1')] } }), ['fileQueue']);
  const harness = { fileQueue: { envs: { e: '' }, steps: [reg('op1', A, 'harness:e')] } };
  assert.deepEqual(fileQueueNeeds(harness), ['fileQueue', 'harnessQueue']);
  assert.deepEqual(missingCapabilities(pi085, harness), []);
  assert.deepEqual(missingCapabilities(pi16, harness), ['harnessQueue']);
  assert.deepEqual(missingCapabilities({ fileQueues: {} }, harness), ['fileQueue', 'harnessQueue']);
  assert.deepEqual(missingCapabilities(pi16, { tools: [], model: [] }), []);
});

test('every file-queue case, recorded 10 times in turn on 0.85.0 and in reverse order, gives its expect', async () => {
  assert.ok(cases.length >= 26, `${cases.length} cases`);
  for (let round = 0; round < 10; round += 1) {
    const order = round % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) {
      const o = await observeScenario(pi085, c.case.scenario);
      assert.deepEqual(o, c.case.expect, `${c.id} (round ${round})`);
    }
  }
});

// a settle that ignored its bound would wait for the held pool forever: the
// timeout makes that a failure
test('the settle: several rounds while a realpath is in flight; past its bound the run fails clearly and still cleans up', { timeout: 30_000 }, async () => {
  // one round after an immediate with nothing in flight
  assert.equal(await settle(), 1);
  // a realpath in flight keeps the settle going until it has answered
  let answered = false;
  fs.promises.realpath(os.tmpdir()).then(() => (answered = true));
  const rounds = await settle();
  assert.ok(answered);
  assert.ok(rounds >= 1);
  // with a single round the harness cannot wait for the queue's realpath:
  // the run fails clearly, and still cleans up. On an idle machine one
  // round ends before the realpath does; on a busy one a pool thread can
  // answer it before the loop looks (CI, 2026-12-07), so the pool is held
  // here and the realpath cannot answer within the round
  const before = roots();
  const cwd = process.cwd();
  const c = cases.find((x) => x.id === 'pipeline-file-queue/fifo-of-three');
  const release = holdThreadPool();
  try {
    await assert.rejects(
      observeFileQueue(queues, c.case.scenario, { maxSettleRounds: 1 }),
      /fileQueue: the harness did not settle: a filesystem request was still in flight after 1 rounds/,
    );
  } finally {
    await release();
  }
  assert.equal(process.cwd(), cwd);
  assert.deepEqual(roots(), before);
});

/**
 * Holds every thread of libuv's pool, each on the open of a FIFO that no
 * one writes to yet, so that a filesystem request made after it waits for
 * the release; resolves once they are let go and the FIFOs removed.
 */
function holdThreadPool() {
  const size = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  const dir = fs.mkdtempSync(path.join(ownTmp, 'held-pool-'));
  const fifos = Array.from({ length: size }, (_, i) => path.join(dir, `fifo-${i}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const opens = fifos.map((fifo) => fs.promises.open(fifo, 'r'));
  return async () => {
    // opening the write end returns once the held read end is open
    for (const fifo of fifos) fs.closeSync(fs.openSync(fifo, 'w'));
    for (const handle of await Promise.all(opens)) await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

test('a long chain of keys on one file settles in one step, in FIFO order, the same every time', async () => {
  const ops = Array.from({ length: 40 }, (_, i) => `op${i}`);
  const spellings = ['$ROOT/real/a.txt', 'a.txt', '$ROOT/linkdir/a.txt', '$ROOT/real/x/../a.txt', '$ROOT/alias.txt'];
  const scenario = {
    fileQueue: {
      tree: [...TREE, { path: 'linkdir', kind: 'symlink', target: 'real' }, { path: 'alias.txt', kind: 'symlink', target: '$ROOT/real/a.txt' }],
      cwd: 'real',
      steps: [
        ...ops.map((op, i) => reg(op, spellings[i % spellings.length])),
        ...ops.slice(1).reverse().map((op, i) => ({ release: op, throw: i % 3 === 0 })),
        { release: 'op0' },
      ],
    },
  };
  const first = await observeFileQueue(queues, scenario);
  const last = ops.length + ops.length - 1;
  assert.deepEqual(first.fileQueue[0], { step: 0, start: 'op0' });
  assert.deepEqual(
    first.fileQueue.slice(1).map((e) => e.step),
    Array(first.fileQueue.length - 1).fill(last),
  );
  const order = first.fileQueue.map((e) => `${e.start ? 'S' : e.resolve ? 'R' : 'X'}${e.start ?? e.resolve ?? e.reject}`);
  const expected = ops.flatMap((op, i) => [`S${op}`, `${i > 0 && (ops.length - 1 - i) % 3 === 0 ? 'X' : 'R'}${op}`]);
  assert.deepEqual(order, expected);
  for (let i = 0; i < 5; i += 1) assert.deepEqual(await observeFileQueue(queues, scenario), first);
});

test('a scenario that throws half-way restores the cwd, deletes its root and lets every held op end', async () => {
  const before = roots();
  const cwd = process.cwd();
  let seenRoot;
  // op1 holds a.txt, op2 waits; then a make fails (its parent does not exist)
  const scenario = {
    fileQueue: {
      tree: TREE,
      cwd: 'real',
      steps: [reg('op1'), reg('op2', 'a.txt'), { make: { path: 'nowhere/x.txt', kind: 'file' } }, { release: 'op1' }],
    },
  };
  const wrapped = {
    ...queues,
    codingAgent: (p, fn) => {
      seenRoot ??= process.cwd();
      return queues.codingAgent(p, fn);
    },
  };
  await assert.rejects(observeFileQueue(wrapped, scenario), /ENOENT/);
  assert.equal(process.cwd(), cwd);
  assert.ok(seenRoot && !fs.existsSync(seenRoot), `root ${seenRoot} still there`);
  assert.deepEqual(roots(), before);
  // the held key was let go: the same spelling in a new run starts at once (and the queue is not stuck)
  const again = await observeFileQueue(queues, { fileQueue: { tree: TREE, steps: [reg('op1'), { release: 'op1' }] } });
  assert.deepEqual(again.fileQueue, [{ step: 0, start: 'op1' }, { step: 1, resolve: 'op1' }]);
  // a cwd that does not exist, and a queue that throws synchronously: the same
  await assert.rejects(observeFileQueue(queues, { fileQueue: { tree: TREE, cwd: 'missing', steps: [] } }), /ENOENT/);
  const throwing = { ...queues, codingAgent: () => { throw new Error('queue exploded'); } };
  await assert.rejects(observeFileQueue(throwing, { fileQueue: { tree: TREE, steps: [reg('op1')] } }), /queue exploded/);
  assert.equal(process.cwd(), cwd);
  assert.deepEqual(roots(), before);
});

test('malformed scenarios are refused with a clear error before anything is made', async () => {
  const before = roots();
  const refused = [
    [{ fileQueue: { steps: [{ release: 'op1' }] } }, 'fileQueue: step 0: release of "op1", which no earlier step registers'],
    [{ fileQueue: { steps: [reg('op1'), reg('op1')] } }, 'fileQueue: step 1: op id "op1" is registered twice'],
    [{ fileQueue: { steps: [reg('op1'), { release: 'op1' }, { release: 'op1' }] } }, 'fileQueue: step 2: "op1" is released twice'],
    [{ fileQueue: { steps: [reg('op1', A, 'somewhere')] } }, 'fileQueue: step 0: unknown queue "somewhere" (codingAgent or harness:<env>)'],
    [{ fileQueue: { steps: [reg('op1', A, 'harness:ghost')] } }, 'fileQueue: step 0: queue "harness:ghost" names no env of envs'],
    [{ fileQueue: { steps: [{ register: 'op 1', path: A, queue: 'codingAgent' }] } }, 'fileQueue: step 0: op id "op 1" is not a name (^[A-Za-z0-9_-]+$)'],
    [{ fileQueue: { steps: [{ register: 'op1', queue: 'codingAgent' }] } }, 'fileQueue: step 0: register needs a path string'],
    [{ fileQueue: { steps: [{ register: 'op1', release: 'op1' }] } }, 'fileQueue: step 0: a step has exactly one of register, release, make, remove: {"register":"op1","release":"op1"}'],
    [{ fileQueue: { steps: [{ wait: 5 }] } }, 'fileQueue: step 0: a step has exactly one of register, release, make, remove: {"wait":5}'],
    [{ fileQueue: { steps: [reg('op1'), { release: 'op1', throw: 'yes' }] } }, 'fileQueue: step 1: throw is a boolean'],
    [{ fileQueue: { steps: [reg('op1'), { release: 'op1', after: 3 }] } }, 'fileQueue: step 1: unknown field "after"'],
    [{ fileQueue: { tree: [{ path: '/etc/x', kind: 'file' }], steps: [] } }, 'fileQueue: tree[0].path: "/etc/x": tree paths are relative to the root and stay in it'],
    [{ fileQueue: { tree: [{ path: 'a/../../x', kind: 'dir' }], steps: [] } }, 'fileQueue: tree[0].path: "a/../../x": tree paths are relative to the root and stay in it'],
    [{ fileQueue: { tree: [{ path: 'l', kind: 'symlink' }], steps: [] } }, 'fileQueue: tree[0]: a symlink needs a target string'],
    [{ fileQueue: { tree: [{ path: 'f', kind: 'file', target: 'x' }], steps: [] } }, 'fileQueue: tree[0]: only a symlink has a target'],
    [{ fileQueue: { tree: [{ path: 'f', kind: 'fifo' }], steps: [] } }, 'fileQueue: tree[0].kind: "fifo" is not dir, file or symlink'],
    [{ fileQueue: { cwd: '..', steps: [] } }, 'fileQueue: cwd: "..": tree paths are relative to the root and stay in it'],
    [{ fileQueue: { envs: { 'a b': '' }, steps: [] } }, 'fileQueue: envs: "a b" is not a name (^[A-Za-z0-9_-]+$)'],
    [{ fileQueue: { steps: [{ remove: '../x' }] } }, 'fileQueue: step 0.remove: "../x": tree paths are relative to the root and stay in it'],
    [{ fileQueue: { steps: 'all' } }, 'fileQueue: steps is an array'],
    [{ fileQueue: [], id: 'x' }, 'fileQueue: scenario: unknown field "id"'],
    [{ fileQueue: 5 }, 'fileQueue: fileQueue is an object {tree?, cwd?, envs?, steps}'],
  ];
  for (const [scenario, message] of refused) {
    await assert.rejects(observeFileQueue(queues, scenario), (e) => {
      assert.ok(e instanceof Error);
      assert.equal(e.message, message);
      return true;
    });
  }
  // the harness queue on an install without it
  const harness = { fileQueue: { envs: { e: '' }, steps: [reg('op1', A, 'harness:e')] } };
  await assert.rejects(observeFileQueue(pi16.fileQueues, harness), /step 0: queue "harness:e": this install has no harness queue \(capability harnessQueue\)/);
  await assert.rejects(observeFileQueue({}, { fileQueue: { steps: [] } }), /this install has no coding-agent queue \(capability fileQueue\)/);
  assert.deepEqual(roots(), before);
  // validate.mjs reports the same refusals for a case file, beside the schema's
  const doc = { suite: 'pipeline', group: 'g', description: 'd', cases: [{ name: 'n', description: 'd', requirements: ['PIPE-QUEUE-01'], scenario: refused[1][0] }] };
  assert.deepEqual(checkCaseFile(doc, 'g.json'), ['g/n scenario: fileQueue: step 1: op id "op1" is registered twice']);
});

test('the schemas take the file-queue forms strictly', () => {
  const file = structuredClone(loadCaseFiles([caseFile])[0].file);
  assert.deepEqual(checkCaseFile(file, 'pipeline-file-queue.json'), []);
  const c = file.cases[0];
  c.scenario.fileQueue.steps.push({ register: 'op9', path: 'x', queue: 'harness:' }, { release: 'op1', after: 2 }, { sleep: 1 });
  c.scenario.fileQueue.tree.push({ path: '../x', kind: 'file' }, { path: 'l', kind: 'symlink' });
  c.scenario.fileQueue.envs = { 'a b': '' };
  c.scenario.tools = [];
  c.expect.fileQueue.push({ step: 0, start: 'op1', resolve: 'op1' }, { step: -1, start: 'op1' }, { step: 0, reject: 'op1' });
  c.expect.uncaught = 0;
  const errors = checkCaseFile(file, 'pipeline-file-queue.json');
  const n = c.scenario.fileQueue.steps.length;
  const t = c.scenario.fileQueue.tree.length;
  const e = c.expect.fileQueue.length;
  for (const at of [
    `scenario: /fileQueue/steps/${n - 3}`,
    `scenario: /fileQueue/steps/${n - 2}`,
    `scenario: /fileQueue/steps/${n - 1}`,
    `scenario: /fileQueue/tree/${t - 2}`,
    `scenario: /fileQueue/tree/${t - 1}`,
    'scenario: /fileQueue/envs',
    'expect: /fileQueue/' + (e - 3),
    'expect: /fileQueue/' + (e - 2),
    'expect: /fileQueue/' + (e - 1),
  ]) {
    assert.ok(errors.some((x) => x.includes(at)), `${at} not in\n${errors.join('\n')}`);
  }
  assert.ok(errors.some((x) => x.includes('scenario: / must match "then" schema')), errors.join('\n'));
  assert.ok(errors.some((x) => x.includes('expect: / must match "then" schema')), errors.join('\n'));
  // an agent-loop observation is not a file-queue one, nor the other way round
  assert.notDeepEqual(checkObservationFile({ x: { fileQueue: [], trace: [] } }), []);
  assert.deepEqual(checkObservationFile({ x: { fileQueue: [{ step: 3, reject: 'op1', error: { name: 'FileError', code: 'unknown' } }] } }), []);
});

test('errors are recorded as {name, code} or {name, message}', () => {
  const loop = Object.assign(new Error('ELOOP: too many symbolic links'), { code: 'ELOOP' });
  assert.deepEqual(errorSeen(loop), { name: 'Error', code: 'ELOOP' });
  assert.deepEqual(errorSeen(new TypeError('bad')), { name: 'TypeError', message: 'bad' });
  assert.deepEqual(errorSeen('text'), { name: 'string', message: 'text' });
  assert.deepEqual(errorSeen(undefined), { name: 'undefined', message: 'undefined' });
  assert.deepEqual(errorSeen({ code: 'not_found' }), { name: 'object', code: 'not_found' });
  assert.deepEqual(Object.keys(errorSeen(loop)), ['name', 'code']);
});

test("the queue-* mutants' own queue, unbroken, observes what pi does on every coding-agent case", async () => {
  const own = applyMutant(pi085, 'unbroken', { fileQueue: () => brokenQueue() });
  let compared = 0;
  for (const c of cases) {
    if (fileQueueNeeds(c.case.scenario).includes('harnessQueue')) continue;
    assert.deepEqual(await observeScenario(own, c.case.scenario), c.case.expect, c.id);
    compared += 1;
  }
  assert.ok(compared >= 15);
});
