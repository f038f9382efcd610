// toolgate runtime shim: @modelcontextprotocol/sdk 1.32.2, a Client talking to
// an McpServer in a child process (`node server.mjs`) over
// StdioClientTransport / StdioServerTransport.
//
// The tools run in the child, built there by executorFor (SHIM.md,
// "out-of-process tools"); their events come back over a side channel (a
// Unix socket, see server.mjs) and are handed to each tool's onEvent here.
// Each call of the model's turn is one client.callTool(...), all issued at
// once; what the shim resolves with is the CallToolResult each resolves with.
// See README.md for every choice.

import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SERVER = path.join(HERE, 'server.mjs');

export const runtime = {
  id: 'mcp-sdk-stdio',
  package: '@modelcontextprotocol/sdk',
  version: '1.32.2',
  path: 'Client.callTool over StdioClientTransport to McpServer.registerTool in a child process (StdioServerTransport)',
};

export const notApplicable = {};

// `toolgate bench` times a turn in this process; here every turn starts a
// server process whose tools rebuild their value from the case's JSON, so
// a turn's time would be mostly that (SHIM.md, "Timing").
export const notTimed = 'each turn starts the server process, which builds the tool output itself';

/**
 * The client's request timeout (RequestOptions.timeout), in milliseconds.
 * The SDK's default is 60 000 (DEFAULT_REQUEST_TIMEOUT_MSEC,
 * shared/protocol.js:8). Over stdio a request line longer than the server's
 * ReadBuffer takes (10 MiB, shared/stdio.js:2) is dropped by the server and
 * never answered, so such a turn took the whole 60 s to reject. 30 s is three
 * times the slowest turn that was answered (5 * 10^5 argument keys, 8 MB of
 * JSON: 10 s); README.md, "The request timeout".
 */
export const REQUEST_TIMEOUT_MS = 30_000;

export async function runTurn({ tools, calls, signal }) {
  const notes = [];
  const side = await openSideChannel(tools, notes);

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER],
    env: { TOOLGATE_SIDE_CHANNEL: side.path },
    cwd: HERE,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.setEncoding('utf8');
  transport.stderr.on('data', (text) => {
    stderr += text;
    for (const line of text.split('\n')) if (line.trim() !== '') notes.push(`server stderr: ${line}`);
  });

  const client = new Client({ name: 'toolgate-host', version: '0.0.0' });
  client.onerror = (error) => notes.push(`client onerror: ${error?.message ?? String(error)}`);
  const teardown = () => {
    client.close().catch(() => {});
    side.close();
  };

  const connecting = client.connect(transport);
  let registration;
  try {
    registration = await Promise.race([side.registration, connecting.then(() => side.registration)]);
  } catch (error) {
    // The child never came up: that is this shim's failure, not the runtime's.
    teardown();
    throw new Error(`mcp-sdk-stdio shim: the server process did not start (${error?.message}); stderr: ${stderr}`);
  }
  if (registration.type === 'registrationError') {
    connecting.catch(() => {}); // the initialize request dies with the teardown
    teardown();
    return { results: [], registrationError: { name: registration.name, message: registration.message }, notes };
  }
  await connecting;

  // One turn: every callTool issued before any is awaited. A rejected
  // callTool rejects the turn (Promise.all).
  const pending = calls.map((call) =>
    client.callTool({ name: call.name, arguments: call.arguments }, undefined, {
      signal,
      timeout: REQUEST_TIMEOUT_MS,
      onprogress: (p) => notes.push(`progress for ${call.id}: ${JSON.stringify(p)}`),
    }),
  );
  // The child is closed once every call has settled, and the side channel
  // once the child has sent what it had (late events).
  Promise.allSettled(pending).then(teardown);
  const answers = await Promise.all(pending);
  return {
    results: answers.map((result, i) => ({
      // MCP results carry no call id: linked to the case's call whose request it answered.
      callId: calls[i].id,
      // isError is optional in MCP and "assumed to be false" when absent.
      isError: result.isError ?? false,
      delivered: result,
    })),
    registrationError: undefined,
    notes,
  };
}

/**
 * The side channel of server.mjs: a Unix socket the child connects to. It
 * sends the child the tools, relays the child's events to each tool's
 * onEvent (then acknowledges them) and runs each tool's check for the child.
 */
async function openSideChannel(tools, notes) {
  const socketPath = path.join(os.tmpdir(), `toolgate-mcp-${process.pid}-${randomBytes(6).toString('hex')}.sock`);
  let settleRegistration;
  const registration = new Promise((resolve) => (settleRegistration = resolve));
  let connection;
  const server = net.createServer((conn) => {
    connection = conn;
    conn.setEncoding('utf8');
    const send = (message) => conn.write(JSON.stringify(message) + '\n');
    let buffered = '';
    conn.on('data', (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line);
        if (message.type === 'event') {
          tools[message.event.index].onEvent(message.event);
          send({ type: 'ack', seq: message.seq });
        } else if (message.type === 'check') {
          let answer;
          try {
            answer = { type: 'checkResult', id: message.id, message: tools[message.index].check(message.args) };
          } catch (error) {
            // Carried to the child and thrown there, inside the SDK's validation.
            answer = { type: 'checkThrew', id: message.id, name: error?.name, message: error?.message ?? String(error) };
          }
          send(answer);
        } else if (message.type === 'registered' || message.type === 'registrationError') {
          settleRegistration(message);
        }
      }
    });
    conn.on('end', () => conn.end());
    conn.on('error', (error) => notes.push(`side channel: ${error.message}`));
    send({
      type: 'tools',
      tools: tools.map((tool, index) => ({
        index,
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        behaviour: tool.behaviour,
        hasCheck: typeof tool.check === 'function',
      })),
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  let closed = false;
  return {
    path: socketPath,
    registration,
    close() {
      if (closed) return;
      closed = true;
      // The child ends the channel once its stdin has closed; the server
      // stops accepting now and is gone (with its socket file) after that.
      server.close();
      // A child that never connected or never ends: the channel goes with the
      // client's own kill of the process (StdioClientTransport.close).
      setTimeout(() => connection?.destroy(), 5000).unref();
    },
  };
}
