#!/usr/bin/env node
// test/corpus.mjs: runs every core case of the corpus through the adapter's
// own code (observe.mjs, in process) and compares each observation with the
// case's `expect` exactly (as JSON values, object key order aside), as the
// runner does. (The boundary suite grades runtimes through
// adapters/node/boundary/, in its own vocabulary.)
//
//   node adapters/node/test/corpus.mjs [--module <path>]
//                                      [--fail-fast] [--json] [--quiet] [filter...]
//
// --module   the implementation (default: ../toolgate-core.mjs), resolved
//            against the working directory
// --fail-fast stop at the first failing case
// --json     print a summary object on stdout (used by test/mutants.mjs)
// filter     only cases whose id (group/name) contains one of these strings
//
// Exits 1 when a case fails or errors.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { loadImplementation, observe } from '../observe.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const casesDir = join(here, '..', '..', '..', 'corpus', 'cases');

function parseArguments(argv) {
  const options = {
    module: join(here, '..', 'toolgate-core.mjs'),
    failFast: false,
    json: false,
    quiet: false,
    filters: [],
  };
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i];
    if (a === '--module') options.module = argv[++i];
    else if (a === '--fail-fast') options.failFast = true;
    else if (a === '--json') options.json = true;
    else if (a === '--quiet') options.quiet = true;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else options.filters.push(a);
  }
  return options;
}

/** Every core case of the corpus, in file then case order. */
export function loadCases(dir = casesDir) {
  const cases = [];
  for (const suite of ['core']) {
    for (const file of readdirSync(join(dir, suite)).sort()) {
      if (!file.endsWith('.json')) continue;
      const data = JSON.parse(readFileSync(join(dir, suite, file), 'utf8'));
      for (const c of data.cases) {
        cases.push({ id: `${data.group}/${c.name}`, suite: data.suite, ...c });
      }
    }
  }
  return cases;
}

const show = (v) => {
  const text = JSON.stringify(v);
  return text === undefined ? 'nothing' : text.length > 300 ? `${text.slice(0, 300)}... (${text.length} chars)` : text;
};

/** The differences between two JSON values, as "path: expected ..., got ..." lines. */
export function differences(expected, actual, path = '', out = []) {
  if (out.length >= 20) return out;
  if (isDeepStrictEqual(expected, actual)) return out;
  const bothObjects =
    typeof expected === 'object' && expected !== null && typeof actual === 'object' && actual !== null;
  if (bothObjects && Array.isArray(expected) === Array.isArray(actual)) {
    if (Array.isArray(expected)) {
      const n = Math.max(expected.length, actual.length);
      for (let i = 0; i < n; i += 1) {
        if (i >= expected.length) out.push(`${path}/${i}: unexpected ${show(actual[i])}`);
        else if (i >= actual.length) out.push(`${path}/${i}: missing ${show(expected[i])}`);
        else differences(expected[i], actual[i], `${path}/${i}`, out);
      }
    } else {
      for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
        if (!Object.hasOwn(actual, key)) out.push(`${path}/${key}: missing ${show(expected[key])}`);
        else if (!Object.hasOwn(expected, key)) out.push(`${path}/${key}: unexpected ${show(actual[key])}`);
        else differences(expected[key], actual[key], `${path}/${key}`, out);
      }
    }
    return out;
  }
  out.push(`${path || '/'}: expected ${show(expected)}, got ${show(actual)}`);
  return out;
}

/** Runs one case; returns null when it passes, else the lines saying why. */
export async function checkCase(impl, c) {
  let observation;
  try {
    // What goes over the wire: JSON, so undefined fields vanish as they would.
    observation = JSON.parse(JSON.stringify(await observe(impl, c.scenario)));
  } catch (error) {
    return [`adapter error: ${show(String(error?.stack ?? error))}`];
  }
  const diff = differences(c.expect, observation);
  return diff.length === 0 ? null : diff;
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const { module: impl } = await loadImplementation(options.module);
  const cases = loadCases().filter(
    (c) => options.filters.length === 0 || options.filters.some((f) => c.id.includes(f)),
  );
  const log = options.json || options.quiet ? () => {} : (line) => process.stdout.write(`${line}\n`);
  const started = performance.now();
  const failures = [];
  let firstFailureMs;
  for (const c of cases) {
    const caseStarted = performance.now();
    const why = await checkCase(impl, c);
    const ms = performance.now() - caseStarted;
    if (ms > 1000) process.stderr.write(`slow case ${c.id}: ${ms.toFixed(0)} ms\n`);
    if (why === null) continue;
    firstFailureMs ??= performance.now() - started;
    failures.push({ id: c.id, why, requirements: c.requirements });
    log(`FAIL ${c.id}`);
    for (const line of why) log(`    ${line}`);
    if (options.failFast) break;
  }
  const elapsedMs = performance.now() - started;
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({
        total: cases.length,
        failed: failures.map((f) => f.id),
        failedRequirements: [...new Set(failures.flatMap((f) => f.requirements))].sort(),
        firstFailureMs: firstFailureMs ?? null,
        elapsedMs,
      })}\n`,
    );
  } else {
    log(
      `${cases.length - failures.length}/${cases.length} cases passed in ${(elapsedMs / 1000).toFixed(2)} s` +
        (options.failFast && failures.length > 0 ? ' (stopped at the first failure)' : ''),
    );
  }
  process.exitCode = failures.length > 0 ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
  // Cases may leave calls pending forever; they hold nothing, but do not wait.
  process.exit(process.exitCode);
}
