#!/usr/bin/env node
// The toolgate adapter (runner/PROTOCOL.md, version 1) for the `pipeline`
// suite on the real @earendil-works/pi-agent-core:
//
//   node adapters/node/pipeline/adapter.mjs --pi 0.85|1.6|<folder> [--settle-ms N] [--mutant <id>]
//
// `--pi` picks the install (load.mjs: `0.85`, `1.6`, or a folder whose
// node_modules holds pi-agent-core, pi-ai and typebox). Each `run` of suite
// `pipeline` is one scenario run by the harness (observe.mjs
// `observePipeline`, or file-queue.mjs `observeFileQueue` for a
// `{"fileQueue": …}` scenario) and answered with its observation; a case
// needing a capability the install lacks is answered `skipped`. `--settle-ms` is the
// harness's window after which a run that has not ended is recorded as
// pending (default 1000, keep it below the runner's --timeout). `--mutant`
// applies one deliberate breakage of mutants.json (mutants.mjs) and says so
// in the version (`0.85.0+mutant.<id>`). ADAPTER.md has the details.
//
// Replies go to stdout, one JSON line each; everything else, including what
// pi or a tool writes to stdout, goes to stderr.

import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { INSTALLS, loadPi } from './load.mjs';
import { LOOP_CAPABILITIES, capabilitiesOf, missingCapabilities, observeScenario } from './observe.mjs';
import { IMPLEMENTED, applyMutant } from './mutants.mjs';

const PACKAGE = '@earendil-works/pi-agent-core';
const SUITE = 'pipeline';
// pi runs every feature of the loop a scenario may use (SuiteDef::
// capability_names of the pipeline suite; a version that ignores one fails
// its cases instead), plus `fileQueue` when the install has pi-coding-agent's
// queue and `harnessQueue` when it has pi-agent-core 0.85's harness queue
// (observe.mjs capabilitiesOf)
const LOG = 'toolgate pipeline adapter';

const protocolOut = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

function reply(message) {
  protocolOut(`${JSON.stringify(message)}\n`);
}

function log(message) {
  process.stderr.write(`${LOG}: ${message}\n`);
}

function usage(message) {
  log(message);
  process.stderr.write('usage: node adapters/node/pipeline/adapter.mjs --pi 0.85|1.6|<folder> [--settle-ms N] [--mutant <id>]\n');
  process.exit(2);
}

function parseArguments(argv) {
  const options = { pi: undefined, settleMs: 1000, mutant: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (!['--pi', '--settle-ms', '--mutant'].includes(flag)) usage(`unknown argument ${argv[i]}`);
    const value = inline ?? argv[i + 1];
    if (value === undefined) usage(`${flag} needs a value`);
    if (inline === undefined) i += 1;
    if (flag === '--pi') options.pi = value;
    else if (flag === '--mutant') options.mutant = value;
    else {
      options.settleMs = Number(value);
      if (!Number.isFinite(options.settleMs) || options.settleMs <= 0) usage('--settle-ms is a positive number');
    }
  }
  if (options.pi === undefined) usage('--pi is required');
  if (options.mutant !== undefined && !IMPLEMENTED.includes(options.mutant)) {
    usage(`unknown mutant ${options.mutant} (mutants.json lists: ${IMPLEMENTED.join(', ')})`);
  }
  return options;
}

const messageOf = (error) => (error instanceof Error ? error.message || String(error) : String(error));

const options = parseArguments(process.argv.slice(2));
let pi;
let loadFailure;
try {
  pi = await loadPi(options.pi);
  if (options.mutant !== undefined) pi = applyMutant(pi, options.mutant);
} catch (error) {
  loadFailure = `could not load pi from ${options.pi}: ${messageOf(error)}` +
    (error?.code === 'ERR_MODULE_NOT_FOUND' ? ' (run `npm ci` in that folder first)' : '');
  log(loadFailure);
}

function identity() {
  if (!pi) return { name: 'unloadable-implementation', version: '0.0.0', language: 'javascript' };
  const version = options.mutant === undefined ? pi.version : `${pi.version}+mutant.${options.mutant}`;
  const id = { name: PACKAGE, version, language: 'javascript' };
  try {
    // the install's homepage, or its repository's address
    const folder = INSTALLS[options.pi] ?? path.resolve(options.pi);
    const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'node_modules', PACKAGE, 'package.json'), 'utf8'));
    const repository = typeof manifest?.repository === 'string' ? manifest.repository : manifest?.repository?.url;
    if (typeof manifest?.homepage === 'string') id.homepage = manifest.homepage;
    else if (typeof repository === 'string') id.homepage = repository.replace(/^git\+/, '').replace(/\.git$/, '');
  } catch {
    // no homepage
  }
  return id;
}

const isSeq = (seq) => Number.isInteger(seq) && seq >= 1;

async function run(request) {
  const { seq } = request;
  const c = request.case;
  if (c === null || typeof c !== 'object' || Array.isArray(c)) {
    reply({ seq, error: { message: 'a run request needs a "case" object' } });
    return;
  }
  if (c.suite !== SUITE) {
    // The runner does not send a case of a suite not in the hello; if one
    // comes, it is what the runner itself reports for it: skipped.
    reply({ seq, skipped: { reason: `this adapter runs the ${SUITE} suite, not ${JSON.stringify(c.suite)}` } });
    return;
  }
  if (loadFailure !== undefined) {
    reply({ seq, error: { message: loadFailure } });
    return;
  }
  if (c.scenario === null || typeof c.scenario !== 'object' || Array.isArray(c.scenario)) {
    reply({ seq, error: { message: `case ${c.id}: the scenario is not an object` } });
    return;
  }
  const missing = missingCapabilities(pi, c.scenario);
  if (missing.length > 0) {
    // The runner does not send a case needing a capability the hello does
    // not announce; if one comes, it is what the runner reports for it.
    reply({ seq, skipped: { reason: `needs capability ${missing.join(', ')} (pi-agent-core ${pi.version} here)` } });
    return;
  }
  let observation;
  try {
    observation = await observeScenario(pi, c.scenario, { settleMs: options.settleMs });
  } catch (error) {
    reply({ seq, error: { message: `case ${c.id}: the harness refused the scenario: ${messageOf(error)}` } });
    log(`case ${c.id}: ${error?.stack ?? error}`);
    return;
  }
  reply({ seq, observation });
}

async function handle(request) {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    log(`a request that is not a JSON object: ${JSON.stringify(request)?.slice(0, 200)}`);
    return;
  }
  switch (request.cmd) {
    case 'start':
      reply({ protocol: 1, implementation: identity(), suites: [SUITE], capabilities: pi ? capabilitiesOf(pi) : LOOP_CAPABILITIES });
      return;
    case 'run':
      if (!isSeq(request.seq)) {
        log(`a run request without a valid seq: ${JSON.stringify(request).slice(0, 200)}`);
        return;
      }
      await run(request);
      return;
    case 'stop':
      process.exit(0);
      return;
    default:
      log(`unknown request ${JSON.stringify(request).slice(0, 200)}`);
      if (isSeq(request.seq)) reply({ seq: request.seq, error: { message: `unknown request ${JSON.stringify(request.cmd)}` } });
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    log(`a request that is not JSON: ${messageOf(error)}`);
    continue;
  }
  try {
    await handle(request);
  } catch (error) {
    // a bug of this adapter: answer it when the request can be answered
    log(`while handling ${line.slice(0, 200)}: ${error?.stack ?? error}`);
    if (isSeq(request?.seq)) reply({ seq: request.seq, error: { message: `adapter failure: ${messageOf(error)}` } });
  }
}
process.exit(0);
