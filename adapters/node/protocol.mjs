// protocol.mjs: the toolgate adapter protocol (runner/PROTOCOL.md, version
// 1) as every Node adapter here speaks it, so that each adapter says only
// what it runs and how:
//
//   const adapter = protocolAdapter({ log: 'toolgate x adapter', usage: 'node … [--flag v]' });
//   const options = adapter.flags(process.argv.slice(2), ['--flag']);
//   … load the implementation (its stray stdout already goes to stderr) …
//   await adapter.serve({ hello: () => ({ implementation, suites, capabilities }), run: async (c) => ({ observation }) });
//
// `protocolAdapter` claims stdout at once: from then on only replies are
// written there, and whatever else writes to stdout (an implementation, a
// runtime, a tool) goes to stderr, where the runner keeps it with the case.
// `serve` reads JSON lines from stdin until `stop` or end of input, answers
// `start` with the hello, and `run` with what `run(case)` returns
// (`{observation}`, `{skipped}`, `{notApplicable}` or `{error}`, the seq added
// here). Requests that cannot be answered (no JSON, no object, a run without
// a seq of 1 or more) are logged on stderr and get no reply, since a reply
// without the right seq is a harness error anyway; every other failure is an
// `error` reply, never a crash, since a crash costs the runner a restart.

import { createInterface } from 'node:readline';

/** An error's message (a thrown non-Error: its text). */
export const messageOf = (error) => (error instanceof Error ? error.message || String(error) : String(error));

let protocolOut;

/** Sends every later write to stdout to stderr; returns the write to the real stdout. */
function claimStdout() {
  if (protocolOut === undefined) {
    protocolOut = process.stdout.write.bind(process.stdout);
    process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
  }
  return protocolOut;
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isSeq = (seq) => Number.isInteger(seq) && seq >= 1;

/**
 * The adapter process: `log` is the prefix of its stderr lines, `usage` its
 * command line as the usage message shows it (after `usage: `).
 */
export function protocolAdapter({ log: prefix, usage: usageLine }) {
  const write = claimStdout();
  // stdout is a pipe: writes are synchronous on Linux, so each reply is
  // flushed before the next request is read.
  const reply = (message) => write(`${JSON.stringify(message)}\n`);
  const log = (message) => process.stderr.write(`${prefix}: ${message}\n`);

  /** Says what is wrong with the command line and exits 2. */
  function usage(message) {
    log(message);
    process.stderr.write(`usage: ${usageLine}\n`);
    process.exit(2);
  }

  /**
   * The values of `names` (flags taking a value, as `--flag v` or
   * `--flag=v`; the last one given wins) in `argv`: `{flag: value}`. Anything
   * else is a usage error.
   */
  function flags(argv, names) {
    const values = {};
    for (let i = 0; i < argv.length; i += 1) {
      const [flag, inline] = argv[i].split(/=(.*)/s, 2);
      if (!names.includes(flag)) usage(`unknown argument ${argv[i]}`);
      const value = inline ?? argv[i + 1];
      if (value === undefined) usage(`${flag} needs a value`);
      if (inline === undefined) i += 1;
      values[flag] = value;
    }
    return values;
  }

  /**
   * Answers requests until `stop` or the end of stdin, then exits 0.
   *
   * - `hello()`: `{implementation, suites, capabilities}` of the start reply
   *   (asked once);
   * - `run(case)`: the answer to a case (an object) of one of the hello's
   *   suites; what it throws is answered `error` as
   *   `case <id>: <failure(thrown)>` (default: the message) and its stack
   *   logged;
   * - `loadFailure`: when the implementation could not be loaded, every such
   *   case is answered `error` with it instead;
   * - `bench(request)`: the answer to a `bench` request (runner/BENCH.md;
   *   bench.mjs's `benchReply`), for an adapter whose hello announces the
   *   capability "bench";
   * - `otherSuite(suite)`: the answer to a case of a suite not in the hello
   *   (default `skipped`, what the runner itself reports for one; it does not
   *   send such a case).
   */
  async function serve({ hello, run, bench, loadFailure, failure = messageOf, otherSuite }) {
    let said;
    // the hello is the same for the whole session: computed once
    const helloNow = () => (said ??= hello());
    const otherSuiteAnswer =
      otherSuite ?? ((suite) => ({ skipped: { reason: `this adapter runs the ${helloNow().suites.join(', ')} suite, not ${JSON.stringify(suite)}` } }));

    async function answer(c) {
      if (!isObject(c)) return { error: { message: 'a run request needs a "case" object' } };
      if (!helloNow().suites.includes(c.suite)) return otherSuiteAnswer(c.suite);
      if (loadFailure !== undefined) return { error: { message: loadFailure } };
      try {
        return await run(c);
      } catch (error) {
        log(`case ${c.id}: ${error?.stack ?? error}`);
        return { error: { message: `case ${c.id}: ${failure(error)}` } };
      }
    }

    async function benchAnswer(b) {
      if (bench === undefined) return { error: { message: 'this adapter does not time calls' } };
      if (!isObject(b)) return { error: { message: 'a bench request needs a "bench" object' } };
      if (loadFailure !== undefined) return { error: { message: loadFailure } };
      try {
        return await bench(b);
      } catch (error) {
        log(`bench ${b.family} ${b.size}: ${error?.stack ?? error}`);
        return { error: { message: `bench ${b.family} ${b.size}: ${failure(error)}` } };
      }
    }

    async function handle(request) {
      if (!isObject(request)) {
        log(`a request that is not a JSON object: ${JSON.stringify(request)?.slice(0, 200)}`);
        return;
      }
      switch (request.cmd) {
        case 'start':
          reply({ protocol: 1, ...helloNow() });
          return;
        case 'run':
          if (!isSeq(request.seq)) {
            log(`a run request without a valid seq: ${JSON.stringify(request).slice(0, 200)}`);
            return;
          }
          reply({ seq: request.seq, ...(await answer(request.case)) });
          return;
        case 'bench':
          // `toolgate bench` (runner/BENCH.md): only an adapter whose hello
          // announces the capability "bench" passes `bench(request)`
          if (!isSeq(request.seq)) {
            log(`a bench request without a valid seq: ${JSON.stringify(request).slice(0, 200)}`);
            return;
          }
          reply({ seq: request.seq, ...(await benchAnswer(request.bench)) });
          return;
        case 'stop':
          process.exit(0);
          return;
        default:
          log(`unknown request ${JSON.stringify(request).slice(0, 200)}`);
          if (isSeq(request.seq)) reply({ seq: request.seq, error: { message: `unknown request ${JSON.stringify(request.cmd)}` } });
      }
    }

    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      let request;
      try {
        request = JSON.parse(line);
      } catch (error) {
        log(`a request that is not JSON: ${messageOf(error)}`);
        continue;
      }
      try {
        await handle(request);
      } catch (error) {
        // a bug of this adapter: answer it when the request can be answered
        log(`while handling ${line.slice(0, 200)}: ${error?.stack ?? error}`);
        if (isSeq(request?.seq)) reply({ seq: request.seq, error: { message: `adapter failure: ${messageOf(error)}` } });
      }
    }
    process.exit(0);
  }

  return { log, usage, flags, serve };
}
