#!/usr/bin/env node
// Checks workspace files against the suite's JSON Schemas
// (corpus/schema/workspace-scenario.schema.json for every scenario,
// corpus/schema/workspace-observation.schema.json for every observation),
// with Ajv's draft 2020-12 build from the toolgate-wall runtime folder
// (imported by path, not installed here). A scenario is also checked as the
// harness checks it before a run (observe.mjs checkScenario).
//
//   node validate.mjs cases <dir|file>…          case files (corpus/cases/workspace/): the file's
//                                                fields, unique case names, WS-* requirement ids,
//                                                each scenario and expect
//   node validate.mjs observations <file>…       a {case id: observation} map (record.mjs's output)
// Exits 1 and prints each error when anything does not validate.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { checkScenario } from './observe.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const schemaDir = path.resolve(here, '../../../corpus/schema');
const require = createRequire(path.resolve(here, '../runtimes/toolgate-wall/package.json'));

let compiled;
function validators() {
  if (!compiled) {
    const Ajv2020 = require('ajv/dist/2020').default;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const load = (name) => JSON.parse(fs.readFileSync(path.join(schemaDir, name), 'utf8'));
    compiled = {
      scenario: ajv.compile(load('workspace-scenario.schema.json')),
      observation: ajv.compile(load('workspace-observation.schema.json')),
    };
  }
  return compiled;
}

function schemaErrors(validate, value, at) {
  if (validate(value)) return [];
  return validate.errors.map((e) => `${at}: ${e.instancePath || '/'} ${e.message}`);
}

/** The schema's errors of a scenario, and the harness's refusal of a schema-valid one. */
export function scenarioErrors(value, at = 'scenario') {
  const errors = schemaErrors(validators().scenario, value, at);
  if (errors.length === 0) {
    try {
      checkScenario(value);
    } catch (error) {
      errors.push(`${at}: ${error.message}`);
    }
  }
  return errors;
}

/** The schema's errors of an observation. */
export function observationErrors(value, at = 'observation') {
  return schemaErrors(validators().observation, value, at);
}

const NAME = /^[a-z0-9][a-z0-9-]*$/;
const REQUIREMENT = /^WS-[A-Z]+-\d{2}$/;

/**
 * Errors (strings) of one parsed case file (corpus/README.md, "Cases and
 * case files"; `fileName`, when given, must be `<group>.json`): its fields,
 * unique kebab-case names, WS-* requirement ids, every scenario against
 * workspace-scenario.schema.json and every expect against
 * workspace-observation.schema.json.
 */
export function checkCaseFile(doc, fileName) {
  const errors = [];
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return ['not a JSON object'];
  for (const k of Object.keys(doc)) if (!['suite', 'group', 'description', 'cases'].includes(k)) errors.push(`unknown field ${k}`);
  if (doc.suite !== 'workspace') errors.push(`suite is ${JSON.stringify(doc.suite)}, not "workspace"`);
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
      errors.push(`${id}: requirements must be WS-<AREA>-<nn> ids`);
    }
    if (!Object.hasOwn(c ?? {}, 'scenario')) errors.push(`${id}: no scenario`);
    else errors.push(...scenarioErrors(c.scenario, `${id} scenario`));
    if (Object.hasOwn(c ?? {}, 'expect')) errors.push(...observationErrors(c.expect, `${id} expect`));
  });
  return errors;
}

/** Errors (strings) of every observation of a `{case id: observation}` map. */
export function checkObservationFile(doc) {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return ['not a JSON object'];
  return Object.entries(doc).flatMap(([id, o]) => observationErrors(o, id));
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
  const check = { cases: (doc, f) => checkCaseFile(doc, path.basename(f)), observations: checkObservationFile }[what];
  if (!check || paths.length === 0) {
    process.stderr.write('usage: node validate.mjs cases|observations <file|dir>…\n');
    process.exit(2);
  }
  let bad = 0;
  const ids = new Map();
  for (const f of jsonFiles(paths)) {
    let doc;
    try {
      doc = JSON.parse(fs.readFileSync(f, 'utf8'));
    } catch (error) {
      bad += 1;
      process.stdout.write(`${f}: not JSON: ${error.message}\n`);
      continue;
    }
    const errors = check(doc, f);
    if (what === 'cases') {
      for (const c of Array.isArray(doc.cases) ? doc.cases : []) {
        const id = `${doc.group}/${c?.name}`;
        if (ids.has(id)) errors.push(`${id}: also in ${ids.get(id)}`);
        ids.set(id, f);
      }
    }
    const n = what === 'cases' ? doc.cases?.length : Object.keys(doc).length;
    if (errors.length) {
      bad += 1;
      for (const e of errors.slice(0, 50)) process.stdout.write(`${f}: ${e}\n`);
    } else {
      process.stdout.write(`${f}: ${n} ${what} valid\n`);
    }
  }
  process.exit(bad ? 1 : 0);
}
