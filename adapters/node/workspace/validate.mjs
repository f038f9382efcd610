#!/usr/bin/env node
// Checks workspace files against the suite's JSON Schemas
// (corpus/schema/workspace-scenario.schema.json for every scenario,
// corpus/schema/workspace-observation.schema.json for every observation),
// with Ajv's draft 2020-12 build from the toolgate-wall runtime folder
// (../schemas.mjs; case files as ../case-files.mjs checks them). A scenario
// is also checked as the harness checks it before a run (observe.mjs
// checkScenario).
//
//   node validate.mjs cases <dir|file>…          case files (corpus/cases/workspace/): the file's
//                                                fields, unique case names, WS-* requirement ids,
//                                                each scenario and expect
//   node validate.mjs observations <file>…       a {case id: observation} map (record.mjs's output)
// Exits 1 and prints each error when anything does not validate.

import path from 'node:path';
import { checkCaseFile as checkCases } from '../case-files.mjs';
import { compileSchema, schemaErrors, validateCommand } from '../schemas.mjs';
import { checkScenario } from './observe.mjs';

const validators = () => ({
  scenario: compileSchema('corpus/schema/workspace-scenario.schema.json').validate,
  observation: compileSchema('corpus/schema/workspace-observation.schema.json').validate,
});

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

/**
 * Errors (strings) of one parsed case file (corpus/README.md, "Cases and
 * case files"; `fileName`, when given, must be `<group>.json`): its fields,
 * unique kebab-case names, WS-* requirement ids, every scenario against
 * workspace-scenario.schema.json and every expect against
 * workspace-observation.schema.json.
 */
export function checkCaseFile(doc, fileName) {
  return checkCases(doc, fileName, { suite: 'workspace', requirements: 'WS', scenarioErrors, observationErrors });
}

/** Errors (strings) of every observation of a `{case id: observation}` map. */
export function checkObservationFile(doc) {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return ['not a JSON object'];
  return Object.entries(doc).flatMap(([id, o]) => observationErrors(o, id));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  validateCommand(process.argv.slice(2), { cases: (doc, f) => checkCaseFile(doc, path.basename(f)), observations: checkObservationFile });
}
