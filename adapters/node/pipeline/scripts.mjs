// The scripted bodies of a pipeline scenario: a tool's `execute` and
// `prepareArguments`, and the `beforeToolCall` / `afterToolCall` hooks. A
// script is `{ "sync"?: bool, "do"?: [step…], "then"?: outcome }` run in order:
//
//   {"update": V}                      call execute's onUpdate(V) (execute only)
//   {"lateUpdate": {"latch": L, "value": V}}
//                                      when latch L is released (even after the
//                                      body settled), call onUpdate(V)
//   {"wait": L, "onAbort"?: "ignore" | outcome}
//                                      wait until latch L is released; with an
//                                      outcome, finish with it as soon as the
//                                      signal received is (or becomes) aborted
//   {"release": L}                     release latch L
//   {"abort": true}                    abort the run's signal
//   {"ifAborted": outcome}             finish with outcome if the received
//                                      signal is aborted now
//   {"mutateArgs": {key: V, …}}        assign the keys on the received argument
//                                      object in place
//
// An outcome is `{"return": V}` or `{"throw": E}` (values.mjs). A `sync`
// script runs without awaiting (its function is not async: a throw is
// synchronous); `wait` is refused in it. Timing is latches only.

import { errorOf, materialize } from './values.mjs';

/** Named latches: released once, waited on by anyone. */
export function latchSet(onRelease) {
  const latches = new Map();
  const get = (name) => {
    let l = latches.get(name);
    if (!l) {
      let resolve;
      const promise = new Promise((r) => (resolve = r));
      l = { promise, resolve, released: false };
      latches.set(name, l);
    }
    return l;
  };
  return {
    wait: (name) => get(name).promise,
    release(name) {
      const l = get(name);
      if (l.released) return;
      l.released = true;
      onRelease?.(name);
      l.resolve();
    },
    releaseAll() {
      for (const name of latches.keys()) this.release(name);
    },
  };
}

class Finish {
  constructor(outcome) {
    this.outcome = outcome;
  }
}

function settle(outcome, refs) {
  if (Object.hasOwn(outcome, 'throw')) throw errorOf(outcome.throw, refs);
  if (Object.hasOwn(outcome, 'return')) return materialize(outcome.return, refs);
  throw new Error(`an outcome needs "return" or "throw": ${JSON.stringify(outcome)}`);
}

function waitOrAbort(promise, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve('aborted');
    const onAbort = () => resolve('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve('released');
    });
  });
}

/**
 * A function running `script`. `env`: `{ latches, abort() }`. `ctx` (per
 * call): `{ args, signal, onUpdate }`, the received argument object (for
 * "mutateArgs" and `{"$":"args"}`), the received signal, execute's onUpdate.
 * `fallback` is the outcome when the script has no "then".
 */
export function runScript(script, env, ctx, fallback) {
  const steps = script?.do ?? [];
  const outcome = script?.then ?? fallback;
  const refs = Object.hasOwn(ctx, 'args') ? { args: ctx.args } : {};
  const stepSync = (step) => {
    if (Object.hasOwn(step, 'update')) {
      if (typeof ctx.onUpdate !== 'function') throw new Error('"update" outside execute');
      ctx.onUpdate(materialize(step.update, refs));
    } else if (Object.hasOwn(step, 'lateUpdate')) {
      const { latch, value } = step.lateUpdate;
      const onUpdate = ctx.onUpdate;
      env.latches.wait(latch).then(() => onUpdate(materialize(value, refs)));
    } else if (Object.hasOwn(step, 'release')) {
      env.latches.release(step.release);
    } else if (Object.hasOwn(step, 'abort')) {
      env.abort();
    } else if (Object.hasOwn(step, 'ifAborted')) {
      if (ctx.signal?.aborted) throw new Finish(step.ifAborted);
    } else if (Object.hasOwn(step, 'mutateArgs')) {
      for (const [k, v] of Object.entries(step.mutateArgs)) ctx.args[k] = materialize(v, refs);
    } else {
      throw new Error(`unknown step ${JSON.stringify(step)}`);
    }
  };
  if (script?.sync) {
    try {
      for (const step of steps) {
        if (Object.hasOwn(step, 'wait')) throw new Error('"wait" in a sync script');
        stepSync(step);
      }
    } catch (e) {
      if (e instanceof Finish) return settle(e.outcome, refs);
      throw e;
    }
    return settle(outcome, refs);
  }
  return (async () => {
    try {
      for (const step of steps) {
        if (Object.hasOwn(step, 'wait')) {
          const onAbort = step.onAbort ?? 'ignore';
          if (onAbort === 'ignore') {
            await env.latches.wait(step.wait);
          } else {
            const how = await waitOrAbort(env.latches.wait(step.wait), ctx.signal);
            if (how === 'aborted') throw new Finish(onAbort);
          }
        } else {
          stepSync(step);
        }
      }
    } catch (e) {
      if (e instanceof Finish) return settle(e.outcome, refs);
      throw e;
    }
    return settle(outcome, refs);
  })();
}
