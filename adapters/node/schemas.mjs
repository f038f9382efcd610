// schemas.mjs: the project's JSON Schemas (draft 2020-12: corpus/schema/,
// runner/schema/) as Ajv validators for the Node adapters, their validate.mjs
// commands and their tests. Ajv is the draft 2020-12 build of the
// toolgate-wall runtime folder, imported by path: nothing is installed for
// the adapters themselves (run `npm ci` in runtimes/toolgate-wall first).
//
//   const scenario = compileSchema('corpus/schema/workspace-scenario.schema.json').validate;
//   schemaErrors(scenario, value, 'scenario')   // ['scenario: /calls/0 must have required property …']
//
// `validateCommand` is the command line both validate.mjs share.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { jsonFiles } from './case-files.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository's root folder. */
export const REPO = path.resolve(here, '../..');
const require = createRequire(path.join(here, 'runtimes/toolgate-wall/package.json'));

let ajv;
const compiled = new Map();

/**
 * The schema at `file` (relative to the repository's root), compiled once
 * per process (one Ajv instance holds every schema, so a schema is added
 * only once): `validate`, its validator, and `definition(name)`, the
 * validator of its `$defs/<name>`.
 */
export function compileSchema(file) {
  if (!compiled.has(file)) {
    if (!ajv) {
      const Ajv2020 = require('ajv/dist/2020').default;
      ajv = new Ajv2020({ allErrors: true, strict: false });
    }
    const schema = JSON.parse(fs.readFileSync(path.join(REPO, file), 'utf8'));
    const validate = ajv.compile(schema);
    const definition = (name) => ajv.getSchema(`${schema.$id}#/$defs/${name}`);
    compiled.set(file, { validate, definition });
  }
  return compiled.get(file);
}

/** The errors (strings, each starting `at: <instance path>`) of `value` against `validate`. */
export function schemaErrors(validate, value, at) {
  if (validate(value)) return [];
  return validate.errors.map((e) => `${at}: ${e.instancePath || '/'} ${e.message}`);
}

/**
 * The command line of a suite's validate.mjs: `argv` is `<kind> <file|dir>…`
 * and `checks` maps each kind to a function of a parsed file and its path
 * giving its errors (strings). Prints each file's errors (at most 50) or its
 * count, and exits 1 when any file has errors, 2 on a bad command line. For
 * `cases`, a case id in two files is an error too.
 */
export function validateCommand(argv, checks) {
  const [what, ...paths] = argv;
  const check = checks[what];
  if (!check || paths.length === 0) {
    process.stderr.write(`usage: node validate.mjs ${Object.keys(checks).join('|')} <file|dir>…\n`);
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
