// observe.mjs: runs one scenario against an implementation of the core
// contract and records the observation (corpus/README.md, "Running a
// scenario" and "The observation format"): one fresh registry, a throwaway
// AbortController per registration, a fresh one per call, aborts before a
// call or once it waits on a pending executor, pending detection by draining
// the job queue, concurrent calls told apart with AsyncLocalStorage, and
// unhandled rejections counted per call.
//
// Shared by adapter.mjs (the protocol) and test/corpus.mjs (the harness), so
// the harness exercises exactly what the runner sees.

import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { types } from 'node:util';
import { Built } from './materialize.mjs';
import { describeThrown, encodeResolved, encodeValue } from './encode.mjs';

export { ScenarioError, UnrepresentableScenario } from './materialize.mjs';

const CONTRACT_CODES = new Set([
  'INVALID_TOOL_DEFINITION',
  'INVALID_TOOL_BATCH',
  'DUPLICATE_TOOL_NAME',
  'INVALID_TOOL_CALL',
]);

const REQUIRED_EXPORTS = ['ToolRegistry', 'executeToolCall', 'NonRecoverableToolError', 'ToolContractError'];

/** Imports an implementation module; `path` is resolved against the working directory. */
export async function loadImplementation(path) {
  const file = resolve(process.cwd(), path);
  const module = await import(pathToFileURL(file).href);
  const missing = REQUIRED_EXPORTS.filter((name) => typeof module[name] !== 'function');
  if (missing.length > 0) throw new Error(`${file} does not export ${missing.join(', ')}`);
  return { module, file };
}

/**
 * Who the implementation is: its package.json next to it, else its file
 * name. The adapter's own package.json describes the adapter, not the
 * implementation bundled beside it (toolgate-core.mjs): that one is named by
 * its file, with the adapter's version.
 */
export function identify(file) {
  const fallback = { name: basename(file, extname(file)) || 'implementation', version: '0.0.0', language: 'javascript' };
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(dirname(file), 'package.json'), 'utf8'));
  } catch {
    return fallback;
  }
  if (pkg?.name === 'toolgate-node-adapter') {
    return { ...fallback, version: typeof pkg.version === 'string' ? pkg.version : fallback.version };
  }
  const identity = {
    name: typeof pkg.name === 'string' && pkg.name !== '' ? pkg.name : fallback.name,
    version: typeof pkg.version === 'string' ? pkg.version : fallback.version,
    language: 'javascript',
  };
  if (typeof pkg.homepage === 'string') identity.homepage = pkg.homepage;
  return identity;
}

// --- contexts ----------------------------------------------------------------

const als = new AsyncLocalStorage();

function reasonValue(spec) {
  return Object.hasOwn(spec, 'reason') ? structuredClone(spec.reason) : undefined;
}

function observedReason(spec) {
  return Object.hasOwn(spec, 'reason') ? { reason: spec.reason } : {};
}

/** One registration or call: its controller and what ran under it. */
class Context {
  constructor() {
    this.controller = new AbortController();
    this.trace = [];
    this.reason = undefined; // the spec of the first abort, for the outcome
    this.closed = false; // once observed, nothing more is recorded
    this.executorStarted = false;
    this.settled = undefined;
    this.unhandled = 0;
  }

  record(event) {
    if (!this.closed) this.trace.push(event);
  }

  /** Aborts from inside (an effect, a trap) or from outside (whenPending): recorded first. */
  abort(spec) {
    if (this.controller.signal.aborted) return;
    this.record({ abort: observedReason(spec) });
    this.reason = spec;
    this.controller.abort(reasonValue(spec));
  }

  /**
   * An abort from a microtask queued now (right before the call starts)
   * and queued again `turns` times: it lands after that many turns of the
   * job queue, between two jobs of the call (recorded like any abort).
   */
  abortAfterTurns(turns, spec) {
    let left = turns;
    const hop = () => {
      if (left > 0) {
        left -= 1;
        queueMicrotask(hop);
      } else {
        this.abort(spec);
      }
    };
    queueMicrotask(hop);
  }

  /** An abort before the call starts: not recorded. */
  abortBefore(spec) {
    this.reason = spec;
    this.controller.abort(reasonValue(spec));
  }

  listenForAbort(name, signal = this.controller.signal) {
    signal.addEventListener('abort', () => this.record({ abortListener: name }));
  }

  /** Ends the observation: what happens later (a clean-up, a late job) is not observed. */
  close(built) {
    this.closed = true;
    this.observed = {
      outcome: callOutcome(built, this),
      trace: this.trace,
      unhandledRejections: this.unhandled,
    };
  }

  hookLateSettlement(late) {
    const signal = this.controller.signal;
    if (signal.aborted) return; // becomes the awaited result too late: never settles
    signal.addEventListener('abort', () => {
      this.record({ lateSettlement: late.name, rejected: late.rejected });
      late.settle();
    });
  }
}

// The contexts whose calls are being observed, for what runs outside any
// AsyncLocalStorage context and for unhandled rejections.
let observing = [];
const stray = new Context();
stray.record = (event) => process.stderr.write(`toolgate adapter: event outside any call: ${JSON.stringify(event)}\n`);

function current() {
  return als.getStore() ?? observing[0] ?? stray;
}

// Which call created a promise, while concurrent calls run: an unhandled
// rejection is counted against the call whose promise it is.
const owners = new WeakMap();
const ownership = createHook({
  init(asyncId, type, triggerAsyncId, resource) {
    if (type !== 'PROMISE') return;
    const ctx = als.getStore();
    if (ctx !== undefined) owners.set(resource, ctx);
  },
});

process.on('unhandledRejection', (reason, promise) => {
  const owner = owners.get(promise) ?? observing[0];
  if (owner !== undefined) owner.unhandled += 1;
  else process.stderr.write('toolgate adapter: an unhandled rejection outside any call\n');
});

const drain = () => new Promise((done) => setImmediate(done));

// --- outcomes ----------------------------------------------------------------

function isContractError(built, thrown) {
  if (typeof thrown !== 'object' || thrown === null || types.isProxy(thrown) || built.isNode(thrown)) {
    return false;
  }
  if (!(thrown instanceof built.impl.ToolContractError)) return false;
  const code = Reflect.getOwnPropertyDescriptor(thrown, 'code')?.value ?? thrown.code;
  return CONTRACT_CODES.has(code);
}

function registered(built, thrown) {
  if (isContractError(built, thrown)) return { contractError: thrown.code };
  return { rejected: describeThrown(built, thrown) };
}

function callOutcome(built, ctx) {
  const settled = ctx.settled;
  if (settled === undefined) return 'pending';
  if (!settled.rejected) return encodeResolved(built, settled.value);
  const thrown = settled.error;
  const signal = ctx.controller.signal;
  if (signal.aborted && thrown === signal.reason) return { cancelled: observedReason(ctx.reason) };
  if (built.isGenuine(thrown)) return { nonRecoverable: built.nameOf(thrown) };
  if (isContractError(built, thrown)) return { contractError: thrown.code };
  return { rejected: describeThrown(built, thrown) };
}

// --- running -----------------------------------------------------------------

async function register(action) {
  const ctx = new Context();
  let value;
  let thrown;
  let failed = false;
  try {
    value = als.run(ctx, action);
    if (types.isPromise(value)) value = await value;
  } catch (error) {
    failed = true;
    thrown = error;
  }
  ctx.closed = true;
  return { ctx, value, failed, thrown };
}

function startCall(impl, registry, call, ctx) {
  const registryArg = call.registry === 'notARegistry' ? {} : registry;
  let returned;
  try {
    returned = als.run(ctx, () => impl.executeToolCall(registryArg, call.value, ctx.controller.signal));
  } catch (error) {
    ctx.settled = { rejected: true, error };
    return;
  }
  Promise.resolve(returned).then(
    (value) => {
      ctx.settled ??= { rejected: false, value };
    },
    (error) => {
      ctx.settled ??= { rejected: true, error };
    },
  );
}

function names(built, registry) {
  try {
    let list = registry.names;
    if (typeof list === 'function') list = list.call(registry);
    return Array.from(list, (name) => encodeValue(built, name));
  } catch (error) {
    return [`<registry.names threw: ${JSON.stringify(describeThrown(built, error))}>`];
  }
}

/**
 * Runs a scenario against `impl` (the implementation's module namespace)
 * and returns its observation. Throws a ScenarioError for a scenario the
 * adapter cannot build, an UnrepresentableScenario for one JavaScript
 * cannot hold (the case is then skipped).
 */
export async function observe(impl, scenario) {
  const built = new Built(scenario, impl, current);
  const observation = { registrations: [], calls: [], names: [] };

  let registry;
  if (built.hasInitial) {
    const r = await register(() => new impl.ToolRegistry(built.initial));
    observation.initial = { outcome: r.failed ? registered(built, r.thrown) : 'ok', trace: r.ctx.trace };
    registry = r.failed ? undefined : r.value;
  }
  registry ??= new impl.ToolRegistry();

  for (const batch of built.registrations) {
    const r = await register(() => registry.registerMany(batch));
    observation.registrations.push({ outcome: r.failed ? registered(built, r.thrown) : 'ok', trace: r.ctx.trace });
  }

  const contexts = built.calls.map(() => new Context());
  const plan = (i) => built.calls[i].abort;
  if (built.concurrent) {
    // Every call starts before any is awaited; the `before` aborts come first.
    built.calls.forEach((call, i) => plan(i)?.when === 'before' && contexts[i].abortBefore(plan(i).reason));
    built.calls.forEach((call, i) => plan(i)?.when === 'afterTurns' && contexts[i].abortAfterTurns(plan(i).turns, plan(i).reason));
    observing = contexts;
    ownership.enable();
    try {
      built.calls.forEach((call, i) => startCall(impl, registry, call, contexts[i]));
      await drain();
      let aborted = false;
      contexts.forEach((ctx, i) => {
        if (ctx.settled === undefined && plan(i)?.when === 'whenPending') {
          ctx.abort(plan(i).reason);
          aborted = true;
        }
      });
      if (aborted) await drain();
    } finally {
      ownership.disable();
      observing = [];
      for (const ctx of contexts) ctx.close(built);
    }
  } else {
    for (const [i, call] of built.calls.entries()) {
      const ctx = contexts[i];
      if (plan(i)?.when === 'before') ctx.abortBefore(plan(i).reason);
      observing = [ctx];
      try {
        if (plan(i)?.when === 'afterTurns') ctx.abortAfterTurns(plan(i).turns, plan(i).reason);
        startCall(impl, registry, call, ctx);
        await drain();
        if (ctx.settled === undefined && plan(i)?.when === 'whenPending') {
          ctx.abort(plan(i).reason);
          await drain();
        }
      } finally {
        observing = [];
        ctx.close(built);
      }
    }
  }
  observation.calls = contexts.map((ctx) => ctx.observed);
  observation.names = names(built, registry);
  return observation;
}
