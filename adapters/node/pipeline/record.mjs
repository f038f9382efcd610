#!/usr/bin/env node
// Records observations: runs every scenario of a scenario file
// (`{"suite":"pipeline","scenarios":[…]}`, corpus/schema/pipeline-scenario.schema.json
// for each entry) on one pi install and prints
// `{"suite":"pipeline","package":…,"version":…,"observations":[{"id","observation"}…]}`
// as JSON on stdout.
//
//   node record.mjs --pi 0.85|1.6|<folder with node_modules> [--settle-ms N] [--only id[,id…]] scenarios.json

import fs from 'node:fs';
import { loadPi } from './load.mjs';
import { observePipeline } from './observe.mjs';
import { layout } from './format.mjs';

export async function recordAll(pi, file, { settleMs = 1000, only } = {}) {
  const { scenarios } = JSON.parse(fs.readFileSync(file, 'utf8'));
  const observations = [];
  for (const scenario of scenarios) {
    if (only && !only.includes(scenario.id)) continue;
    observations.push({ id: scenario.id, observation: await observePipeline(pi, scenario, { settleMs }) });
  }
  return { suite: 'pipeline', package: '@earendil-works/pi-agent-core', version: pi.version, observations };
}

async function main(argv) {
  let root = '0.85';
  let settleMs = 1000;
  let only;
  let file;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--pi') root = argv[++i];
    else if (a === '--settle-ms') settleMs = Number(argv[++i]);
    else if (a === '--only') only = argv[++i].split(',');
    else file = a;
  }
  if (!file) {
    process.stderr.write('usage: node record.mjs --pi 0.85|1.6|<folder> [--settle-ms N] [--only ids] scenarios.json\n');
    process.exit(2);
  }
  const pi = await loadPi(root);
  const out = await recordAll(pi, file, { settleMs, only });
  process.stdout.write(`${layout(out)}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(process.argv.slice(2));
}
