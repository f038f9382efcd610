// The workspace harness (../observe.mjs) and the tree fixtures
// (../../fs-tree.mjs), node --test: trees in and out (content forms, byte
// order, text or digest, link targets with $BASE), $BASE replaced in inputs
// and results, strings that are not valid Unicode as units, $SHELL set,
// unset and restored, the approval policies, aborts, a rejecting tool
// recorded as thrown, the base removed, malformed scenarios refused before
// anything is made, and every observation valid against the schema.

import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkTree, contentBytes, makeTree, snapshotTree } from '../../fs-tree.mjs';
import { checkScenario, observeWorkspace, substituteBase } from '../observe.mjs';
import { createWorkspaceTools } from '../toolgate-workspace.mjs';
import { observationErrors, scenarioErrors } from '../validate.mjs';

const freshBase = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-ws-test-')));
// The bases of the runs in `tmpdir` (a folder of this process, so that
// other runs' bases do not count) are all removed after each run.
const tmpdir = freshBase();
after(() => fs.rmSync(tmpdir, { recursive: true, force: true }));
const ours = () => fs.readdirSync(tmpdir);

/** Observes `scenario` on the faithful tools and checks the result against the schema. */
async function observe(scenario, options) {
  assert.deepEqual(scenarioErrors(scenario), []);
  const o = await observeWorkspace(createWorkspaceTools, scenario, { tmpdir, ...options });
  assert.deepEqual(ours(), [], 'the base is removed');
  assert.deepEqual(observationErrors(o), []);
  return o;
}

test('contentBytes: strings, repeats, hex and arrays of them', () => {
  assert.deepEqual(contentBytes(undefined), Buffer.alloc(0));
  assert.deepEqual(contentBytes('é'), Buffer.from([0xc3, 0xa9]));
  assert.deepEqual(contentBytes({ repeat: 'ab', times: 3 }), Buffer.from('ababab'));
  assert.deepEqual(contentBytes({ repeat: 'ab', times: 0 }), Buffer.alloc(0));
  assert.deepEqual(contentBytes({ hex: 'EFbbbf' }), Buffer.from([0xef, 0xbb, 0xbf]));
  assert.deepEqual(contentBytes(['x', { hex: 'ff' }, { repeat: 'y', times: 2 }]), Buffer.from([0x78, 0xff, 0x79, 0x79]));
  for (const bad of [1, null, { hex: 'f' }, { hex: 'zz' }, { repeat: 'a' }, { repeat: 'a', times: -1 }, { repeat: 'a', times: 1.5 }, { repeat: 'a', times: 1, x: 1 }, [['a']], '\ud800', { repeat: 'a', times: 2 ** 40 }]) {
    assert.throws(() => contentBytes(bad), /^Error: tree: /, JSON.stringify(bad));
  }
});

test('checkTree refuses what the format does not allow', () => {
  for (const [entries, message] of [
    [{}, /an array/],
    [[{ path: '/abs', kind: 'dir' }], /not a relative path/],
    [[{ path: 'a/../b', kind: 'dir' }], /not a relative path/],
    [[{ path: 'a//b', kind: 'dir' }], /not a relative path/],
    [[{ path: 'a/./b', kind: 'dir' }], /not a relative path/],
    [[{ path: 'a/', kind: 'dir' }], /not a relative path/],
    [[{ path: '', kind: 'dir' }], /not a relative path/],
    [[{ path: 'a', kind: 'fifo' }], /not dir, file or symlink/],
    [[{ path: 'a', kind: 'dir', content: 'x' }], /a dir has no field "content"/],
    [[{ path: 'a', kind: 'file', target: 'x' }], /a file has no field "target"/],
    [[{ path: 'a', kind: 'symlink' }], /target: a non-empty string/],
    [[{ path: 'a', kind: 'symlink', target: '' }], /target: a non-empty string/],
  ]) {
    assert.throws(() => checkTree(entries), message, JSON.stringify(entries));
  }
});

test('makeTree and snapshotTree: entries out sorted by UTF-8 bytes, text or digest, targets with $BASE', () => {
  const base = freshBase();
  try {
    const big = 'x'.repeat(4097);
    makeTree(base, [
      { path: 'ws', kind: 'dir' },
      { path: 'ws/z', kind: 'file', content: 'z' },
      { path: 'ws/é', kind: 'file', content: 'e' },
      { path: 'ws-evil/deep/er', kind: 'dir' },
      { path: 'ws/empty', kind: 'file' },
      { path: 'ws/bom', kind: 'file', content: { hex: 'efbbbf6869' } },
      { path: 'ws/bad', kind: 'file', content: { hex: 'ff' } },
      { path: 'ws/limit', kind: 'file', content: { repeat: 'x', times: 4096 } },
      { path: 'ws/big', kind: 'file', content: big },
      { path: 'ws/abs', kind: 'symlink', target: '$BASE/ws-evil' },
      { path: 'ws/rel', kind: 'symlink', target: '../ws-evil' },
      { path: 'ws/dangling', kind: 'symlink', target: 'nowhere/$BASE' },
      { path: 'ws/loop', kind: 'symlink', target: 'loop' },
    ]);
    assert.equal(fs.readlinkSync(path.join(base, 'ws/abs')), `${base}/ws-evil`);
    const sha = (s) => createHash('sha256').update(s).digest('hex');
    assert.deepEqual(snapshotTree(base), [
      { path: 'ws', kind: 'dir' },
      { path: 'ws-evil', kind: 'dir' },
      { path: 'ws-evil/deep', kind: 'dir' },
      { path: 'ws-evil/deep/er', kind: 'dir' },
      { path: 'ws/abs', kind: 'symlink', target: '$BASE/ws-evil' },
      { path: 'ws/bad', kind: 'file', size: 1, sha256: sha(Buffer.from([0xff])) },
      { path: 'ws/big', kind: 'file', size: 4097, sha256: sha(big) },
      { path: 'ws/bom', kind: 'file', content: '\ufeffhi' },
      { path: 'ws/dangling', kind: 'symlink', target: 'nowhere/$BASE' },
      { path: 'ws/empty', kind: 'file', content: '' },
      { path: 'ws/limit', kind: 'file', content: 'x'.repeat(4096) },
      { path: 'ws/loop', kind: 'symlink', target: 'loop' },
      { path: 'ws/rel', kind: 'symlink', target: '../ws-evil' },
      { path: 'ws/z', kind: 'file', content: 'z' },
      { path: 'ws/é', kind: 'file', content: 'e' },
    ]);
    // a file listed twice, or below a missing directory, is refused by the OS
    assert.throws(() => makeTree(base, [{ path: 'ws/z', kind: 'file' }]), /EEXIST/);
    assert.throws(() => makeTree(base, [{ path: 'no/such', kind: 'file' }]), /ENOENT/);
    // a kind the format has no name for
    execFileSync('mkfifo', [path.join(base, 'ws/fifo')]);
    assert.throws(() => snapshotTree(base), /ws\/fifo is neither a directory, a file nor a symlink/);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});

test('observeWorkspace: $BASE in inputs and results, absent input, approval, the tree after, the base removed', async () => {
  const o = await observe({
    tree: [
      { path: 'ws', kind: 'dir' },
      { path: 'ws/a.txt', kind: 'file', content: 'hello' },
      { path: 'outside', kind: 'dir' },
      { path: 'outside/secret.txt', kind: 'file', content: 'secret' },
      { path: 'ws/escape', kind: 'symlink', target: '../outside' },
    ],
    root: 'ws',
    shell: '/bin/bash',
    approval: 'denyBashByDefault',
    calls: [
      { tool: 'read', input: { path: 'escape/secret.txt' } },
      { tool: 'write', input: { path: 'new/deep.txt', content: 'x' } },
      { tool: 'bash', input: { command: 'sleep 5' }, abort: 'before' },
      { tool: 'read', input: { path: '$BASE/ws/a.txt', $BASE: 1 } },
      { tool: 'read', input: { path: '$BASE/outside/missing' } },
      { tool: 'read' },
    ],
  });
  assert.deepEqual(o, {
    results: [
      { content: 'path escapes workspace', isError: true },
      { content: 'wrote 1 characters to $BASE/ws/new/deep.txt', isError: false },
      { content: 'bash requires an explicit approval policy', isError: true },
      { content: 'hello', isError: false },
      { content: "ENOENT: no such file or directory, realpath '$BASE/outside/missing'", isError: true },
      { content: 'invalid read input: path must be a string', isError: true },
    ],
    tree: [
      { path: 'outside', kind: 'dir' },
      { path: 'outside/secret.txt', kind: 'file', content: 'secret' },
      { path: 'ws', kind: 'dir' },
      { path: 'ws/a.txt', kind: 'file', content: 'hello' },
      { path: 'ws/escape', kind: 'symlink', target: '../outside' },
      { path: 'ws/new', kind: 'dir' },
      { path: 'ws/new/deep.txt', kind: 'file', content: 'x' },
    ],
  });
  assert.deepEqual(ours(), []);
});

test('substituteBase replaces $BASE in every string value, never in keys', () => {
  assert.deepEqual(substituteBase({ $BASE: ['$BASE/a', { k: '$BASE$BASE' }, 1, null, true] }, '/b'), { $BASE: ['/b/a', { k: '/b/b' }, 1, null, true] });
  assert.equal(substituteBase('no', '/b'), 'no');
});

test('observeWorkspace: a result that is not valid Unicode is recorded as units', async () => {
  const o = await observe({
    tree: [{ path: 'ws', kind: 'dir' }, { path: 'ws/e.txt', kind: 'file', content: [{ repeat: 'a', times: 7999 }, '😀', { repeat: 'b', times: 9000 }] }],
    calls: [{ tool: 'read', input: { path: 'e.txt' } }],
  });
  const [r] = o.results;
  assert.equal(r.isError, false);
  assert.equal(r.content.$, 'string');
  assert.equal(r.content.units.length, 16029);
  assert.equal(r.content.units[7999], 0xd83d);
  assert.equal(String.fromCharCode(...r.content.units.slice(8000, 8028)), '\n[truncated 1001 characters]');
});

test('observeWorkspace: $SHELL set, unset, and restored after', async () => {
  const had = Object.hasOwn(process.env, 'SHELL');
  const saved = process.env.SHELL;
  process.env.SHELL = '/bin/outer';
  try {
    const calls = [{ tool: 'bash', input: { command: 'no-such-cmd-xyz' } }];
    const dash = await observe({ tree: [{ path: 'ws', kind: 'dir' }], calls });
    assert.deepEqual(dash.results, [{ content: 'Command failed: /bin/sh -c no-such-cmd-xyz\n/bin/sh: 1: no-such-cmd-xyz: not found\n', isError: true }]);
    assert.equal(process.env.SHELL, '/bin/outer');
    const bash = await observe({ tree: [{ path: 'ws', kind: 'dir' }], shell: '/bin/bash', calls });
    assert.deepEqual(bash.results, [{ content: 'Command failed: /bin/bash -c no-such-cmd-xyz\n/bin/bash: line 1: no-such-cmd-xyz: command not found\n', isError: true }]);
    delete process.env.SHELL;
    await observe({ tree: [{ path: 'ws', kind: 'dir' }], shell: '/bin/bash', calls });
    assert.equal(Object.hasOwn(process.env, 'SHELL'), false);
  } finally {
    if (had) process.env.SHELL = saved;
    else delete process.env.SHELL;
  }
});

test('observeWorkspace: the calls\' environment reads no shell startup file and is restored after', async () => {
  const home = freshBase();
  fs.writeFileSync(path.join(home, '.bashrc'), 'echo from-bashrc\n');
  fs.writeFileSync(path.join(home, 'env.sh'), 'echo from-bash-env\n');
  const names = ['HOME', 'SHLVL', 'BASH_ENV', 'LC_ALL', 'CDPATH'];
  const saved = names.map((n) => [n, Object.hasOwn(process.env, n), process.env[n]]);
  // as a runner started outside a shell may have it: bash -c with a socket
  // for stdin and no SHLVL reads ~/.bashrc, and any bash reads $BASH_ENV
  Object.assign(process.env, { HOME: home, SHLVL: '0', BASH_ENV: path.join(home, 'env.sh'), CDPATH: home });
  delete process.env.LC_ALL;
  try {
    const o = await observe({
      tree: [{ path: 'ws', kind: 'dir' }, { path: 'ws/d', kind: 'dir' }],
      shell: '/bin/bash',
      calls: [{ tool: 'bash', input: { command: 'cd d && echo in' } }, { tool: 'bash', input: { command: 'echo "$SHLVL $LC_ALL"' } }],
    });
    assert.deepEqual(o.results, [{ content: 'in\n', isError: false }, { content: '2 C\n', isError: false }]);
    assert.deepEqual([process.env.SHLVL, process.env.BASH_ENV, process.env.CDPATH, process.env.LC_ALL], ['0', path.join(home, 'env.sh'), home, undefined]);
  } finally {
    for (const [n, had, v] of saved) {
      if (had) process.env[n] = v;
      else delete process.env[n];
    }
    fs.rmSync(home, { recursive: true, force: true });
  }
});

test('observeWorkspace: aborts before and during, a missing root, a symlinked root', async () => {
  const o = await observe({
    tree: [{ path: 'real', kind: 'dir' }, { path: 'ws', kind: 'symlink', target: 'real' }],
    shell: '/bin/bash',
    calls: [
      { tool: 'bash', input: { command: 'sleep 5; touch x' }, abort: 'before' },
      { tool: 'bash', input: { command: 'sleep 5' }, abort: 'during' },
      { tool: 'bash', input: { command: 'pwd' } },
    ],
  });
  assert.deepEqual(o.results, [
    { content: 'The operation was aborted', isError: true },
    { content: 'The operation was aborted', isError: true },
    { content: '$BASE/real\n', isError: false },
  ]);
  const missing = await observe({ root: 'nope', calls: [{ tool: 'write', input: { path: 'a', content: '' } }] });
  assert.deepEqual(missing, { results: [{ content: "ENOENT: no such file or directory, realpath '$BASE/nope'", isError: true }], tree: [] });
});

test('observeWorkspace: a tool that rejects is recorded as thrown; options.policies replaces a hook', async () => {
  const throwing = (root) =>
    createWorkspaceTools(root).map((t) => ({
      ...t,
      async execute(input, signal) {
        const r = await t.execute(input, signal);
        if (r.isError) throw new Error(r.content);
        return r;
      },
    }));
  const o = await observeWorkspace(throwing, { tree: [{ path: 'ws', kind: 'dir' }], calls: [{ tool: 'read', input: { path: 'x' } }, { tool: 'read', input: { path: '.' } }] });
  assert.deepEqual(o.results, [{ thrown: "ENOENT: no such file or directory, realpath '$BASE/ws/x'" }, { thrown: 'EISDIR: illegal operation on a directory, read' }]);
  assert.deepEqual(observationErrors(o), []);
  const allowed = await observeWorkspace(
    createWorkspaceTools,
    { tree: [{ path: 'ws', kind: 'dir' }], shell: '/bin/bash', approval: 'denyBashByDefault', calls: [{ tool: 'bash', input: { command: 'echo ran' } }] },
    { policies: { denyBashByDefault: () => ({ allow: true }) } },
  );
  assert.deepEqual(allowed.results, [{ content: 'ran\n', isError: false }]);
  // a tool resolving with something that is not a result is the harness's error
  await assert.rejects(
    observeWorkspace((root) => createWorkspaceTools(root).map((t) => ({ ...t, execute: async () => 'text' })), { calls: [{ tool: 'read', input: {} }] }),
    /calls\[0\]: the tool resolved with "text"/,
  );
});

test('observeWorkspace: the watcher records changes outside the root, transient ones too, and only there', async () => {
  // a write that goes through a temporary file beside the root (as the MCP
  // filesystem server does for the root itself) and one beside the base
  const leaky = (root) =>
    createWorkspaceTools(root).map((t) =>
      t.spec.name !== 'write'
        ? t
        : {
            ...t,
            async execute(input, signal) {
              fs.writeFileSync(`${root}.1a2b.tmp`, input.content);
              fs.rmSync(`${root}.1a2b.tmp`);
              fs.writeFileSync(path.join(root, '..', '..', 'beside.txt'), 'x');
              fs.rmSync(path.join(root, '..', '..', 'beside.txt'));
              return t.execute(input, signal);
            },
          },
    );
  const scenario = { tree: [{ path: 'ws', kind: 'dir' }, { path: 'out', kind: 'dir' }], calls: [{ tool: 'write', input: { path: 'a.txt', content: 'hi' } }] };
  const o = await observe(scenario);
  assert.equal(o.outside, undefined, 'the faithful write changes nothing outside');
  const leaked = await observeWorkspace(leaky, scenario, { tmpdir, grading: 'portable' });
  assert.equal(leaked.grading, 'portable');
  assert.deepEqual([...new Set(leaked.outside)].sort(), ['change $BASE/../beside.txt', 'change $BASE/ws.1a2b.tmp', 'rename $BASE/../beside.txt', 'rename $BASE/ws.1a2b.tmp']);
  assert.deepEqual(observationErrors(leaked), []);
  // the same tool inside a scenario with bash is not watched (bash is not confined)
  const unwatched = await observeWorkspace(leaky, { ...scenario, calls: [...scenario.calls, { tool: 'bash', input: { command: 'true' } }] }, { tmpdir });
  assert.equal(unwatched.outside, undefined);
  assert.deepEqual(ours(), []);
});

test('malformed scenarios are refused before anything is made, by the harness and the schema alike', async () => {
  const bad = [
    null,
    [],
    { calls: [], extra: 1 },
    {},
    { calls: {} },
    { calls: [{ tool: 'edit' }] },
    { calls: [{ tool: 'read', abort: 'before' }] },
    { calls: [{ tool: 'bash', abort: 'later' }] },
    { calls: [{ tool: 'bash', signal: true }] },
    { calls: [], root: '../up' },
    { calls: [], root: '/abs' },
    { calls: [], shell: 'bash' },
    { calls: [], shell: 1 },
    { calls: [], approval: 'denyAll' },
    { calls: [], tree: [{ path: 'a/../b', kind: 'dir' }] },
    { calls: [], tree: [{ path: 'a', kind: 'file', content: { hex: 'abc' } }] },
  ];
  for (const scenario of bad) {
    assert.throws(() => checkScenario(scenario), /^Error: (scenario|tree): /, JSON.stringify(scenario));
    await assert.rejects(observeWorkspace(createWorkspaceTools, scenario, { tmpdir }), /^Error: (scenario|tree): /);
    assert.notDeepEqual(scenarioErrors(scenario), [], JSON.stringify(scenario));
  }
  assert.deepEqual(ours(), []);
  // a scenario the schema allows but the OS does not build: refused, base removed
  await assert.rejects(observeWorkspace(createWorkspaceTools, { tree: [{ path: 'no/such', kind: 'file' }], calls: [] }, { tmpdir }), /ENOENT/);
  assert.deepEqual(ours(), []);
});

test('observeWorkspace: a swap is made between the check and the use, once, and only when the check passes', async () => {
  const tree = [
    { path: 'ws', kind: 'dir' },
    { path: 'ws/a.txt', kind: 'file', content: 'inside' },
    { path: 'outside', kind: 'dir' },
    { path: 'outside/s.txt', kind: 'file', content: 'OUT' },
  ];
  const swap = { path: 'ws/a.txt', target: '../outside/s.txt' };
  // the seed reads through the link swapped in after its check (W21)
  const o = await observe({ tree, calls: [{ tool: 'read', input: { path: 'a.txt' }, swap }, { tool: 'read', input: { path: 'a.txt~' } }] });
  assert.deepEqual(o.results, [{ content: 'OUT', isError: false }, { content: 'inside', isError: false }]);
  assert.deepEqual(
    o.tree.filter((e) => e.path.startsWith('ws/')),
    [
      { path: 'ws/a.txt', kind: 'symlink', target: '../outside/s.txt' },
      { path: 'ws/a.txt~', kind: 'file', content: 'inside' },
    ],
  );
  // a refused check: no swap
  const refused = await observe({ tree, calls: [{ tool: 'read', input: { path: '../outside/s.txt' }, swap: { path: 'ws/x', target: '/' } }] });
  assert.equal(refused.results[0].content, 'path escapes workspace');
  assert.ok(!refused.tree.some((e) => e.path === 'ws/x'));
  // a tool that never calls the hook and allows the call cannot be judged on the race
  await assert.rejects(
    observeWorkspace((root) => createWorkspaceTools(root), { tree, calls: [{ tool: 'read', input: { path: 'a.txt' }, swap }] }, { tmpdir }),
    /calls\[0\]\.swap: the tool allowed the call without calling interference\.afterCheck/,
  );
  // a swap the filesystem refuses (its path's parent is missing) is the harness's error
  await assert.rejects(
    observeWorkspace(createWorkspaceTools, { tree, calls: [{ tool: 'write', input: { path: 'a.txt', content: '' }, swap: { path: 'ws/no/a.txt', target: '/' } }] }, { tmpdir }),
    /calls\[0\]\.swap: ENOENT/,
  );
  assert.deepEqual(ours(), []);
  for (const [call, message] of [
    [{ tool: 'bash', input: { command: 'true' }, swap }, /only a read or a write/],
    [{ tool: 'read', input: {}, swap: 'ws/a' }, /\{path, target\}/],
    [{ tool: 'read', input: {}, swap: { path: 'ws/a', target: 'x', extra: 1 } }, /unknown field "extra"/],
    [{ tool: 'read', input: {}, swap: { path: '../a', target: 'x' } }, /swap\.path/],
    [{ tool: 'read', input: {}, swap: { path: 'ws/a', target: '' } }, /swap\.target/],
    [{ tool: 'read', input: {}, swap: { path: 'ws/a', target: 'a\0b' } }, /swap\.target/],
  ]) {
    assert.throws(() => checkScenario({ calls: [call] }), message, JSON.stringify(call));
  }
});
