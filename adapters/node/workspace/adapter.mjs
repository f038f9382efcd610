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
// reason, a case of another suite `notApplicable`. The handshake announces
// the suite's two capabilities, the seed's bash (`workspace.bash`) and its
// call layer's approval policies (`workspace.approval`). `--mutant` applies one
// deliberate breakage of mutants.json (mutants.mjs) and says so in the
// version (`0.1.0+mutant.<id>`).
//
// ../protocol.mjs speaks the protocol: replies go to stdout, one JSON line
// each; everything else goes to stderr (bash's output is captured by
// execFile's pipes, never inherited).

import { messageOf, protocolAdapter } from '../protocol.mjs';
import { observeWorkspace } from './observe.mjs';
import { IMPLEMENTED, implementationOf } from './mutants.mjs';
import { VERSION } from './toolgate-workspace.mjs';

const SUITE = 'workspace';
const NAME = 'toolgate-workspace';

const adapter = protocolAdapter({ log: 'toolgate workspace adapter', usage: 'node adapters/node/workspace/adapter.mjs [--mutant <id>]' });
const { '--mutant': mutant } = adapter.flags(process.argv.slice(2), ['--mutant']);
if (mutant !== undefined && !IMPLEMENTED.includes(mutant)) {
  adapter.usage(`unknown mutant ${mutant} (mutants.json lists: ${IMPLEMENTED.join(', ')})`);
}
const implementation = implementationOf(mutant);

await adapter.serve({
  hello: () => ({
    implementation: { name: NAME, version: mutant === undefined ? VERSION : `${VERSION}+mutant.${mutant}`, language: 'javascript' },
    suites: [SUITE],
    capabilities: ['workspace.bash', 'workspace.approval'],
  }),
  otherSuite: (suite) => ({ notApplicable: { reason: `${NAME} implements the ${SUITE} suite only, not ${JSON.stringify(suite)}` } }),
  failure: (error) => `the harness refused the scenario: ${messageOf(error)}`,
  run: async (c) => ({ observation: await observeWorkspace(implementation.createTools, c.scenario, { policies: implementation.policies }) }),
});
