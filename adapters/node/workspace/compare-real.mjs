#!/usr/bin/env node
// Runs the workspace corpus on real file tools (real-tools.mjs) and compares
// what they do with the seed's expectations, on a portable reading: whether
// each call was allowed or refused, the tree afterwards, whether a read
// returned the file's text, and anything touched outside the root.
//
//   node adapters/node/workspace/compare-real.mjs                 # both runtimes
//   node adapters/node/workspace/compare-real.mjs --runtime mcp-server-filesystem --only workspace-boundary-read/dir-symlink-escape
//   node adapters/node/workspace/compare-real.mjs --runtime toolgate-workspace   # the seed, as a control
//
// Writes `recorded/<runtime>.json` ({case id: observation}, the layout of
// record.mjs; checkable with `validate.mjs observations`) and prints, per
// case: (a) whether every call's allowed/refused status (isError) is the
// expectation's, (b) whether the tree afterwards is exactly the
// expectation's, (c) for each successful read, whether its content holds the
// file's text; then the totals, the kinds of status differences with example
// ids, and every case where the runtime touched something outside the root.
// `--json <file>` also writes all of it as JSON.
//
// Skipped: cases whose scenario names the denyBashByDefault approval policy
// (the call layer's hook, not the tools'), and cases calling a tool the
// runtime does not have (mcp-server-filesystem has no bash).
//
// The sandbox. A real tool may write where the seed refuses to, anywhere on
// the machine (pi's write has no boundary: `/toolgate-no-such-top-xyz/a.txt`
// is a corpus path). So each runtime runs in a child process in its own
// mount namespace (`unshare`), with fresh tmpfs on every world-writable
// directory (/tmp, /var/tmp, /run/lock, /dev/shm) and, as root, switched
// to uid/gid 65534 (nobody) by `setpriv`; without root, in a user namespace
// with the repository re-mounted read-only. There the process can write only
// to those private tmpfs, which vanish with it. `$BASE` is made two levels
// below /tmp (`/tmp/toolgate-real/d/toolgate-ws-…`) so that `..` escapes
// land where they can be seen; after each case the private directories are
// compared with their state before it (any difference is an effect outside
// `$BASE`, reported, then removed), and a result carrying EACCES/EPERM the
// expectation does not carry is reported as an attempt the sandbox blocked.
// `--no-sandbox` runs the child without it (where unshare is not allowed):
// then only a fresh /tmp/toolgate-real-XXXXXX (`$BASE`'s parent's parent,
// and `~`) is watched and removed after, and pi-coding-agent is refused.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { isDeepStrictEqual } from 'node:util';
import { layout } from '../pipeline/format.mjs';
import { observeWorkspace } from './observe.mjs';
import { casesOf, loadCaseFiles } from '../case-files.mjs';
import { CASES_DIR } from './record.mjs';
import { RUNTIMES, openRuntime } from './real-tools.mjs';
import { createWorkspaceTools } from './toolgate-workspace.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const REPO = path.resolve(here, '../../..');
const RECORDED_DIR = path.join(here, 'recorded');
/** The seed's own implementation, runnable here as a control. */
const CONTROL = 'toolgate-workspace';
const ALL = [...Object.keys(RUNTIMES), CONTROL];
/** The world-writable directories the sandbox replaces with private tmpfs. */
export const PRIVATE_DIRS = ['/tmp', '/var/tmp', '/run/lock', '/dev/shm'];
/** The child's directory in the sandbox's private /tmp (without the sandbox: a fresh one in /tmp). */
const SANDBOX_ROOT = '/tmp/toolgate-real';
/** Where `$BASE` is made (observe.mjs options.tmpdir), below the child's directory. */
const BASE_PARENT = 'd';
const NOBODY = 65534;
const PERMISSION = /\b(EACCES|EPERM)\b/;

const show = (v) => JSON.stringify(v) ?? String(v);
const messageOf = (error) => (error instanceof Error ? String(error.message) : String(error));

// ---------------------------------------------------------------------------
// Which cases apply

/** Why `scenario` is not run on a runtime with `tools`, or undefined. */
export function skipReason(scenario, tools) {
  if ((scenario.approval ?? 'allowAll') !== 'allowAll') return `approval ${scenario.approval}`;
  const missing = [...new Set(scenario.calls.map((c) => c.tool))].filter((t) => !tools.includes(t));
  if (missing.length) return `no ${missing.join(', ')} tool`;
  return undefined;
}

/**
 * The tree path of the root's real location, as the scenario's tree makes it
 * (symlinks followed, targets resolved lexically): `ws` for a root `wslink`
 * → `ws`. A root that cannot be resolved in the tree (missing, looping,
 * leading out of `$BASE`) is taken as written.
 */
export function realRootOf(scenario) {
  const root = scenario.root ?? 'ws';
  const links = new Map((scenario.tree ?? []).filter((e) => e.kind === 'symlink').map((e) => [e.path, e.target]));
  let parts = root.split('/');
  for (let steps = 0; steps < 40; steps += 1) {
    const i = parts.findIndex((_, k) => links.has(parts.slice(0, k + 1).join('/')));
    if (i < 0) return parts.join('/');
    const target = links.get(parts.slice(0, i + 1).join('/'));
    let joined;
    if (target.startsWith('$BASE/')) joined = target.slice('$BASE/'.length);
    else if (target.startsWith('/')) return root;
    else joined = path.posix.join(...parts.slice(0, i), target);
    joined = path.posix.normalize(joined);
    if (joined.startsWith('..') || joined === '.' || joined === '') return root;
    parts = [...joined.split('/'), ...parts.slice(i + 1)];
  }
  return root;
}

const under = (p, root) => p === root || p.startsWith(`${root}/`);

// ---------------------------------------------------------------------------
// The child: runs one runtime's cases (in the sandbox) and prints a JSON line per case

/** Every entry under the watched directories: `Map(absolute path → description)`, links not followed. */
function watchedState(dirs) {
  const state = new Map();
  const walk = (dir) => {
    let names;
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      let st;
      try {
        st = fs.lstatSync(p);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) state.set(p, `symlink → ${fs.readlinkSync(p)}`);
      else if (st.isDirectory()) {
        state.set(p, 'dir');
        walk(p);
      } else if (st.isFile()) {
        const bytes = fs.readFileSync(p);
        const text = bytes.length <= 200 ? ` ${show(bytes.toString('utf8'))}` : '';
        state.set(p, `file ${bytes.length} bytes${text}`);
        state.set(`${p}\0mtime`, st.mtimeMs);
      } else state.set(p, 'other');
    }
  };
  for (const d of dirs) walk(d);
  return state;
}

/** The differences between two watchedState maps, as lines; removes what appeared. */
function outsideEffects(before, after) {
  const lines = [];
  const mtime = (m, p) => m.get(`${p}\0mtime`);
  const paths = (m) => [...m.keys()].filter((p) => !p.includes('\0'));
  for (const p of paths(after)) {
    const d = after.get(p);
    if (!before.has(p)) lines.push(`made ${p}: ${d}`);
    else if (before.get(p) !== d) lines.push(`changed ${p}: ${before.get(p)} → ${d}`);
    else if (mtime(before, p) !== mtime(after, p)) lines.push(`rewritten ${p}: ${d}`);
  }
  for (const p of paths(before)) if (!after.has(p)) lines.push(`removed ${p}: ${before.get(p)}`);
  // leave the watched directories as they were for the next case
  const made = paths(after).filter((p) => !before.has(p)).sort((a, b) => a.length - b.length);
  for (const p of made) fs.rmSync(p, { recursive: true, force: true });
  return lines;
}

/** Whether `content` holds `text`: `full`, `head` (its first 1000 code units only), or `no`. */
function holds(content, text) {
  if (typeof content !== 'string') return 'no';
  if (content.includes(text)) return 'full';
  if (text.length > 1000 && content.includes(text.slice(0, 1000))) return 'head';
  return 'no';
}

/**
 * `createTools` wrapped so that after each successful read the file's text
 * is read by the harness (the path resolved against the real root as the
 * seed resolves it, with Node's UTF-8 decoding) and compared with the
 * content: `reads` gets `{call, holds}` (`unknown` when the harness cannot
 * read that path).
 */
function probingReads(createTools, reads) {
  return async (root) => {
    const tools = await createTools(root);
    let call = 0;
    return tools.map((tool) => ({
      spec: tool.spec,
      async execute(input, signal) {
        const index = call++;
        const result = await tool.execute(input, signal);
        if (tool.spec.name === 'read' && result?.isError !== true && typeof input?.path === 'string') {
          let text;
          try {
            text = fs.readFileSync(path.resolve(fs.realpathSync(root), input.path), 'utf8');
          } catch {
            text = undefined;
          }
          reads.push({ call: index, holds: text === undefined ? 'unknown' : holds(result.content, text) });
        }
        return result;
      },
    }));
  };
}

async function child(runtimeId, ids, sandboxed) {
  const protocolOut = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
  const emit = (message) => protocolOut(`${JSON.stringify(message)}\n`);

  const root = sandboxed ? SANDBOX_ROOT : fs.realpathSync(fs.mkdtempSync(`${SANDBOX_ROOT}-`));
  const tmpdir = path.join(root, BASE_PARENT);
  fs.mkdirSync(tmpdir, { recursive: true });
  // `~` in a path (pi and the MCP server expand it) and the server's HOME
  process.env.HOME = path.join(root, 'home');
  fs.mkdirSync(process.env.HOME);
  process.chdir(root);
  const rt =
    runtimeId === CONTROL
      ? { id: CONTROL, version: 'seed', tools: ['read', 'write', 'bash'], createTools: createWorkspaceTools, closeSessions: async () => {} }
      : await openRuntime(runtimeId);
  emit({ runtime: rt.id, package: rt.package, version: rt.version, driver: rt.driver, uid: process.getuid(), sandboxed, tmpdir });
  const watched = sandboxed ? PRIVATE_DIRS : [root];
  const all = casesOf(loadCaseFiles([CASES_DIR]));
  for (const { id, case: c } of all) {
    if (ids && !ids.includes(id)) continue;
    const skipped = skipReason(c.scenario, rt.tools);
    if (skipped) {
      emit({ id, skipped });
      continue;
    }
    const reads = [];
    const before = watchedState(watched);
    let observation;
    let error;
    try {
      observation = await observeWorkspace(probingReads(rt.createTools, reads), c.scenario, { tmpdir });
    } catch (e) {
      error = messageOf(e);
    } finally {
      await rt.closeSessions();
    }
    const outside = outsideEffects(before, watchedState(watched));
    emit({ id, observation, error, reads, outside });
  }
  if (!sandboxed) {
    process.chdir('/');
    fs.rmSync(root, { recursive: true, force: true });
  }
  emit({ done: true });
}

// ---------------------------------------------------------------------------
// The parent: runs each runtime's child, records, compares, prints

function sandboxCommand(args) {
  const mounts = PRIVATE_DIRS.map((d) => `mount -t tmpfs -o mode=1777,size=1g toolgate-sandbox ${d}`).join(' && ');
  const self = [process.execPath, path.join(here, 'compare-real.mjs'), ...args];
  if (process.getuid() === 0) {
    const script = `${mounts} && exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups -- "$@"`;
    return ['unshare', ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, 'sandbox', ...self]];
  }
  const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  const script = `${mounts} && mount --bind ${q(REPO)} ${q(REPO)} && mount -o remount,bind,ro ${q(REPO)} && exec "$@"`;
  return ['unshare', ['--map-root-user', '--mount', '--propagation', 'private', '--', '/bin/sh', '-c', script, 'sandbox', ...self]];
}

/** Runs `runtimeId`'s child and resolves with its lines: `{header, cases: Map(id → line)}`. */
function runChild(runtimeId, only, sandbox) {
  const args = ['--child', runtimeId, ...(only ? ['--only', only.join(',')] : []), ...(sandbox ? [] : ['--no-sandbox'])];
  const [command, argv] = sandbox ? sandboxCommand(args) : [process.execPath, [path.join(here, 'compare-real.mjs'), ...args]];
  return new Promise((resolve, reject) => {
    const proc = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'] });
    const out = { header: undefined, cases: new Map(), done: false };
    createInterface({ input: proc.stdout }).on('line', (line) => {
      const m = JSON.parse(line);
      if (m.runtime) out.header = m;
      else if (m.done) out.done = true;
      else out.cases.set(m.id, m);
    });
    proc.on('error', reject);
    proc.on('close', (code, signal) => {
      if (!out.done) reject(new Error(`${runtimeId}: the child ended (${code ?? signal}) before its last case`));
      else resolve(out);
    });
  });
}

const statusOf = (r) => (r === undefined ? 'absent' : Object.hasOwn(r, 'thrown') ? 'threw' : r.isError ? 'refused' : 'allowed');
const textOf = (r) => (r === undefined ? '' : typeof (r.content ?? r.thrown) === 'string' ? (r.content ?? r.thrown) : show(r.content ?? r.thrown));

/** The comparison of one case's observation with its expectation. */
export function compareCase(c, line) {
  const { scenario, expect } = c;
  const o = line.observation;
  const calls = scenario.calls.map((call, i) => {
    const want = statusOf(expect.results[i]);
    const got = statusOf(o.results[i]);
    return { i, tool: call.tool, want, got, same: want === got || (want === 'refused' && got === 'threw') };
  });
  const realRoot = realRootOf(scenario);
  const key = (e) => JSON.stringify(e);
  const outsideRoot = (tree) => new Set(tree.filter((e) => !under(e.path, realRoot)).map(key));
  const wantOut = outsideRoot(expect.tree);
  const gotOut = outsideRoot(o.tree);
  const outsideRootDiff = [
    ...[...gotOut].filter((k) => !wantOut.has(k)).map((k) => `+ ${k}`),
    ...[...wantOut].filter((k) => !gotOut.has(k)).map((k) => `- ${k}`),
  ];
  const blocked = o.results
    .map((r, i) => ({ i, text: textOf(r) }))
    .filter(({ i, text }) => PERMISSION.test(text) && !PERMISSION.test(textOf(expect.results[i])));
  return {
    a: calls.every((x) => x.same),
    calls,
    b: isDeepStrictEqual(o.tree, expect.tree),
    reads: line.reads,
    realRoot,
    outsideRootDiff,
    outsideBase: line.outside,
    blocked,
  };
}

function parseArguments(argv) {
  const options = { runtimes: [], only: undefined, sandbox: true, child: undefined, json: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--runtime') options.runtimes.push(value());
    else if (a === '--only') options.only = value().split(',');
    else if (a === '--no-sandbox') options.sandbox = false;
    else if (a === '--child') options.child = value();
    else if (a === '--json') options.json = value();
    else throw new Error(`unknown argument ${a}`);
  }
  for (const r of [...options.runtimes, ...(options.child ? [options.child] : [])]) {
    if (!ALL.includes(r)) throw new Error(`unknown runtime ${r} (known: ${ALL.join(', ')})`);
  }
  if (options.runtimes.length === 0) options.runtimes = Object.keys(RUNTIMES);
  // pi's write has no boundary and corpus paths reach `/`: never outside the sandbox
  if (!options.sandbox && (options.child ? [options.child] : options.runtimes).includes('pi-coding-agent')) {
    throw new Error('pi-coding-agent runs only in the sandbox: its write tool has no path boundary');
  }
  return options;
}

function printRuntime(header, rows, skipped, errors) {
  const p = (s = '') => process.stdout.write(`${s}\n`);
  p(`## ${header.runtime} ${header.version}${header.package ? ` (${header.package})` : ''}`);
  if (header.driver) p(`driver: ${header.driver}`);
  p(`uid ${header.uid}, ${header.sandboxed ? 'sandboxed (private tmpfs on /tmp, /var/tmp, /run/lock, /dev/shm)' : 'NOT sandboxed'}; $BASE under ${header.tmpdir}`);
  p();
  for (const [id, r] of rows) {
    const a = r.a ? 'a:ok  ' : `a:DIFF[${r.calls.filter((x) => !x.same).map((x) => `${x.i}:${x.tool} ${x.want}→${x.got}`).join(' ')}]`;
    const b = r.b ? 'b:ok  ' : 'b:DIFF';
    const c = r.reads.length ? `c:${r.reads.map((x) => x.holds).join(',')}` : 'c:-';
    const out = r.outsideRootDiff.length || r.outsideBase.length || r.blocked.length ? '  OUTSIDE' : '';
    p(`${a.padEnd(6)} ${b} ${c.padEnd(8)} ${id}${out}`);
  }
  for (const [id, reason] of skipped) p(`skipped ${id}: ${reason}`);
  for (const [id, message] of errors) p(`harness error ${id}: ${message}`);
  p();
  const n = rows.size;
  const count = (f) => [...rows.values()].filter(f).length;
  const readsAll = [...rows.values()].flatMap((r) => r.reads);
  const readCount = (h) => readsAll.filter((x) => x.holds === h).length;
  p(`cases run: ${n} (skipped ${skipped.size}, harness errors ${errors.size})`);
  p(`(a) every call's allowed/refused status as expected: ${count((r) => r.a)}/${n}`);
  p(`(b) tree afterwards exactly as expected: ${count((r) => r.b)}/${n}`);
  p(`(c) successful reads: ${readsAll.length}; content holds the file's text: full ${readCount('full')}, head only ${readCount('head')}, no ${readCount('no')}, unknown ${readCount('unknown')}`);
  const kinds = new Map();
  for (const [id, r] of rows) {
    for (const x of r.calls.filter((y) => !y.same)) {
      const k = `${x.tool}: expected ${x.want}, got ${x.got}`;
      if (!kinds.has(k)) kinds.set(k, []);
      kinds.get(k).push(id);
    }
  }
  p('status differences (calls), by kind:');
  for (const [k, ids] of [...kinds].sort((x, y) => y[1].length - x[1].length)) {
    p(`  ${String(ids.length).padStart(4)}  ${k}: ${[...new Set(ids)].slice(0, 4).join(', ')}${new Set(ids).size > 4 ? ', …' : ''}`);
  }
  const outside = [...rows].filter(([, r]) => r.outsideRootDiff.length || r.outsideBase.length || r.blocked.length);
  p(`touched outside the root: ${outside.length} case(s)`);
  for (const [id, r] of outside) {
    p(`  ${id} (real root ${r.realRoot})`);
    for (const d of r.outsideRootDiff) p(`    tree outside the root ${d}`);
    for (const d of r.outsideBase) p(`    outside $BASE: ${d}`);
    for (const x of r.blocked) p(`    call ${x.i} blocked by the sandbox: ${show(x.text.slice(0, 200))}`);
  }
  p();
}

async function main(argv) {
  let options;
  try {
    options = parseArguments(argv);
  } catch (error) {
    process.stderr.write(`${messageOf(error)}\nusage: node compare-real.mjs [--runtime id]… [--only ids] [--json file] [--no-sandbox]\n`);
    process.exit(2);
  }
  if (options.child) {
    await child(options.child, options.only, options.sandbox);
    process.exit(0);
  }
  const cases = new Map(casesOf(loadCaseFiles([CASES_DIR])).map((x) => [x.id, x.case]));
  const report = {};
  fs.mkdirSync(RECORDED_DIR, { recursive: true });
  for (const runtimeId of options.runtimes) {
    const started = Date.now();
    const out = await runChild(runtimeId, options.only, options.sandbox);
    const rows = new Map();
    const skipped = new Map();
    const errors = new Map();
    const recorded = {};
    for (const [id, line] of out.cases) {
      if (line.skipped) skipped.set(id, line.skipped);
      else if (line.error !== undefined) errors.set(id, line.error);
      else {
        recorded[id] = line.observation;
        rows.set(id, compareCase(cases.get(id), line));
      }
    }
    // the control's observations are the corpus's expectations (record.mjs --check)
    if (!options.only && runtimeId !== CONTROL) fs.writeFileSync(path.join(RECORDED_DIR, `${runtimeId}.json`), `${layout(recorded, 3)}\n`);
    printRuntime(out.header, rows, skipped, errors);
    process.stdout.write(`(${((Date.now() - started) / 1000).toFixed(1)} s)\n\n`);
    report[runtimeId] = { header: out.header, cases: Object.fromEntries(rows), skipped: Object.fromEntries(skipped), errors: Object.fromEntries(errors) };
  }
  if (options.json) fs.writeFileSync(options.json, `${JSON.stringify(report, null, 1)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(process.argv.slice(2));
}
