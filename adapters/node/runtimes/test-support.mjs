// Test support shared by the shims' own tests (<runtime>/test/*.test.mjs,
// run by `npm test` in each runtime folder): the test tools, signals, time
// limits and small waits those tests all need, written once here. Each test
// keeps its own assertions: what a runtime does stays asserted in its folder.
//
// Each folder installs its own node_modules, and this file stands outside
// them all: it imports nothing but node: built-ins, never a runtime package.
// Import it from a test as `../../test-support.mjs`.

/** Test options bounding a test's run time: `test(name, timeLimit(), fn)`. */
export const timeLimit = (ms = 10_000) => ({ timeout: ms });

/** The input schema of most test tools: an object with a required string `path`. */
export const PATH_SCHEMA = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

/** An input schema any object meets. */
export const ANY_SCHEMA = { type: 'object', properties: {} };

/** A fresh signal that nobody aborts, for a turn that is not cancelled. */
export const liveSignal = () => new AbortController().signal;

/** A promise resolved after `ms` milliseconds. */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A tool (as SHIM.md describes it, on PATH_SCHEMA, no check) that records
 * each call: `seen` gets `{ args, context }` (the second argument the runtime
 * gave `execute`), then `body(args, context)` runs. `extra` overrides fields of
 * the tool (an `inputSchema`, a `check`). Returns `{ seen, tool }`.
 */
export function recordingTool(name, body = (args) => ({ read: args.path }), extra = {}) {
  const seen = [];
  return {
    seen,
    tool: {
      name,
      description: `tool ${name}`,
      inputSchema: PATH_SCHEMA,
      check: undefined,
      execute: (args, context) => {
        seen.push({ args, context });
        return body(args, context);
      },
      ...extra,
    },
  };
}

/**
 * A tool that records nothing: its name as its description, ANY_SCHEMA,
 * `execute` as its body; `extra` overrides fields (an `inputSchema`, a `check`).
 */
export const plainTool = (name, execute, extra = {}) => ({ name, description: name, inputSchema: ANY_SCHEMA, execute, ...extra });

/** A tool body's promise that settles only when `signal` aborts: it rejects with the signal's reason. */
export const rejectOnAbort = (signal) =>
  new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

/** A promise with its `resolve` outside: `{ promise, resolve }` (a tool tells a test it started). */
export function deferred() {
  let resolve;
  const promise = new Promise((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/**
 * A tool body that waits `ms` and returns `args.path`, setting `overlapped`
 * when a call ends its wait while another call of it is still running:
 * whether the runtime ran the calls of a turn together. Returns
 * `{ body, overlapped }`.
 */
export function overlapProbe(ms = 20) {
  let running = 0;
  const probe = {
    overlapped: false,
    body: async (args) => {
      running += 1;
      await sleep(ms);
      probe.overlapped ||= running > 1;
      running -= 1;
      return args.path;
    },
  };
  return probe;
}
