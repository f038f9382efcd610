// The file-queue scenarios of the pipeline suite (PIPE-QUEUE-*): Pi's
// per-file mutation queue driven on a real directory tree, in a fresh
// temporary root. FORMAT.md, "File-queue scenarios", is the format; this is
// its harness:
//
//   import { observeFileQueue } from './file-queue.mjs';
//   await observeFileQueue(pi.fileQueues, {fileQueue: {tree, cwd, envs, steps}});
//
// `queues` is what load.mjs loads: `{codingAgent, harness?, NodeExecutionEnv?}`,
// pi-coding-agent's `withFileMutationQueue(path, fn)` and, on pi-agent-core
// 0.85.0 only, the harness's `withFileMutationQueue(env, path, fn, context)`
// with its `NodeExecutionEnv`. Every ordering is a step: after each step the
// harness *settles* (setImmediate rounds while a realpath is in flight), so
// no timer decides anything.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The key of a file-queue scenario (its only key). */
export const FILE_QUEUE = 'fileQueue';
/** The coding-agent's module-global queue, as a step's `queue` spells it. */
export const CODING_AGENT = 'codingAgent';
/** `harness:<env name>`: the harness queue of one environment. */
export const HARNESS_PREFIX = 'harness:';
/** What every path string has replaced by the root's absolute path. */
export const ROOT_VARIABLE = '$ROOT';
/** Op ids and env names (the schemas' patterns). */
export const NAME = /^[A-Za-z0-9_-]+$/;
/** The most setImmediate rounds one settle may take. */
export const MAX_SETTLE_ROUNDS = 100_000;

/** Whether `scenario` is a file-queue scenario (has the key `fileQueue`). */
export function isFileQueueScenario(scenario) {
  return scenario !== null && typeof scenario === 'object' && !Array.isArray(scenario) && Object.hasOwn(scenario, FILE_QUEUE);
}

/** The capabilities a file-queue scenario needs: `fileQueue`, and `harnessQueue` when a step names a `harness:` queue. */
export function fileQueueNeeds(scenario) {
  const steps = scenario?.[FILE_QUEUE]?.steps;
  const harness = Array.isArray(steps) && steps.some((s) => typeof s?.queue === 'string' && s.queue.startsWith(HARNESS_PREFIX));
  return harness ? ['fileQueue', 'harnessQueue'] : ['fileQueue'];
}

/** The file-queue capabilities `queues` (load.mjs `fileQueues`) has. */
export function fileQueueCapabilities(queues) {
  const out = [];
  if (typeof queues?.codingAgent === 'function') out.push('fileQueue');
  if (typeof queues?.harness === 'function' && typeof queues?.NodeExecutionEnv === 'function') out.push('harnessQueue');
  return out;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const show = (v) => JSON.stringify(v) ?? String(v);
const sub = (s, root) => s.split(ROOT_VARIABLE).join(root);

function refuse(message) {
  throw new Error(`fileQueue: ${message}`);
}

function onlyKeys(value, allowed, at) {
  for (const k of Object.keys(value)) if (!allowed.includes(k)) refuse(`${at}: unknown field ${show(k)}`);
}

/** A tree, make, remove or cwd path: relative to the root and staying in it (`""` only where `empty`). */
function checkRelative(p, at, { empty = false } = {}) {
  if (typeof p !== 'string') refuse(`${at}: a path is a string, not ${show(p)}`);
  if (p === '' && empty) return;
  if (p === '' || p.startsWith('/') || p.startsWith(ROOT_VARIABLE) || p.split('/').includes('..')) {
    refuse(`${at}: ${show(p)}: tree paths are relative to the root and stay in it`);
  }
}

function checkEntry(entry, at) {
  if (!isObject(entry)) refuse(`${at}: an entry is {path, kind, target?}, not ${show(entry)}`);
  onlyKeys(entry, ['path', 'kind', 'target'], at);
  checkRelative(entry.path, `${at}.path`);
  if (!['dir', 'file', 'symlink'].includes(entry.kind)) refuse(`${at}.kind: ${show(entry.kind)} is not dir, file or symlink`);
  if (entry.kind === 'symlink') {
    if (typeof entry.target !== 'string' || entry.target === '') refuse(`${at}: a symlink needs a target string`);
  } else if (Object.hasOwn(entry, 'target')) {
    refuse(`${at}: only a symlink has a target`);
  }
}

/**
 * Checks a file-queue scenario before anything touches the disk and throws
 * a clear Error (`fileQueue: …`) for anything malformed: unknown fields, an
 * unknown step or queue, an op id used twice, a release before the op's
 * register or a second release, a `harness:` queue naming no env, or a
 * harness queue `queues` does not have. Returns the `fileQueue` object.
 */
export function checkFileQueueScenario(scenario, queues = {}) {
  if (!isObject(scenario)) refuse('the scenario is not an object');
  onlyKeys(scenario, [FILE_QUEUE], 'scenario');
  const q = scenario[FILE_QUEUE];
  if (!isObject(q)) refuse('fileQueue is an object {tree?, cwd?, envs?, steps}');
  onlyKeys(q, ['tree', 'cwd', 'envs', 'steps'], 'fileQueue');
  const tree = q.tree ?? [];
  if (!Array.isArray(tree)) refuse('tree is an array of entries');
  tree.forEach((e, i) => checkEntry(e, `tree[${i}]`));
  checkRelative(q.cwd ?? '', 'cwd', { empty: true });
  const envs = q.envs ?? {};
  if (!isObject(envs)) refuse('envs is an object {name: cwd}');
  for (const [name, cwd] of Object.entries(envs)) {
    if (!NAME.test(name)) refuse(`envs: ${show(name)} is not a name (${NAME.source})`);
    checkRelative(cwd, `envs.${name}`, { empty: true });
  }
  if (!Array.isArray(q.steps)) refuse('steps is an array');
  const registered = new Set();
  const released = new Set();
  const harness = fileQueueCapabilities(queues).includes('harnessQueue');
  q.steps.forEach((step, i) => {
    const at = `step ${i}`;
    if (!isObject(step)) refuse(`${at}: a step is an object, not ${show(step)}`);
    const kinds = ['register', 'release', 'make', 'remove'].filter((k) => Object.hasOwn(step, k));
    if (kinds.length !== 1) refuse(`${at}: a step has exactly one of register, release, make, remove: ${show(step)}`);
    switch (kinds[0]) {
      case 'register': {
        onlyKeys(step, ['register', 'path', 'queue'], at);
        const id = step.register;
        if (typeof id !== 'string' || !NAME.test(id)) refuse(`${at}: op id ${show(id)} is not a name (${NAME.source})`);
        if (registered.has(id)) refuse(`${at}: op id ${show(id)} is registered twice`);
        registered.add(id);
        if (typeof step.path !== 'string') refuse(`${at}: register needs a path string`);
        if (step.queue === CODING_AGENT) break;
        if (typeof step.queue !== 'string' || !step.queue.startsWith(HARNESS_PREFIX)) {
          refuse(`${at}: unknown queue ${show(step.queue)} (codingAgent or harness:<env>)`);
        }
        const env = step.queue.slice(HARNESS_PREFIX.length);
        if (!Object.hasOwn(envs, env)) refuse(`${at}: queue ${show(step.queue)} names no env of envs`);
        if (!harness) refuse(`${at}: queue ${show(step.queue)}: this install has no harness queue (capability harnessQueue)`);
        break;
      }
      case 'release': {
        onlyKeys(step, ['release', 'throw'], at);
        if (!registered.has(step.release)) refuse(`${at}: release of ${show(step.release)}, which no earlier step registers`);
        if (released.has(step.release)) refuse(`${at}: ${show(step.release)} is released twice`);
        released.add(step.release);
        if (Object.hasOwn(step, 'throw') && typeof step.throw !== 'boolean') refuse(`${at}: throw is a boolean`);
        break;
      }
      case 'make':
        onlyKeys(step, ['make'], at);
        checkEntry(step.make, `${at}.make`);
        break;
      default:
        onlyKeys(step, ['remove'], at);
        checkRelative(step.remove, `${at}.remove`);
    }
  });
  if (typeof queues?.codingAgent !== 'function') refuse('this install has no coding-agent queue (capability fileQueue)');
  return q;
}

/** A caller's rejection as recorded: `{name, code}` for a string code, else `{name, message}`. */
export function errorSeen(error) {
  const name = error instanceof Error ? String(error.name) : typeof error;
  if (error !== null && typeof error === 'object' && typeof error.code === 'string') return { name, code: error.code };
  return { name, message: error instanceof Error ? String(error.message) : String(error) };
}

const isFsRequest = (resource) => resource.startsWith('FSReq');

/**
 * Waits until nothing can happen without another step: at least one
 * setImmediate round, and more while a filesystem request (a realpath) is
 * in flight; at most `maxRounds` rounds.
 */
export async function settle(maxRounds = MAX_SETTLE_ROUNDS) {
  for (let round = 1; ; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!process.getActiveResourcesInfo().some(isFsRequest)) return round;
    if (round >= maxRounds) {
      throw new Error(`fileQueue: the harness did not settle: a filesystem request was still in flight after ${maxRounds} rounds`);
    }
  }
}

function make(root, entry) {
  const at = path.join(root, sub(entry.path, root));
  if (entry.kind === 'dir') fs.mkdirSync(at, { recursive: true });
  else if (entry.kind === 'file') fs.writeFileSync(at, entry.path);
  else fs.symlinkSync(sub(entry.target, root), at);
}

/**
 * Runs a file-queue scenario on `queues` (load.mjs `fileQueues`) and
 * resolves with its observation `{fileQueue: [entry…]}`: each op's start and
 * its caller's resolve or reject, in the order they happened, each with the
 * step after which it happened. A malformed scenario throws before anything
 * is made; whatever happens, the latches are opened, the cwd restored and
 * the root deleted. `maxSettleRounds` bounds each settle.
 */
export async function observeFileQueue(queues, scenario, { maxSettleRounds = MAX_SETTLE_ROUNDS } = {}) {
  const q = checkFileQueueScenario(scenario, queues);
  const entries = [];
  let step = 0;
  let recording = true;
  const record = (kind, op, error) => {
    if (!recording) return;
    const entry = { step, [kind]: op };
    if (error !== undefined) entry.error = errorSeen(error);
    entries.push(entry);
  };
  // op id → {open(throws), opened}
  const latches = new Map();
  const openAll = () => {
    for (const latch of latches.values()) if (!latch.opened) latch.open(false);
  };

  const cwdBefore = process.cwd();
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-fq-')));
  let failure;
  try {
    for (const entry of q.tree ?? []) make(root, entry);
    process.chdir(path.join(root, q.cwd ?? ''));
    const envs = new Map();
    if (typeof queues.NodeExecutionEnv === 'function') {
      for (const [name, cwd] of Object.entries(q.envs ?? {})) envs.set(name, new queues.NodeExecutionEnv({ cwd: path.join(root, cwd) }));
    }
    for (const [index, s] of q.steps.entries()) {
      step = index;
      if (Object.hasOwn(s, 'register')) {
        const id = s.register;
        let open;
        const gate = new Promise((resolve) => (open = resolve));
        const latch = { opened: false, open: (throws) => ((latch.opened = true), open(throws)) };
        latches.set(id, latch);
        const fn = async () => {
          record('start', id);
          if (await gate) throw new Error(`${id} failed`);
          return id;
        };
        const p = sub(s.path, root);
        const call =
          s.queue === CODING_AGENT
            ? queues.codingAgent(p, fn)
            : queues.harness(envs.get(s.queue.slice(HARNESS_PREFIX.length)), p, fn, {});
        Promise.resolve(call).then(
          () => record('resolve', id),
          (error) => record('reject', id, error),
        );
      } else if (Object.hasOwn(s, 'release')) {
        latches.get(s.release).open(s.throw === true);
      } else if (Object.hasOwn(s, 'make')) {
        make(root, s.make);
      } else {
        fs.rmSync(path.join(root, sub(s.remove, root)), { recursive: true, force: true });
      }
      await settle(maxSettleRounds);
    }
  } catch (error) {
    failure = { error };
  } finally {
    recording = false;
    openAll();
    try {
      await settle(maxSettleRounds);
    } catch (error) {
      failure ??= { error };
    }
    process.chdir(cwdBefore);
    fs.rmSync(root, { recursive: true, force: true });
  }
  if (failure) throw failure.error;
  return { fileQueue: entries };
}
