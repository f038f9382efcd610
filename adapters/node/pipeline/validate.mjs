#!/usr/bin/env node
// Checks pipeline files against the suite's JSON Schemas
// (corpus/schema/pipeline-scenario.schema.json for every scenario,
// corpus/schema/pipeline-observation.schema.json for every observation),
// with Ajv's draft 2020-12 build from the toolgate-wall runtime folder
// (../schemas.mjs; case files as ../case-files.mjs checks them). A file-queue scenario
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

import path from 'node:path';
import { checkCaseFile as checkCases } from '../case-files.mjs';
import { compileSchema, schemaErrors, validateCommand } from '../schemas.mjs';
import { checkFileQueueScenario, isFileQueueScenario } from './file-queue.mjs';

const validators = () => ({
  scenario: compileSchema('corpus/schema/pipeline-scenario.schema.json').validate,
  observation: compileSchema('corpus/schema/pipeline-observation.schema.json').validate,
});

// Both queues, as far as the checks are concerned.
const BOTH_QUEUES = { codingAgent() {}, harness() {}, NodeExecutionEnv: class {} };

/** The schema's errors of a scenario and, for a valid file-queue scenario, its harness's refusal. */
function scenarioErrors(value, at) {
  const errors = schemaErrors(validators().scenario, value, at);
  if (errors.length === 0 && isFileQueueScenario(value)) {
    try {
      checkFileQueueScenario(value, BOTH_QUEUES);
    } catch (error) {
      errors.push(`${at}: ${error.message}`);
    }
  }
  return errors;
}

const observationErrors = (value, at) => schemaErrors(validators().observation, value, at);

/**
 * Errors (strings) of one parsed case file (corpus/README.md, "Cases and
 * case files"; `fileName`, when given, must be `<group>.json`): its fields,
 * unique kebab-case names, PIPE-* requirement ids, every scenario against
 * pipeline-scenario.schema.json and every expect against
 * pipeline-observation.schema.json.
 */
export function checkCaseFile(doc, fileName) {
  return checkCases(doc, fileName, { suite: 'pipeline', requirements: 'PIPE', scenarioErrors, observationErrors });
}

/** Errors (strings) of every scenario in a scenario file's parsed JSON. */
export function checkScenarioFile(doc) {
  const errors = [];
  if (doc?.suite !== 'pipeline' || !Array.isArray(doc.scenarios)) errors.push('not {"suite":"pipeline","scenarios":[…]}');
  const ids = new Set();
  for (const s of doc?.scenarios ?? []) {
    if (ids.has(s.id)) errors.push(`${s.id}: duplicate id`);
    ids.add(s.id);
    errors.push(...scenarioErrors(isFileQueueScenario(s) ? { fileQueue: s.fileQueue } : s, s.id));
  }
  return errors;
}

/**
 * Errors (strings) of every observation of a parsed recorded file: a
 * `{case id: observation}` map, or `{"suite":"pipeline","observations":[{id, observation}]}`.
 */
export function checkObservationFile(doc) {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return ['not a JSON object'];
  if (Object.hasOwn(doc, 'observations')) {
    const errors = [];
    if (doc.suite !== 'pipeline' || !Array.isArray(doc.observations)) errors.push('not {"suite":"pipeline","observations":[…]}');
    for (const o of Array.isArray(doc.observations) ? doc.observations : []) errors.push(...observationErrors(o.observation, o.id));
    return errors;
  }
  return Object.entries(doc).flatMap(([id, o]) => observationErrors(o, id));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  validateCommand(process.argv.slice(2), {
    cases: (doc, f) => checkCaseFile(doc, path.basename(f)),
    observations: checkObservationFile,
    scenarios: checkScenarioFile,
  });
}
