// The race command (../race.mjs), node --test: it counts what a tool that
// goes outside does (a read returning the outside text, a file left
// outside, one made and removed), it finds nothing for a tool that stays
// inside, and the checked-open variant's read, which judges the file it
// opened, never returns the outside text while the swapper runs. A race
// whose calls were (nearly) all refused is inconclusive, never "nothing
// outside reached": its verdict, its exit status 3, and the command on a
// real runtime (a fake install folder, install-folder.mjs) that refuses
// every raced call but passes the positive control; one that fails the
// control cannot be raced (exit 2).

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createCheckedTools } from '../checked-open.mjs';
import { EXIT_INCONCLUSIVE, MIN_ALLOWED, escaped, exitStatus, minimumAllowed, race, verdict } from '../race.mjs';
import { fakeInstall, fakeServerRuns } from './install-folder.mjs';

const racePath = fileURLToPath(new URL('../race.mjs', import.meta.url));

/** Tools whose read and write ignore the path and go to `../outside`. */
const leaking = (root) => [
  { spec: { name: 'read' }, execute: async () => ({ content: fs.readFileSync(path.join(root, '../outside/b.txt'), 'utf8') }) },
  {
    spec: { name: 'write' },
    execute: async (input) => {
      const name = path.basename(input.path);
      fs.writeFileSync(path.join(root, '../outside', name), 'x');
      // and one made and removed again
      fs.writeFileSync(path.join(root, '../outside', `${name}.tmp`), 'x');
      fs.rmSync(path.join(root, '../outside', `${name}.tmp`));
      return { content: 'ok' };
    },
  },
];

/** Tools that answer without touching anything. */
const inert = () => [
  { spec: { name: 'read' }, execute: async () => ({ content: 'inside' }) },
  { spec: { name: 'write' }, execute: async () => ({ content: 'no', isError: true }) },
];

test('race: every escape of a leaking tool is counted', async () => {
  const read = await race(leaking, { tool: 'read', calls: 20, seconds: 30 });
  assert.equal(read.calls, 20);
  assert.equal(read.escapes.reads, 20);
  assert.ok(escaped(read));
  const write = await race(leaking, { tool: 'write', calls: 5, seconds: 30 });
  assert.deepEqual(write.escapes.outside, ['outside/w-0.txt', 'outside/w-1.txt', 'outside/w-2.txt', 'outside/w-3.txt', 'outside/w-4.txt']);
  assert.ok(write.escapes.transient.some((c) => c.endsWith('$BASE/outside/w-0.txt.tmp')), write.escapes.transient.join('\n'));
});

test('race: a tool that stays inside reaches nothing, and the swapper swapped meanwhile', async () => {
  for (const tool of ['read', 'write']) {
    const r = await race(inert, { tool, calls: 200, seconds: 30 });
    assert.equal(escaped(r), false, JSON.stringify(r));
    assert.ok(r.swaps > 0, JSON.stringify(r));
  }
  const read = await race(inert, { tool: 'read', calls: 200, seconds: 30 });
  assert.equal(read.allowed, 200);
  assert.equal(verdict(read), 'nothing-reached');
});

/** Tools that refuse every call. */
const refusing = () => [
  { spec: { name: 'read' }, execute: async () => ({ content: 'no', isError: true }) },
  { spec: { name: 'write' }, execute: async () => ({ content: 'no', isError: true }) },
];

test('race: a race with (nearly) every call refused is inconclusive, not "nothing reached"', async () => {
  assert.equal(MIN_ALLOWED, 50);
  assert.equal(minimumAllowed(5000), 50);
  assert.equal(minimumAllowed(100000), 50);
  assert.equal(minimumAllowed(1000), 10);
  assert.equal(minimumAllowed(20), 1);
  for (const tool of ['read', 'write']) {
    const r = await race(refusing, { tool, calls: 300, seconds: 30 });
    assert.equal(r.allowed, 0, JSON.stringify(r));
    assert.equal(escaped(r), false);
    assert.equal(verdict(r), 'inconclusive');
  }
  const few = { calls: 5000, allowed: 49, refused: 4951, escapes: { reads: 0, outside: [], transient: [] } };
  assert.equal(verdict(few), 'inconclusive');
  assert.equal(verdict({ ...few, allowed: 50 }), 'nothing-reached');
  assert.equal(verdict(few, 10), 'nothing-reached');
  // an escape is judged whatever the count
  assert.equal(verdict({ ...few, allowed: 1, escapes: { reads: 1, outside: [], transient: [] } }), 'escaped');
});

test('race: the exit status tells inconclusive (3) from judged (0) and escaped (1 with --fail-on-escape)', () => {
  assert.equal(EXIT_INCONCLUSIVE, 3);
  assert.equal(exitStatus(['nothing-reached', 'escaped']), 0);
  assert.equal(exitStatus(['nothing-reached', 'escaped'], { failOnEscape: true }), 1);
  assert.equal(exitStatus(['nothing-reached', 'inconclusive']), 3);
  assert.equal(exitStatus(['inconclusive', 'escaped'], { failOnEscape: true }), 1);
  assert.equal(exitStatus(['inconclusive', 'escaped']), 3);
});

/** race.mjs with `args`: `{code, stdout, stderr}`. */
function raceCommand(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [racePath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('race.mjs: a real runtime that refuses every raced call is inconclusive (exit 3); one failing the control is not raced (exit 2)', { skip: !fakeServerRuns && 'npm ci in runtimes/mcp-server-filesystem' }, async () => {
  const refuses = fakeInstall({ tools: ['read_text_file', 'write_file'], refuse: 'sub/' });
  const r = await raceCommand(['--runtime', 'mcp-server-filesystem', '--install', refuses, '--no-sandbox', '--calls', '200', '--json']);
  assert.equal(r.code, 3, r.stderr);
  const results = JSON.parse(r.stdout);
  assert.deepEqual(
    results.map((x) => [x.tool, x.allowed, x.minAllowed, x.verdict]),
    [
      ['read', 0, 2, 'inconclusive'],
      ['write', 0, 2, 'inconclusive'],
    ],
  );
  const text = await raceCommand(['--runtime', 'mcp-server-filesystem', '--install', refuses, '--no-sandbox', '--calls', '200', '--tool', 'read']);
  assert.equal(text.code, 3);
  assert.match(text.stdout, /0 allowed, 200 refused; INCONCLUSIVE: 0 allowed, fewer than the 2 a race needs/);
  assert.doesNotMatch(text.stdout, /nothing outside reached/);

  const noRead = fakeInstall({ tools: ['write_file'] });
  const control = await raceCommand(['--runtime', 'mcp-server-filesystem', '--install', noRead, '--no-sandbox', '--calls', '50']);
  assert.equal(control.code, 2);
  assert.match(control.stderr, /the race of mcp-server-filesystem could not run: the positive control failed .*the server lists no read tool/);
  assert.equal(control.stdout, '');

  const two = await raceCommand(['--runtime', 'mcp-server-filesystem', '--runtime', 'pi-coding-agent', '--install', refuses]);
  assert.equal(two.code, 2);
  assert.match(two.stderr, /--install names the folder of one real runtime/);
});

test('race: the checked-open read never returns the outside text', async () => {
  const r = await race(createCheckedTools, { tool: 'read', calls: 1000, seconds: 30 });
  assert.equal(r.escapes.reads, 0, JSON.stringify(r));
  assert.ok(r.swaps > 0 && r.allowed + r.refused === r.calls, JSON.stringify(r));
});
