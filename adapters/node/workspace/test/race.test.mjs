// The race command (../race.mjs), node --test: it counts what a tool that
// goes outside does (a read returning the outside text, a file left
// outside, one made and removed), it finds nothing for a tool that stays
// inside, and the checked-open variant's read, which judges the file it
// opened, never returns the outside text while the swapper runs.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createCheckedTools } from '../checked-open.mjs';
import { escaped, race } from '../race.mjs';

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
});

test('race: the checked-open read never returns the outside text', async () => {
  const r = await race(createCheckedTools, { tool: 'read', calls: 1000, seconds: 30 });
  assert.equal(r.escapes.reads, 0, JSON.stringify(r));
  assert.ok(r.swaps > 0 && r.allowed + r.refused === r.calls, JSON.stringify(r));
});
