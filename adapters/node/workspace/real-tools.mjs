// Real file tools behind the workspace harness (issue 16): factories that
// observe.mjs's `observeWorkspace(createTools, scenario)` accepts, built on
// the published packages pinned under ../runtimes/, so that the suite's
// scenarios run on them exactly as on toolgate-workspace.mjs.
//
//   import { openRuntime } from './real-tools.mjs';
//   const rt = await openRuntime('mcp-server-filesystem');
//   try { observation = await observeWorkspace(rt.createTools, scenario); }
//   finally { await rt.closeSessions(); }
//
// `rt.createTools(root)` resolves with `[read, write, bash?]`, each
// `{spec: {name, description, inputSchema}, execute(input, signal)}` whose
// `execute` resolves with `{content: string, isError: boolean}`. `rt.tools`
// names the tools the runtime has (a scenario calling another one is not
// applicable). `rt.closeSessions()` ends what `createTools` started since the
// last call (MCP: the client and its server process).
//
// The runtimes:
//
// - `pi-coding-agent`: `@earendil-works/pi-coding-agent` 0.85.0 (installed in
//   ../runtimes/pi-agent-core-0.85) `createReadTool(root)`,
//   `createWriteTool(root)`, `createBashTool(root)`, imported from
//   `dist/core/tools/index.js`: the package's root entry (`dist/index.js`)
//   does not load in this install, it imports `@earendil-works/pi-server`,
//   which 0.85.0 does not declare. Each call is one turn of pi's own loop,
//   `runAgentLoop` of `@earendil-works/pi-agent-core` 0.85.0, with a
//   scripted model (../runtimes/pi-scripted-model.mjs) whose first message
//   is the one tool call: pi validates (and coerces) the arguments against
//   the tool's TypeBox schema, runs `execute`, and turns a thrown error into
//   an error result (agent-loop.js `executePreparedToolCall`), as it does for
//   a model's call. The result is the `toolResult` message pi appends:
//   its text parts joined with "\n", its `isError`.
// - `mcp-server-filesystem`: `@modelcontextprotocol/server-filesystem`
//   2026.8.31 (../runtimes/mcp-server-filesystem), started as
//   `node <its dist/index.js> <root>` for each scenario and driven over its
//   own stdio protocol by `@modelcontextprotocol/sdk` 1.32.2's `Client` and
//   `StdioClientTransport` (no roots capability: the server keeps the
//   directory of its command line). read is `read_text_file`, write is
//   `write_file`, bash has no counterpart. A `CallToolResult`'s text parts are
//   joined with "\n", `isError` is its own; a protocol error (`McpError`, a
//   rejected request) is `{content: <its message>, isError: true}`. A server
//   that did not start (a root that is missing or not a directory: it exits)
//   answers every call `{content: <the connection error and the server's
//   stderr>, isError: true}`.
//
// Nothing here checks a path: whatever boundary there is, is the runtime's.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const here = path.dirname(new URL(import.meta.url).pathname);
const RUNTIMES_DIR = path.resolve(here, '../runtimes');

/** The install folders (each with a package-lock.json; `npm ci` there first). */
export const FOLDERS = {
  'pi-coding-agent': path.join(RUNTIMES_DIR, 'pi-agent-core-0.85'),
  'mcp-server-filesystem': path.join(RUNTIMES_DIR, 'mcp-server-filesystem'),
};

/** The runtimes, by id: the package whose tools are driven and the tools it has. */
export const RUNTIMES = {
  'pi-coding-agent': { package: '@earendil-works/pi-coding-agent', tools: ['read', 'write', 'bash'] },
  'mcp-server-filesystem': { package: '@modelcontextprotocol/server-filesystem', tools: ['read', 'write'] },
};

/** The MCP tool each workspace tool is. */
export const MCP_TOOL_NAMES = { read: 'read_text_file', write: 'write_file' };

const messageOf = (error) => (error instanceof Error ? String(error.message) : String(error));

function installed(id, p) {
  const full = path.join(FOLDERS[id], 'node_modules', p);
  if (!fs.existsSync(full)) throw new Error(`${id}: ${full} is missing (run npm ci in ${FOLDERS[id]})`);
  return full;
}

const importInstalled = async (id, p) => import(pathToFileURL(installed(id, p)).href);

function versionOf(id, pkg) {
  return JSON.parse(fs.readFileSync(installed(id, `${pkg}/package.json`), 'utf8')).version;
}

/** A content array (pi's or MCP's) as one string: text parts joined with "\n", others named. */
export function flattenContent(content) {
  if (!Array.isArray(content)) return typeof content === 'string' ? content : JSON.stringify(content) ?? String(content);
  return content
    .map((part) => {
      if (part?.type === 'text' && typeof part.text === 'string') return part.text;
      if (part?.type === 'image' || part?.type === 'audio') return `[${part.type} ${part.mimeType ?? ''}]`;
      return `[${part?.type ?? 'part'} ${JSON.stringify(part)}]`;
    })
    .join('\n');
}

// ---------------------------------------------------------------------------
// pi-coding-agent

async function openPi() {
  const id = 'pi-coding-agent';
  const toolsModule = await importInstalled(id, '@earendil-works/pi-coding-agent/dist/core/tools/index.js');
  const core = await importInstalled(id, '@earendil-works/pi-agent-core/dist/index.js');
  const ai = await importInstalled(id, '@earendil-works/pi-ai/dist/index.js');
  const { MODEL, assistantMessage } = await import(pathToFileURL(path.join(RUNTIMES_DIR, 'pi-scripted-model.mjs')).href);
  const coreVersion = versionOf(id, '@earendil-works/pi-agent-core');
  // 0.85's AgentContext has a systemPrompt field; 1.x has none (as ../pipeline/load.mjs).
  const contextBase = Number(coreVersion.split('.')[0]) >= 1 ? {} : { systemPrompt: '' };

  /** One model turn through pi's loop whose only call is `agentTool` with `input`. */
  async function callThroughLoop(agentTool, input, signal) {
    const callId = 'toolgate-call-1';
    let turn = 0;
    const streamFn = () => {
      const index = turn++;
      const stream = ai.createAssistantMessageEventStream();
      const message =
        index === 0
          ? assistantMessage([{ type: 'toolCall', id: callId, name: agentTool.name, arguments: input }], 'toolUse')
          : signal?.aborted
            ? assistantMessage([], 'aborted', 'Request was aborted')
            : assistantMessage([{ type: 'text', text: 'done' }], 'stop');
      queueMicrotask(() => {
        if (message.stopReason === 'aborted') stream.push({ type: 'error', reason: 'aborted', error: message });
        else stream.push({ type: 'done', reason: message.stopReason, message });
      });
      return stream;
    };
    const context = { ...contextBase, messages: [], tools: [agentTool] };
    const config = {
      model: MODEL,
      convertToLlm: (messages) => messages.filter((m) => ['system', 'user', 'assistant', 'toolResult'].includes(m.role)),
    };
    const prompt = { role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: 0 };
    const returned = await core.runAgentLoop([prompt], context, config, () => {}, signal, streamFn);
    const result = returned.find((m) => m.role === 'toolResult' && m.toolCallId === callId);
    if (result === undefined) {
      // pi's loop ended without running the call (an aborted signal before the model's turn)
      const last = returned.findLast((m) => m.role === 'assistant');
      throw new Error(`pi's loop made no tool result (last assistant message: stopReason ${last?.stopReason}${last?.errorMessage ? `, ${last.errorMessage}` : ''})`);
    }
    return { content: flattenContent(result.content), isError: result.isError === true };
  }

  const asWorkspaceTool = (name, agentTool) => ({
    spec: { name, description: agentTool.description, inputSchema: agentTool.parameters },
    execute: (input, signal) => callThroughLoop(agentTool, input, signal),
  });

  return {
    id,
    ...RUNTIMES[id],
    version: versionOf(id, '@earendil-works/pi-coding-agent'),
    driver: `runAgentLoop of @earendil-works/pi-agent-core ${coreVersion}, one scripted tool call per call`,
    createTools: async (root) => [
      asWorkspaceTool('read', toolsModule.createReadTool(root)),
      asWorkspaceTool('write', toolsModule.createWriteTool(root)),
      asWorkspaceTool('bash', toolsModule.createBashTool(root)),
    ],
    closeSessions: async () => {},
  };
}

// ---------------------------------------------------------------------------
// mcp-server-filesystem

async function openMcp() {
  const id = 'mcp-server-filesystem';
  const { Client } = await importInstalled(id, '@modelcontextprotocol/sdk/dist/esm/client/index.js');
  const { StdioClientTransport } = await importInstalled(id, '@modelcontextprotocol/sdk/dist/esm/client/stdio.js');
  const server = installed(id, '@modelcontextprotocol/server-filesystem/dist/index.js');
  const sdkVersion = versionOf(id, '@modelcontextprotocol/sdk');
  const sessions = new Set();

  async function startSession(root) {
    const transport = new StdioClientTransport({ command: process.execPath, args: [server, root], stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.setEncoding('utf8');
    transport.stderr?.on('data', (text) => {
      stderr += text;
    });
    const client = new Client({ name: 'toolgate-workspace', version: '0.1.0' }, { capabilities: {} });
    const session = { client, failure: undefined, names: new Set() };
    sessions.add(session);
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      for (const t of tools) session.names.add(t.name);
    } catch (error) {
      // the server exits when no directory of its command line is usable
      const lines = stderr.split('\n').filter((l) => l.trim() !== '');
      session.failure = [messageOf(error), ...lines].join('\n');
    }
    return session;
  }

  function mcpTool(session, name) {
    const mcpName = MCP_TOOL_NAMES[name];
    return {
      spec: { name, description: `MCP ${mcpName}`, inputSchema: { type: 'object' } },
      async execute(input) {
        if (session.failure !== undefined) return { content: session.failure, isError: true };
        if (!session.names.has(mcpName)) return { content: `the server lists no ${mcpName} tool`, isError: true };
        try {
          const result = await session.client.callTool({ name: mcpName, arguments: input });
          return { content: flattenContent(result.content), isError: result.isError === true };
        } catch (error) {
          // a protocol error (McpError: invalid params, ...) or a closed connection
          return { content: messageOf(error), isError: true };
        }
      },
    };
  }

  return {
    id,
    ...RUNTIMES[id],
    version: versionOf(id, '@modelcontextprotocol/server-filesystem'),
    driver: `Client.callTool of @modelcontextprotocol/sdk ${sdkVersion} over StdioClientTransport to node dist/index.js <root>`,
    createTools: async (root) => {
      const session = await startSession(root);
      return [mcpTool(session, 'read'), mcpTool(session, 'write')];
    },
    closeSessions: async () => {
      const open = [...sessions];
      sessions.clear();
      for (const s of open) {
        try {
          await s.client.close();
        } catch {
          // already closed (the server exited)
        }
      }
    },
  };
}

const OPENERS = { 'pi-coding-agent': openPi, 'mcp-server-filesystem': openMcp };

/** The runtime `id` (a key of RUNTIMES), loaded: `{id, package, version, tools, driver, createTools, closeSessions}`. */
export async function openRuntime(id) {
  const open = OPENERS[id];
  if (open === undefined) throw new Error(`unknown runtime ${id} (known: ${Object.keys(RUNTIMES).join(', ')})`);
  return open();
}
