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
// applies one deliberate breakage of mutants.json, or one drift of
// drift-mutants.json (mutants.mjs), and says so in the version
// (`0.85.0+mutant.<id>`). ADAPTER.md has the details.
//
// ../protocol.mjs speaks the protocol: replies go to stdout, one JSON line
// each; everything else, including what pi or a tool writes to stdout, goes
// to stderr.

import fs from 'node:fs';
import path from 'node:path';
import { messageOf, protocolAdapter } from '../protocol.mjs';
import { INSTALLS, loadPi } from './load.mjs';
import { LOOP_CAPABILITIES, capabilitiesOf, missingCapabilities, observeScenario } from './observe.mjs';
import { DRIFTED, IMPLEMENTED, applyMutant } from './mutants.mjs';

const PACKAGE = '@earendil-works/pi-agent-core';
const SUITE = 'pipeline';

const adapter = protocolAdapter({
  log: 'toolgate pipeline adapter',
  usage: 'node adapters/node/pipeline/adapter.mjs --pi 0.85|1.6|<folder> [--settle-ms N] [--mutant <id>]',
});

function parseArguments(argv) {
  const given = adapter.flags(argv, ['--pi', '--settle-ms', '--mutant']);
  const options = { pi: given['--pi'], settleMs: 1000, mutant: given['--mutant'] };
  if (given['--settle-ms'] !== undefined) {
    options.settleMs = Number(given['--settle-ms']);
    if (!Number.isFinite(options.settleMs) || options.settleMs <= 0) adapter.usage('--settle-ms is a positive number');
  }
  if (options.pi === undefined) adapter.usage('--pi is required');
  if (options.mutant !== undefined && !IMPLEMENTED.includes(options.mutant) && !DRIFTED.includes(options.mutant)) {
    adapter.usage(
      `unknown mutant ${options.mutant} (mutants.json lists: ${IMPLEMENTED.join(', ')}; drift-mutants.json: ${DRIFTED.join(', ')})`,
    );
  }
  return options;
}

const options = parseArguments(process.argv.slice(2));
let pi;
let loadFailure;
try {
  pi = await loadPi(options.pi);
  if (options.mutant !== undefined) pi = applyMutant(pi, options.mutant);
} catch (error) {
  loadFailure = `could not load pi from ${options.pi}: ${messageOf(error)}` +
    (error?.code === 'ERR_MODULE_NOT_FOUND' ? ' (run `npm ci` in that folder first)' : '');
  adapter.log(loadFailure);
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

async function run(c) {
  if (c.scenario === null || typeof c.scenario !== 'object' || Array.isArray(c.scenario)) {
    return { error: { message: `case ${c.id}: the scenario is not an object` } };
  }
  const missing = missingCapabilities(pi, c.scenario);
  if (missing.length > 0) {
    // The runner does not send a case needing a capability the hello does
    // not announce; if one comes, it is what the runner reports for it.
    return { skipped: { reason: `needs capability ${missing.join(', ')} (pi-agent-core ${pi.version} here)` } };
  }
  return { observation: await observeScenario(pi, c.scenario, { settleMs: options.settleMs }) };
}

await adapter.serve({
  // pi runs every feature of the loop a scenario may use (SuiteDef::
  // capability_names of the pipeline suite; a version that ignores one fails
  // its cases instead), plus `fileQueue` when the install has pi-coding-agent's
  // queue and `harnessQueue` when it has pi-agent-core 0.85's harness queue
  // (observe.mjs capabilitiesOf)
  hello: () => ({ implementation: identity(), suites: [SUITE], capabilities: pi ? capabilitiesOf(pi) : LOOP_CAPABILITIES }),
  loadFailure,
  failure: (error) => `the harness refused the scenario: ${messageOf(error)}`,
  run,
});
