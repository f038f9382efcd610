// Grading another version of a real runtime (../real-tools.mjs,
// ../real-adapter.mjs, ../sandbox.mjs), node --test, on fake install folders
// (install-folder.mjs: a stand-in server under the real package's name):
//
// - the tool choice: read is read_text_file when the server lists it, else
//   read_file; the server's own list decides;
// - `--install` resolves against the caller's working directory, the hello
//   reports the version installed there, a folder without the package is a
//   usage error naming it;
// - the positive control: a server without the read tool, a relative path
//   resolved elsewhere, make the case an `error`, never an observation;
//   a server that does not start for a root that is a directory, or exits
//   during a call, too; a missing root is still the server's refusal;
// - the sandbox runs a checkout and an install folder under /tmp.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runReplyValid, startAdapter, startReplyValid } from '../../test/protocol-client.mjs';
import { MCP_TOOL_CHOICES, chooseMcpTool, exportedFile, openRuntime, positiveControl, serverDirectory } from '../real-tools.mjs';
import { INSIDE, sandboxCommand, sandboxFolders } from '../sandbox.mjs';
import { FAKE_VERSION, fakeInstall, fakeServerRuns, scratch } from './install-folder.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const adapterPath = path.resolve(here, '../real-adapter.mjs');
const needsServer = { skip: !fakeServerRuns && 'npm ci in runtimes/mcp-server-filesystem' };

const READ_CASE = {
  tree: [
    { path: 'ws', kind: 'dir' },
    { path: 'ws/a.txt', kind: 'file', content: 'hello' },
    { path: 'outside', kind: 'dir' },
    { path: 'outside/secret.txt', kind: 'file', content: 'secret' },
  ],
  calls: [
    { tool: 'read', input: { path: 'a.txt' } },
    { tool: 'read', input: { path: '../outside/secret.txt' } },
  ],
};
const WRITE_CASE = { tree: [{ path: 'ws', kind: 'dir' }], calls: [{ tool: 'write', input: { path: 'b.txt', content: 'b' } }] };
const run = (a, seq, scenario) => a.request({ cmd: 'run', seq, case: { id: `t/${seq}`, suite: 'workspace', scenario } }, 30_000);

test('the tool choice: the first of the choices the server lists', () => {
  assert.deepEqual(MCP_TOOL_CHOICES, { read: ['read_text_file', 'read_file'], write: ['write_file'] });
  assert.equal(chooseMcpTool('read', ['read_file', 'read_text_file', 'write_file']), 'read_text_file');
  assert.equal(chooseMcpTool('read', new Set(['read_file', 'write_file'])), 'read_file');
  assert.equal(chooseMcpTool('read', ['write_file', 'read_media_file']), undefined);
  assert.equal(chooseMcpTool('write', ['read_file', 'write_file']), 'write_file');
  assert.equal(chooseMcpTool('bash', ['read_file', 'write_file']), undefined);
});

test('an older server: read_file is called, a relative path is resolved in the root', needsServer, async () => {
  const rt = await openRuntime('mcp-server-filesystem', { install: fakeInstall({ tools: ['read_file', 'write_file'] }) });
  assert.equal(rt.version, FAKE_VERSION);
  const base = scratch();
  fs.mkdirSync(path.join(base, 'ws'));
  fs.writeFileSync(path.join(base, 'ws/a.txt'), 'hello');
  try {
    const [read, write] = await rt.createTools(path.join(base, 'ws'));
    assert.deepEqual(await read.execute({ path: 'a.txt' }), { content: 'hello', isError: false });
    assert.deepEqual(await write.execute({ path: 'b.txt', content: 'b' }), { content: 'wrote b.txt', isError: false });
    assert.equal(fs.readFileSync(path.join(base, 'ws/b.txt'), 'utf8'), 'b');
  } finally {
    assert.deepEqual(await rt.closeSessions(), []);
  }
  assert.equal(await positiveControl(rt, ['read', 'write'], { tmpdir: scratch() }), undefined);
});

test('the positive control names the read tool a server does not list', needsServer, async () => {
  const rt = await openRuntime('mcp-server-filesystem', { install: fakeInstall({ tools: ['write_file', 'list_directory'] }) });
  const failed = await positiveControl(rt, ['read'], { tmpdir: scratch() });
  assert.match(failed, /^the positive control failed/);
  assert.match(failed, /the server lists no read tool \(none of read_text_file, read_file; it lists list_directory, write_file\)/);
  assert.equal(await positiveControl(rt, ['write'], { tmpdir: scratch() }), undefined);
});

test('the positive control fails a tool that refuses a harmless call', needsServer, async () => {
  const rt = await openRuntime('mcp-server-filesystem', { install: fakeInstall({ tools: ['read_text_file', 'write_file'], refuse: 'control' }) });
  const failed = await positiveControl(rt, ['read', 'write'], { tmpdir: scratch() });
  assert.match(failed, /read \{"path":"control\.txt"\} was refused: refused control\.txt/);
  assert.match(failed, /write \{"path":"control-written\.txt",.*\} was refused/);
});

test('the server works from its root: the working directory is the root, or its nearest existing ancestor', () => {
  const base = scratch();
  fs.mkdirSync(path.join(base, 'ws'));
  fs.writeFileSync(path.join(base, 'file'), '');
  fs.symlinkSync('ws', path.join(base, 'link'));
  assert.equal(serverDirectory(path.join(base, 'ws')), path.join(base, 'ws'));
  assert.equal(serverDirectory(path.join(base, 'link')), path.join(base, 'link'));
  assert.equal(serverDirectory(path.join(base, 'missing/deeper')), base);
  assert.equal(serverDirectory(path.join(base, 'file')), base);
});

test('exports resolve as an import would: a pattern, conditions, no exports', () => {
  const dir = scratch();
  const write = (exportsField) => {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'p', ...(exportsField === undefined ? {} : { exports: exportsField }) }));
  };
  fs.mkdirSync(path.join(dir, 'dist/esm/client'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'dist/esm/client/index.js'), '');
  fs.mkdirSync(path.join(dir, 'client'));
  fs.writeFileSync(path.join(dir, 'client/index.js'), '');
  write({ './client': { import: './dist/esm/client/index.js' }, './*': { types: './x/*.d.ts', import: './dist/esm/*', require: './dist/cjs/*' } });
  assert.equal(exportedFile(dir, './client/index.js'), path.join(dir, 'dist/esm/client/index.js'));
  write({ './*': './dist/esm/*' });
  assert.equal(exportedFile(dir, './client/index.js'), path.join(dir, 'dist/esm/client/index.js'));
  write(undefined);
  assert.equal(exportedFile(dir, './client/index.js'), path.join(dir, 'client/index.js'));
  write({ '.': './index.js' });
  assert.throws(() => exportedFile(dir, './client/index.js'), /exports no \.\/client\/index\.js/);
});

/** The adapter started in `cwd` with `args`: its stdout lines and exit, for a hello. */
function helloIn(cwd, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [adapterPath, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err, replies: out.split('\n').filter(Boolean).map((l) => JSON.parse(l)) }));
    child.stdin.end(`${JSON.stringify({ cmd: 'start', protocol: 1 })}\n${JSON.stringify({ cmd: 'stop' })}\n`);
  });
}

test('--install is resolved against the caller\'s working directory; the hello reports the version there', needsServer, async () => {
  const parent = scratch();
  fakeInstall({ tools: ['read_text_file', 'write_file'] }, parent);
  const relative = await helloIn(parent, ['--runtime', 'mcp-server-filesystem', '--install', 'install', '--no-sandbox']);
  assert.equal(relative.code, 0, relative.err);
  assert.equal(relative.replies[0].implementation.version, FAKE_VERSION);
  const elsewhere = scratch();
  const missing = await helloIn(elsewhere, ['--runtime', 'mcp-server-filesystem', '--install', 'install', '--no-sandbox']);
  assert.equal(missing.code, 2);
  assert.equal(missing.out, '');
  assert.match(missing.err, new RegExp(`--install install: ${path.join(elsewhere, 'install')} does not exist`));
  fs.mkdirSync(path.join(elsewhere, 'empty'));
  const empty = await helloIn(elsewhere, ['--runtime', 'mcp-server-filesystem', '--install', 'empty', '--no-sandbox']);
  assert.equal(empty.code, 2);
  assert.match(empty.err, /@modelcontextprotocol\/server-filesystem is not installed in .*\/empty .*npm install @modelcontextprotocol\/server-filesystem@<version> --save-exact/);
});

test('a precondition that did not hold is an error reply, never an observation', needsServer, async () => {
  // no read tool: the control fails before the case
  const noRead = startAdapter(adapterPath, ['--runtime', 'mcp-server-filesystem', '--install', fakeInstall({ tools: ['write_file'] }), '--no-sandbox']);
  const hello = await noRead.request({ cmd: 'start', protocol: 1 });
  assert.ok(startReplyValid(hello), JSON.stringify(startReplyValid.errors));
  assert.equal(hello.implementation.version, FAKE_VERSION);
  const reply = await run(noRead, 1, READ_CASE);
  assert.ok(runReplyValid(reply), JSON.stringify(runReplyValid.errors));
  assert.equal(reply.observation, undefined);
  assert.match(reply.error.message, /positive control failed .*the server lists no read tool/);
  // the write-only case still runs
  const written = await run(noRead, 2, WRITE_CASE);
  assert.deepEqual(written.observation.results, [{ content: 'wrote b.txt', isError: false }]);
  assert.deepEqual(await noRead.stop(), { code: 0, signal: null });

  // the server does not start for the case's root, a directory (the control's root it serves)
  const picky = startAdapter(adapterPath, ['--runtime', 'mcp-server-filesystem', '--install', fakeInstall({ tools: ['read_text_file', 'write_file'], exitFor: 'ws' }), '--no-sandbox']);
  await picky.request({ cmd: 'start', protocol: 1 });
  const notStarted = await run(picky, 1, READ_CASE);
  assert.match(notStarted.error?.message ?? JSON.stringify(notStarted), /did not run as written.*the server did not start for the root \S+\/ws, a directory/);
  // a missing root: the server's refusal of it, graded
  const missingRoot = await run(picky, 2, { tree: [{ path: 'outside', kind: 'dir' }], calls: [{ tool: 'read', input: { path: 'a.txt' } }] });
  assert.equal(missingRoot.observation?.results[0].isError, true, JSON.stringify(missingRoot));
  assert.deepEqual(await picky.stop(), { code: 0, signal: null });

  // the server exits during a call
  const crashing = startAdapter(adapterPath, ['--runtime', 'mcp-server-filesystem', '--install', fakeInstall({ tools: ['read_text_file', 'write_file'], crashOn: 'boom' }), '--no-sandbox']);
  await crashing.request({ cmd: 'start', protocol: 1 });
  const lost = await run(crashing, 1, { tree: [{ path: 'ws', kind: 'dir' }], calls: [{ tool: 'read', input: { path: 'boom.txt' } }, { tool: 'read', input: { path: '../x' } }] });
  assert.match(lost.error?.message ?? JSON.stringify(lost), /read_text_file \{"path":"boom\.txt"\} lost its connection/);
  assert.deepEqual(await crashing.stop(), { code: 0, signal: null });
});

test('the sandbox shows a script and an install folder that lie under /tmp', needsServer, async () => {
  // a script of its own under the OS's temporary directory, run in the sandbox
  const dir = scratch('toolgate-sandboxed-script-');
  assert.ok(dir.startsWith('/tmp/'), dir);
  const script = path.join(dir, 'hello.mjs');
  fs.writeFileSync(script, "import fs from 'node:fs'; process.stdout.write(fs.readFileSync(new URL('./data.txt', import.meta.url), 'utf8'));");
  fs.writeFileSync(path.join(dir, 'data.txt'), 'seen inside');
  assert.ok(sandboxFolders([dir]).includes(dir));
  const [command, args] = sandboxCommand(script, []);
  const out = await new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, [INSIDE]: '1' } });
    let text = '';
    let err = '';
    child.stdout.on('data', (c) => (text += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, text, err }));
  });
  assert.deepEqual(out, { code: 0, text: 'seen inside', err: '' });

  // the adapter in its sandbox, on an install folder under /tmp
  const install = fakeInstall({ tools: ['read_file', 'write_file'] });
  assert.ok(install.startsWith('/tmp/'), install);
  const a = startAdapter(adapterPath, ['--runtime', 'mcp-server-filesystem', '--install', install]);
  const hello = await a.request({ cmd: 'start', protocol: 1 }, 30_000);
  assert.equal(hello.implementation.version, FAKE_VERSION);
  const reply = await run(a, 1, READ_CASE);
  assert.deepEqual(
    reply.observation?.results,
    [
      { content: 'hello', isError: false },
      { content: `Access denied - $BASE/outside/secret.txt not in $BASE/ws`, isError: true },
    ],
    JSON.stringify(reply),
  );
  assert.equal(reply.observation.outside, undefined, JSON.stringify(reply.observation.outside));
  assert.deepEqual(await a.stop(), { code: 0, signal: null });
});
