// The pinned server, started as the workspace suite starts it
// (../../../workspace/real-tools.mjs): its tools are there, a read inside the
// root works, reads and writes that leave it are refused without effect.
// Everything happens under a fresh temporary directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openRuntime } from '../../../workspace/real-tools.mjs';
import { timeLimit } from '../../test-support.mjs';

const LIMIT = timeLimit(20_000);

function fixture() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-fs-')));
  fs.mkdirSync(path.join(base, 'ws'));
  fs.mkdirSync(path.join(base, 'outside'));
  fs.writeFileSync(path.join(base, 'ws', 'a.txt'), 'hello');
  fs.writeFileSync(path.join(base, 'outside', 'secret.txt'), 'secret');
  fs.symlinkSync('../outside', path.join(base, 'ws', 'escape'));
  return base;
}

test('the pinned versions', LIMIT, async () => {
  const rt = await openRuntime('mcp-server-filesystem');
  assert.equal(rt.version, '2026.8.31');
  assert.match(rt.driver, /@modelcontextprotocol\/sdk 1\.32\.2/);
  assert.deepEqual(rt.tools, ['read', 'write']);
});

test('inside is read and written; outside is refused and left alone', LIMIT, async () => {
  const base = fixture();
  const rt = await openRuntime('mcp-server-filesystem');
  try {
    const [read, write] = await rt.createTools(path.join(base, 'ws'));
    assert.deepEqual(await read.execute({ path: 'a.txt' }), { content: 'hello', isError: false });
    assert.deepEqual(await write.execute({ path: 'b.txt', content: 'b' }), { content: 'Successfully wrote to b.txt', isError: false });
    assert.equal(fs.readFileSync(path.join(base, 'ws', 'b.txt'), 'utf8'), 'b');
    for (const p of ['../outside/secret.txt', 'escape/secret.txt', path.join(base, 'outside', 'secret.txt')]) {
      const r = await read.execute({ path: p });
      assert.equal(r.isError, true, p);
      assert.match(r.content, /^Access denied - /, p);
    }
    for (const p of ['../outside/new.txt', 'escape/new.txt']) {
      const r = await write.execute({ path: p, content: 'x' });
      assert.equal(r.isError, true, p);
      assert.match(r.content, /^Access denied - /, p);
    }
    assert.deepEqual(fs.readdirSync(path.join(base, 'outside')), ['secret.txt']);
    // a protocol error is a result too
    const invalid = await read.execute({ path: 1 });
    assert.equal(invalid.isError, true);
    assert.match(invalid.content, /^MCP error -32602: /);
  } finally {
    await rt.closeSessions();
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test('a root that is not a directory: the server exits, every call is an error', LIMIT, async () => {
  const base = fixture();
  const rt = await openRuntime('mcp-server-filesystem');
  try {
    const [read] = await rt.createTools(path.join(base, 'missing'));
    const r = await read.execute({ path: 'a.txt' });
    assert.equal(r.isError, true);
    assert.match(r.content, /None of the specified directories are accessible/);
  } finally {
    await rt.closeSessions();
    fs.rmSync(base, { recursive: true, force: true });
  }
});
