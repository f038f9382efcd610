#!/usr/bin/env node
// Records observations of workspace cases on toolgate-workspace.mjs.
//
// Case files (corpus/cases/workspace/<group>.json, corpus/README.md): every
// case's scenario is run (observe.mjs) and its observation
//   --write   stored as the case's `expect`, in place (../case-files.mjs, in
//             the layout of ../pipeline/format.mjs: one result and one tree
//             entry per line);
//   --check   compared with the stored `expect`: prints the id of every case
//             whose recording differs (or that has none) and exits 1;
//   neither   printed as `{case id: observation}` on stdout.
//
//   node adapters/node/workspace/record.mjs --check
//   node adapters/node/workspace/record.mjs --write --only workspace-path/dotdot-escape
//   node adapters/node/workspace/record.mjs --mutant prefix-boundary --check
//
// Options: --cases <dir|file> (repeatable; default corpus/cases/workspace);
// --only id[,id…] (case ids `group/name`); --mutant <id> (mutants.json: run
// that breakage instead; not with --write). A case whose scenario the
// harness refuses is reported on stderr and counts as differing.

import path from 'node:path';
import { casesOf, differing, expectationsOf, loadCaseFiles, writeExpectations } from '../case-files.mjs';
import { layout } from '../pipeline/format.mjs';
import { observeWorkspace } from './observe.mjs';
import { IMPLEMENTED, implementationOf } from './mutants.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
/** The corpus's workspace case files. */
export const CASES_DIR = path.resolve(here, '../../../corpus/cases/workspace');

/**
 * Runs the cases' scenarios on `implementation` (mutants.mjs
 * implementationOf): `Map(id → observation)`, in case order; a scenario the
 * harness refuses puts `id → message` in `refused` instead. The watcher's
 * `outside` is left out: an expectation is what the reference observes
 * (results and the tree; the Rust reference has no watcher), and the
 * seed's own changes outside, in a race case, show in the tree.
 */
export async function recordCases(implementation, cases, { only, refused = new Map() } = {}) {
  const observed = new Map();
  for (const { id, case: c } of cases) {
    if (only && !only.includes(id)) continue;
    try {
      const { outside: _seen, ...observation } = await observeWorkspace(implementation.createTools, c.scenario, { policies: implementation.policies });
      observed.set(id, observation);
    } catch (error) {
      refused.set(id, error instanceof Error ? error.message : String(error));
    }
  }
  return observed;
}

function usage(message) {
  if (message) process.stderr.write(`${message}\n`);
  process.stderr.write('usage: node record.mjs [--cases <dir|file>]… [--write|--check] [--only ids] [--mutant id]\n');
  process.exit(2);
}

async function main(argv) {
  let only;
  let mode = 'print';
  let mutant;
  const paths = [];
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--cases') paths.push(value());
    else if (a === '--only') only = value().split(',');
    else if (a === '--mutant') mutant = value();
    else if (a === '--write') mode = 'write';
    else if (a === '--check') mode = 'check';
    else usage(`unknown argument ${a}`);
  }
  if (mutant !== undefined && !IMPLEMENTED.includes(mutant)) usage(`unknown mutant ${mutant} (mutants.json lists: ${IMPLEMENTED.join(', ')})`);
  if (mutant !== undefined && mode === 'write') usage('--write records the faithful implementation only');
  if (paths.length === 0) paths.push(CASES_DIR);

  const loaded = loadCaseFiles(paths);
  const all = casesOf(loaded);
  const started = Date.now();
  const refused = new Map();
  const observed = await recordCases(implementationOf(mutant), all, { only, refused });
  const on = mutant === undefined ? 'toolgate-workspace' : `toolgate-workspace+mutant.${mutant}`;
  const took = `${observed.size} cases on ${on} in ${((Date.now() - started) / 1000).toFixed(1)} s`;
  for (const [id, message] of refused) process.stderr.write(`refused ${id}: ${message}\n`);

  if (mode === 'print') {
    process.stdout.write(`${layout(Object.fromEntries(observed), 3)}\n`);
    process.exit(refused.size ? 1 : 0);
  }
  if (mode === 'check') {
    const differ = [...differing(observed, expectationsOf(all)), ...refused.keys()];
    for (const id of differ) process.stdout.write(`${id}\n`);
    process.stderr.write(`${took}: ${differ.length} differ from the stored expectations\n`);
    process.exit(differ.length ? 1 : 0);
  }

  writeExpectations(loaded, observed);
  process.stderr.write(`${took}: expectations written\n`);
  process.exit(refused.size ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(process.argv.slice(2));
}
