// The workspace suite's mutants (../mutants.json, ../mutants.mjs), node
// --test: the data and the implementations agree; each mutant changes the
// observation of a scenario of its own (a witness kept here, whatever the
// corpus holds) and of corpus cases that name every requirement it lists;
// a mutant that does nothing changes nothing.
//
// The corpus check compares a mutant's observation with each case's stored
// `expect` (record.mjs --check keeps those equal to the faithful
// implementation's). It tries only the cases that list one of the mutant's
// requirements, those without a `sleep` first, and stops as soon as every
// requirement is named by a differing case, so a 10 s bash case runs only
// when nothing quicker shows the breakage.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { observeWorkspace } from '../observe.mjs';
import { IMPLEMENTED, MUTANTS, implementationOf } from '../mutants.mjs';
import { casesOf, loadCaseFiles } from '../../case-files.mjs';
import { CASES_DIR } from '../record.mjs';
import { observationErrors } from '../validate.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const spec = fs.readFileSync(path.resolve(here, '../../../../corpus/SPEC.md'), 'utf8');

const run = (implementation, scenario) => observeWorkspace(implementation.createTools, scenario, { policies: implementation.policies });
const faithful = implementationOf(undefined);

const WS = { path: 'ws', kind: 'dir' };
const OUTSIDE = [
  { path: 'outside', kind: 'dir' },
  { path: 'outside/secret.txt', kind: 'file', content: 'secret' },
];
/** One scenario per mutant that shows it, with the faithful implementation's results. */
const WITNESSES = {
  'lexical-boundary': {
    scenario: { tree: [WS, ...OUTSIDE, { path: 'ws/escape', kind: 'symlink', target: '../outside' }], calls: [{ tool: 'read', input: { path: 'escape/secret.txt' } }] },
    results: [{ content: 'path escapes workspace', isError: true }],
  },
  'prefix-boundary': {
    scenario: { tree: [WS, { path: 'ws-evil', kind: 'dir' }, { path: 'ws-evil/x.txt', kind: 'file', content: 'evil' }], calls: [{ tool: 'read', input: { path: '../ws-evil/x.txt' } }] },
    results: [{ content: 'path escapes workspace', isError: true }],
  },
  'ancestor-on-any-error': {
    scenario: { tree: [WS, { path: 'ws/file.txt', kind: 'file', content: 'f' }], calls: [{ tool: 'write', input: { path: 'file.txt/sub/x.txt', content: 'x' } }] },
    results: [{ content: "ENOTDIR: not a directory, lstat '$BASE/ws/file.txt/sub/x.txt'", isError: true }],
  },
  'dangling-followed': {
    scenario: { tree: [WS, ...OUTSIDE, { path: 'ws/dangling', kind: 'symlink', target: '../outside/newfile.txt' }], calls: [{ tool: 'write', input: { path: 'dangling', content: 'z' } }] },
    results: [{ content: "ENOENT: no such file or directory, realpath '$BASE/ws/dangling'", isError: true }],
  },
  'truncate-bytes': {
    scenario: { tree: [WS, { path: 'ws/e.txt', kind: 'file', content: { repeat: 'é', times: 9000 } }], calls: [{ tool: 'read', input: { path: 'e.txt' } }] },
    results: [{ content: 'é'.repeat(9000), isError: false }],
  },
  'no-marker': {
    scenario: { tree: [WS, { path: 'ws/a.txt', kind: 'file', content: { repeat: 'a', times: 16001 } }], calls: [{ tool: 'read', input: { path: 'a.txt' } }] },
    results: [{ content: `${'a'.repeat(8000)}\n[truncated 1 characters]\n${'a'.repeat(8000)}`, isError: false }],
  },
  'empty-string-refused': {
    scenario: { tree: [WS], calls: [{ tool: 'write', input: { path: 'empty.txt', content: '' } }] },
    results: [{ content: 'wrote 0 characters to $BASE/ws/empty.txt', isError: false }],
  },
  'extra-fields-refused': {
    scenario: { tree: [WS, { path: 'ws/a.txt', kind: 'file', content: 'hello' }], calls: [{ tool: 'read', input: { path: 'a.txt', extra: 1 } }] },
    results: [{ content: 'hello', isError: false }],
  },
  'stdout-kept-on-failure': {
    scenario: { tree: [WS], shell: '/bin/bash', calls: [{ tool: 'bash', input: { command: 'echo out; exit 1' } }] },
    results: [{ content: 'Command failed: /bin/bash -c echo out; exit 1\n', isError: true }],
  },
  'bash-approved-by-default': {
    scenario: { tree: [WS], shell: '/bin/bash', approval: 'denyBashByDefault', calls: [{ tool: 'bash', input: { command: 'echo ran' } }] },
    results: [{ content: 'bash requires an explicit approval policy', isError: true }],
  },
  'throws-instead-of-result': {
    scenario: { tree: [WS], calls: [{ tool: 'read', input: { path: 'missing' } }] },
    results: [{ content: "ENOENT: no such file or directory, realpath '$BASE/ws/missing'", isError: true }],
  },
};

test('mutants.json and mutants.mjs list the same mutants, with WS requirements SPEC.md defines', () => {
  assert.deepEqual(IMPLEMENTED, MUTANTS.map((m) => m.id));
  assert.deepEqual(Object.keys(WITNESSES).sort(), [...IMPLEMENTED].sort());
  for (const m of MUTANTS) {
    assert.equal(typeof m.description, 'string');
    assert.ok(m.requirements.length > 0, m.id);
    for (const r of m.requirements) assert.ok(spec.includes(`**${r}**`), `${m.id}: ${r} is not in SPEC.md`);
  }
  assert.throws(() => implementationOf('no-such-mutant'), /unknown mutant "no-such-mutant"/);
});

test('every mutant changes the observation of its witness', async () => {
  for (const id of IMPLEMENTED) {
    const { scenario, results } = WITNESSES[id];
    const good = await run(faithful, scenario);
    assert.deepEqual(good.results, results, `${id}: the faithful results`);
    const bad = await run(implementationOf(id), scenario);
    assert.deepEqual(observationErrors(bad), [], id);
    assert.notDeepEqual(bad, good, `${id} survives its witness`);
  }
  // the kill check itself: a mutant that changes nothing survives
  const noop = implementationOf('noop', {});
  for (const { scenario } of Object.values(WITNESSES)) assert.deepEqual(await run(noop, scenario), await run(faithful, scenario));
});

const cases = fs.existsSync(CASES_DIR) ? casesOf(loadCaseFiles([CASES_DIR])) : [];

test('every mutant changes corpus cases naming each requirement it lists', { skip: cases.length === 0 && 'no corpus/cases/workspace yet' }, async (t) => {
  const slow = (c) => JSON.stringify(c.case.scenario).includes('sleep');
  const ordered = [...cases.filter((c) => !slow(c)), ...cases.filter(slow)];
  const expected = new Map();
  const expectOf = async (c) => {
    if (Object.hasOwn(c.case, 'expect')) return c.case.expect;
    if (!expected.has(c.id)) expected.set(c.id, await run(faithful, c.case.scenario));
    return expected.get(c.id);
  };
  const problems = [];
  for (const m of MUTANTS) {
    const implementation = implementationOf(m.id);
    const unnamed = new Set(m.requirements);
    const caught = [];
    for (const c of ordered) {
      if (unnamed.size === 0) break;
      if (!c.case.requirements.some((r) => unnamed.has(r))) continue;
      const o = await run(implementation, c.case.scenario);
      if (isDeepStrictEqual(o, await expectOf(c))) continue;
      caught.push(c.id);
      for (const r of c.case.requirements) unnamed.delete(r);
    }
    if (unnamed.size > 0) problems.push(`${m.id}: no differing case names ${[...unnamed].join(', ')} (caught by: ${caught.join(', ') || 'none'})`);
    else t.diagnostic(`${m.id}: ${caught.join(', ')}`);
  }
  assert.deepEqual(problems, []);
});
