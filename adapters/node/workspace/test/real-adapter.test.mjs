// The real tools' protocol adapter (../real-adapter.mjs) as a child process,
// node --test: in its sandbox, the MCP filesystem server answers the
// handshake (no capability: bash and approval cases are skipped), and a
// scenario comes back graded `portable` with its results in the server's
// own words, the tree, and the transient file the server writes beside the
// root when asked to write the root itself (the watcher's `outside`);
// pi-coding-agent, which has no boundary, is refused outside the sandbox;
// a bad --runtime is a usage error.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runReplyValid, startAdapter, startReplyValid } from '../../test/protocol-client.mjs';
import { FOLDERS } from '../real-tools.mjs';
import { observationErrors } from '../validate.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const adapterPath = path.resolve(here, '../real-adapter.mjs');
const mcpInstalled = fs.existsSync(path.join(FOLDERS['mcp-server-filesystem'], 'node_modules/@modelcontextprotocol/server-filesystem'));

test('the MCP filesystem server in the sandbox: handshake, a portable observation, the transient file outside', { skip: !mcpInstalled && 'npm ci in runtimes/mcp-server-filesystem' }, async () => {
  const a = startAdapter(adapterPath, ['--runtime', 'mcp-server-filesystem']);
  const hello = await a.request({ cmd: 'start', protocol: 1 });
  assert.ok(startReplyValid(hello), JSON.stringify(startReplyValid.errors));
  assert.equal(hello.implementation.version, '2026.8.31');
  assert.deepEqual(hello.capabilities, []);
  const scenario = {
    tree: [
      { path: 'ws', kind: 'dir' },
      { path: 'outside', kind: 'dir' },
      { path: 'outside/secret.txt', kind: 'file', content: 'secret' },
    ],
    calls: [
      { tool: 'read', input: { path: '../outside/secret.txt' } },
      { tool: 'write', input: { path: 'a.txt', content: 'hello' } },
      { tool: 'write', input: { path: '.', content: 'x' } },
    ],
  };
  const reply = await a.request({ cmd: 'run', seq: 1, case: { id: 'g/mcp', suite: 'workspace', scenario } });
  assert.ok(runReplyValid(reply), JSON.stringify(runReplyValid.errors));
  const o = reply.observation;
  assert.deepEqual(observationErrors(o), []);
  assert.equal(o.grading, 'portable');
  assert.deepEqual(
    o.results.map((r) => r.isError),
    [true, false, true],
  );
  assert.match(o.results[0].content, /^Access denied - path outside allowed directories/);
  assert.deepEqual(
    o.tree.map((e) => e.path),
    ['outside', 'outside/secret.txt', 'ws', 'ws/a.txt'],
  );
  // made, written and removed beside the root: only the watcher sees it
  assert.ok(o.outside.length >= 2, JSON.stringify(o.outside));
  for (const change of o.outside) assert.match(change, /^(rename|change) \$BASE\/ws\.[0-9a-f]+\.tmp$/);
  assert.deepEqual(await a.stop(), { code: 0, signal: null });
});

test('pi-coding-agent runs in the sandbox only; --runtime must name a runtime', async () => {
  const pi = startAdapter(adapterPath, ['--runtime', 'pi-coding-agent', '--no-sandbox']);
  const piExit = await pi.exited;
  assert.equal(piExit.code, 2);
  assert.match(pi.stderr(), /pi-coding-agent writes wherever a path leads; it runs in the sandbox only/);
  const bad = startAdapter(adapterPath, ['--runtime', 'nope']);
  assert.equal((await bad.exited).code, 2);
  assert.match(bad.stderr(), /--runtime must be one of pi-coding-agent, mcp-server-filesystem, not "nope"/);
});
