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
// sent to stderr, where the runner keeps it with the case.

import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { notApplicable, observeCase } from './observe.mjs';

const protocolOut = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

function reply(message) {
  protocolOut(`${JSON.stringify(message)}\n`);
}

function usage(message) {
  process.stderr.write(`toolgate boundary adapter: ${message}\n` +
    'usage: node adapters/node/boundary/adapter.mjs --runtime <runtime folder> [--settle-ms <ms>]\n');
  process.exit(2);
}

function parseArguments(argv) {
  const options = { runtime: undefined, settleMs: 2000 };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = inline ?? argv[i + 1];
    if (flag === '--runtime' || flag === '--settle-ms') {
      if (value === undefined) usage(`${flag} needs a value`);
      if (inline === undefined) i += 1;
      if (flag === '--runtime') options.runtime = value;
      else {
        options.settleMs = Number(value);
        if (!Number.isFinite(options.settleMs) || options.settleMs <= 0) usage('--settle-ms is a positive number');
      }
    } else {
      usage(`unknown argument ${argv[i]}`);
    }
  }
  if (options.runtime === undefined) usage('--runtime is required');
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
  process.stderr.write(`toolgate boundary adapter: ${loadFailure}\n`);
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

async function handle(request) {
  switch (request?.cmd) {
    case 'start':
      reply({ protocol: 1, implementation: identity(), suites: ['boundary'], capabilities: [] });
      return;
    case 'run': {
      const seq = request.seq;
      if (loadFailure !== undefined) {
        reply({ seq, error: { message: loadFailure } });
        return;
      }
      const scenario = request.case?.scenario;
      if (request.case?.suite !== 'boundary') {
        reply({ seq, skipped: { reason: `this adapter runs the boundary suite, not ${request.case?.suite}` } });
        return;
      }
      const reason = notApplicable(shim, request.case.needs);
      if (reason !== undefined) {
        reply({ seq, notApplicable: { reason } });
        return;
      }
      try {
        const observation = await observeCase(shim, scenario, { settleMs: options.settleMs });
        reply({ seq, observation });
      } catch (error) {
        reply({ seq, error: { message: `case ${request.case?.id}: ${error?.stack ?? error}` } });
      }
      return;
    }
    case 'stop':
      process.exit(0);
      return;
    default:
      process.stderr.write(`toolgate boundary adapter: unknown request ${JSON.stringify(request)?.slice(0, 200)}\n`);
      if (Number.isInteger(request?.seq)) reply({ seq: request.seq, error: { message: `unknown request ${JSON.stringify(request.cmd)}` } });
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    process.stderr.write(`toolgate boundary adapter: a request that is not JSON: ${error?.message ?? error}\n`);
    continue;
  }
  await handle(request);
}
process.exit(0);
