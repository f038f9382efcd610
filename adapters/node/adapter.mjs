#!/usr/bin/env node
// adapter.mjs: the toolgate adapter protocol (runner/PROTOCOL.md, version 1)
// for a JavaScript implementation of the core contract.
//
//   node adapters/node/adapter.mjs [--module <path>]
//
// <path> (resolved against the working directory; default: toolgate-core.mjs
// next to this file) is an ES module exporting ToolRegistry, executeToolCall,
// NonRecoverableToolError and ToolContractError, and optionally `toolgate`
// (README.md says exactly what is expected of them). Requests arrive as JSON
// lines on stdin, one at a time; each gets exactly one reply line on stdout
// (protocol.mjs speaks the protocol). Logs, and whatever the implementation
// writes to stdout, go to stderr.

import { fileURLToPath } from 'node:url';
import { identify, loadImplementation, observe, UnrepresentableScenario } from './observe.mjs';
import { messageOf, protocolAdapter } from './protocol.mjs';

const SUITES = ['core'];
const CAPABILITIES = ['proxy', 'bigint', 'symbol', 'accessors', 'otherRealm', 'loneSurrogates', 'concurrent', 'jobTurns'];

const adapter = protocolAdapter({ log: 'toolgate adapter', usage: 'node adapters/node/adapter.mjs [--module <path>]' });

// An implementation's stray callback must not take the adapter down: it is
// reported, and the session goes on.
process.on('uncaughtException', (error) => adapter.log(`uncaught exception: ${error?.stack ?? error}`));

const modulePath =
  adapter.flags(process.argv.slice(2), ['--module'])['--module'] ?? fileURLToPath(new URL('./toolgate-core.mjs', import.meta.url));
let implementation;
let identity;
let loadFailure;
try {
  const loaded = await loadImplementation(modulePath);
  implementation = loaded.module;
  identity = identify(loaded.file);
} catch (error) {
  loadFailure = `could not load the implementation ${modulePath}: ${messageOf(error)}`;
  adapter.log(loadFailure);
  identity = { name: 'unloadable-implementation', version: '0.0.0', language: 'javascript' };
}

// A module may narrow what it claims with `export const toolgate = { suites,
// capabilities }` (an implementation without proxies drops `proxy`). Real
// runtimes are graded on the boundary suite by adapters/node/boundary/.
function declared(key, known) {
  const list = implementation?.toolgate?.[key];
  return Array.isArray(list) ? known.filter((item) => list.includes(item)) : known;
}

await adapter.serve({
  hello: () => ({ implementation: identity, suites: declared('suites', SUITES), capabilities: declared('capabilities', CAPABILITIES) }),
  loadFailure,
  run: async (c) => {
    try {
      return { observation: await observe(implementation, c.scenario) };
    } catch (error) {
      if (error instanceof UnrepresentableScenario) return { skipped: { reason: error.message } };
      throw error;
    }
  },
});
