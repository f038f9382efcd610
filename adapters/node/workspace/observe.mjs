// The harness of the `workspace` suite: runs one scenario (FORMAT.md) on an
// implementation of the workspace tools and returns its observation.
//
//   import { observeWorkspace } from './observe.mjs';
//   import { createWorkspaceTools } from './toolgate-workspace.mjs';
//   const observation = await observeWorkspace(createWorkspaceTools, scenario);
//
// A run: a fresh `$BASE` (`base` in a directory of its own, mkdtemp under
// the OS's temporary directory, then its real path), the scenario's tree made in it, the calls' environment
// set for the run (`$SHELL` set or unset, no shell startup files, locale C;
// restored after), the tools built once with `$BASE/<root>`, the
// calls made one after the other through the approval policy, each result
// recorded, the whole of `$BASE` snapshotted (fs-tree.mjs), `$BASE`
// removed. The base's absolute path is written `$BASE` in everything
// recorded, so observations do not depend on where the temporary directory
// is. Nothing is timed here: only bash's own timeout takes time.
//
// A scenario the format does not allow is refused (a thrown Error naming
// the field) before anything touches the disk; the adapter answers it as an
// error, never as an observation.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeString } from '../encode.mjs';
import { BASE_VARIABLE, checkTree, isTreePath, makeTree, snapshotTree, withBase, withoutBase } from '../fs-tree.mjs';
import { watchOutside } from './outside-watch.mjs';
import { allowAll, denyBashByDefault } from './toolgate-workspace.mjs';

/** The tools a call may name. */
export const TOOLS = ['read', 'write', 'bash'];
/** The approval policies a scenario may name (the default first). */
export const APPROVALS = ['allowAll', 'denyBashByDefault'];
/** When a bash call's signal is aborted. */
export const ABORTS = ['before', 'during'];
/** The workspace root when a scenario names none. */
export const DEFAULT_ROOT = 'ws';

const show = (v) => JSON.stringify(v) ?? String(v);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function refuse(message) {
  throw new Error(`scenario: ${message}`);
}

function onlyKeys(value, allowed, at) {
  for (const k of Object.keys(value)) if (!allowed.includes(k)) refuse(`${at}: unknown field ${show(k)}`);
}

/**
 * Checks a scenario against FORMAT.md before anything is made, and throws a
 * clear Error (`scenario: …`, `tree: …`) for anything it does not allow.
 * Returns the scenario with its defaults: `{tree, root, shell, approval, calls}`.
 */
export function checkScenario(scenario) {
  if (!isObject(scenario)) refuse(`an object {tree, root?, shell?, approval?, calls}, not ${show(scenario)}`);
  onlyKeys(scenario, ['tree', 'root', 'shell', 'approval', 'calls'], 'scenario');
  const tree = scenario.tree ?? [];
  checkTree(tree);
  const root = scenario.root ?? DEFAULT_ROOT;
  if (!isTreePath(root)) refuse(`root: ${show(root)} is not a relative path without ., .. or empty segments`);
  const shell = scenario.shell ?? null;
  if (shell !== null && (typeof shell !== 'string' || !shell.startsWith('/') || shell.includes('\0'))) {
    refuse(`shell: an absolute path or null, not ${show(shell)}`);
  }
  const approval = scenario.approval ?? APPROVALS[0];
  if (!APPROVALS.includes(approval)) refuse(`approval: ${show(approval)} is not one of ${APPROVALS.join(', ')}`);
  if (!Array.isArray(scenario.calls)) refuse('calls: an array of {tool, input?, abort?, swap?}');
  scenario.calls.forEach((call, i) => {
    const at = `calls[${i}]`;
    if (!isObject(call)) refuse(`${at}: a call is {tool, input?, abort?, swap?}, not ${show(call)}`);
    onlyKeys(call, ['tool', 'input', 'abort', 'swap'], at);
    if (!TOOLS.includes(call.tool)) refuse(`${at}.tool: ${show(call.tool)} is not one of ${TOOLS.join(', ')}`);
    if (Object.hasOwn(call, 'abort')) {
      if (call.tool !== 'bash') refuse(`${at}.abort: only a bash call takes an abort`);
      if (!ABORTS.includes(call.abort)) refuse(`${at}.abort: ${show(call.abort)} is not one of ${ABORTS.join(', ')}`);
    }
    if (Object.hasOwn(call, 'swap')) {
      const { swap } = call;
      if (call.tool === 'bash') refuse(`${at}.swap: only a read or a write is swapped under`);
      if (!isObject(swap)) refuse(`${at}.swap: {path, target}, not ${show(swap)}`);
      onlyKeys(swap, ['path', 'target'], `${at}.swap`);
      if (!isTreePath(swap.path)) refuse(`${at}.swap.path: ${show(swap.path)} is not a relative path without ., .. or empty segments`);
      if (typeof swap.target !== 'string' || swap.target === '' || swap.target.includes('\0')) {
        refuse(`${at}.swap.target: a non-empty string without NUL, not ${show(swap.target)}`);
      }
    }
  });
  return { tree, root, shell, approval, calls: scenario.calls };
}

/** `value` (JSON) with `$BASE` replaced by `base` in every string, keys excepted. */
export function substituteBase(value, base) {
  if (typeof value === 'string') return withBase(value, base);
  if (Array.isArray(value)) return value.map((v) => substituteBase(v, base));
  if (isObject(value)) {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteBase(v, base);
    return out;
  }
  return value;
}

/** A text as recorded: `base` written `$BASE`, then a string or its UTF-16 units. */
export function recordText(text, base) {
  return encodeString(withoutBase(text, base));
}

const messageOf = (error) => (error instanceof Error ? String(error.message) : String(error));

/**
 * A tool's result as recorded: `{content, isError}`. A result without a
 * string content is no result of this format: the harness refuses it.
 */
function recordResult(result, base, at) {
  if (!isObject(result) || typeof result.content !== 'string') {
    throw new Error(`${at}: the tool resolved with ${show(result)}, not {content: string, isError?}`);
  }
  return { content: recordText(result.content, base), isError: result.isError === true };
}

/**
 * The calls' environment (FORMAT.md, "Determinism" and "Clarifications"):
 * the inherited one, with these set. The tools pass it to the shell, and a
 * case must not depend on who runs it: `bash -c` reads ~/.bashrc when its
 * stdin is a socket (Node's pipes are socketpairs) and SHLVL is unset or 0,
 * and the locale decides the language of the shells' messages.
 */
export const CALL_ENVIRONMENT = Object.freeze({ SHLVL: '1', LC_ALL: 'C' });
/**
 * Unset while the calls run: bash sources $BASH_ENV in every non-interactive
 * shell, CDPATH makes `cd` print, the others change how a shell parses or
 * what it prints.
 */
export const CALL_ENVIRONMENT_REMOVED = Object.freeze(['BASH_ENV', 'ENV', 'CDPATH', 'SHELLOPTS', 'BASHOPTS', 'POSIXLY_CORRECT', 'GLOBIGNORE', 'LANGUAGE']);

/**
 * Sets the calls' environment: CALL_ENVIRONMENT, CALL_ENVIRONMENT_REMOVED
 * unset, and `$SHELL` set to `shell` (null: unset). Returns the function
 * that restores every variable it touched.
 */
function useEnvironment(shell) {
  const wanted = { ...CALL_ENVIRONMENT, SHELL: shell };
  for (const name of CALL_ENVIRONMENT_REMOVED) wanted[name] = null;
  const saved = Object.keys(wanted).map((name) => [name, Object.hasOwn(process.env, name), process.env[name]]);
  // assigning undefined would set the string "undefined"
  for (const [name, value] of Object.entries(wanted)) {
    if (value === null) delete process.env[name];
    else process.env[name] = value;
  }
  return () => {
    for (const [name, had, value] of saved) {
      if (had) process.env[name] = value;
      else delete process.env[name];
    }
  };
}

/**
 * A call's swap (FORMAT.md): `$BASE/<path>` renamed `<path>~` when it
 * exists, and a symlink to `target` made in its place; synchronous, so
 * nothing of the tool runs in between.
 */
function makeSwap(base, swap) {
  const at = path.join(base, ...swap.path.split('/'));
  try {
    fs.renameSync(at, `${at}~`);
  } catch (error) {
    if (error?.code !== 'ENOENT') throw error;
  }
  fs.symlinkSync(withBase(swap.target, base), at);
}

/**
 * Runs `scenario` on the tools `createTools(root, interference)` builds (or resolves with)
 * and resolves with its observation `{results, tree}` (FORMAT.md). `options.policies` (mutants
 * only) replaces the approval hooks: `{allowAll, denyBashByDefault}`, each
 * `(toolName) → {allow: true} | {allow: false, reason}`; `options.tmpdir`
 * (tests) is where `$BASE` is made instead of the OS's temporary directory;
 * `options.grading: 'portable'` marks the observation for the portable
 * projection (a real tool, whose messages are its own). In a scenario
 * without bash, a watcher (outside-watch.mjs) records every change outside
 * the root while the calls run, as `outside`. `interference.afterCheck()`
 * makes the running call's swap; a tool that allows a swapped call without
 * having called it is refused (it cannot be judged on the race).
 */
export async function observeWorkspace(createTools, scenario, options = {}) {
  const s = checkScenario(scenario);
  const policies = { allowAll, denyBashByDefault, ...options.policies };
  const approve = policies[s.approval];
  // `$BASE` alone in a fresh directory of its own: what appears beside it
  // was made by the tools (the watcher), not by another process
  const outer = fs.realpathSync(fs.mkdtempSync(path.join(options.tmpdir ?? os.tmpdir(), 'toolgate-ws-')));
  const base = path.join(outer, 'base');
  fs.mkdirSync(base);
  const restoreEnvironment = useEnvironment(s.shell);
  let watch;
  try {
    makeTree(base, s.tree);
    // awaited: a factory may be async (a tool server to start first, real-tools.mjs)
    const root = path.join(base, ...s.root.split('/'));
    // the running call's swap, made once, at the tool's afterCheck
    let pendingSwap;
    let swapFailure;
    const interference = {
      afterCheck: async () => {
        const swap = pendingSwap;
        pendingSwap = undefined;
        if (swap === undefined) return;
        try {
          makeSwap(base, swap);
        } catch (error) {
          swapFailure = error;
        }
      },
    };
    const tools = await createTools(root, interference);
    // changes outside the root, transient ones included; not where a bash
    // call runs (bash is not path-confined, WS-BASH-01, and its background
    // jobs may still write during a later call)
    watch = s.calls.some((c) => c.tool === 'bash') ? undefined : watchOutside(base, root);
    const byName = new Map();
    for (const tool of Array.isArray(tools) ? tools : []) {
      const name = tool?.spec?.name;
      if (typeof name === 'string' && !byName.has(name)) byName.set(name, tool);
    }
    const results = [];
    for (const [i, call] of s.calls.entries()) {
      const at = `calls[${i}]`;
      const tool = byName.get(call.tool);
      if (typeof tool?.execute !== 'function') throw new Error(`${at}: the implementation has no ${call.tool} tool`);
      // the call layer decides whether the call runs at all
      const decision = approve(call.tool);
      if (!isObject(decision) || typeof decision.allow !== 'boolean') {
        throw new Error(`${at}: the approval hook answered ${show(decision)}, not {allow, reason?}`);
      }
      if (!decision.allow) {
        results.push({ content: recordText(String(decision.reason), base), isError: true });
        continue;
      }
      const input = Object.hasOwn(call, 'input') ? substituteBase(call.input, base) : undefined;
      pendingSwap = call.swap;
      const controller = new AbortController();
      if (call.abort === 'before') controller.abort();
      let pending;
      try {
        pending = tool.execute(input, controller.signal);
      } catch (error) {
        pending = Promise.reject(error);
      }
      if (call.abort === 'during') controller.abort();
      let result;
      try {
        result = await pending;
      } catch (error) {
        // A faithful tool never rejects (WS-RESULT-01); one that does is
        // recorded, so the judge sees it as a difference and not a crash.
        results.push({ thrown: recordText(messageOf(error), base) });
        continue;
      }
      const recorded = recordResult(result, base, at);
      if (swapFailure !== undefined) throw new Error(`${at}.swap: ${messageOf(swapFailure)}`);
      if (pendingSwap !== undefined && !recorded.isError) {
        throw new Error(`${at}.swap: the tool allowed the call without calling interference.afterCheck (no hook for the swap)`);
      }
      pendingSwap = undefined;
      results.push(recorded);
    }
    let outside = [];
    if (watch !== undefined) {
      await watch.settle(true);
      outside = watch.close();
      watch = undefined;
    }
    return {
      results,
      tree: snapshotTree(base),
      ...(options.grading === 'portable' ? { grading: 'portable' } : {}),
      ...(outside.length > 0 ? { outside } : {}),
    };
  } finally {
    watch?.close();
    restoreEnvironment();
    try {
      fs.rmSync(outer, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      process.stderr.write(`toolgate workspace harness: could not remove ${outer}: ${messageOf(error)}\n`);
    }
  }
}

export { BASE_VARIABLE };
