#!/usr/bin/env node
// The toolgate adapter (runner/PROTOCOL.md, version 1) for the `workspace`
// suite on toolgate-workspace.mjs, the project's JavaScript implementation of
// seed 004's read/write/bash tools:
//
//   node adapters/node/workspace/adapter.mjs [--mutant <id> | --variant checked-open]
//
// Each `run` of suite `workspace` is one scenario (FORMAT.md) run by the
// harness (observe.mjs `observeWorkspace`) and answered with its
// observation; a scenario the harness refuses is answered `error` with the
// reason, a case of another suite `notApplicable`. The handshake announces
// the suite's three capabilities: the seed's bash (`workspace.bash`), its
// call layer's approval policies (`workspace.approval`), and the hook in
// read's and write's check-then-use window that a swap needs
// (`workspace.interference`). `--mutant` applies one
// deliberate breakage of mutants.json (mutants.mjs) and says so in the
// version (`0.1.0+mutant.<id>`); `--variant checked-open` runs the safer
// variant of checked-open.mjs instead (`0.1.0+checked-open`), which closes
// the seed's check-then-use window for read and narrows it for write.
//
// ../protocol.mjs speaks the protocol: replies go to stdout, one JSON line
// each; everything else goes to stderr (bash's output is captured by
// execFile's pipes, never inherited).

import { messageOf, protocolAdapter } from '../protocol.mjs';
import { VARIANT, createCheckedTools } from './checked-open.mjs';
import { observeWorkspace } from './observe.mjs';
import { IMPLEMENTED, implementationOf } from './mutants.mjs';
import { VERSION } from './toolgate-workspace.mjs';

const SUITE = 'workspace';
const NAME = 'toolgate-workspace';

const adapter = protocolAdapter({ log: 'toolgate workspace adapter', usage: 'node adapters/node/workspace/adapter.mjs [--mutant <id> | --variant checked-open]' });
const { '--mutant': mutant, '--variant': variant } = adapter.flags(process.argv.slice(2), ['--mutant', '--variant']);
if (mutant !== undefined && !IMPLEMENTED.includes(mutant)) {
  adapter.usage(`unknown mutant ${mutant} (mutants.json lists: ${IMPLEMENTED.join(', ')})`);
}
if (variant !== undefined && (variant !== VARIANT || mutant !== undefined)) {
  adapter.usage(`--variant takes ${VARIANT} only, and not with --mutant`);
}
const implementation = variant === undefined ? implementationOf(mutant) : { createTools: createCheckedTools, policies: {} };
const version = mutant !== undefined ? `${VERSION}+mutant.${mutant}` : variant !== undefined ? `${VERSION}+${variant}` : VERSION;

await adapter.serve({
  hello: () => ({
    implementation: { name: NAME, version, language: 'javascript' },
    suites: [SUITE],
    capabilities: ['workspace.bash', 'workspace.approval', 'workspace.interference'],
  }),
  otherSuite: (suite) => ({ notApplicable: { reason: `${NAME} implements the ${SUITE} suite only, not ${JSON.stringify(suite)}` } }),
  failure: (error) => `the harness refused the scenario: ${messageOf(error)}`,
  run: async (c) => ({ observation: await observeWorkspace(implementation.createTools, c.scenario, { policies: implementation.policies }) }),
});
