#!/usr/bin/env node
// The toolgate adapter (runner/PROTOCOL.md, version 1) for the
// `boundary` suite on a real agent runtime:
//
//   node adapters/node/boundary/adapter.mjs --runtime adapters/node/runtimes/<id> [--settle-ms 2000]
//     [--install <folder>]
//
// `--install` grades another version of the runtime with the same shim: the
// shim's packages are imported from <folder>'s node_modules (a folder where
// that version was installed, relative to the caller's directory), and the
// version reported is the one installed there.
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

import { existsSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { protocolAdapter } from '../protocol.mjs';
import { benchReply } from '../bench.mjs';
import { encodeDelivered } from './encode-delivered.mjs';
import { notApplicable, observeCase } from './observe.mjs';

const adapter = protocolAdapter({
  log: 'toolgate boundary adapter',
  usage: 'node adapters/node/boundary/adapter.mjs --runtime <runtime folder> [--settle-ms <ms>] [--install <folder>]',
});

function parseArguments(argv) {
  const given = adapter.flags(argv, ['--runtime', '--settle-ms', '--install']);
  const options = { runtime: given['--runtime'], settleMs: 2000, install: given['--install'] };
  if (given['--settle-ms'] !== undefined) {
    options.settleMs = Number(given['--settle-ms']);
    if (!Number.isFinite(options.settleMs) || options.settleMs <= 0) adapter.usage('--settle-ms is a positive number');
  }
  if (options.runtime === undefined) adapter.usage('--runtime is required');
  return options;
}

const options = parseArguments(process.argv.slice(2));
const folder = isAbsolute(options.runtime) ? options.runtime : resolve(process.cwd(), options.runtime);
// where the runtime's packages come from: the shim's own folder, or --install
const install = options.install === undefined ? folder : resolve(process.cwd(), options.install);
let shim;
let loadFailure;
if (options.install !== undefined) {
  if (!existsSync(join(install, 'node_modules'))) {
    adapter.usage(`--install ${options.install}: ${install} has no node_modules (install the runtime's packages there first, README "Grade another version")`);
  }
  register(new URL('./install-hooks.mjs', import.meta.url), {
    data: { shims: pathToFileURL(resolve(folder, '..')).href + '/', install: pathToFileURL(install).href + '/' },
  });
}
try {
  shim = await import(pathToFileURL(join(folder, 'shim.mjs')).href);
  if (typeof shim.runTurn !== 'function' || typeof shim.runtime !== 'object') {
    throw new Error('shim.mjs must export `runtime` and `runTurn` (adapters/node/runtimes/SHIM.md)');
  }
} catch (error) {
  loadFailure = `could not load the runtime shim in ${folder}: ${error?.message ?? error}` +
    (error?.code === 'ERR_MODULE_NOT_FOUND'
      ? options.install === undefined
        ? ' (run `npm ci` in that folder first)'
        : ` (install every package the shim imports in ${install})`
      : '') +
    (options.install !== undefined && error instanceof SyntaxError
      ? ` (the shim imports something this version does not export: its API differs from ${shim?.runtime?.version ?? 'the pinned version'})`
      : '');
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
  const id = { name: `${shim.runtime.package} (${shim.runtime.id})`, version: installedVersion() ?? String(shim.runtime.version), language: 'javascript' };
  if (typeof homepage === 'string') id.homepage = homepage;
  return id;
}

/** The version of the runtime's package where it is imported from. */
function installedVersion() {
  try {
    const manifest = join(install, 'node_modules', shim.runtime.package, 'package.json');
    return String(JSON.parse(readFileSync(manifest, 'utf8')).version);
  } catch {
    return undefined;
  }
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
