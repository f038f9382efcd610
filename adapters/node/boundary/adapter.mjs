#!/usr/bin/env node
// The toolgate adapter (runner/PROTOCOL.md, version 1) for the portable
// `boundary` suite on a real agent runtime:
//
//   node adapters/node/boundary/adapter.mjs --runtime adapters/node/runtimes/<id> [--settle-ms 2000]
//
// <id>'s `shim.mjs` hands each case's tools and model turn to the runtime's
// own execution path (adapters/node/runtimes/SHIM.md); this adapter builds
// the case, times the abort, measures the turn and encodes the observation
// (observe.mjs). A case needing what the runtime cannot express (its shim's
// `notApplicable`) is answered `notApplicable` with the shim's reason.
//
// Runtimes log: every write to stdout other than the protocol's replies is
// sent to stderr, where the runner keeps it with the case (../protocol.mjs
// speaks the protocol).

import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { protocolAdapter } from '../protocol.mjs';
import { benchReply } from '../bench.mjs';
import { encodeDelivered } from './encode-delivered.mjs';
import { notApplicable, observeCase } from './observe.mjs';

const adapter = protocolAdapter({
  log: 'toolgate boundary adapter',
  usage: 'node adapters/node/boundary/adapter.mjs --runtime <runtime folder> [--settle-ms <ms>]',
});

function parseArguments(argv) {
  const given = adapter.flags(argv, ['--runtime', '--settle-ms']);
  const options = { runtime: given['--runtime'], settleMs: 2000 };
  if (given['--settle-ms'] !== undefined) {
    options.settleMs = Number(given['--settle-ms']);
    if (!Number.isFinite(options.settleMs) || options.settleMs <= 0) adapter.usage('--settle-ms is a positive number');
  }
  if (options.runtime === undefined) adapter.usage('--runtime is required');
  return options;
}

const options = parseArguments(process.argv.slice(2));
const folder = isAbsolute(options.runtime) ? options.runtime : resolve(process.cwd(), options.runtime);
let shim;
let loadFailure;
try {
  shim = await import(pathToFileURL(join(folder, 'shim.mjs')).href);
  if (typeof shim.runTurn !== 'function' || typeof shim.runtime !== 'object') {
    throw new Error('shim.mjs must export `runtime` and `runTurn` (adapters/node/runtimes/SHIM.md)');
  }
} catch (error) {
  loadFailure = `could not load the runtime shim in ${folder}: ${error?.message ?? error}` +
    (error?.code === 'ERR_MODULE_NOT_FOUND' ? ' (run `npm ci` in that folder first)' : '');
  adapter.log(loadFailure);
}

function identity() {
  if (!shim) return { name: 'unloadable-runtime', version: '0.0.0', language: 'javascript' };
  let homepage;
  try {
    homepage = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).homepage;
  } catch {
    homepage = undefined;
  }
  const id = { name: `${shim.runtime.package} (${shim.runtime.id})`, version: String(shim.runtime.version), language: 'javascript' };
  if (typeof homepage === 'string') id.homepage = homepage;
  return id;
}

/**
 * `toolgate bench` (runner/BENCH.md) on the runtime: each timed run is one
 * `runTurn` with one tool "bench" (schema `{type: "object"}`) that returns
 * the family's value, or the family's calls in one model turn; the first
 * result's `delivered`, encoded as observations encode it, is the text
 * echoed. A shim whose tools run
 * in a process started per turn says so in `notTimed` (SHIM.md).
 */
function prepareBench(input) {
  if (typeof shim.notTimed === 'string') return `not timed: ${shim.notTimed}`;
  const calls = input.kind === 'output' ? [{ id: 'call-1', arguments: {} }] : input.calls;
  if (calls.length > 1 && shim.notApplicable?.parallel !== undefined) {
    return `several calls in one turn: ${shim.notApplicable.parallel}`;
  }
  const value = input.kind === 'output' ? input.value : 'ok';
  const tools = [
    {
      name: 'bench',
      description: 'a benchmark tool',
      inputSchema: { type: 'object' },
      check: undefined,
      execute: () => value,
      index: 0,
      onEvent: () => {},
    },
  ];
  const turn = calls.map((c) => ({ id: c.id, name: 'bench', arguments: c.arguments }));
  return {
    run: async () => {
      const outcome = await shim.runTurn({ tools, calls: turn, signal: new AbortController().signal });
      if (outcome?.registrationError !== undefined) {
        throw new Error(`the runtime refused the bench tool: ${outcome.registrationError.message}`);
      }
      return outcome;
    },
    // what the model receives may be the tool's live value (cycles,
    // BigInts, 2^32 paths): encoded as the suite's observations encode it
    text: (outcome) => {
      const first = outcome?.results?.[0];
      return first === undefined ? undefined : JSON.stringify(encodeDelivered(first.delivered));
    },
  };
}

await adapter.serve({
  hello: () => ({ implementation: identity(), suites: ['boundary'], capabilities: ['bench'] }),
  bench: (request) => benchReply(request, { prepare: prepareBench }),
  loadFailure,
  // the stack: a failure here is the adapter's or the shim's, to be found
  failure: (error) => String(error?.stack ?? error),
  run: async (c) => {
    const reason = notApplicable(shim, c.needs);
    if (reason !== undefined) return { notApplicable: { reason } };
    // the runner asks for more patience when it runs a case again whose
    // first verdict rested on time (runner/PROTOCOL.md)
    const patience = Number.isInteger(c.patience) && c.patience >= 1 ? c.patience : 1;
    return { observation: await observeCase(shim, c.scenario, { settleMs: options.settleMs * patience }) };
  },
});
