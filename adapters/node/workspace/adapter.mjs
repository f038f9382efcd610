#!/usr/bin/env node
// The toolgate adapter (runner/PROTOCOL.md, version 1) for the `workspace`
// suite on toolgate-workspace.mjs, the project's JavaScript implementation of
// seed 004's read/write/bash tools:
//
//   node adapters/node/workspace/adapter.mjs [--mutant <id>]
//
// Each `run` of suite `workspace` is one scenario (FORMAT.md) run by the
// harness (observe.mjs `observeWorkspace`) and answered with its
// observation; a scenario the harness refuses is answered `error` with the
// reason, a case of another suite `notApplicable`. The suite needs no
// capability, so the handshake announces none. `--mutant` applies one
// deliberate breakage of mutants.json (mutants.mjs) and says so in the
// version (`0.1.0+mutant.<id>`).
//
// Replies go to stdout, one JSON line each; everything else goes to stderr
// (bash's output is captured by execFile's pipes, never inherited).

import { createInterface } from 'node:readline';
import { observeWorkspace } from './observe.mjs';
import { IMPLEMENTED, implementationOf } from './mutants.mjs';
import { VERSION } from './toolgate-workspace.mjs';

const SUITE = 'workspace';
const NAME = 'toolgate-workspace';
const LOG = 'toolgate workspace adapter';

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
  process.stderr.write('usage: node adapters/node/workspace/adapter.mjs [--mutant <id>]\n');
  process.exit(2);
}

function parseArguments(argv) {
  const options = { mutant: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (flag !== '--mutant') usage(`unknown argument ${argv[i]}`);
    const value = inline ?? argv[i + 1];
    if (value === undefined) usage(`${flag} needs a value`);
    if (inline === undefined) i += 1;
    options.mutant = value;
  }
  if (options.mutant !== undefined && !IMPLEMENTED.includes(options.mutant)) {
    usage(`unknown mutant ${options.mutant} (mutants.json lists: ${IMPLEMENTED.join(', ')})`);
  }
  return options;
}

const messageOf = (error) => (error instanceof Error ? error.message || String(error) : String(error));

const options = parseArguments(process.argv.slice(2));
const implementation = implementationOf(options.mutant);

function identity() {
  const version = options.mutant === undefined ? VERSION : `${VERSION}+mutant.${options.mutant}`;
  return { name: NAME, version, language: 'javascript' };
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
    reply({ seq, notApplicable: { reason: `${NAME} implements the ${SUITE} suite only, not ${JSON.stringify(c.suite)}` } });
    return;
  }
  let observation;
  try {
    observation = await observeWorkspace(implementation.createTools, c.scenario, { policies: implementation.policies });
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
      reply({ protocol: 1, implementation: identity(), suites: [SUITE], capabilities: [] });
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
