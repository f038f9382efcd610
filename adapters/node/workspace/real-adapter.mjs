#!/usr/bin/env node
// The toolgate adapter (runner/PROTOCOL.md, version 1) for the `workspace`
// suite on real file tools (real-tools.mjs), graded on the portable
// projection (FORMAT.md): their messages are their own, so each call's
// outcome, what an allowed read holds, the tree, and every change outside
// the root are compared, never the wording.
//
//   node adapters/node/workspace/real-adapter.mjs --runtime pi-coding-agent
//   node adapters/node/workspace/real-adapter.mjs --runtime mcp-server-filesystem [--install <folder>] [--no-sandbox]
//
// `--install <folder>` (absolute, or relative to the working directory the
// adapter is started in) grades the runtime's package installed there
// (`npm install <package>@<version> --save-exact` in it) instead of the
// pinned one of ../runtimes/; the hello reports the version installed
// there. The folder is checked before anything runs (a usage error, exit 2,
// names what is missing).
//
// The adapter re-runs itself in the sandbox of sandbox.mjs (its own mount
// namespace, private tmpfs on /tmp and the other world-writable
// directories, uid nobody, the checkout and the install folder bound
// read-only, a checkout or folder under /tmp too), because a real tool may
// write anywhere the seed refuses to. Each case:
//
// 1. a scenario calling a tool the runtime does not have is not applicable;
// 2. the positive control (real-tools.mjs `positiveControl`): each tool the
//    case calls must work on a fresh root of its own, else the case is an
//    `error` naming what failed (a tool missing, a server that does not
//    start or list its tools, a relative path resolved elsewhere...);
// 3. the scenario run by the harness (observe.mjs, `grading: 'portable'`,
//    the watcher outside the root); a precondition that did not hold
//    meanwhile (the server did not start for a root that is a directory,
//    did not list its tools, does not list the tool called, lost the
//    connection during a call) makes the case an `error`, never an
//    observation whose refusals would pass as the runtime's;
// 4. whatever changed in the private directories beyond the harness's own
//    folder appended to `outside`.
//
// `--no-sandbox` (where unshare is not allowed) runs without it, for a
// runtime that keeps a boundary only: pi-coding-agent, which has none by
// design, is refused.
//
// The handshake announces no capability: bash cases (`workspace.bash`: pi's
// bash is another tool, with /bin/bash always, no timeout and no output
// limit; MCP has none) and the approval cases (`workspace.approval`: the
// call layer's hook, not the tools') are skipped.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { messageOf, protocolAdapter } from '../protocol.mjs';
import { checkScenario, observeWorkspace } from './observe.mjs';
import { RUNTIMES, checkInstall, installedVersion, openRuntime, positiveControl } from './real-tools.mjs';
import { INSIDE, PRIVATE_DIRS, SANDBOX_FAILED, privateChanges, privateState, sandboxCommand, sandboxFolders } from './sandbox.mjs';

const SUITE = 'workspace';
const SCRIPT = fileURLToPath(import.meta.url);
const USAGE = `node adapters/node/workspace/real-adapter.mjs --runtime <${Object.keys(RUNTIMES).join('|')}> [--install <folder>] [--no-sandbox]`;
/** Runtimes that must not run outside the sandbox: they write wherever a path leads. */
const UNCONFINED = ['pi-coding-agent'];

const adapter = protocolAdapter({ log: 'toolgate workspace real-tools adapter', usage: USAGE });
const argv = process.argv.slice(2);
const noSandbox = argv.includes('--no-sandbox');
const { '--runtime': runtimeId, '--install': installGiven } = adapter.flags(
  argv.filter((a) => a !== '--no-sandbox'),
  ['--runtime', '--install'],
);
if (runtimeId === undefined || !Object.hasOwn(RUNTIMES, runtimeId)) {
  adapter.usage(`--runtime must be one of ${Object.keys(RUNTIMES).join(', ')}${runtimeId === undefined ? '' : `, not ${JSON.stringify(runtimeId)}`}`);
}
if (noSandbox && UNCONFINED.includes(runtimeId)) {
  adapter.usage(`${runtimeId} writes wherever a path leads; it runs in the sandbox only`);
}
// the absolute folder, resolved against the working directory here (the
// process inside the sandbox is given it absolute)
let install;
try {
  install = checkInstall(runtimeId, installGiven);
} catch (error) {
  adapter.usage(messageOf(error));
}

if (!noSandbox && process.env[INSIDE] === undefined) {
  // the same adapter, inside; stdin and stdout pass through, and the
  // runner's kill of the process group reaches it
  let command;
  let args;
  try {
    [command, args] = sandboxCommand(SCRIPT, ['--runtime', runtimeId, '--install', install], { folders: [install] });
  } catch (error) {
    process.stderr.write(`toolgate workspace real-tools adapter: ${messageOf(error)}\n`);
    process.exit(SANDBOX_FAILED);
  }
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, [INSIDE]: '1' } });
  child.on('error', (error) => {
    process.stderr.write(`toolgate workspace real-tools adapter: cannot start the sandbox (${messageOf(error)}); --no-sandbox runs without it\n`);
    process.exit(SANDBOX_FAILED);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
} else {
  await serve();
}

async function serve() {
  // the harness's folder: `$BASE`'s parent is made in it, one per case, and
  // each case's positive control
  const own = fs.realpathSync(fs.mkdtempSync('/tmp/toolgate-real-'));
  // `~` in a path (pi and the MCP server expand it): a home of its own,
  // outside the harness's folder, so that a write there is seen
  const home = fs.realpathSync(fs.mkdtempSync('/tmp/toolgate-home-'));
  process.env.HOME = home;
  process.chdir(own);
  // the sandbox's /tmp vanishes with it; without the sandbox, both are removed
  process.on('exit', () => {
    for (const dir of [own, home]) fs.rmSync(dir, { recursive: true, force: true });
  });
  const { package: pkg } = RUNTIMES[runtimeId];
  let rt;
  let loadFailure;
  try {
    rt = await openRuntime(runtimeId, { install });
  } catch (error) {
    loadFailure = `${pkg} (${runtimeId}) from ${install} could not be loaded: ${messageOf(error)}`;
  }
  const watched = noSandbox ? [] : PRIVATE_DIRS;
  // the checkout and the install folder are bound into the private /tmp
  // when they lie there: not the tools' doing
  const skipped = [own, ...sandboxFolders([path.dirname(SCRIPT), install])];
  const who = () => `${rt.package} ${rt.version} (${rt.id})`;
  await adapter.serve({
    hello: () => ({
      implementation: { name: `${pkg} (${runtimeId})`, version: rt?.version ?? versionOr(install, pkg), language: 'javascript' },
      suites: [SUITE],
      capabilities: [],
    }),
    loadFailure,
    otherSuite: (suite) => ({ notApplicable: { reason: `${runtimeId} runs the ${SUITE} suite only, not ${JSON.stringify(suite)}` } }),
    failure: (error) => `the harness could not run the scenario on ${runtimeId}: ${messageOf(error)}`,
    run: async (c) => {
      const scenario = checkScenario(c.scenario);
      const called = [...new Set(scenario.calls.map((call) => call.tool))];
      const absent = called.filter((tool) => !rt.tools.includes(tool));
      if (absent.length > 0) return { notApplicable: { reason: `${rt.id} has no ${absent.join(' or ')} tool` } };
      const control = await positiveControl(rt, called, { tmpdir: own });
      if (control !== undefined) return { error: { message: `${who()}: ${control}` } };
      const before = privateState(watched, skipped);
      let observation;
      let problems;
      try {
        observation = await observeWorkspace(rt.createTools, c.scenario, { tmpdir: own, grading: 'portable' });
      } finally {
        problems = await rt.closeSessions();
      }
      const elsewhere = privateChanges(before, privateState(watched, skipped));
      if (problems.length > 0) return { error: { message: `${who()}: the case did not run as written, so it is not graded: ${problems.join('; ')}` } };
      if (elsewhere.length > 0) observation.outside = [...(observation.outside ?? []), ...elsewhere];
      return { observation };
    },
  });
}

/** The version installed in `folder`, or "unknown" when even that cannot be read. */
function versionOr(folder, pkg) {
  try {
    return installedVersion(folder, pkg);
  } catch {
    return 'unknown';
  }
}
