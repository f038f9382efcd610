// One boundary case on a runtime, through its shim
// (adapters/node/runtimes/SHIM.md): the case's tools and turn built as
// JavaScript, the abort timed by latches on the tools' own events, the turn
// given a settle window, and what happened encoded as the suite's
// observation (corpus/schema/boundary-observation.schema.json).

import { readFileSync } from 'node:fs';
import { executorFor, materialize } from './behaviours.mjs';
import { encodeDelivered, utf8Bytes } from './encode-delivered.mjs';

/**
 * The reason the shim gives for not being able to run a case, if any:
 * `needs` are the capability names the runner sends with the case (the
 * suite derives them: `Boundary::capabilities` in contract/boundary/src/).
 */
export function notApplicable(shim, needs) {
  for (const need of needs ?? []) {
    const reason = shim.notApplicable?.[need];
    if (reason) return `${need}: ${reason}`;
  }
  return undefined;
}

function isPending(behaviour) {
  if (Object.hasOwn(behaviour, 'progress')) return isPending(behaviour.then);
  return Object.hasOwn(behaviour, 'pending');
}

function sameJson(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function nextMacrotask() {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Counts unhandled rejections and uncaught exceptions while a case runs. */
export const escaped = { count: 0 };
process.on('unhandledRejection', (reason) => {
  escaped.count += 1;
  process.stderr.write(`toolgate boundary adapter: unhandled rejection: ${reason?.stack ?? reason}\n`);
});
process.on('uncaughtException', (error) => {
  escaped.count += 1;
  process.stderr.write(`toolgate boundary adapter: uncaught exception: ${error?.stack ?? error}\n`);
});

/**
 * Runs `scenario` on `shim` and resolves with the observation. `settleMs`
 * is how long the turn may take before it is called pending (real
 * transports do I/O: this is a window, not a sleep that orders anything).
 */
/**
 * How long this thread has waited for a CPU while ready to run, in ms;
 * undefined where the system does not say. The turn's time is judged
 * without these waits: they are the machine's load, not the runtime's
 * work. This thread is the one that runs the turn's JavaScript.
 */
export function cpuWaitMs() {
  try {
    return schedstatWaitMs(readFileSync('/proc/thread-self/schedstat', 'latin1'));
  } catch {
    return undefined;
  }
}

/**
 * How much longer a window of `settleMs` runs after `extended` ms were
 * added already, for the waits for a CPU since the turn started
 * (`waitAtStart`, `waitNow`): at most one more window in all, and 0 when
 * less than a millisecond is owed or the waits are not known.
 */
export function windowOwed(waitAtStart, waitNow, settleMs, extended) {
  if (waitAtStart === undefined || waitNow === undefined) return 0;
  const owed = Math.min(waitNow - waitAtStart, settleMs) - extended;
  return owed >= 1 ? owed : 0;
}

/**
 * The wait in a line of Linux's /proc/<pid>/task/<tid>/schedstat: ns on a
 * CPU, ns waiting for one while runnable, timeslices.
 */
export function schedstatWaitMs(line) {
  const waited = line.trim().split(/\s+/);
  return waited.length === 3 && /^\d+$/.test(waited[1]) ? Number(waited[1]) / 1e6 : undefined;
}

export async function observeCase(shim, scenario, { settleMs }) {
  const controller = new AbortController();
  const ran = [];
  // once the turn has ended, a body's settling is no part of it
  let ended = false;
  const started = new Set();
  const settledTools = new Set();
  let abortedAt;
  let waitAtAbort;
  const abort = () => {
    if (controller.signal.aborted) return;
    abortedAt = performance.now();
    waitAtAbort = cpuWaitMs();
    controller.abort();
  };
  const timing = scenario.abort ?? {};
  const callOfTimingName = (id) => scenario.turn.find((c) => c.id === id);
  const toolIndexOf = (name) => scenario.tools.findIndex((t) => t.name === name);

  // whilePending: once the named call's tool started and every started
  // tool that settles on its own has settled, one macrotask later
  let pendingCheckQueued = false;
  const maybeAbortWhilePending = () => {
    if (!timing.whilePending || pendingCheckQueued || controller.signal.aborted) return;
    const call = callOfTimingName(timing.whilePending);
    const index = toolIndexOf(call?.name);
    if (!started.has(index)) return;
    const waiting = [...started].some(
      (i) => !isPending(scenario.tools[i].behaviour) && !settledTools.has(i),
    );
    if (waiting) return;
    pendingCheckQueued = true;
    nextMacrotask().then(() => {
      pendingCheckQueued = false;
      const stillWaiting = [...started].some(
        (i) => !isPending(scenario.tools[i].behaviour) && !settledTools.has(i),
      );
      if (stillWaiting) return;
      abort();
    });
  };

  const tools = scenario.tools.map((spec, index) => {
    const onEvent = (event) => {
      if (event.event === 'start') {
        const entry = { tool: index };
        if (typeof event.callId === 'string') entry.callId = event.callId;
        if (controller.signal.aborted) entry.afterAbort = true;
        ran.push(entry);
        started.add(index);
        maybeAbortWhilePending();
      } else if (event.event === 'settle') {
        settledTools.add(index);
        if (!ended) {
          // the start it ends: the one with its call id, else the first of
          // its tool still running
          const start =
            ran.find((r) => r.tool === index && r.settled === undefined && typeof event.callId === 'string' && r.callId === event.callId) ??
            ran.find((r) => r.tool === index && r.settled === undefined);
          if (start) start.settled = event.outcome === 'rejected' ? 'rejected' : 'fulfilled';
        }
        const call = timing.afterSettled && callOfTimingName(timing.afterSettled);
        if (call && toolIndexOf(call.name) === index) nextMacrotask().then(abort);
        maybeAbortWhilePending();
      }
    };
    const check = spec.check
      ? (args) => (args != null && sameJson(args[spec.check.key], spec.check.equals) ? spec.check.message : null)
      : undefined;
    return {
      name: spec.name,
      description: spec.description ?? '',
      inputSchema: spec.inputSchema,
      check,
      execute: executorFor(spec.behaviour, { index, onEvent }),
      behaviour: spec.behaviour,
      index,
      onEvent,
    };
  });
  const calls = scenario.turn.map((c) => ({ id: c.id, name: c.name, arguments: materialize(c.arguments) }));
  if (timing.before) abort();

  const escapedBefore = escaped.count;
  const rssBefore = process.resourceUsage().maxRSS;
  const waitAtStart = cpuWaitMs();
  const start = performance.now();
  // the window counts the turn's time as the bounds do, without this
  // thread's waits for a CPU: the waits are owed back, up to one more
  // window (so that it stays well within the runner's --timeout)
  let window;
  let extended = 0;
  const windowEnds = new Promise((resolve) => {
    const arm = (ms) => {
      window = setTimeout(() => {
        const owed = windowOwed(waitAtStart, cpuWaitMs(), settleMs, extended);
        if (owed === 0) {
          resolve({ pending: true });
        } else {
          extended += owed;
          arm(owed);
        }
      }, ms);
    };
    arm(settleMs);
  });
  const outcome = await Promise.race([
    Promise.resolve()
      .then(() => shim.runTurn({ tools, calls, signal: controller.signal }))
      .then(
        (value) => ({ value }),
        (error) => ({ error, afterAbort: controller.signal.aborted }),
      ),
    windowEnds,
  ]);
  ended = true;
  clearTimeout(window);
  for (const r of ran) r.settled ??= 'pending';
  const end = performance.now();
  const waitAtEnd = cpuWaitMs();
  // stray rejections of the turn surface within a few turns of the loop
  await nextMacrotask();
  await nextMacrotask();
  const measured = {
    wallMs: round(end - start),
    peakMemoryGrowthBytes: Math.max(0, process.resourceUsage().maxRSS - rssBefore) * 1024,
    deliveredBytes: 0,
  };
  if (abortedAt !== undefined && !outcome.pending) measured.abortToEndMs = round(Math.max(0, end - abortedAt));
  if (waitAtStart !== undefined && waitAtEnd !== undefined) {
    measured.cpuWaitMs = round(Math.max(0, waitAtEnd - waitAtStart));
    if (measured.abortToEndMs !== undefined && waitAtAbort !== undefined) {
      measured.abortToEndCpuWaitMs = round(Math.max(0, waitAtEnd - waitAtAbort));
    }
  }
  // a turn left pending is abandoned: its signal aborts so a well-behaved
  // runtime can let go of it before the next case
  if (outcome.pending) controller.abort();

  const observation = {
    registration: 'ok',
    turn: 'completed',
    results: [],
    ran,
    uncaught: escaped.count - escapedBefore,
    measured,
  };
  if (outcome.pending) {
    observation.turn = 'pending';
  } else if ('error' in outcome) {
    const e = outcome.error;
    const named = { name: String(e?.name ?? typeof e), message: String(e?.message ?? e) };
    observation.turn =
      controller.signal.aborted && named.name === 'AbortError'
        ? 'aborted'
        : { rejected: { ...named, afterAbort: outcome.afterAbort, carriesAbort: carriesAbort(e, controller.signal) } };
  } else {
    const value = outcome.value ?? {};
    if (value.registrationError) {
      observation.registration = { refused: { name: String(value.registrationError.name), message: String(value.registrationError.message) } };
      observation.turn = 'notRun';
    }
    for (const r of value.results ?? []) {
      const bytes = utf8Bytes(r.delivered);
      measured.deliveredBytes += bytes;
      observation.results.push({
        callId: typeof r.callId === 'string' ? r.callId : null,
        isError: typeof r.isError === 'boolean' ? r.isError : null,
        delivered: encodeDelivered(r.delivered),
        bytes,
      });
    }
    if (Array.isArray(value.notes) && value.notes.length > 0) observation.notes = value.notes.map(String);
  }
  return observation;
}

/**
 * Whether `error` is the abort's own: the signal's reason, or an error
 * whose `cause` chain reaches it, or an `AbortError` anywhere in that chain.
 */
export function carriesAbort(error, signal) {
  if (signal.aborted && error === signal.reason) return true;
  const seen = new Set();
  try {
    for (let e = error; e != null && typeof e === 'object' && !seen.has(e); e = e.cause) {
      seen.add(e);
      if ((signal.aborted && e === signal.reason) || e.name === 'AbortError') return true;
    }
  } catch {
    // a getter on the thrown value threw: nothing more can be read of it
  }
  return false;
}

function round(ms) {
  return Math.round(ms * 1000) / 1000;
}
