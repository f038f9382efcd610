// test/protocol-client.mjs: drives an adapter over stdio as the runner does
// (runner/PROTOCOL.md), for the adapters' tests (node --test): start it, send
// lines, read its replies, and check them against the protocol's JSON Schema
// (protocol/schema/protocol.schema.json).
//
//   const a = startAdapter(adapterPath, ['--flag', 'v']);
//   const hello = await a.request({ cmd: 'start', protocol: 1 });
//   assert.ok(startReplyValid(hello), JSON.stringify(startReplyValid.errors));
//   assert.deepEqual(await a.stop(), { code: 0, signal: null });
//
// Every adapter started is killed when the test file's tests end, so that a
// failed assertion does not leave a child keeping the test process alive.

import { after } from 'node:test';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { compileSchema } from '../schemas.mjs';

const protocol = compileSchema('protocol/schema/protocol.schema.json');
/** Ajv validators of a start reply and of a run reply. */
export const startReplyValid = protocol.definition('startReply');
export const runReplyValid = protocol.definition('runReply');

const children = new Set();
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill();
});

/**
 * The adapter `adapterPath` with `args`, as a child process: `send` a line
 * (a string as is, anything else as JSON), `next()` the next reply line
 * (parsed; rejects after `timeoutMs` with the stderr so far), `request` both,
 * `stop` sends stop and waits for the exit, `exited` is `{code, signal}`.
 */
export function startAdapter(adapterPath, args = []) {
  const child = spawn(process.execPath, [adapterPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  const lines = [];
  const waiters = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const w = waiters.shift();
    if (w) w(line);
    else lines.push(line);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    exited,
    stderr: () => stderr,
    send(line) {
      child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
    },
    async next(timeoutMs = 10_000) {
      const line =
        lines.length > 0
          ? lines.shift()
          : await new Promise((resolve, reject) => {
              const timer = setTimeout(() => reject(new Error(`no reply within ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
              waiters.push((l) => {
                clearTimeout(timer);
                resolve(l);
              });
            });
      return JSON.parse(line);
    },
    /** How many reply lines came that no `next()` has read. */
    pendingReplies: () => lines.length,
    async request(message, timeoutMs) {
      this.send(message);
      return this.next(timeoutMs);
    },
    async stop() {
      this.send({ cmd: 'stop' });
      return exited;
    },
    end: () => child.stdin.end(),
  };
}
