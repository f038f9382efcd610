#!/usr/bin/env node
// The toolgate adapter (runner/PROTOCOL.md, version 1) for the `workspace`
// suite on real file tools (real-tools.mjs), graded on the portable
// projection (FORMAT.md): their messages are their own, so each call's
// outcome, what an allowed read holds, the tree, and every change outside
// the root are compared, never the wording.
//
//   node adapters/node/workspace/real-adapter.mjs --runtime pi-coding-agent
//   node adapters/node/workspace/real-adapter.mjs --runtime mcp-server-filesystem [--no-sandbox]
//
// The adapter re-runs itself in the sandbox of sandbox.mjs (its own mount
// namespace, private tmpfs on /tmp and the other world-writable
// directories, uid nobody), because a real tool may write anywhere the
// seed refuses to. Each case: the scenario run by the harness (observe.mjs,
// `grading: 'portable'`, the watcher outside the root), then whatever
// changed in the private directories beyond the harness's own folder
// appended to `outside`. `--no-sandbox` (where unshare is not allowed) runs
// without it, for a runtime that keeps a boundary only: pi-coding-agent,
// which has none by design, is refused.
//
// The handshake announces no capability: bash cases (`workspace.bash`: pi's
// bash is another tool, with /bin/bash always, no timeout and no output
// limit; MCP has none) and the approval cases (`workspace.approval`: the
// call layer's hook, not the tools') are skipped.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { messageOf, protocolAdapter } from '../protocol.mjs';
import { observeWorkspace } from './observe.mjs';
import { RUNTIMES, openRuntime } from './real-tools.mjs';
import { INSIDE, PRIVATE_DIRS, privateChanges, privateState, sandboxCommand } from './sandbox.mjs';

const SUITE = 'workspace';
const USAGE = `node adapters/node/workspace/real-adapter.mjs --runtime <${Object.keys(RUNTIMES).join('|')}> [--no-sandbox]`;
/** Runtimes that must not run outside the sandbox: they write wherever a path leads. */
const UNCONFINED = ['pi-coding-agent'];

const adapter = protocolAdapter({ log: 'toolgate workspace real-tools adapter', usage: USAGE });
const argv = process.argv.slice(2);
const noSandbox = argv.includes('--no-sandbox');
const { '--runtime': runtimeId } = adapter.flags(
  argv.filter((a) => a !== '--no-sandbox'),
  ['--runtime'],
);
if (runtimeId === undefined || !Object.hasOwn(RUNTIMES, runtimeId)) {
  adapter.usage(`--runtime must be one of ${Object.keys(RUNTIMES).join(', ')}${runtimeId === undefined ? '' : `, not ${JSON.stringify(runtimeId)}`}`);
}
if (noSandbox && UNCONFINED.includes(runtimeId)) {
  adapter.usage(`${runtimeId} writes wherever a path leads; it runs in the sandbox only`);
}

if (!noSandbox && process.env[INSIDE] === undefined) {
  // the same adapter, inside; stdin and stdout pass through, and the
  // runner's kill of the process group reaches it
  const [command, args] = sandboxCommand(new URL(import.meta.url).pathname, argv);
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, [INSIDE]: '1' } });
  child.on('error', (error) => {
    process.stderr.write(`toolgate workspace real-tools adapter: cannot start the sandbox (${messageOf(error)}); --no-sandbox runs without it\n`);
    process.exit(70);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
} else {
  await serve();
}

async function serve() {
  // the harness's folder: `$BASE`'s parent is made in it, one per case
  const own = fs.realpathSync(fs.mkdtempSync('/tmp/toolgate-real-'));
  // `~` in a path (pi and the MCP server expand it): a home of its own,
  // outside the harness's folder, so that a write there is seen
  process.env.HOME = fs.realpathSync(fs.mkdtempSync('/tmp/toolgate-home-'));
  process.chdir(own);
  const rt = await openRuntime(runtimeId);
  const watched = noSandbox ? [] : PRIVATE_DIRS;
  await adapter.serve({
    hello: () => ({
      implementation: { name: `${rt.package} (${rt.id})`, version: rt.version, language: 'javascript' },
      suites: [SUITE],
      capabilities: [],
    }),
    otherSuite: (suite) => ({ notApplicable: { reason: `${rt.id} runs the ${SUITE} suite only, not ${JSON.stringify(suite)}` } }),
    failure: (error) => `the harness could not run the scenario on ${rt.id}: ${messageOf(error)}`,
    run: async (c) => {
      const before = privateState(watched, own);
      let observation;
      try {
        observation = await observeWorkspace(rt.createTools, c.scenario, { tmpdir: own, grading: 'portable' });
      } finally {
        await rt.closeSessions();
      }
      const elsewhere = privateChanges(before, privateState(watched, own));
      if (elsewhere.length > 0) observation.outside = [...(observation.outside ?? []), ...elsewhere];
      return { observation };
    },
  });
}
