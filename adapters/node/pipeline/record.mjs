#!/usr/bin/env node
// Records observations of pipeline scenarios on one pi install.
//
// Case files (corpus/cases/pipeline/<group>.json, corpus/README.md): every
// case's scenario is run and its observation
//   --write   stored as the case's `expect`, in place (../case-files.mjs,
//             format.mjs layout);
//   --check   compared with the stored `expect`: prints the id of every case
//             whose recording differs (or that has none) and exits 1;
//   neither   printed as `{case id: observation}` on stdout.
// With `--baseline FILE`, --write and --check use FILE, a `{case id:
// observation}` map (recorded/pi-1.6.0.json), instead of the cases' `expect`.
//
//   node record.mjs --pi 0.85 --cases corpus/cases/pipeline --write
//   node record.mjs --pi 0.85 --cases corpus/cases/pipeline --check
//   node record.mjs --pi 1.6  --cases corpus/cases/pipeline --baseline adapters/node/pipeline/recorded/pi-1.6.0.json --write
//   node record.mjs --pi 1.6  --cases corpus/cases/pipeline --baseline adapters/node/pipeline/recorded/pi-1.6.0.json --check
//
// A scenario file (`{"suite":"pipeline","scenarios":[{id, …}]}`) given as a
// plain argument is recorded to stdout as
// `{"suite","package","version","observations":[{"id","observation"}…]}`.
//
// A case needing a capability the install lacks (a file-queue case naming a
// `harness:` queue needs `harnessQueue`, which only pi-agent-core 0.85.0
// has) is not run, as the adapter would not be sent it: it is listed on
// stderr as skipped, has no entry in a baseline written on that install
// (--write drops a stored one), and --check does not ask for one (it
// reports a stored entry for it as differing). With the cases' `expect`,
// such a case keeps its stored expectation.
//
// Options: --pi 0.85|1.6|<folder with node_modules> (default 0.85);
// --settle-ms N (the pending window, default 1000); --only id[,id…] (case
// ids `group/name`, or scenario ids).

import fs from 'node:fs';
import path from 'node:path';
import { casesOf, differing, expectationsOf, loadCaseFiles, writeExpectations } from '../case-files.mjs';
import { loadPi } from './load.mjs';
import { missingCapabilities, observeScenario } from './observe.mjs';
import { isFileQueueScenario } from './file-queue.mjs';
import { layout } from './format.mjs';

export async function recordAll(pi, file, { settleMs = 1000, only } = {}) {
  const { scenarios } = JSON.parse(fs.readFileSync(file, 'utf8'));
  const observations = [];
  for (const scenario of scenarios) {
    if (only && !only.includes(scenario.id)) continue;
    // a file-queue scenario has only its fileQueue key besides id and description
    const run = isFileQueueScenario(scenario) ? { fileQueue: scenario.fileQueue } : scenario;
    if (missingCapabilities(pi, run).length > 0) continue;
    observations.push({ id: scenario.id, observation: await observeScenario(pi, run, { settleMs }) });
  }
  return { suite: 'pipeline', package: '@earendil-works/pi-agent-core', version: pi.version, observations };
}

/**
 * Runs the cases' scenarios: `Map(id → observation)`, in case order. A case
 * needing capabilities `pi` lacks is not run: `skipped` (when given) gets
 * `id → [capability…]` for it.
 */
export async function recordCases(pi, cases, { settleMs = 1000, only, skipped } = {}) {
  const observed = new Map();
  for (const { id, case: c } of cases) {
    if (only && !only.includes(id)) continue;
    const missing = missingCapabilities(pi, c.scenario);
    if (missing.length > 0) {
      skipped?.set(id, missing);
      continue;
    }
    observed.set(id, await observeScenario(pi, c.scenario, { settleMs }));
  }
  return observed;
}

async function main(argv) {
  let root = '0.85';
  let settleMs = 1000;
  let only;
  let mode = 'print';
  let baseline;
  const cases = [];
  let file;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--pi') root = argv[++i];
    else if (a === '--settle-ms') settleMs = Number(argv[++i]);
    else if (a === '--only') only = argv[++i].split(',');
    else if (a === '--cases') cases.push(argv[++i]);
    else if (a === '--write') mode = 'write';
    else if (a === '--check') mode = 'check';
    else if (a === '--baseline') baseline = argv[++i];
    else if (a.startsWith('--')) {
      process.stderr.write(`unknown option ${a}\n`);
      process.exit(2);
    } else file = a;
  }
  if (cases.length === 0 && !file) {
    process.stderr.write(
      'usage: node record.mjs --pi 0.85|1.6|<folder> --cases <dir|file>… [--write|--check] [--baseline file.json] [--settle-ms N] [--only ids]\n' +
        '       node record.mjs --pi 0.85|1.6|<folder> [--settle-ms N] [--only ids] scenarios.json\n',
    );
    process.exit(2);
  }
  const pi = await loadPi(root);
  if (cases.length === 0) {
    const out = await recordAll(pi, file, { settleMs, only });
    process.stdout.write(`${layout(out)}\n`);
    return;
  }

  const loaded = loadCaseFiles(cases);
  const all = casesOf(loaded);
  const started = Date.now();
  const skipped = new Map();
  const observed = await recordCases(pi, all, { settleMs, only, skipped });
  const took =
    `${observed.size} cases on pi ${pi.version} in ${((Date.now() - started) / 1000).toFixed(1)} s` +
    (skipped.size > 0 ? ` (${skipped.size} skipped)` : '');
  for (const [id, missing] of skipped) process.stderr.write(`skipped ${id}: needs capability ${missing.join(', ')}\n`);

  if (mode === 'print') {
    process.stdout.write(`${layout(Object.fromEntries(observed), 3)}\n`);
    return;
  }
  const stored = baseline
    ? fs.existsSync(baseline)
      ? JSON.parse(fs.readFileSync(baseline, 'utf8'))
      : {}
    : expectationsOf(all);

  if (mode === 'check') {
    const differ = differing(observed, stored);
    // a baseline holds nothing for a case this install cannot run
    if (baseline) for (const id of skipped.keys()) if (Object.hasOwn(stored, id)) differ.push(id);
    for (const id of differ) process.stdout.write(`${id}\n`);
    process.stderr.write(`${took}: ${differ.length} differ from ${baseline ?? 'the stored expectations'}\n`);
    process.exit(differ.length ? 1 : 0);
  }

  // write
  if (baseline) {
    const ids = new Set(all.map((c) => c.id));
    const map = {};
    // every case in corpus order; a case not recorded now keeps its stored value
    for (const { id } of all) {
      if (observed.has(id)) map[id] = observed.get(id);
      else if (!skipped.has(id) && Object.hasOwn(stored, id)) map[id] = stored[id];
    }
    // entries of other groups (files not read) are kept after them; those
    // of a group read whose case is gone are dropped
    const groups = new Set(loaded.map((l) => l.file.group));
    for (const id of Object.keys(stored)) {
      if (!ids.has(id) && !groups.has(id.split('/')[0])) map[id] = stored[id];
    }
    fs.mkdirSync(path.dirname(baseline), { recursive: true });
    fs.writeFileSync(baseline, `${layout(map, 3)}\n`);
    process.stderr.write(`${took}: wrote ${baseline}\n`);
    return;
  }
  writeExpectations(loaded, observed);
  process.stderr.write(`${took}: expectations written\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(process.argv.slice(2));
}
