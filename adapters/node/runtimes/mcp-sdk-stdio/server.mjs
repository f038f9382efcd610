// The MCP server of the mcp-sdk-stdio shim: a child process (`node server.mjs`)
// spoken to by the shim's Client over StdioClientTransport (stdin/stdout).
//
// Besides stdin/stdout, the child has one side channel to the shim: a Unix
// socket whose path is in TOOLGATE_SIDE_CHANNEL, carrying newline-delimited
// JSON both ways:
//   shim -> child  {type:"tools", tools:[{index,name,description,inputSchema,behaviour,hasCheck}]}
//   child -> shim  {type:"registered"} | {type:"registrationError", name, message}
//   child -> shim  {type:"event", seq, event}     (an event of executorFor)
//   shim -> child  {type:"ack", seq}              (the shim has called onEvent)
//   child -> shim  {type:"check", id, index, args} (the tool's check, run in the shim)
//   shim -> child  {type:"checkResult", id, message} | {type:"checkThrew", id, name, message}
// Nothing of this touches what the MCP SDK does with the calls.

import net from 'node:net';
import process from 'node:process';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { executorFor } from '../../boundary/behaviours.mjs';

const socket = net.createConnection(process.env.TOOLGATE_SIDE_CHANNEL);
socket.setEncoding('utf8');
// The child lives as long as its shim. When the client closes stdin (the
// shim's teardown) the side channel is ended after what was written to it
// (late events) has gone out; the side channel closing ends the process.
socket.on('close', () => process.exit(0));
socket.on('error', () => process.exit(0));
process.stdin.on('end', () => socket.end());

const send = (message) => socket.write(JSON.stringify(message) + '\n');

let seq = 0;
let acked = 0;
const ackWaiters = [];
const checkWaiters = new Map();
let nextCheckId = 0;

function onEvent(event) {
  send({ type: 'event', seq: ++seq, event });
}

/** Resolves once the shim has called onEvent for every event sent so far. */
function flushed() {
  const target = seq;
  if (acked >= target) return Promise.resolve();
  return new Promise((resolve) => ackWaiters.push({ target, resolve }));
}

function runCheckInShim(index, args) {
  const id = ++nextCheckId;
  return new Promise((resolve, reject) => {
    checkWaiters.set(id, { resolve, reject });
    send({ type: 'check', id, index, args });
  });
}

let buffered = '';
socket.on('data', (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf('\n')) !== -1) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    receive(JSON.parse(line));
  }
});

function receive(message) {
  if (message.type === 'tools') {
    start(message.tools);
  } else if (message.type === 'ack') {
    acked = Math.max(acked, message.seq);
    for (let i = ackWaiters.length - 1; i >= 0; i--) {
      if (ackWaiters[i].target <= acked) ackWaiters.splice(i, 1)[0].resolve();
    }
  } else if (message.type === 'checkResult' || message.type === 'checkThrew') {
    const waiter = checkWaiters.get(message.id);
    checkWaiters.delete(message.id);
    if (message.type === 'checkResult') waiter.resolve(message.message);
    else waiter.reject(Object.assign(new Error(message.message), { name: message.name }));
  }
}

/** The same conversion as the in-memory shim: zod 4's z.fromJSONSchema, check as superRefine. */
function zodSchemaFor(tool) {
  const schema = z.fromJSONSchema(tool.inputSchema);
  if (!tool.hasCheck) return schema;
  return schema.superRefine(async (args, ctx) => {
    const message = await runCheckInShim(tool.index, args);
    if (message !== null && message !== undefined) ctx.addIssue({ code: 'custom', message });
  });
}

/** The same as the in-memory shim: the SDK README's JSON.stringify, a string as itself. */
function callToolResultOf(value) {
  return { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }] };
}

async function start(tools) {
  const server = new McpServer({ name: 'toolgate-case', version: '0.0.0' });
  try {
    for (const tool of tools) {
      const execute = executorFor(tool.behaviour, { index: tool.index, onEvent });
      server.registerTool(
        tool.name,
        { description: tool.description, inputSchema: zodSchemaFor(tool) },
        async (args, extra) => {
          const progressToken = extra._meta?.progressToken;
          const progress =
            progressToken === undefined
              ? undefined
              : (value) =>
                  extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: value } });
          let value;
          try {
            value = await execute(args, { signal: extra.signal, callId: undefined, progress });
          } finally {
            // The shim hears "settle" before the response leaves (no catch: what
            // the tool threw goes on to the SDK as it was).
            await flushed();
          }
          return callToolResultOf(value);
        },
      );
    }
  } catch (error) {
    send({ type: 'registrationError', name: error?.name, message: error?.message });
    socket.end();
    return;
  }
  server.server.onerror = (error) => process.stderr.write(`server onerror: ${error?.message ?? String(error)}\n`);
  await server.connect(new StdioServerTransport());
  send({ type: 'registered' });
}
