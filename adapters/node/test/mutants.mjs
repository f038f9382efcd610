#!/usr/bin/env node
// test/mutants.mjs: checks that the corpus catches the deliberate bugs of
// ../mutants.json. Each mutant is applied to a copy of toolgate-core.mjs by
// exact text replacement (its `find` must occur exactly once), and the copy
// is run through test/corpus.mjs in a child process.
//
//   node adapters/node/test/mutants.mjs [--jobs <n>] [--timeout <seconds>] [name...]
//
// A mutant is killed when at least one case fails. A mutant listing no
// requirement is an equivalent one: it must fail no case. For each mutant
// this prints the failing case count, the time to the first failure, and
// the listed requirements no failing case names (a hint, not an error: the
// runner names requirements per difference, the cases list theirs).
// Exits 1 when a `find` is not unique, the unmutated copy fails, a mutant
// survives, or an equivalent mutant is killed.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const corePath = join(here, '..', 'toolgate-core.mjs');
const mutants = JSON.parse(readFileSync(join(here, '..', 'mutants.json'), 'utf8'));
const source = readFileSync(corePath, 'utf8');

const argv = process.argv.slice(2);
let jobs = availableParallelism();
let timeoutSeconds = 300;
const only = [];
for (let i = 0; i < argv.length; i += 1) {
  if (argv[i] === '--jobs') jobs = Number(argv[++i]);
  else if (argv[i] === '--timeout') timeoutSeconds = Number(argv[++i]);
  else only.push(argv[i]);
}

const problems = [];
const occurrences = (text, find) => text.split(find).length - 1;
for (const m of mutants) {
  const n = occurrences(source, m.find);
  if (n !== 1) problems.push(`${m.name}: its find occurs ${n} times in toolgate-core.mjs`);
}
const names = new Set();
for (const m of mutants) {
  if (names.has(m.name)) problems.push(`${m.name}: the name is used twice`);
  names.add(m.name);
}

const dir = mkdtempSync(join(tmpdir(), 'toolgate-mutants-'));

/** Runs the corpus on one module; resolves with corpus.mjs's JSON summary. */
function runCorpus(modulePath) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(here, 'corpus.mjs'), '--module', modulePath, '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutSeconds * 1000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const last = out.trim().split('\n').at(-1);
      try {
        done({ ...JSON.parse(last), code });
      } catch {
        done({ broken: signal ? `killed by ${signal} (timeout)` : `exit ${code}: ${err.trim().slice(-500)}` });
      }
    });
  });
}

const started = performance.now();
const baselinePath = join(dir, 'unmutated.mjs');
writeFileSync(baselinePath, source);
const baseline = await runCorpus(baselinePath);
if (baseline.broken || baseline.failed.length > 0) {
  problems.push(`the unmutated copy fails: ${baseline.broken ?? baseline.failed.join(', ')}`);
}
console.log(
  `unmutated: ${baseline.failed?.length ?? '?'} failing of ${baseline.total ?? '?'} cases ` +
    `in ${((baseline.elapsedMs ?? 0) / 1000).toFixed(1)} s`,
);

const selected = mutants.filter(
  (m) => occurrences(source, m.find) === 1 && (only.length === 0 || only.some((o) => m.name.includes(o))),
);
const results = new Map();
let next = 0;
async function worker() {
  while (next < selected.length) {
    const m = selected[next];
    next += 1;
    const file = join(dir, `${m.name}.mjs`);
    writeFileSync(file, source.replace(m.find, () => m.replace));
    const r = await runCorpus(file);
    results.set(m.name, r);
    const equivalent = m.requirements.length === 0;
    let line;
    if (r.broken) {
      line = `${m.name}: KILLED (${r.broken})`;
      if (equivalent) problems.push(`${m.name}: an equivalent mutant was killed`);
    } else if (r.failed.length === 0) {
      line = `${m.name}: ${equivalent ? 'survives, as an equivalent mutant must' : 'SURVIVED'}`;
      if (!equivalent) problems.push(`${m.name}: survived`);
    } else {
      const missing = m.requirements.filter((id) => !r.failedRequirements.includes(id));
      line =
        `${m.name}: killed, ${r.failed.length} failing case${r.failed.length === 1 ? '' : 's'}, ` +
        `first after ${(r.firstFailureMs / 1000).toFixed(2)} s (${r.failed[0]})` +
        (missing.length > 0 ? `; no failing case lists ${missing.join(', ')}` : '');
      if (equivalent) problems.push(`${m.name}: an equivalent mutant was killed`);
    }
    console.log(line);
  }
}
await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
rmSync(dir, { recursive: true, force: true });

const killed = [...results.values()].filter((r) => r.broken || r.failed.length > 0).length;
console.log(
  `${killed}/${selected.length} mutants killed in ${((performance.now() - started) / 1000).toFixed(1)} s` +
    ` (${selected.filter((m) => m.requirements.length === 0).length} equivalent by design)`,
);
for (const p of problems) console.log(`PROBLEM ${p}`);
process.exit(problems.length > 0 ? 1 : 0);
