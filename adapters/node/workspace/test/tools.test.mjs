// The facts of ../../../../docs/src/suites/workspace-facts.md (W<n>) on
// toolgate-workspace.mjs, called directly (node --test): one test per group
// of facts, asserting the exact messages Node 20 gives on Linux. Each test
// builds its tree in a fresh real directory (fs-tree.mjs), as the book's
// tests do with mkdtemp + realpath, in the calls' environment of the
// harness. The one test that waits for bash's 10 s timeout runs its three
// commands at once.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeTree } from '../../fs-tree.mjs';
import { CALL_ENVIRONMENT, CALL_ENVIRONMENT_REMOVED } from '../observe.mjs';
import {
  BASH_NEEDS_APPROVAL,
  MAX_READ_CHARS,
  allowAll,
  asObject,
  createWorkspaceTools,
  denyBashByDefault,
  isInside,
  stringField,
  workspacePath,
} from '../toolgate-workspace.mjs';

const BASH = '/bin/bash';

// The environment the harness gives the calls (observe.mjs): bash must not
// read the user's startup files, whatever SHLVL this process was given.
Object.assign(process.env, CALL_ENVIRONMENT);
for (const name of CALL_ENVIRONMENT_REMOVED) delete process.env[name];

/** The contract's fixture (workspace.md, "Harness entry points") under a fresh real base. */
function fixture(extra = []) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-ws-test-')));
  makeTree(base, [
    { path: 'ws', kind: 'dir' },
    { path: 'ws/a.txt', kind: 'file', content: 'hello' },
    { path: 'ws/sub', kind: 'dir' },
    { path: 'ws/file.txt', kind: 'file', content: 'f' },
    { path: 'ws/..foo', kind: 'file', content: 'dots' },
    { path: 'a.txt', kind: 'file', content: 'BASE' },
    { path: 'outside', kind: 'dir' },
    { path: 'outside/secret.txt', kind: 'file', content: 'secret' },
    { path: 'outside/file', kind: 'file', content: 'outfile' },
    { path: 'ws-evil', kind: 'dir' },
    { path: 'ws-evil/x.txt', kind: 'file', content: 'evil' },
    { path: 'ws/escape', kind: 'symlink', target: '../outside' },
    { path: 'ws/write-link', kind: 'symlink', target: '../outside/file' },
    { path: 'ws/dangling', kind: 'symlink', target: '../outside/newfile.txt' },
    { path: 'ws/up', kind: 'symlink', target: '..' },
    { path: 'ws/inlink', kind: 'symlink', target: 'sub' },
    { path: 'ws/loop', kind: 'symlink', target: 'loop' },
    { path: 'wslink', kind: 'symlink', target: 'ws' },
    ...extra,
  ]);
  const ws = path.join(base, 'ws');
  const [read, write, bash] = createWorkspaceTools(ws);
  return { base, ws, read, write, bash, done: () => fs.rmSync(base, { recursive: true, force: true }) };
}

const ok = (content) => ({ content });
const err = (content) => ({ content, isError: true });
const ESCAPES = err('path escapes workspace');
const enoent = (syscall, p) => err(`ENOENT: no such file or directory, ${syscall} '${p}'`);

/** Runs `fn` with $SHELL set to `shell` (null: unset), restoring it after. */
async function withShell(shell, fn) {
  const had = Object.hasOwn(process.env, 'SHELL');
  const before = process.env.SHELL;
  if (shell === null) delete process.env.SHELL;
  else process.env.SHELL = shell;
  try {
    return await fn();
  } finally {
    if (had) process.env.SHELL = before;
    else delete process.env.SHELL;
  }
}

/** A listing of outside/ and ws-evil*, to show nothing was made there. */
const outsideOf = (base) => ({
  outside: fs.readdirSync(path.join(base, 'outside')).sort(),
  file: fs.readFileSync(path.join(base, 'outside/file'), 'utf8'),
  evil: fs.readdirSync(path.join(base, 'ws-evil')).sort(),
  evil2: fs.existsSync(path.join(base, 'ws-evil2')),
});

test('W1-W4: three tools, their specs, extra fields accepted, the root fixed at construction', async () => {
  const f = fixture();
  try {
    const tools = createWorkspaceTools(f.ws);
    assert.deepEqual(tools.map((t) => t.spec.name), ['read', 'write', 'bash']);
    const schemas = Object.fromEntries(tools.map((t) => [t.spec.name, t.spec.inputSchema]));
    assert.deepEqual(schemas.write, {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    });
    assert.deepEqual(schemas.read, { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false });
    assert.deepEqual(schemas.bash, { type: 'object', properties: { command: { type: 'string' } }, required: ['command'], additionalProperties: false });
    for (const t of tools) {
      assert.equal(typeof t.spec.description, 'string');
      assert.equal(typeof t.execute, 'function');
    }
    // W3: additionalProperties is advertised, not enforced
    assert.deepEqual(await f.read.execute({ path: 'a.txt', extra: 1 }), ok('hello'));
    assert.deepEqual(await f.write.execute({ path: 'x.txt', content: 'x', mode: '0777' }), ok(`wrote 1 characters to ${f.ws}/x.txt`));
    await withShell(BASH, async () => assert.deepEqual(await f.bash.execute({ command: 'echo extra', timeout: 1 }), ok('extra\n')));
    // W4: a call cannot move the root; a relative path is the root's
    assert.deepEqual(await f.read.execute({ path: 'a.txt', root: f.base }), ok('hello'));
  } finally {
    f.done();
  }
});

test('W5-W7: stringField checks the type only; refusals are results with the seed\'s texts', async () => {
  const f = fixture();
  try {
    const READ = err('invalid read input: path must be a string');
    const WRITE = err('invalid write input: path and content must be strings');
    const BASHMSG = err('invalid bash input: command must be a string');
    for (const input of [undefined, null, [], ['a.txt'], 'a.txt', new String('a.txt'), 7, {}, { path: null }, { path: 1 }, { path: ['a.txt'] }, { path: new String('a.txt') }]) {
      assert.deepEqual(await f.read.execute(input), READ, `read ${String(input)}`);
    }
    for (const input of [undefined, null, {}, { path: 'w.txt' }, { content: 'x' }, { path: 'w.txt', content: 1 }, { path: 1, content: 'x' }]) {
      assert.deepEqual(await f.write.execute(input), WRITE, `write ${JSON.stringify(input)}`);
    }
    assert.equal(fs.existsSync(path.join(f.ws, 'w.txt')), false);
    for (const input of [undefined, null, {}, { command: 1 }, { command: null }]) assert.deepEqual(await f.bash.execute(input), BASHMSG);
    // an empty string is a string
    assert.deepEqual(await f.write.execute({ path: 'empty.txt', content: '' }), ok(`wrote 0 characters to ${f.ws}/empty.txt`));
    assert.equal(fs.statSync(path.join(f.ws, 'empty.txt')).size, 0);
    await withShell(BASH, async () => assert.deepEqual(await f.bash.execute({ command: '' }), ok('')));
    assert.equal(stringField({ a: '' }, 'a'), '');
    assert.equal(asObject([]), undefined);
    assert.equal(asObject(null), undefined);
    // W7: never thrown, even for an input whose field read throws
    const hostile = { get path() { throw new Error('getter'); } };
    assert.deepEqual(await f.read.execute(hostile), err('getter'));
  } finally {
    f.done();
  }
});

test('W8-W9: every escape is refused with "path escapes workspace", without effect', async () => {
  const f = fixture();
  try {
    const b = f.base;
    for (const p of ['../outside/secret.txt', '/etc/passwd', 'escape/secret.txt', 'write-link', 'up/outside/secret.txt', `${b}/ws-evil/x.txt`, '../ws-evil/x.txt']) {
      assert.deepEqual(await f.read.execute({ path: p }), ESCAPES, `read ${p}`);
    }
    const before = outsideOf(b);
    for (const p of ['../outside/new.txt', 'escape/new.txt', 'escape/newdir/deep.txt', 'write-link', `${b}/ws-evil/new.txt`, `${b}/ws-evil2/x/y.txt`, '/no-such-top-xyz/a.txt']) {
      assert.deepEqual(await f.write.execute({ path: p, content: 'W' }), ESCAPES, `write ${p}`);
    }
    assert.deepEqual(outsideOf(b), before);
    assert.equal(fs.existsSync('/no-such-top-xyz'), false);
    // the judgment itself
    assert.equal(isInside('/work', '/work-other/x'), false);
    assert.equal(isInside('/work', '/work'), true);
    assert.equal(isInside('/work', '/work/..foo'), true);
    assert.equal(isInside('/work', '/'), false);
    await assert.rejects(workspacePath(f.ws, '../outside', false), { message: 'path escapes workspace' });
    assert.equal(await workspacePath(f.ws, 'sub/new/x', true), `${f.ws}/sub/new/x`);
  } finally {
    f.done();
  }
});

test('W10-W13: read resolves before judging; absolute paths, inward links and lexical ..', async () => {
  const f = fixture();
  try {
    // W10: a missing path answers realpath's ENOENT, even outside
    assert.deepEqual(await f.read.execute({ path: '/etc/no-such-file-xyz' }), enoent('realpath', '/etc/no-such-file-xyz'));
    assert.deepEqual(await f.read.execute({ path: '../outside/missing.txt' }), enoent('realpath', `${f.base}/outside/missing.txt`));
    // W11
    assert.deepEqual(await f.read.execute({ path: `${f.ws}/a.txt` }), ok('hello'));
    assert.deepEqual(await f.read.execute({ path: `${f.base}/wslink/a.txt` }), ok('hello'));
    const [viaLink] = createWorkspaceTools(path.join(f.base, 'wslink'));
    assert.deepEqual(await viaLink.execute({ path: 'a.txt' }), ok('hello'));
    // W12
    assert.deepEqual(await f.read.execute({ path: 'up/ws/a.txt' }), ok('hello'));
    assert.deepEqual(await f.write.execute({ path: 'up/ws/back.txt', content: 'b' }), ok(`wrote 1 characters to ${f.ws}/up/ws/back.txt`));
    assert.equal(fs.readFileSync(path.join(f.ws, 'back.txt'), 'utf8'), 'b');
    assert.deepEqual(await f.write.execute({ path: 'inlink/new/deep.txt', content: 'd' }), ok(`wrote 1 characters to ${f.ws}/inlink/new/deep.txt`));
    assert.equal(fs.readFileSync(path.join(f.ws, 'sub/new/deep.txt'), 'utf8'), 'd');
    // W13: `..` before any symlink
    assert.deepEqual(await f.read.execute({ path: 'escape/../a.txt' }), ok('hello'));
  } finally {
    f.done();
  }
});

test('W14-W19: dangling links, NUL, the root itself, below a file, a missing root, backslashes', async () => {
  const f = fixture();
  try {
    const ws = f.ws;
    // W14
    assert.deepEqual(await f.read.execute({ path: 'dangling' }), enoent('realpath', `${ws}/dangling`));
    assert.deepEqual(await f.write.execute({ path: 'dangling', content: 'z' }), enoent('realpath', `${ws}/dangling`));
    assert.deepEqual(fs.readdirSync(path.join(f.base, 'outside')).sort(), ['file', 'secret.txt']);
    // W15
    const nul = err(`The argument 'path' must be a string, Uint8Array, or URL without null bytes. Received '${ws}/a\\x00b'`);
    assert.deepEqual(await f.read.execute({ path: 'a\0b' }), nul);
    assert.deepEqual(await f.write.execute({ path: 'a\0b', content: 'x' }), nul);
    assert.deepEqual(await f.write.execute({ path: 'nul.txt', content: 'a\0b' }), ok(`wrote 3 characters to ${ws}/nul.txt`));
    assert.equal(fs.readFileSync(path.join(ws, 'nul.txt'), 'utf8'), 'a\u0000b');
    // W16
    assert.deepEqual(await f.read.execute({ path: '' }), err('EISDIR: illegal operation on a directory, read'));
    assert.deepEqual(await f.read.execute({ path: '.' }), err('EISDIR: illegal operation on a directory, read'));
    assert.deepEqual(await f.write.execute({ path: '', content: 'x' }), err(`EISDIR: illegal operation on a directory, open '${ws}'`));
    // W17 (and ELOOP, reported as it is: WS-PATH-04)
    assert.deepEqual(await f.write.execute({ path: 'file.txt/sub/x.txt', content: 'x' }), err(`ENOTDIR: not a directory, lstat '${ws}/file.txt/sub/x.txt'`));
    assert.deepEqual(await f.write.execute({ path: 'loop/x', content: 'x' }), err(`ELOOP: too many symbolic links encountered, lstat '${ws}/loop/x'`));
    assert.deepEqual(await f.read.execute({ path: 'loop' }), err(`ELOOP: too many symbolic links encountered, realpath '${ws}/loop'`));
    // W18
    const missing = path.join(f.base, 'nope');
    const [r, w, b] = createWorkspaceTools(missing);
    assert.deepEqual(await r.execute({ path: 'a' }), enoent('realpath', missing));
    assert.deepEqual(await w.execute({ path: 'a', content: '' }), enoent('realpath', missing));
    await withShell(BASH, async () => assert.deepEqual(await b.execute({ command: 'true' }), enoent('realpath', missing)));
    assert.equal(fs.existsSync(missing), false);
    // W19
    assert.deepEqual(await f.read.execute({ path: '..\\outside\\secret.txt' }), enoent('realpath', `${ws}/..\\outside\\secret.txt`));
    assert.deepEqual(await f.read.execute({ path: '..foo' }), ok('dots'));
  } finally {
    f.done();
  }
});

test('W22-W23: read truncation by UTF-16 code units, with the marker', async () => {
  const f = fixture();
  try {
    let n = 0;
    const readText = async (content) => {
      n += 1;
      makeTree(f.base, [{ path: `ws/t${n}.txt`, kind: 'file', content }]);
      return (await f.read.execute({ path: `t${n}.txt` })).content;
    };
    assert.equal(MAX_READ_CHARS, 16000);
    const exact = 'a'.repeat(16000);
    assert.equal(await readText(exact), exact);
    const over = await readText('a'.repeat(8000) + 'b' + 'c'.repeat(8000));
    assert.equal(over, `${'a'.repeat(8000)}\n[truncated 1 characters]\n${'c'.repeat(8000)}`);
    assert.equal(over.length, 16026);
    assert.equal((await readText({ repeat: 'a', times: 18000 })).length, 16029);
    assert.match(await readText({ repeat: 'a', times: 18000 }), /\n\[truncated 2000 characters\]\n/);
    const big = await readText({ repeat: 'a', times: 100000 });
    assert.equal(big.length, 16030);
    assert.match(big, /\n\[truncated 84000 characters\]\n/);
    // code units, not bytes
    assert.equal(await readText({ repeat: 'é', times: 9000 }), 'é'.repeat(9000));
    const cut = await readText(['a'.repeat(7999), '😀', 'b'.repeat(10000)]);
    assert.equal(cut.charCodeAt(7999), 0xd83d);
    assert.equal(cut.isWellFormed(), false);
    assert.equal(cut.slice(8000, 8028), '\n[truncated 2001 characters]');
    // BOM kept, invalid bytes replaced
    assert.equal(await readText({ hex: 'efbbbf68ff69' }), '\ufeffh\ufffdi');
  } finally {
    f.done();
  }
});

test('W24: write makes parents, overwrites, and says what it wrote', async () => {
  const f = fixture();
  try {
    assert.deepEqual(await f.write.execute({ path: 'n1/n2/n3.txt', content: 'é😀' }), ok(`wrote 3 characters to ${f.ws}/n1/n2/n3.txt`));
    assert.equal(fs.readFileSync(path.join(f.ws, 'n1/n2/n3.txt'), 'utf8'), 'é😀');
    assert.deepEqual(await f.write.execute({ path: 'a.txt', content: 'bye' }), ok(`wrote 3 characters to ${f.ws}/a.txt`));
    assert.equal(fs.readFileSync(path.join(f.ws, 'a.txt'), 'utf8'), 'bye');
    assert.deepEqual(await f.write.execute({ path: `${f.ws}/abs.txt`, content: '' }), ok(`wrote 0 characters to ${f.ws}/abs.txt`));
  } finally {
    f.done();
  }
});

test('W25-W29, W33: bash runs $SHELL -c in the real root, unconfined, with Node\'s failure texts', async () => {
  const f = fixture();
  try {
    await withShell(BASH, async () => {
      const [, , viaLink] = createWorkspaceTools(path.join(f.base, 'wslink'));
      assert.deepEqual(await viaLink.execute({ command: 'pwd; pwd -P' }), ok(`${f.ws}\n${f.ws}\n`));
      assert.deepEqual(await f.bash.execute({ command: 'cat ../outside/secret.txt' }), ok('secret'));
      assert.deepEqual(await f.bash.execute({ command: 'echo err1>&2; echo out1; echo err2 >&2; echo out2' }), ok('out1\nout2\nerr1\nerr2\n'));
      const clip = await f.bash.execute({ command: 'head -c 60000 /dev/zero | tr "\\0" a; head -c 60000 /dev/zero | tr "\\0" b >&2' });
      assert.equal(clip.content, 'a'.repeat(60000) + 'b'.repeat(5536));
      assert.equal(clip.isError, undefined);
      assert.equal((await f.bash.execute({ command: 'head -c 65536 /dev/zero | tr "\\0" a' })).content.length, 65536);
      assert.deepEqual(await f.bash.execute({ command: 'head -c 65537 /dev/zero | tr "\\0" a' }), err('stdout maxBuffer length exceeded'));
      assert.deepEqual(await f.bash.execute({ command: 'head -c 65537 /dev/zero | tr "\\0" a >&2' }), err('stderr maxBuffer length exceeded'));
      // 40000 'é' (80000 bytes) on stdout
      assert.deepEqual(await f.bash.execute({ command: 'i=0; while [ $i -lt 5000 ]; do printf "éééééééé"; i=$((i+1)); done' }), err('stdout maxBuffer length exceeded'));
      assert.deepEqual(await f.bash.execute({ command: 'exit 3' }), err('Command failed: /bin/bash -c exit 3\n'));
      assert.deepEqual(await f.bash.execute({ command: 'echo out; echo err >&2; exit 1' }), err('Command failed: /bin/bash -c echo out; echo err >&2; exit 1\nerr\n'));
      assert.deepEqual(
        await f.bash.execute({ command: 'no-such-cmd-xyz' }),
        err('Command failed: /bin/bash -c no-such-cmd-xyz\n/bin/bash: line 1: no-such-cmd-xyz: command not found\n'),
      );
      // W33: an abort, before or while the command runs
      assert.deepEqual(await f.bash.execute({ command: 'sleep 5' }, AbortSignal.abort()), err('The operation was aborted'));
      const controller = new AbortController();
      const running = f.bash.execute({ command: 'sleep 5' }, controller.signal);
      controller.abort();
      assert.deepEqual(await running, err('The operation was aborted'));
    });
    await withShell(null, async () => {
      assert.deepEqual(await f.bash.execute({ command: 'echo out; echo err >&2; exit 1' }), err('Command failed: /bin/sh -c echo out; echo err >&2; exit 1\nerr\n'));
      assert.deepEqual(await f.bash.execute({ command: 'no-such-cmd-xyz' }), err('Command failed: /bin/sh -c no-such-cmd-xyz\n/bin/sh: 1: no-such-cmd-xyz: not found\n'));
    });
    await withShell('/no/such/shell', async () => assert.deepEqual(await f.bash.execute({ command: 'true' }), err('spawn /no/such/shell ENOENT')));
  } finally {
    f.done();
  }
});

/** Pids of processes whose command line is exactly `argv`. */
function pidsOf(argv) {
  const want = `${argv.join('\0')}\0`;
  return fs.readdirSync('/proc').filter((n) => {
    if (!/^\d+$/.test(n)) return false;
    try {
      return fs.readFileSync(`/proc/${n}/cmdline`, 'utf8') === want;
    } catch {
      return false;
    }
  });
}

test('W30-W32: the 10 s timeout kills only the shell; a held output pipe waits it out', async () => {
  const f = fixture();
  try {
    await withShell(BASH, async () => {
      const started = Date.now();
      const timed = (command) => f.bash.execute({ command }).then((result) => ({ result, ms: Date.now() - started }));
      // three at once: one 10 s wait for all. The sleeps' arguments carry
      // this process's pid, so the orphans found below are this run's only.
      const token = `${process.pid}`.padStart(7, '0');
      const [killed, survivor, held] = await Promise.all([
        timed('echo partial >&2; sleep 20'),
        timed(`sleep 11.${token}1; echo x > after.txt`),
        timed(`sleep 12.${token}1 & echo started`),
      ]);
      // W31: the grandchild outlived the shell. It is ended first (and the
      // background job of W32 with it), so that no assertion below leaves it
      // running and the command after it never runs.
      const orphans = [...pidsOf(['sleep', `11.${token}1`]), ...pidsOf(['sleep', `12.${token}1`])];
      for (const pid of orphans) process.kill(Number(pid));
      assert.equal(orphans.length, 2);
      for (const r of [killed, survivor, held]) assert.ok(r.ms >= 9800 && r.ms <= 10800, `${r.ms} ms`);
      assert.deepEqual(killed.result, err('Command failed: /bin/bash -c echo partial >&2; sleep 20\npartial\n'));
      assert.deepEqual(survivor.result, err(`Command failed: /bin/bash -c sleep 11.${token}1; echo x > after.txt\n`));
      assert.deepEqual(held.result, ok('started\n'));
      assert.equal(fs.existsSync(path.join(f.ws, 'after.txt')), false);
    });
  } finally {
    f.done();
  }
});

test('W34: denyBashByDefault refuses bash with the seed\'s text; read and write are allowed', () => {
  assert.deepEqual(denyBashByDefault('bash'), { allow: false, reason: BASH_NEEDS_APPROVAL });
  assert.equal(BASH_NEEDS_APPROVAL, 'bash requires an explicit approval policy');
  assert.deepEqual(denyBashByDefault('read'), { allow: true });
  assert.deepEqual(denyBashByDefault('write'), { allow: true });
  assert.deepEqual(allowAll('bash'), { allow: true });
});
