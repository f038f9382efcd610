// case-files.mjs: the corpus's case files (corpus/README.md, "Cases and case
// files": `{suite, group, description, cases: [{name, description,
// requirements, scenario, expect}]}`) as the Node suites' record.mjs and
// validate.mjs read, check and rewrite them. The suites differ only in how a
// scenario is run and checked; what a case file is, how its cases are named
// (`group/name`) and how a recorded expectation is written back (the layout
// of pipeline/format.mjs, so that files diff line by line) is the same for
// all, and stays in one place here.

import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { layoutCaseFile } from './pipeline/format.mjs';

/** The `.json` files named (folders: their `*.json`, sorted). */
export function jsonFiles(paths) {
  return paths.flatMap((p) =>
    fs.statSync(p).isDirectory()
      ? fs.readdirSync(p).filter((n) => n.endsWith('.json')).sort().map((n) => path.join(p, n))
      : [p],
  );
}

/** The case files named by `paths` (files, or folders: their `*.json`, sorted), parsed: `[{path, file}]`. */
export function loadCaseFiles(paths) {
  return jsonFiles(paths).map((p) => ({ path: p, file: JSON.parse(fs.readFileSync(p, 'utf8')) }));
}

/** Every case of the loaded files: `[{id, case, path, file}]`, ids `group/name`. */
export function casesOf(loaded) {
  const out = [];
  for (const { path: p, file } of loaded) {
    for (const c of file.cases ?? []) out.push({ id: `${file.group}/${c.name}`, case: c, path: p, file });
  }
  return out;
}

/** The stored expectations of `cases` (casesOf): `{id: expect}`, for the cases that have one. */
export function expectationsOf(cases) {
  return Object.fromEntries(cases.filter((c) => Object.hasOwn(c.case, 'expect')).map((c) => [c.id, c.case.expect]));
}

/** The ids of `observed` (`Map(id → observation)`) whose entry in `stored` is missing or different. */
export function differing(observed, stored) {
  return [...observed].filter(([id, o]) => !Object.hasOwn(stored, id) || !isDeepStrictEqual(stored[id], o)).map(([id]) => id);
}

/**
 * Writes each observation of `observed` (`Map(id → observation)`) as its
 * case's `expect`, in place, in the files `loaded` (loadCaseFiles); a file
 * is rewritten when an expectation changed or its text is not in the
 * canonical layout.
 */
export function writeExpectations(loaded, observed) {
  for (const { path: p, file: f } of loaded) {
    let changed = false;
    f.cases = f.cases.map((c) => {
      const id = `${f.group}/${c.name}`;
      if (!observed.has(id)) return c;
      const o = observed.get(id);
      if (Object.hasOwn(c, 'expect') && isDeepStrictEqual(c.expect, o)) return c;
      changed = true;
      // field order as corpus/README.md lists it
      const { name, description, requirements, scenario, expect, ...rest } = c;
      return { name, description, requirements, scenario, ...rest, expect: o };
    });
    const text = layoutCaseFile(f);
    if (changed || text !== fs.readFileSync(p, 'utf8')) fs.writeFileSync(p, text);
  }
}

const NAME = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Errors (strings) of one parsed case file of suite `suite` (`fileName`,
 * when given, must be `<group>.json`): its fields, unique kebab-case names,
 * `<requirements>-<AREA>-<nn>` requirement ids, every scenario's
 * `scenarioErrors(scenario, at)` and every expect's
 * `observationErrors(expect, at)`.
 */
export function checkCaseFile(doc, fileName, { suite, requirements, scenarioErrors, observationErrors }) {
  const requirement = new RegExp(`^${requirements}-[A-Z]+-\\d{2}$`);
  const errors = [];
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return ['not a JSON object'];
  for (const k of Object.keys(doc)) if (!['suite', 'group', 'description', 'cases'].includes(k)) errors.push(`unknown field ${k}`);
  if (doc.suite !== suite) errors.push(`suite is ${JSON.stringify(doc.suite)}, not ${JSON.stringify(suite)}`);
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
    if (!Array.isArray(c?.requirements) || !c.requirements.every((r) => typeof r === 'string' && requirement.test(r))) {
      errors.push(`${id}: requirements must be ${requirements}-<AREA>-<nn> ids`);
    }
    if (!Object.hasOwn(c ?? {}, 'scenario')) errors.push(`${id}: no scenario`);
    else errors.push(...scenarioErrors(c.scenario, `${id} scenario`));
    if (Object.hasOwn(c ?? {}, 'expect')) errors.push(...observationErrors(c.expect, `${id} expect`));
  });
  return errors;
}
