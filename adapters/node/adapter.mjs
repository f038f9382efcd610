#!/usr/bin/env node
// adapter.mjs: the toolgate adapter protocol (runner/PROTOCOL.md, version 1)
// for a JavaScript implementation of the core contract.
//
//   node adapters/node/adapter.mjs [--module <path>]
//
// <path> (resolved against the working directory; default: toolgate-core.mjs
// next to this file) is an ES module exporting ToolRegistry, executeToolCall,
// NonRecoverableToolError and ToolContractError, and optionally `toolgate`
// (README.md says exactly what is expected of them). Requests arrive as JSON lines on stdin, one at a
// time; each gets exactly one reply line on stdout. Logs go to stderr.

import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { identify, loadImplementation, observe, UnrepresentableScenario } from './observe.mjs';

const SUITES = ['core'];
const CAPABILITIES = ['proxy', 'bigint', 'symbol', 'accessors', 'otherRealm', 'loneSurrogates', 'concurrent', 'jobTurns'];

function parseArguments(argv) {
  let module = fileURLToPath(new URL('./toolgate-core.mjs', import.meta.url));
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--module' && i + 1 < argv.length) {
      module = argv[i + 1];
      i += 1;
    } else if (argv[i].startsWith('--module=')) {
      module = argv[i].slice('--module='.length);
    } else {
      process.stderr.write(`toolgate adapter: unknown argument ${argv[i]}\n`);
      process.exit(2);
    }
  }
  return { module };
}

function reply(message) {
  // stdout is a pipe: writes are synchronous on Linux, so each reply is
  // flushed before the next request is read.
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

function messageOf(error) {
  if (error instanceof Error) return error.message || String(error);
  return String(error);
}

// An implementation's stray callback must not take the adapter down: it is
// reported, and the session goes on.
process.on('uncaughtException', (error) => {
  process.stderr.write(`toolgate adapter: uncaught exception: ${error?.stack ?? error}\n`);
});

const { module: modulePath } = parseArguments(process.argv.slice(2));
let implementation;
let identity;
let loadFailure;
try {
  const loaded = await loadImplementation(modulePath);
  implementation = loaded.module;
  identity = identify(loaded.file);
} catch (error) {
  loadFailure = `could not load the implementation ${modulePath}: ${messageOf(error)}`;
  process.stderr.write(`toolgate adapter: ${loadFailure}\n`);
  identity = { name: 'unloadable-implementation', version: '0.0.0', language: 'javascript' };
}

// A module may narrow what it claims with `export const toolgate = { suites,
// capabilities }` (an implementation without proxies drops `proxy`). Real
// runtimes are graded on the boundary suite by adapters/node/boundary/.
function declared(key, known) {
  const list = implementation?.toolgate?.[key];
  return Array.isArray(list) ? known.filter((item) => list.includes(item)) : known;
}

async function handle(request) {
  switch (request?.cmd) {
    case 'start':
      reply({
        protocol: 1,
        implementation: identity,
        suites: declared('suites', SUITES),
        capabilities: declared('capabilities', CAPABILITIES),
      });
      return;
    case 'run': {
      const seq = request.seq;
      if (loadFailure !== undefined) {
        reply({ seq, error: { message: loadFailure } });
        return;
      }
      try {
        const observation = await observe(implementation, request.case?.scenario);
        reply({ seq, observation });
      } catch (error) {
        if (error instanceof UnrepresentableScenario) reply({ seq, skipped: { reason: error.message } });
        else reply({ seq, error: { message: `case ${request.case?.id}: ${messageOf(error)}` } });
      }
      return;
    }
    case 'stop':
      process.exit(0);
      return;
    default:
      process.stderr.write(`toolgate adapter: unknown request ${JSON.stringify(request)?.slice(0, 200)}\n`);
      if (Number.isInteger(request?.seq)) {
        reply({ seq: request.seq, error: { message: `unknown request ${JSON.stringify(request.cmd)}` } });
      }
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    process.stderr.write(`toolgate adapter: a request that is not JSON: ${messageOf(error)}\n`);
    continue;
  }
  await handle(request);
}
process.exit(0);
