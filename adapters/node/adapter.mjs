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
import { benchReply } from './bench.mjs';

const SUITES = ['core'];
const CAPABILITIES = ['proxy', 'bigint', 'symbol', 'accessors', 'otherRealm', 'loneSurrogates', 'concurrent', 'jobTurns', 'bench'];

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

/**
 * `toolgate bench`: one tool "bench" registered once, each timed run
 * `executeToolCall` of every call of the family in turn (as the reference
 * does), the first call's result text echoed for the comparison with the
 * reference's.
 */
function prepareBench(input) {
  const impl = implementation;
  const value = input.kind === 'output' ? input.value : 'ok';
  const registry = new impl.ToolRegistry([
    {
      name: 'bench',
      description: 'a benchmark tool',
      validate: () => ({ ok: true, value: {} }),
      execute: () => value,
    },
  ]);
  const calls = (input.kind === 'output' ? [{ id: 'call-1', arguments: {} }] : input.calls).map((c) => ({
    type: 'toolCall',
    id: c.id,
    name: 'bench',
    arguments: c.arguments,
  }));
  const signal = new AbortController().signal;
  return async () => {
    let first;
    for (const call of calls) {
      const result = await impl.executeToolCall(registry, call, signal);
      first ??= result.content;
    }
    return first;
  };
}

await adapter.serve({
  bench: (request) => benchReply(request, { prepare: prepareBench }),
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
