#!/usr/bin/env node
// Checks pipeline files against the suite's JSON Schemas
// (corpus/schema/pipeline-scenario.schema.json for every scenario,
// corpus/schema/pipeline-observation.schema.json for every observation),
// with Ajv's draft 2020-12 build from the toolgate-wall runtime folder
// (imported by path, not installed here). A file-queue scenario
// (`{"fileQueue": …}`) is also checked as its harness checks it before a run
// (file-queue.mjs checkFileQueueScenario: op ids unique, each released at
// most once and after its register, harness queues naming an env of envs),
// as if the install had both queues.
//
//   node validate.mjs cases <dir|file>…         case files (corpus/cases/pipeline/): the file's
//                                               fields, unique case names, each scenario and expect
//   node validate.mjs observations <file>…      a {case id: observation} map (recorded/pi-1.6.0.json),
//                                               or {"suite":"pipeline","observations":[{id, observation}]}
//   node validate.mjs scenarios <file>…         {"suite":"pipeline","scenarios":[…]}
// Exits 1 and prints each error when anything does not validate.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { checkFileQueueScenario, isFileQueueScenario } from './file-queue.mjs';

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

function schemaErrors(validate, value, at) {
  if (validate(value)) return [];
  return validate.errors.map((e) => `${at}: ${e.instancePath} ${e.message}`);
}

// Both queues, as far as the checks are concerned.
const BOTH_QUEUES = { codingAgent() {}, harness() {}, NodeExecutionEnv: class {} };

/** The schema's errors of a scenario and, for a valid file-queue scenario, its harness's refusal. */
function scenarioErrors(validate, value, at) {
  const errors = schemaErrors(validate, value, at);
  if (errors.length === 0 && isFileQueueScenario(value)) {
    try {
      checkFileQueueScenario(value, BOTH_QUEUES);
    } catch (error) {
      errors.push(`${at}: ${error.message}`);
    }
  }
  return errors;
}

const NAME = /^[a-z0-9][a-z0-9-]*$/;
const REQUIREMENT = /^PIPE-[A-Z]+-\d{2}$/;

/**
 * Errors (strings) of one parsed case file (corpus/README.md, "Cases and
 * case files"; `fileName`, when given, must be `<group>.json`): its fields,
 * unique kebab-case names, PIPE-* requirement ids, every scenario against
 * pipeline-scenario.schema.json and every expect against
 * pipeline-observation.schema.json.
 */
export function checkCaseFile(doc, fileName) {
  const { scenario, observation } = validators();
  const errors = [];
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return ['not a JSON object'];
  for (const k of Object.keys(doc)) if (!['suite', 'group', 'description', 'cases'].includes(k)) errors.push(`unknown field ${k}`);
  if (doc.suite !== 'pipeline') errors.push(`suite is ${JSON.stringify(doc.suite)}, not "pipeline"`);
  if (typeof doc.group !== 'string' || !NAME.test(doc.group)) errors.push('group must be a kebab-case name');
  if (fileName !== undefined && `${doc.group}.json` !== fileName) errors.push(`group ${doc.group} is not the file's name ${fileName}`);
  if (typeof doc.description !== 'string') errors.push('description must be a string');
  if (!Array.isArray(doc.cases)) return [...errors, 'cases must be an array'];
  const names = new Set();
  doc.cases.forEach((c, i) => {
    const id = `${doc.group}/${c?.name ?? `#${i}`}`;
    for (const k of Object.keys(c ?? {})) {
      if (!['name', 'description', 'requirements', 'scenario', 'expect'].includes(k)) errors.push(`${id}: unknown field ${k}`);
    }
    if (typeof c?.name !== 'string' || !NAME.test(c.name)) errors.push(`${id}: name must be a kebab-case name`);
    if (names.has(c?.name)) errors.push(`${id}: duplicate name`);
    names.add(c?.name);
    if (typeof c?.description !== 'string' || c.description === '') errors.push(`${id}: description must be a non-empty string`);
    if (!Array.isArray(c?.requirements) || !c.requirements.every((r) => typeof r === 'string' && REQUIREMENT.test(r))) {
      errors.push(`${id}: requirements must be PIPE-<AREA>-<nn> ids`);
    }
    if (!Object.hasOwn(c ?? {}, 'scenario')) errors.push(`${id}: no scenario`);
    else errors.push(...scenarioErrors(scenario, c.scenario, `${id} scenario`));
    if (Object.hasOwn(c ?? {}, 'expect')) errors.push(...schemaErrors(observation, c.expect, `${id} expect`));
  });
  return errors;
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
    errors.push(...scenarioErrors(scenario, isFileQueueScenario(s) ? { fileQueue: s.fileQueue } : s, s.id));
  }
  return errors;
}

/**
 * Errors (strings) of every observation of a parsed recorded file: a
 * `{case id: observation}` map, or `{"suite":"pipeline","observations":[{id, observation}]}`.
 */
export function checkObservationFile(doc) {
  const { observation } = validators();
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return ['not a JSON object'];
  if (Object.hasOwn(doc, 'observations')) {
    const errors = [];
    if (doc.suite !== 'pipeline' || !Array.isArray(doc.observations)) errors.push('not {"suite":"pipeline","observations":[…]}');
    for (const o of Array.isArray(doc.observations) ? doc.observations : []) errors.push(...schemaErrors(observation, o.observation, o.id));
    return errors;
  }
  return Object.entries(doc).flatMap(([id, o]) => schemaErrors(observation, o, id));
}

/** The `.json` files named (folders: their `*.json`, sorted). */
export function jsonFiles(paths) {
  return paths.flatMap((p) =>
    fs.statSync(p).isDirectory()
      ? fs.readdirSync(p).filter((n) => n.endsWith('.json')).sort().map((n) => path.join(p, n))
      : [p],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [what, ...paths] = process.argv.slice(2);
  const check = {
    cases: (doc, f) => checkCaseFile(doc, path.basename(f)),
    scenarios: checkScenarioFile,
    observations: checkObservationFile,
  }[what];
  if (!check || paths.length === 0) {
    process.stderr.write('usage: node validate.mjs cases|observations|scenarios <file|dir>…\n');
    process.exit(2);
  }
  let bad = 0;
  const ids = new Map();
  for (const f of jsonFiles(paths)) {
    const doc = JSON.parse(fs.readFileSync(f, 'utf8'));
    const errors = check(doc, f);
    if (what === 'cases') {
      for (const c of Array.isArray(doc.cases) ? doc.cases : []) {
        const id = `${doc.group}/${c.name}`;
        if (ids.has(id)) errors.push(`${id}: also in ${ids.get(id)}`);
        ids.set(id, f);
      }
    }
    const n = what === 'cases' ? doc.cases?.length : (doc.scenarios ?? doc.observations ?? Object.keys(doc)).length;
    if (errors.length) {
      bad += 1;
      for (const e of errors.slice(0, 50)) process.stdout.write(`${f}: ${e}\n`);
    } else {
      process.stdout.write(`${f}: ${n} ${what} valid\n`);
    }
  }
  process.exit(bad ? 1 : 0);
}
