#!/usr/bin/env node
// Checks pipeline files against the suite's JSON Schemas
// (corpus/schema/pipeline-scenario.schema.json for every scenario of a
// scenario file, corpus/schema/pipeline-observation.schema.json for every
// observation of a recorded file), with Ajv's draft 2020-12 build from the
// toolgate-wall runtime folder (imported by path, not installed here).
//
//   node validate.mjs scenarios <file>…   |   node validate.mjs observations <file>…
// Exits 1 and prints each error when anything does not validate.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const here = path.dirname(new URL(import.meta.url).pathname);
const schemaDir = path.resolve(here, '../../../corpus/schema');
const require = createRequire(path.resolve(here, '../runtimes/toolgate-wall/package.json'));

function ajv() {
  const Ajv2020 = require('ajv/dist/2020').default;
  return new Ajv2020({ allErrors: true, strict: false });
}

let compiled;
function validators() {
  if (!compiled) {
    const a = ajv();
    const load = (name) => JSON.parse(fs.readFileSync(path.join(schemaDir, name), 'utf8'));
    compiled = {
      scenario: a.compile(load('pipeline-scenario.schema.json')),
      observation: a.compile(load('pipeline-observation.schema.json')),
    };
  }
  return compiled;
}

/** Errors (strings) of every scenario in a scenario file's parsed JSON. */
export function checkScenarioFile(doc) {
  const { scenario } = validators();
  const errors = [];
  if (doc?.suite !== 'pipeline' || !Array.isArray(doc.scenarios)) errors.push('not {"suite":"pipeline","scenarios":[…]}');
  const ids = new Set();
  for (const s of doc?.scenarios ?? []) {
    if (ids.has(s.id)) errors.push(`${s.id}: duplicate id`);
    ids.add(s.id);
    if (!scenario(s)) for (const e of scenario.errors) errors.push(`${s.id}: ${e.instancePath} ${e.message}`);
  }
  return errors;
}

/** Errors (strings) of every observation in a recorded file's parsed JSON. */
export function checkObservationFile(doc) {
  const { observation } = validators();
  const errors = [];
  if (doc?.suite !== 'pipeline' || !Array.isArray(doc.observations)) errors.push('not {"suite":"pipeline","observations":[…]}');
  for (const o of doc?.observations ?? []) {
    if (!observation(o.observation)) for (const e of observation.errors) errors.push(`${o.id}: ${e.instancePath} ${e.message}`);
  }
  return errors;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [what, ...files] = process.argv.slice(2);
  const check = { scenarios: checkScenarioFile, observations: checkObservationFile }[what];
  if (!check || files.length === 0) {
    process.stderr.write('usage: node validate.mjs scenarios|observations <file>…\n');
    process.exit(2);
  }
  let bad = 0;
  for (const f of files) {
    const doc = JSON.parse(fs.readFileSync(f, 'utf8'));
    const errors = check(doc);
    const n = (doc.scenarios ?? doc.observations ?? []).length;
    if (errors.length) {
      bad += 1;
      for (const e of errors.slice(0, 50)) process.stdout.write(`${f}: ${e}\n`);
    } else {
      process.stdout.write(`${f}: ${n} ${what} valid\n`);
    }
  }
  process.exit(bad ? 1 : 0);
}
