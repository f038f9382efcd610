// Real file tools behind the workspace harness (issue 16): factories that
// observe.mjs's `observeWorkspace(createTools, scenario)` accepts, built on
// the published packages installed in a folder (by default the ones pinned
// under ../runtimes/), so that the suite's scenarios run on them exactly as
// on toolgate-workspace.mjs.
//
//   import { openRuntime, positiveControl } from './real-tools.mjs';
//   const rt = await openRuntime('mcp-server-filesystem', { install: '/tmp/fs-2025.3.28' });
//   const failed = await positiveControl(rt, ['read', 'write']);  // undefined: the tools work
//   let problems;
//   try { observation = await observeWorkspace(rt.createTools, scenario); }
//   finally { problems = await rt.closeSessions(); }             // [] : the case ran as written
//
// `openRuntime(id, {install})`: `install` is a folder (absolute, or relative
// to the process's working directory) holding a `node_modules` with the
// runtime's package; absent, the pinned folder of FOLDERS. The version
// reported is the one installed there (its package.json). `rt.createTools(root)`
// resolves with `[read, write, bash?]`, each `{spec: {name, description,
// inputSchema}, execute(input, signal)}` whose `execute` resolves with
// `{content: string, isError: boolean}`. `rt.tools` names the tools the
// runtime has (a scenario calling another one is not applicable).
// `rt.closeSessions()` ends what `createTools` started since the last call
// (MCP: the client and its server process) and resolves with the
// preconditions that did not hold there, as sentences (empty: none): a
// server that did not start for a root that is a directory, a tool list it
// never answered, a tool under test it does not list, a call the connection
// could not carry (it closed, or the request timed out). A case with any of
// these is not graded: its calls' refusals would be the harness's, not the
// runtime's (the adapter answers `error`).
//
// `positiveControl(rt, tools, {tmpdir})`: before a case, each tool it calls
// is called on a fresh root of its own (a temporary directory beside the
// case's, never the case's tree): read `control.txt` (relative, then
// absolute) must return its text, write `control-written.txt` (relative,
// then absolute) must write it. Resolves with undefined, or the sentence
// saying what failed.
//
// The runtimes:
//
// - `pi-coding-agent`: `@earendil-works/pi-coding-agent` (0.85.0 pinned in
//   ../runtimes/pi-agent-core-0.85) `createReadTool(root)`,
//   `createWriteTool(root)`, `createBashTool(root)`, imported from
//   `dist/core/tools/index.js`: the package's root entry (`dist/index.js`)
//   does not load in 0.85.0, it imports `@earendil-works/pi-server`, which
//   0.85.0 does not declare. Each call is one turn of pi's own loop,
//   `runAgentLoop` of `@earendil-works/pi-agent-core` (installed beside it),
//   with a scripted model (../runtimes/pi-scripted-model.mjs) whose first
//   message is the one tool call: pi validates (and coerces) the arguments
//   against the tool's TypeBox schema, runs `execute`, and turns a thrown
//   error into an error result (agent-loop.js `executePreparedToolCall`), as
//   it does for a model's call. The result is the `toolResult` message pi
//   appends: its text parts joined with "\n", its `isError`.
// - `mcp-server-filesystem`: `@modelcontextprotocol/server-filesystem`
//   (2026.8.31 pinned in ../runtimes/mcp-server-filesystem), started as
//   `node <its bin, dist/index.js> <root>` for each scenario, its working
//   directory the root (the servers up to 2026.1.14 resolve a relative path
//   against their working directory; 2026.8.31 against the allowed
//   directory), or the root's nearest existing ancestor when the root is no
//   directory, and driven over its own stdio protocol by
//   `@modelcontextprotocol/sdk`'s `Client` and `StdioClientTransport`: the
//   install folder's SDK when its transport hands the server's stderr back
//   (1.0 and later), else the pinned 1.32.2 (the 2025.1 to 2025.3 servers
//   install 0.5.0). No roots capability: the server keeps the directory of
//   its command line. read is the first of `read_text_file`, `read_file`
//   (before 2025.7.29) the server lists in its own tool list, write is
//   `write_file`, bash has no counterpart. A `CallToolResult`'s text parts
//   are joined with "\n", `isError` is its own; a protocol error the server
//   answers (`McpError`: invalid params, ...) is `{content: <its message>,
//   isError: true}`. A server that did not start because its root is
//   missing or is no directory (it exits) answers every call `{content:
//   <the connection error and the server's stderr>, isError: true}`: that
//   is its refusal of such a root, graded as one.
//
// Nothing here checks a path: whatever boundary there is, is the runtime's.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const here = path.dirname(new URL(import.meta.url).pathname);
const RUNTIMES_DIR = path.resolve(here, '../runtimes');

/** The pinned install folders (each with a package-lock.json; `npm ci` there first). */
export const FOLDERS = {
  'pi-coding-agent': path.join(RUNTIMES_DIR, 'pi-agent-core-0.85'),
  'mcp-server-filesystem': path.join(RUNTIMES_DIR, 'mcp-server-filesystem'),
};

/** The runtimes, by id: the package whose tools are driven and the tools it has. */
export const RUNTIMES = {
  'pi-coding-agent': { package: '@earendil-works/pi-coding-agent', tools: ['read', 'write', 'bash'] },
  'mcp-server-filesystem': { package: '@modelcontextprotocol/server-filesystem', tools: ['read', 'write'] },
};

/** The MCP tools each workspace tool may be, preferred first: the first the server lists is called. */
export const MCP_TOOL_CHOICES = { read: ['read_text_file', 'read_file'], write: ['write_file'] };

/** The MCP tool `tool` is on a server listing `listed` (names), or undefined when it lists none of its choices. */
export function chooseMcpTool(tool, listed) {
  const names = listed instanceof Set ? listed : new Set(listed);
  return (MCP_TOOL_CHOICES[tool] ?? []).find((name) => names.has(name));
}

const messageOf = (error) => (error instanceof Error ? String(error.message) : String(error));
const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/** The install folder of `id`: `install` resolved against the working directory, or the pinned one. */
export function installFolder(id, install) {
  return install === undefined ? FOLDERS[id] : path.resolve(install);
}

/**
 * The folder of package `name` in `folder`'s node_modules; throws a clear
 * Error (the folder, the fix) when it is not installed there.
 */
export function packageFolder(folder, name) {
  const dir = path.join(folder, 'node_modules', ...name.split('/'));
  if (!fs.existsSync(path.join(dir, 'package.json'))) {
    const pinned = Object.values(FOLDERS).includes(folder);
    const fix = pinned ? `run npm ci in ${folder}` : `npm install ${name}@<version> --save-exact in ${folder}`;
    throw new Error(`${name} is not installed in ${folder} (no ${path.join(dir, 'package.json')}): ${fix}`);
  }
  return dir;
}

/** The version of `name` installed in `folder` (its package.json). */
export function installedVersion(folder, name) {
  return readJson(path.join(packageFolder(folder, name), 'package.json')).version;
}

/** Checks, before anything runs, that `install` holds the runtime `id`'s package; its absolute folder. */
export function checkInstall(id, install) {
  const folder = installFolder(id, install);
  if (!fs.existsSync(folder)) throw new Error(`--install ${install}: ${folder} does not exist`);
  if (!fs.statSync(folder).isDirectory()) throw new Error(`--install ${install}: ${folder} is not a directory`);
  packageFolder(folder, RUNTIMES[id].package);
  return folder;
}

/**
 * The file `subpath` (`./client/index.js`) of the package in `dir` names,
 * through its `exports` as an `import` would resolve it (an exact key, or
 * a `*` pattern; the `import`, `node` or `default` condition), or the
 * subpath itself when the package has no `exports`.
 */
export function exportedFile(dir, subpath) {
  const { exports } = readJson(path.join(dir, 'package.json'));
  const pick = (target) => {
    if (typeof target === 'string') return target;
    if (Array.isArray(target)) return target.map(pick).find((t) => t !== undefined);
    if (target !== null && typeof target === 'object') {
      for (const condition of ['import', 'node', 'default']) {
        if (Object.hasOwn(target, condition)) {
          const t = pick(target[condition]);
          if (t !== undefined) return t;
        }
      }
    }
    return undefined;
  };
  let target;
  if (exports === undefined || exports === null) target = subpath;
  else if (typeof exports === 'string' || Array.isArray(exports) || !Object.keys(exports).some((k) => k.startsWith('.'))) {
    target = subpath === '.' ? pick(exports) : undefined;
  } else if (Object.hasOwn(exports, subpath)) target = pick(exports[subpath]);
  else {
    // the longest matching pattern wins
    const patterns = Object.keys(exports)
      .filter((k) => k.includes('*'))
      .sort((a, b) => b.length - a.length);
    for (const key of patterns) {
      const [prefix, suffix] = key.split('*');
      if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= prefix.length + suffix.length) {
        const t = pick(exports[key]);
        if (t !== undefined) target = t.replaceAll('*', subpath.slice(prefix.length, subpath.length - suffix.length));
        break;
      }
    }
  }
  if (target === undefined) throw new Error(`${dir}: its package.json exports no ${subpath}`);
  const file = path.join(dir, target);
  if (!fs.existsSync(file)) throw new Error(`${dir}: ${subpath} is ${target}, which is missing`);
  return file;
}

const importFile = async (file) => import(pathToFileURL(file).href);

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

/** `file` (relative to the package `name` in `folder`), imported; a clear Error when it is missing. */
async function importPackageFile(folder, name, file) {
  const full = path.join(packageFolder(folder, name), file);
  if (!fs.existsSync(full)) {
    throw new Error(`${name} ${installedVersion(folder, name)} in ${folder} has no ${file}, which this adapter imports`);
  }
  return importFile(full);
}

async function openPi(folder) {
  const id = 'pi-coding-agent';
  const pkg = RUNTIMES[id].package;
  const toolsModule = await importPackageFile(folder, pkg, 'dist/core/tools/index.js');
  const core = await importPackageFile(folder, '@earendil-works/pi-agent-core', 'dist/index.js');
  const ai = await importPackageFile(folder, '@earendil-works/pi-ai', 'dist/index.js');
  const { MODEL, assistantMessage } = await importFile(path.join(RUNTIMES_DIR, 'pi-scripted-model.mjs'));
  const coreVersion = installedVersion(folder, '@earendil-works/pi-agent-core');
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
    install: folder,
    version: installedVersion(folder, pkg),
    driver: `runAgentLoop of @earendil-works/pi-agent-core ${coreVersion}, one scripted tool call per call`,
    createTools: async (root) => [
      asWorkspaceTool('read', toolsModule.createReadTool(root)),
      asWorkspaceTool('write', toolsModule.createWriteTool(root)),
      asWorkspaceTool('bash', toolsModule.createBashTool(root)),
    ],
    closeSessions: async () => [],
  };
}

// ---------------------------------------------------------------------------
// mcp-server-filesystem

const SDK = '@modelcontextprotocol/sdk';
/** A result "schema" that takes any value, as both SDK generations parse one (`parse`, `safeParse`). */
const LENIENT = Object.freeze({ parse: (value) => value, safeParse: (value) => ({ success: true, data: value }) });

/**
 * The MCP client to drive the server with: the install folder's SDK when
 * its StdioClientTransport hands back the server's stderr (1.0 and later),
 * else the pinned one. `{Client, StdioClientTransport, ErrorCode, version, folder}`.
 */
async function mcpClient(folder) {
  const candidates = [folder, FOLDERS['mcp-server-filesystem']].filter((f, i, all) => all.indexOf(f) === i);
  const reasons = [];
  for (const f of candidates) {
    let dir;
    try {
      dir = packageFolder(f, SDK);
    } catch (error) {
      reasons.push(messageOf(error));
      continue;
    }
    const version = readJson(path.join(dir, 'package.json')).version;
    try {
      const { Client } = await importFile(exportedFile(dir, './client/index.js'));
      const { StdioClientTransport } = await importFile(exportedFile(dir, './client/stdio.js'));
      const { ErrorCode } = await importFile(exportedFile(dir, './types.js'));
      if (Object.getOwnPropertyDescriptor(StdioClientTransport.prototype, 'stderr')?.get === undefined) {
        reasons.push(`${SDK} ${version} in ${f}: its StdioClientTransport does not hand back the server's stderr`);
        continue;
      }
      return { Client, StdioClientTransport, ErrorCode, version, folder: f };
    } catch (error) {
      reasons.push(`${SDK} ${version} in ${f}: ${messageOf(error)}`);
    }
  }
  throw new Error(`no usable MCP client: ${reasons.join('; ')}`);
}

/** The server's working directory for `root`: the root when it is a directory (links followed), else its nearest existing ancestor directory. */
export function serverDirectory(root) {
  for (let dir = root; ; dir = path.dirname(dir)) {
    try {
      if (fs.statSync(dir).isDirectory()) return dir;
    } catch {
      // missing, dangling, looping: one level up
    }
    if (path.dirname(dir) === dir) return dir;
  }
}

const isDirectory = (p) => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

async function openMcp(folder) {
  const id = 'mcp-server-filesystem';
  const pkg = RUNTIMES[id].package;
  const serverDir = packageFolder(folder, pkg);
  const serverPackage = readJson(path.join(serverDir, 'package.json'));
  const bin = typeof serverPackage.bin === 'string' ? serverPackage.bin : (serverPackage.bin?.['mcp-server-filesystem'] ?? Object.values(serverPackage.bin ?? {})[0]);
  const server = path.join(serverDir, bin ?? 'dist/index.js');
  if (!fs.existsSync(server)) throw new Error(`${pkg} ${serverPackage.version} in ${folder}: its entry ${server} is missing`);
  const sdk = await mcpClient(folder);
  const sessions = new Set();

  async function startSession(root) {
    const cwd = serverDirectory(root);
    const transport = new sdk.StdioClientTransport({ command: process.execPath, args: [server, root], cwd, stderr: 'pipe' });
    let stderr = '';
    const stderrLines = () => stderr.split('\n').filter((l) => l.trim() !== '');
    const client = new sdk.Client({ name: 'toolgate-workspace', version: '0.1.0' }, { capabilities: {} });
    const session = { root, client, failure: undefined, names: new Set(), closed: false, problems: [], stderrLines };
    client.onclose = () => {
      session.closed = true;
    };
    sessions.add(session);
    try {
      // the server is spawned synchronously inside connect(): an SDK whose
      // transport ignores `cwd` (before 1.x) spawns it in this directory too
      const previous = process.cwd();
      let connecting;
      process.chdir(cwd);
      try {
        connecting = client.connect(transport);
      } finally {
        process.chdir(previous);
      }
      transport.stderr?.setEncoding('utf8');
      transport.stderr?.on('data', (text) => {
        stderr += text;
      });
      await connecting;
    } catch (error) {
      // the server exits when no directory of its command line is usable
      session.failure = [messageOf(error), ...stderrLines()].join('\n');
      if (isDirectory(root)) {
        session.problems.push(`the server did not start for the root ${root}, a directory: ${session.failure.replaceAll('\n', ' | ')}`);
      }
      return session;
    }
    try {
      for (const name of await toolNames(client, session)) session.names.add(name);
    } catch (error) {
      session.failure = [messageOf(error), ...stderrLines()].join('\n');
      session.problems.push(`the server did not answer its tool list: ${session.failure.replaceAll('\n', ' | ')}`);
    }
    return session;
  }

  /**
   * The names of the server's tools: its `tools/list` through the SDK's
   * `listTools` (which also caches output schemas for `callTool`); when the
   * SDK's schema refuses the list (the 2025.1 to 2025.7 servers installed today list
   * `inputSchema: {"$schema": …}` without `type`: zod-to-json-schema 3.25
   * on the zod 4 npm now resolves), the same list read for its names only,
   * said once on stderr.
   */
  async function toolNames(client, session) {
    try {
      const { tools } = await client.listTools();
      return tools.map((t) => t.name);
    } catch (error) {
      if (session.closed) throw error;
      const raw = await client.request({ method: 'tools/list' }, LENIENT);
      if (!Array.isArray(raw?.tools)) throw new Error(`a tool list without tools: ${JSON.stringify(raw)?.slice(0, 200)}`);
      if (!saidLenient) {
        saidLenient = true;
        process.stderr.write(
          `toolgate workspace real-tools: ${pkg} ${serverPackage.version}: ${SDK} ${sdk.version} refuses its tool list (${messageOf(error).replace(/\s+/g, ' ').slice(0, 200)}); its tool names read without that schema\n`,
        );
      }
      return raw.tools.map((t) => t?.name).filter((n) => typeof n === 'string');
    }
  }
  let saidLenient = false;

  function mcpTool(session, name) {
    return {
      spec: { name, description: `MCP ${MCP_TOOL_CHOICES[name].join(' or ')}`, inputSchema: { type: 'object' } },
      async execute(input) {
        if (session.failure !== undefined) return { content: session.failure, isError: true };
        const mcpName = chooseMcpTool(name, session.names);
        if (mcpName === undefined) {
          const missing = `the server lists no ${name} tool (none of ${MCP_TOOL_CHOICES[name].join(', ')}; it lists ${[...session.names].sort().join(', ') || 'no tool'})`;
          if (!session.problems.includes(missing)) session.problems.push(missing);
          return { content: missing, isError: true };
        }
        try {
          const result = await session.client.callTool({ name: mcpName, arguments: input });
          return { content: flattenContent(result.content), isError: result.isError === true };
        } catch (error) {
          const timedOut = sdk.ErrorCode?.RequestTimeout !== undefined && error?.code === sdk.ErrorCode.RequestTimeout;
          if (session.closed || timedOut) {
            // the call was never answered: no refusal of the server's
            const why = timedOut ? 'timed out' : 'lost its connection (the server exited)';
            session.problems.push(`${mcpName} ${JSON.stringify(input)?.slice(0, 200)} ${why}: ${[messageOf(error), ...session.stderrLines()].join(' | ')}`);
          }
          // a protocol error the server answered (McpError: invalid params, ...)
          return { content: messageOf(error), isError: true };
        }
      },
    };
  }

  return {
    id,
    ...RUNTIMES[id],
    install: folder,
    version: serverPackage.version,
    driver: `Client.callTool of ${SDK} ${sdk.version}${sdk.folder === folder ? '' : ' (pinned)'} over StdioClientTransport to node ${path.relative(serverDir, server)} <root>`,
    createTools: async (root) => {
      const session = await startSession(root);
      return [mcpTool(session, 'read'), mcpTool(session, 'write')];
    },
    closeSessions: async () => {
      const open = [...sessions];
      sessions.clear();
      const problems = [];
      for (const s of open) {
        try {
          await s.client.close();
        } catch {
          // already closed (the server exited)
        }
        problems.push(...s.problems);
      }
      return problems;
    },
  };
}

const OPENERS = { 'pi-coding-agent': openPi, 'mcp-server-filesystem': openMcp };

/**
 * The runtime `id` (a key of RUNTIMES) from the folder `install` (default:
 * the pinned one), loaded: `{id, package, version, tools, install, driver,
 * createTools, closeSessions}`.
 */
export async function openRuntime(id, { install } = {}) {
  const open = OPENERS[id];
  if (open === undefined) throw new Error(`unknown runtime ${id} (known: ${Object.keys(RUNTIMES).join(', ')})`);
  return open(installFolder(id, install));
}

// ---------------------------------------------------------------------------
// the positive control

/** What the control's file holds, and what its writes write. */
export const CONTROL_TEXT = 'toolgate positive control: read back from a fresh root';
export const CONTROL_WRITTEN = 'toolgate positive control: written into a fresh root';

/**
 * Calls each of `tools` (names: `read`, `write`) of `rt` on a fresh root of
 * its own, made in a new temporary directory under `tmpdir`, and removed
 * after: read `control.txt` (relative, then absolute) must return its
 * text; write `control-written.txt` (relative) and
 * `control-written-absolute.txt` (absolute) must write it. Resolves with
 * undefined when every call worked and the sessions had no problem, else
 * the sentence saying what failed.
 */
export async function positiveControl(rt, tools, { tmpdir = os.tmpdir() } = {}) {
  if (tools.length === 0) return undefined;
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(tmpdir, 'toolgate-control-')));
  const root = path.join(dir, 'root');
  const failures = [];
  let problems = [];
  try {
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, 'control.txt'), CONTROL_TEXT);
    let made;
    try {
      made = await rt.createTools(root);
    } catch (error) {
      failures.push(`the tools could not be built on it: ${messageOf(error)}`);
    }
    const byName = new Map((Array.isArray(made) ? made : []).map((t) => [t?.spec?.name, t]));
    const checks = {
      read: [
        [{ path: 'control.txt' }, (r) => String(r.content).includes(CONTROL_TEXT)],
        [{ path: path.join(root, 'control.txt') }, (r) => String(r.content).includes(CONTROL_TEXT)],
      ],
      write: [
        [{ path: 'control-written.txt', content: CONTROL_WRITTEN }, () => fileHolds(path.join(root, 'control-written.txt'), CONTROL_WRITTEN)],
        [{ path: path.join(root, 'control-written-absolute.txt'), content: CONTROL_WRITTEN }, () => fileHolds(path.join(root, 'control-written-absolute.txt'), CONTROL_WRITTEN)],
      ],
    };
    for (const name of tools) {
      if (made === undefined) break;
      const tool = byName.get(name);
      if (typeof tool?.execute !== 'function') {
        failures.push(`the runtime built no ${name} tool`);
        continue;
      }
      for (const [input, worked] of checks[name] ?? []) {
        const shown = `${name} ${JSON.stringify(input).replaceAll(dir, '<control>')}`;
        let result;
        try {
          result = await tool.execute(input, new AbortController().signal);
        } catch (error) {
          failures.push(`${shown} threw ${messageOf(error)}`);
          continue;
        }
        if (result?.isError === true || !worked(result)) {
          const said = String(result?.content).replaceAll(dir, '<control>').slice(0, 300);
          failures.push(`${shown} ${result?.isError === true ? 'was refused' : 'did not do it'}: ${said}`);
        }
      }
    }
  } finally {
    problems = await rt.closeSessions();
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
  const all = [...problems.map((p) => p.replaceAll(dir, '<control>')), ...failures];
  if (all.length === 0) return undefined;
  return `the positive control failed (${tools.join(' and ')} on a fresh root <control>/root holding control.txt): ${all.join('; ')}`;
}

function fileHolds(file, text) {
  try {
    return fs.readFileSync(file, 'utf8') === text;
  } catch {
    return false;
  }
}
