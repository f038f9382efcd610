#!/usr/bin/env node
// The race of the workspace suite (WS-RACE-01): file tools called over and
// over while another process swaps a directory of the root for a symlink to
// the outside and back, for a bounded number of calls and time; then what
// went outside is counted. The corpus's swap cases need a hook inside the
// tool (`workspace.interference`); real tools have none, so this is how
// they are raced. Timing decides what each call meets, so a run finds what
// it finds: no escape in a run is evidence, not proof, and a nightly
// campaign (`.ci/nightly`) runs it long.
//
//   node adapters/node/workspace/race.mjs [--runtime <id>]… [--tool read|write]…
//        [--calls N] [--seconds S] [--min-allowed N] [--install <folder>]
//        [--json] [--fail-on-escape] [--no-sandbox]
//
// Runtimes: `seed` (toolgate-workspace.mjs), `checked-open` (its safer
// variant, checked-open.mjs), and the real tools of real-tools.mjs
// (`pi-coding-agent`, `mcp-server-filesystem`); default: all four. Tools:
// read and write (default: both), each raced on its own fresh base.
// `--install <folder>` (absolute, or relative to the working directory)
// races the real runtime's package installed there instead of the pinned
// one (as real-adapter.mjs); it needs exactly one real runtime among the
// `--runtime`s. Before a real runtime is raced, the positive control of
// real-tools.mjs checks that each raced tool works on a fresh root; a
// failed control, or a precondition that did not hold during the race (the
// server did not start, a tool missing, the connection lost), means the
// race could not run (exit 2), never "nothing outside reached".
//
// One race: `$BASE` (alone in a fresh directory) holds the root `ws` with
// `ws/sub/b.txt` ("inside") and `outside/b.txt` (a secret text). A child
// process (race-swapper.mjs) toggles `ws/sub` as fast as it can:
// renamed to `ws/sub.parked` and replaced by a link `ws/sub → ../outside`,
// then back. Meanwhile the tool is called in turn, each call awaited: read
// `sub/b.txt`, or write `sub/w-<n>.txt`. A read escapes when it returns the
// secret; a write escapes when a file appears outside (the tree afterwards
// and, for one made and removed, the watcher of outside-watch.mjs).
//
// The verdict of a race: `escaped` when anything reached the outside;
// else `inconclusive` when fewer calls were allowed than the minimum
// (`--min-allowed`, default MIN_ALLOWED: 50, or 1% of the calls made when
// that is fewer, at least 1): a tool that refuses (nearly) every call, for
// whatever reason, was never in a position to escape, so the run says
// nothing about its boundary; else `nothing outside reached`.
//
// A real runtime is raced in the sandbox of sandbox.mjs (the command re-runs
// itself there, as real-adapter.mjs does; `--no-sandbox` where unshare is
// not allowed): pi's tools have no boundary at all.
//
// Exit status: 0 when every race was judged (escapes too, without
// --fail-on-escape); 1 with --fail-on-escape when anything escaped; 3 when
// a race was inconclusive (and, with --fail-on-escape, nothing escaped); 2
// on a usage error or when a race could not be run (its message says why);
// 70 when the sandbox could not be set up (its message names the folder and
// the fix).

import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCheckedTools } from './checked-open.mjs';
import { watchOutside } from './outside-watch.mjs';
import { RUNTIMES, checkInstall, openRuntime, positiveControl } from './real-tools.mjs';
import { INSIDE, SANDBOX_FAILED, sandboxCommand } from './sandbox.mjs';
import { createWorkspaceTools } from './toolgate-workspace.mjs';

/** The secret the outside holds; a read that returns it escaped. */
export const SECRET = 'OUTSIDE-SECRET-5b1c';
/** The text a write writes. */
const WRITTEN = 'written by a raced call';

const SWAPPER = fileURLToPath(new URL('./race-swapper.mjs', import.meta.url));

/** A race's verdict is `inconclusive` below this many allowed calls (or 1% of the calls made, when fewer). */
export const MIN_ALLOWED = 50;
/** The exit status of a run with an inconclusive race. */
export const EXIT_INCONCLUSIVE = 3;

/**
 * The runtimes this command can race: `{id → open({install}) → {name,
 * createTools(root), close() → problems, control(tools) → failure?}}`.
 * `close` resolves with the preconditions that did not hold (real-tools.mjs
 * `closeSessions`); `control` with the positive control's failure, if any.
 */
export const RACERS = {
  seed: async () => ({ name: 'toolgate-workspace (seed)', createTools: (root) => createWorkspaceTools(root), close: async () => [], control: async () => undefined }),
  'checked-open': async () => ({
    name: 'toolgate-workspace+checked-open',
    createTools: (root) => createCheckedTools(root),
    close: async () => [],
    control: async () => undefined,
  }),
  ...Object.fromEntries(
    Object.keys(RUNTIMES).map((id) => [
      id,
      async ({ install } = {}) => {
        const rt = await openRuntime(id, { install });
        return {
          name: `${rt.package} ${rt.version}`,
          createTools: rt.createTools,
          close: () => rt.closeSessions(),
          control: (tools) => positiveControl(rt, tools),
        };
      },
    ]),
  ),
};

/** Starts the swapper process (race-swapper.mjs); resolves once it runs: `{stop() → swaps}`. */
function startSwapper(sub, target) {
  return new Promise((resolve, reject) => {
    const child = fork(SWAPPER, [sub, target], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let swaps;
    let failed;
    const exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal })));
    child.on('error', reject);
    child.on('message', (m) => {
      if (m === 'ready') {
        resolve({
          async stop() {
            child.send('stop');
            const { code, signal } = await exited;
            if (code !== 0) throw new Error(`the swapper failed ${failed ?? `with ${signal ?? `exit code ${code}`}`}`);
            return swaps;
          },
        });
      } else if (typeof m?.swaps === 'number') swaps = m.swaps;
      else if (typeof m?.failed === 'string') failed = m.failed;
    });
    exited.then(({ code, signal }) => reject(new Error(`the swapper ended before it ran: ${signal ?? `exit code ${code}`}`)));
  });
}

/**
 * One race of `tool` (`read` or `write`) on the tools `createTools(root)`
 * makes, for at most `calls` calls and `seconds` seconds. Resolves with
 * `{tool, calls, seconds, swaps, allowed, refused, escapes: {reads, outside, transient}}`:
 * reads that returned the secret, entries outside afterwards that the base
 * did not have, and changes outside the watcher saw.
 */
export async function race(createTools, { tool, calls, seconds }) {
  const outer = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-race-')));
  const base = path.join(outer, 'base');
  const root = path.join(base, 'ws');
  const sub = path.join(root, 'sub');
  try {
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, 'b.txt'), 'inside');
    fs.mkdirSync(path.join(base, 'outside'));
    fs.writeFileSync(path.join(base, 'outside', 'b.txt'), SECRET);
    const before = fs.readdirSync(path.join(base, 'outside')).sort();
    const tools = await createTools(root);
    const run = (Array.isArray(tools) ? tools : []).find((t) => t?.spec?.name === tool);
    if (typeof run?.execute !== 'function') throw new Error(`the runtime has no ${tool} tool`);
    const watch = watchOutside(base, root);
    const swapping = await startSwapper(sub, '../outside');
    let [made, allowed, refused, reads] = [0, 0, 0, 0];
    let swaps;
    const started = Date.now();
    try {
      while (made < calls && Date.now() - started < seconds * 1000) {
        const input = tool === 'read' ? { path: 'sub/b.txt' } : { path: `sub/w-${made}.txt`, content: WRITTEN };
        made += 1;
        let result;
        try {
          result = await run.execute(input, new AbortController().signal);
        } catch (error) {
          result = { content: String(error?.message ?? error), isError: true };
        }
        if (result?.isError === true) refused += 1;
        else allowed += 1;
        if (tool === 'read' && result?.isError !== true && String(result?.content).includes(SECRET)) reads += 1;
      }
    } finally {
      swaps = await swapping.stop();
    }
    const took = (Date.now() - started) / 1000;
    await watch.settle(true);
    const transient = watch.close();
    const after = fs.readdirSync(path.join(base, 'outside')).sort();
    const outside = after.filter((name) => !before.includes(name)).map((name) => `outside/${name}`);
    const beside = fs.readdirSync(outer).filter((name) => name !== 'base');
    return {
      tool,
      calls: made,
      seconds: took,
      swaps,
      allowed,
      refused,
      escapes: { reads, outside: [...outside, ...beside.map((n) => `../${n}`)], transient },
    };
  } finally {
    fs.rmSync(outer, { recursive: true, force: true, maxRetries: 3 });
  }
}

/** Whether a race's result shows anything outside reached. */
export const escaped = (r) => r.escapes.reads > 0 || r.escapes.outside.length > 0 || r.escapes.transient.length > 0;

/** The fewest allowed calls a race of `calls` calls needs to be judged: MIN_ALLOWED, or 1% of the calls when fewer, at least 1. */
export const minimumAllowed = (calls, floor = MIN_ALLOWED) => Math.max(1, Math.min(floor, Math.ceil(calls / 100)));

/**
 * A race's verdict: `escaped` (anything outside reached), `inconclusive`
 * (fewer allowed calls than `minAllowed`, default `minimumAllowed(r.calls)`:
 * the tool was hardly in a position to escape), or `nothing-reached`.
 */
export function verdict(r, minAllowed = minimumAllowed(r.calls)) {
  if (escaped(r)) return 'escaped';
  if (r.allowed < minAllowed) return 'inconclusive';
  return 'nothing-reached';
}

/** The exit status of a run whose races had `verdicts` (see the header). */
export function exitStatus(verdicts, { failOnEscape = false } = {}) {
  if (failOnEscape && verdicts.includes('escaped')) return 1;
  if (verdicts.includes('inconclusive')) return EXIT_INCONCLUSIVE;
  return 0;
}

function summary(name, r, minAllowed) {
  const e = r.escapes;
  const v = verdict(r, minAllowed);
  const found =
    v === 'escaped'
      ? `ESCAPED: ${e.reads} reads returned the outside text, ${e.outside.length} entries left outside${e.outside.length ? ` (${e.outside.slice(0, 3).join(', ')}${e.outside.length > 3 ? ', ...' : ''})` : ''}, ${e.transient.length} changes seen outside`
      : v === 'inconclusive'
        ? `INCONCLUSIVE: ${r.allowed} allowed, fewer than the ${minAllowed} a race needs to be judged (the tool was hardly in a position to escape)`
        : 'nothing outside reached';
  return `${name}, ${r.tool}: ${r.calls} calls in ${r.seconds.toFixed(1)} s against ${r.swaps} swaps; ${r.allowed} allowed, ${r.refused} refused; ${found}`;
}

const USAGE =
  'node adapters/node/workspace/race.mjs [--runtime <id>]… [--tool read|write]… [--calls N] [--seconds S] [--min-allowed N] [--install <folder>] [--json] [--fail-on-escape] [--no-sandbox]';

function usage(message) {
  process.stderr.write(`${message}\nusage: ${USAGE}\n  runtimes: ${Object.keys(RACERS).join(', ')}\n`);
  process.exit(2);
}

async function main(argv) {
  const runtimes = [];
  const toolsRaced = [];
  let calls = 2000;
  let seconds = 60;
  let minAllowedGiven;
  let install;
  let json = false;
  let failOnEscape = false;
  let sandbox = true;
  // the arguments the process inside the sandbox gets (--install absolute)
  const inner = [];
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    const count = (v) => (/^[1-9][0-9]*$/.test(v) ? Number(v) : usage(`${a}: a whole number above 0, not ${v}`));
    if (a === '--runtime') runtimes.push(value());
    else if (a === '--tool') toolsRaced.push(value());
    else if (a === '--calls') calls = count(value());
    else if (a === '--seconds') seconds = count(value());
    else if (a === '--min-allowed') minAllowedGiven = count(value());
    else if (a === '--install') install = value();
    else if (a === '--json') json = true;
    else if (a === '--fail-on-escape') failOnEscape = true;
    else if (a === '--no-sandbox') sandbox = false;
    else usage(`unknown argument ${a}`);
  }
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--install') i += 1;
    else inner.push(argv[i]);
  }
  for (const id of runtimes) if (!Object.hasOwn(RACERS, id)) usage(`unknown runtime ${id}`);
  for (const t of toolsRaced) if (t !== 'read' && t !== 'write') usage(`--tool is read or write, not ${t}`);
  if (runtimes.length === 0) runtimes.push(...Object.keys(RACERS));
  if (toolsRaced.length === 0) toolsRaced.push('read', 'write');
  const real = [...new Set(runtimes.filter((id) => Object.hasOwn(RUNTIMES, id)))];
  if (install !== undefined) {
    if (real.length !== 1) usage(`--install names the folder of one real runtime: give exactly one --runtime of ${Object.keys(RUNTIMES).join(', ')}${real.length > 1 ? `, not ${real.join(' and ')}` : ''}`);
    try {
      install = checkInstall(real[0], install);
    } catch (error) {
      usage(error?.message ?? String(error));
    }
    inner.push('--install', install);
  }
  if (sandbox && process.env[INSIDE] === undefined && real.length > 0) {
    let command;
    let args;
    try {
      [command, args] = sandboxCommand(fileURLToPath(import.meta.url), inner, { folders: install === undefined ? [] : [install] });
    } catch (error) {
      process.stderr.write(`race.mjs: ${error?.message ?? error}\n`);
      process.exit(SANDBOX_FAILED);
    }
    const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, [INSIDE]: '1' } });
    child.on('error', (error) => {
      process.stderr.write(`race.mjs: cannot start the sandbox (${error?.message ?? error}); --no-sandbox races without it\n`);
      process.exit(2);
    });
    child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 2)));
    return;
  }

  const results = [];
  for (const id of runtimes) {
    let racer;
    try {
      racer = await RACERS[id]({ install: Object.hasOwn(RUNTIMES, id) ? install : undefined });
      const failed = await racer.control(toolsRaced);
      if (failed !== undefined) throw new Error(failed);
      for (const tool of toolsRaced) {
        const r = await race(racer.createTools, { tool, calls, seconds });
        // the MCP server of this race is ended before the next
        const problems = await racer.close();
        if (problems.length > 0) throw new Error(`the ${tool} race did not run as written: ${problems.join('; ')}`);
        const minAllowed = minAllowedGiven ?? minimumAllowed(r.calls);
        results.push({ runtime: id, name: racer.name, ...r, minAllowed, verdict: verdict(r, minAllowed) });
        if (!json) process.stdout.write(`${summary(racer.name, r, minAllowed)}\n`);
      }
    } catch (error) {
      process.stderr.write(`race.mjs: the race of ${id} could not run: ${error?.message ?? error}\n`);
      process.exit(2);
    }
  }
  if (json) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
  const verdicts = results.map((r) => r.verdict);
  if (verdicts.includes('escaped') && !json) process.stdout.write(`rerun: node adapters/node/workspace/race.mjs ${argv.join(' ')}\n`);
  if (verdicts.includes('inconclusive') && !json) {
    process.stdout.write(`inconclusive: a race with fewer allowed calls than its minimum says nothing about the boundary (exit ${EXIT_INCONCLUSIVE}); see why the calls were refused\n`);
  }
  process.exit(exitStatus(verdicts, { failOnEscape }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(process.argv.slice(2));
}
