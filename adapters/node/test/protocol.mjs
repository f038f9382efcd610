#!/usr/bin/env node
// test/protocol.mjs: drives adapter.mjs over stdio exactly as the runner
// does (runner/PROTOCOL.md): the start handshake, one `run` per corpus case
// with growing seq, `stop`; checks that every reply is one JSON line echoing
// its seq with exactly one of observation/skipped/error, compares the
// observations like test/corpus.mjs, and measures throughput on small cases.
//
//   node adapters/node/test/protocol.mjs [--module <path>] [--repeat <n>]
//
// --repeat n  also sends the corpus's small cases n more times (throughput)

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { differences, loadCases } from './corpus.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const adapterArgs = [];
let repeat = 0;
for (let i = 0; i < argv.length; i += 1) {
  if (argv[i] === '--module') adapterArgs.push('--module', argv[++i]);
  else if (argv[i] === '--repeat') repeat = Number(argv[++i]);
  else throw new Error(`unknown argument ${argv[i]}`);
}

const child = spawn(process.execPath, [join(here, '..', 'adapter.mjs'), ...adapterArgs], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
let exitCode;
const exited = new Promise((done) => child.on('exit', (code) => done((exitCode = code))));

async function request(message) {
  child.stdin.write(`${JSON.stringify(message)}\n`);
  const { value, done } = await replies.next();
  if (done) throw new Error(`the adapter closed stdout (exit ${exitCode})`);
  return { line: value, reply: JSON.parse(value) };
}

const problems = [];
const hello = (await request({ cmd: 'start', protocol: 1 })).reply;
const expectedCapabilities = ['proxy', 'bigint', 'symbol', 'accessors', 'otherRealm', 'loneSurrogates', 'concurrent'];
if (
  hello.protocol !== 1 ||
  typeof hello.implementation?.name !== 'string' ||
  typeof hello.implementation?.version !== 'string' ||
  typeof hello.implementation?.language !== 'string' ||
  JSON.stringify(hello.suites) !== '["core"]' ||
  expectedCapabilities.some((c) => !hello.capabilities.includes(c))
) {
  problems.push(`bad start reply ${JSON.stringify(hello)}`);
}
console.log(`start: ${JSON.stringify(hello)}`);

const cases = loadCases();
let seq = 0;
let failed = 0;
async function run(c) {
  seq += 1;
  const { line, reply } = await request({
    cmd: 'run',
    seq,
    case: { id: c.id, suite: c.suite, scenario: c.scenario },
  });
  const kinds = ['observation', 'skipped', 'error'].filter((k) => k in reply);
  if (line.includes('\n') || reply.seq !== seq || kinds.length !== 1 || Object.keys(reply).length !== 2) {
    problems.push(`${c.id}: malformed reply ${line.slice(0, 200)}`);
    return;
  }
  if (!('observation' in reply)) {
    failed += 1;
    console.log(`FAIL ${c.id}: ${JSON.stringify(reply).slice(0, 300)}`);
    return;
  }
  const diff = differences(c.expect, reply.observation);
  if (diff.length > 0) {
    failed += 1;
    console.log(`FAIL ${c.id}`);
    for (const d of diff) console.log(`    ${d}`);
  }
}

let started = performance.now();
for (const c of cases) await run(c);
const fullMs = performance.now() - started;
console.log(`${cases.length - failed}/${cases.length} cases passed over the protocol in ${(fullMs / 1000).toFixed(2)} s`);

if (repeat > 0) {
  // "small": at most 4 KB of JSON and no size field (count, depth, length,
  // times, pow2) above 10,000, which is most of the corpus
  const isSmall = (c) => {
    const text = JSON.stringify(c.scenario);
    const sizes = [...text.matchAll(/"(count|depth|length|times|pow2)":(\d+)/g)].map((m) => Number(m[2]));
    return text.length <= 4096 && sizes.every((n) => n <= 10000);
  };
  const small = cases.filter(isSmall);
  const before = failed;
  started = performance.now();
  for (let r = 0; r < repeat; r += 1) for (const c of small) await run(c);
  const ms = performance.now() - started;
  const n = small.length * repeat;
  console.log(
    `throughput: ${n} small cases (${small.length} distinct) in ${(ms / 1000).toFixed(2)} s: ` +
      `${Math.round(n / (ms / 1000))} cases/s, ${failed - before} failed`,
  );
}

child.stdin.write(`${JSON.stringify({ cmd: 'stop' })}\n`);
const code = await exited;
if (code !== 0) problems.push(`the adapter exited with ${code} after stop`);
for (const p of problems) console.log(`PROBLEM ${p}`);
process.exit(failed > 0 || problems.length > 0 ? 1 : 0);
