// The workspace suite's protocol adapter (../adapter.mjs) as a child process,
// node --test: the handshake (checked against protocol/schema/protocol.schema.json),
// a scenario answered with what the harness gives directly, another suite
// answered notApplicable, garbage and malformed cases answered without a
// crash (the adapter keeps answering after them), stop, and --mutant.

import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runReplyValid, startAdapter as start, startReplyValid } from '../../test/protocol-client.mjs';
import { observeWorkspace } from '../observe.mjs';
import { createWorkspaceTools } from '../toolgate-workspace.mjs';
import { observationErrors } from '../validate.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const adapterPath = path.resolve(here, '../adapter.mjs');

const startAdapter = (args) => start(adapterPath, args);

function assertRunReply(reply, seq) {
  assert.ok(runReplyValid(reply), JSON.stringify(runReplyValid.errors));
  assert.equal(reply.seq, seq);
  if (reply.observation) assert.deepEqual(observationErrors(reply.observation), []);
}

const SCENARIO = {
  tree: [
    { path: 'ws', kind: 'dir' },
    { path: 'outside', kind: 'dir' },
    { path: 'outside/secret.txt', kind: 'file', content: 'secret' },
    { path: 'ws/escape', kind: 'symlink', target: '$BASE/outside' },
  ],
  shell: '/bin/bash',
  calls: [
    { tool: 'read', input: { path: 'escape/secret.txt' } },
    { tool: 'write', input: { path: 'd/x.txt', content: 'x' } },
    { tool: 'bash', input: { command: 'cat d/x.txt; echo " out" >&2' } },
  ],
};

test('start, run, notApplicable, errors without a crash, stop', async () => {
  const a = startAdapter();
  a.send({ cmd: 'start', protocol: 1 });
  const hello = await a.next();
  assert.ok(startReplyValid(hello), JSON.stringify(startReplyValid.errors));
  assert.deepEqual(hello, {
    protocol: 1,
    implementation: { name: 'toolgate-workspace', version: '0.1.0', language: 'javascript' },
    suites: ['workspace'],
    capabilities: ['workspace.bash', 'workspace.approval', 'workspace.interference'],
  });

  a.send({ cmd: 'run', seq: 1, case: { id: 'g/ok', suite: 'workspace', scenario: SCENARIO } });
  const r1 = await a.next();
  assertRunReply(r1, 1);
  assert.deepEqual(r1.observation, await observeWorkspace(createWorkspaceTools, SCENARIO));
  assert.deepEqual(r1.observation.results, [
    { content: 'path escapes workspace', isError: true },
    { content: 'wrote 1 characters to $BASE/ws/d/x.txt', isError: false },
    { content: 'x out\n', isError: false },
  ]);

  a.send({ cmd: 'run', seq: 2, case: { id: 'c/x', suite: 'core', scenario: {} } });
  const r2 = await a.next();
  assertRunReply(r2, 2);
  assert.match(r2.notApplicable.reason, /workspace suite only, not "core"/);

  // a malformed case: an error reply naming the field, not a crash
  a.send({ cmd: 'run', seq: 3, case: { id: 'g/bad', suite: 'workspace', scenario: { calls: [{ tool: 'edit' }] } } });
  const r3 = await a.next();
  assertRunReply(r3, 3);
  assert.match(r3.error.message, /^case g\/bad: the harness refused the scenario: scenario: calls\[0\]\.tool: "edit"/);

  a.send({ cmd: 'run', seq: 4, case: { id: 'g/tree', suite: 'workspace', scenario: { tree: [{ path: 'no/such', kind: 'file' }], calls: [] } } });
  const r4 = await a.next();
  assertRunReply(r4, 4);
  assert.match(r4.error.message, /ENOENT/);

  a.send({ cmd: 'run', seq: 5, case: null });
  assertRunReply(await a.next(), 5);

  // garbage is logged, not answered; an unknown command with a seq is answered
  a.send('not json');
  a.send('[1,2]');
  a.send({ cmd: 'run', case: {} });
  a.send({ cmd: 'dance', seq: 6 });
  const r6 = await a.next();
  assertRunReply(r6, 6);
  assert.match(r6.error.message, /unknown request "dance"/);

  // still alive and answering
  a.send({ cmd: 'run', seq: 7, case: { id: 'g/empty', suite: 'workspace', scenario: { calls: [] } } });
  const r7 = await a.next();
  assertRunReply(r7, 7);
  assert.deepEqual(r7.observation, { results: [], tree: [] });

  a.send({ cmd: 'stop' });
  assert.equal((await a.exited).code, 0);
  assert.equal(a.pendingReplies(), 0);
  assert.match(a.stderr(), /not JSON/);
});

test('end of stdin exits 0', async () => {
  const a = startAdapter();
  a.send({ cmd: 'start', protocol: 1 });
  await a.next();
  a.end();
  assert.equal((await a.exited).code, 0);
});

test('--mutant is applied and advertised in the version; an unknown one is a usage error', async () => {
  const a = startAdapter(['--mutant', 'bash-approved-by-default']);
  a.send({ cmd: 'start', protocol: 1 });
  const hello = await a.next();
  assert.equal(hello.implementation.version, '0.1.0+mutant.bash-approved-by-default');
  const scenario = { tree: [{ path: 'ws', kind: 'dir' }], shell: '/bin/bash', approval: 'denyBashByDefault', calls: [{ tool: 'bash', input: { command: 'echo ran' } }] };
  a.send({ cmd: 'run', seq: 1, case: { id: 'g/deny', suite: 'workspace', scenario } });
  const r = await a.next();
  assertRunReply(r, 1);
  assert.deepEqual(r.observation.results, [{ content: 'ran\n', isError: false }]);
  a.send({ cmd: 'stop' });
  assert.equal((await a.exited).code, 0);

  const b = startAdapter(['--mutant=no-such-mutant']);
  assert.equal((await b.exited).code, 2);
  assert.match(b.stderr(), /unknown mutant no-such-mutant/);
  const c = startAdapter(['--frobnicate']);
  assert.equal((await c.exited).code, 2);
});
