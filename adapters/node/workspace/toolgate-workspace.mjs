// toolgate-workspace.mjs: the project's JavaScript implementation of the
// workspace tools of seed 004 (a coding agent's `src/tools.ts`): `read`,
// `write` and `bash`, built by `createWorkspaceTools(workspaceRoot)` and
// guarded by the `workspacePath` realpath boundary. An ES module for Node 20,
// no dependencies.
//
//   const [read, write, bash] = createWorkspaceTools('/path/to/ws');
//   await read.execute({ path: 'src/a.ts' });        // {content} or {content, isError: true}
//   await bash.execute({ command: 'ls' }, signal);   // never rejects
//
// It follows the seed's verbatim excerpts (`stringField`, `workspacePath`,
// `nearestExistingAncestor`, `isInside`, read's truncation expression,
// bash's `slice(0, 64 * 1024)`) and the values its prose gives; where the
// seed is silent it takes what
// ../../../docs/src/suites/workspace-facts.md (W<n>)
// and SPEC.md ("## workspace", WS-*) record as Decisions: the success text
// of write, bash's `["-c", command]`, `workspacePath` returning the
// requested path. Every message that is not one of the seed's own texts is
// Node's or the OS's (ENOENT, EISDIR, `Command failed: ...`), passed through
// unchanged by `failure(cause)`.
//
// Known limits, as the seed states them (W21): a TOCTOU window between the
// check and the open; no OS sandbox; bash is not path-confined, only its cwd
// is pinned to the real root.
//
// `createWorkspaceTools(root, interference, parts)` takes, for the suite's
// harness only (observe.mjs calls `createTools(root, interference)`),
// `interference.afterCheck()`: awaited by read and write between the
// boundary check and the first use of the checked path, where the harness
// swaps a symlink in (WS-RACE-01, the window of W21); and, for the suite's
// mutants only (mutants.mjs), replacements of named parts (PARTS). Without
// them it is the faithful implementation.

import { execFile as execFileCallback } from 'node:child_process';
import { lstat, mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

// Promisified, so a failure rejects with Node's own error: its message is
// `Command failed: <file> <args>\n<stderr>`, `stdout maxBuffer length
// exceeded`, `The operation was aborted` or `spawn <file> ENOENT`, and that
// message is what the model reads (W29, W28, W33).
const execFile = promisify(execFileCallback);

/** The version of this implementation (the adapter's handshake). */
export const VERSION = '0.1.0';

/** read returns a text of at most this many UTF-16 code units unchanged (W22). */
export const MAX_READ_CHARS = 16_000;
/** A longer text keeps this many code units from its head and from its tail. */
export const READ_HEAD_CHARS = 8_000;
export const READ_TAIL_CHARS = 8_000;
/** bash's execFile options (W28, W30): a resource limit, not a safety proof. */
export const BASH_TIMEOUT_MS = 10_000;
export const BASH_MAX_BUFFER = 64 * 1024;
/** bash's success text is clipped to this many code units, silently (W27). */
export const BASH_MAX_OUTPUT = 64 * 1024;
/** The shell when `$SHELL` is not set (W25). */
export const DEFAULT_SHELL = '/bin/sh';

/** The seed's refusal texts (W5): tool name first, then the rule broken. */
export const INVALID_READ_INPUT = 'invalid read input: path must be a string';
export const INVALID_WRITE_INPUT = 'invalid write input: path and content must be strings';
export const INVALID_BASH_INPUT = 'invalid bash input: command must be a string';
export const PATH_ESCAPES = 'path escapes workspace';
export const NO_EXISTING_ANCESTOR = 'no existing ancestor';
/** What the model reads when the call layer refuses a bash call (W34). */
export const BASH_NEEDS_APPROVAL = 'bash requires an explicit approval policy';

// ---------------------------------------------------------------------------
// Runtime validation: the executor's backstop behind the advertised schema

/**
 * `input` when it can safely be read for named fields: not null, not an
 * array, of type object. The schema told the model the shape; nothing
 * guarantees the model (or the provider) kept to it.
 */
export function asObject(input) {
  return input !== null && typeof input === 'object' && !Array.isArray(input) ? input : undefined;
}

/**
 * The field when it is a string, else undefined. Type only: `""` is a
 * string (an empty file is valid content, W6); emptiness would be a
 * business rule of the executor, not of this function.
 */
export function stringField(input, field) {
  const value = asObject(input)?.[field];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A tool failure as a result the loop records and hands to the model,
 * never a thrown error (W7): a boundary violation, a missing file and a
 * failed command all come back the same way.
 */
export function failure(cause) {
  return { content: cause instanceof Error ? cause.message : String(cause), isError: true };
}

/** The input schema every tool advertises: `additionalProperties: false` is told to the provider, not checked here (W3). */
function schema(required, properties) {
  return { type: 'object', properties, required, additionalProperties: false };
}

// ---------------------------------------------------------------------------
// The path boundary

/**
 * Whether `path` is `root` or below it, judged on `relative` (the seed's
 * excerpt): a look-alike sibling (`/work-other` beside `/work`) gives
 * `../work-other`, and a path on another win32 drive comes back absolute.
 */
export function isInside(root, path) {
  const value = relative(root, path);
  return (
    value === '' ||
    (!value.startsWith(`..${process.platform === 'win32' ? '\\' : '/'}`) &&
      value !== '..' &&
      !isAbsolute(value))
  );
}

/**
 * The nearest ancestor-or-self of `path` that exists (lstat: a link counts
 * as existing). Walks up only while the answer is ENOENT: a permission or
 * ENOTDIR error is reported, not disguised as a missing file. Throws
 * `no existing ancestor` only past the filesystem's root, which on POSIX
 * always exists (W20).
 */
export async function nearestExistingAncestor(path) {
  let current = path;
  while (true) {
    try {
      await lstat(current);
      return current;
    } catch (error) {
      if (error?.code !== 'ENOENT') throw error;
      const parent = dirname(current);
      if (parent === current) throw new Error(NO_EXISTING_ANCESTOR);
      current = parent;
    }
  }
}

/**
 * The parts of the implementation a mutant (mutants.mjs) may replace, with
 * their faithful values. Each is one decision of the seed's code:
 *   stringField(input, field)   the runtime type check;
 *   isInside(rootReal, real)    the containment judgment;
 *   probe(requested)            the existence test of a path to create (lstat: a dangling link exists);
 *   walksUpOn(error)            which failure of that test sends the check to the nearest ancestor (ENOENT only);
 *   canonical(checked)          the real location judged (realpath);
 *   truncateRead(text)          read's head-and-tail truncation;
 *   bashFailure(cause)          bash's failure result.
 */
export const PARTS = Object.freeze({
  stringField,
  isInside,
  probe: lstat,
  walksUpOn: (error) => error?.code === 'ENOENT',
  canonical: realpath,
  truncateRead,
  bashFailure: failure,
});

/** `workspacePath` on the given parts. */
function boundaryOf(parts) {
  /**
   * The path a call may touch, or a thrown error: `candidate` is resolved
   * lexically against the real root (`..` before any symlink, an absolute
   * path taken as is), then judged by its real location: the target's own
   * realpath when it exists, else (creating only, and only on ENOENT) the
   * realpath of its nearest existing ancestor. Returns the lexically
   * resolved path; read and write open that (the TOCTOU window of W21).
   */
  return async function workspacePath(root, candidate, creating) {
    // The root comes from construction, the candidate from the request;
    // resolving the root on every call keeps the comparison on real paths.
    const rootReal = await realpath(root);
    const requested = resolve(rootReal, candidate);
    let checked = requested;
    if (creating) {
      try {
        await parts.probe(requested);
      } catch (error) {
        // A missing target cannot be realpath'd: its nearest existing
        // ancestor is the only filesystem object that can be judged.
        if (!parts.walksUpOn(error)) throw error;
        checked = await nearestExistingAncestor(dirname(requested));
      }
    }
    // An existing target (a dangling link included) is judged by where it
    // really leads; realpath fails on a link to nothing (W14).
    const checkedReal = await parts.canonical(checked);
    if (!parts.isInside(rootReal, checkedReal)) throw new Error(PATH_ESCAPES);
    return requested;
  };
}

/** The seed's `workspacePath(root, candidate, creating)` (W8). */
export const workspacePath = boundaryOf(PARTS);

// ---------------------------------------------------------------------------
// Output limits

/**
 * The seed's truncation expression: unchanged up to MAX_READ_CHARS code
 * units, else head, a marker line saying how many were left out, and tail.
 * Lengths are UTF-16 code units, so a slice can cut a surrogate pair (W23);
 * the marker's "characters" is never singularised.
 */
export function truncateRead(content) {
  return content.length <= MAX_READ_CHARS
    ? content
    : `${content.slice(0, READ_HEAD_CHARS)}\n[truncated ${content.length - MAX_READ_CHARS} characters]\n${content.slice(-READ_TAIL_CHARS)}`;
}

// ---------------------------------------------------------------------------
// The tools

/**
 * The three tools of a workspace whose root is `workspaceRoot` (fixed here:
 * a call supplies only a path): `[read, write, bash]`, each
 * `{spec: {name, description, inputSchema}, execute(input, signal?)}`.
 * `execute` resolves with `{content}` or `{content, isError: true}` and never
 * rejects: its whole body is inside one try, the input check included (a
 * JSON input cannot throw there; a getter or proxy of a caller could).
 * `interference.afterCheck` (the harness only) runs in the check-then-use
 * window of read and write; `parts` (mutants only) replaces entries of PARTS.
 */
export function createWorkspaceTools(workspaceRoot, interference = {}, parts = {}) {
  const p = { ...PARTS, ...parts };
  const boundary = boundaryOf(p);
  const afterCheck = interference.afterCheck ?? (async () => {});

  const read = {
    spec: {
      name: 'read',
      description: `Read a UTF-8 text file inside the workspace. Texts longer than ${MAX_READ_CHARS} characters keep their first and last ${READ_HEAD_CHARS} characters.`,
      inputSchema: schema(['path'], { path: { type: 'string' } }),
    },
    // No signal: a single read is over too soon to be worth cancelling.
    async execute(input) {
      try {
        const path = p.stringField(input, 'path');
        if (path === undefined) return { content: INVALID_READ_INPUT, isError: true };
        // Resolved before it is judged: a missing path, inside or out,
        // answers realpath's ENOENT, not the escape message (W10).
        const target = await boundary(workspaceRoot, path, false);
        await afterCheck();
        const content = await readFile(target, 'utf8');
        return { content: p.truncateRead(content) };
      } catch (cause) {
        return failure(cause);
      }
    },
  };

  const write = {
    spec: {
      name: 'write',
      description: 'Create or overwrite a UTF-8 text file inside the workspace, creating missing parent directories.',
      inputSchema: schema(['path', 'content'], { path: { type: 'string' }, content: { type: 'string' } }),
    },
    async execute(input) {
      try {
        const path = p.stringField(input, 'path');
        const content = p.stringField(input, 'content');
        if (path === undefined || content === undefined) return { content: INVALID_WRITE_INPUT, isError: true };
        const target = await boundary(workspaceRoot, path, true);
        await afterCheck();
        // Only after the check; immediate, not atomic, no mutation queue (W24).
        await mkdir(dirname(target), { recursive: true });
        await writeFile(target, content);
        // Decision (WS-WRITE-01): the seed does not give the success text.
        return { content: `wrote ${content.length} characters to ${target}` };
      } catch (cause) {
        return failure(cause);
      }
    },
  };

  const bash = {
    spec: {
      name: 'bash',
      description: `Run a shell command with the workspace as its working directory (${BASH_TIMEOUT_MS / 1000} s timeout, ${BASH_MAX_BUFFER} bytes of output per stream).`,
      inputSchema: schema(['command'], { command: { type: 'string' } }),
    },
    // The signal is passed straight to execFile: an abort kills the shell
    // (not what it started, nor what it already wrote).
    async execute(input, signal) {
      try {
        const command = p.stringField(input, 'command');
        if (command === undefined) return { content: INVALID_BASH_INPUT, isError: true };
        // "." is the root itself: this pins the cwd to the real root and
        // nothing more; the command may go anywhere the process may (W26).
        const cwd = await boundary(workspaceRoot, '.', false);
        // The user's shell when set, a policy rather than a hardcode (W25).
        const shell = process.env.SHELL ?? DEFAULT_SHELL;
        const { stdout, stderr } = await execFile(shell, ['-c', command], {
          cwd,
          timeout: BASH_TIMEOUT_MS,
          maxBuffer: BASH_MAX_BUFFER,
          signal,
        });
        // All of stdout, then all of stderr, clipped once more for the
        // model's context (maxBuffer only bounds each stream's buffer).
        return { content: `${stdout}${stderr}`.slice(0, BASH_MAX_OUTPUT) };
      } catch (cause) {
        // A non-zero exit, the timeout, maxBuffer, an abort, a shell that
        // cannot be spawned: one return channel, the cause's message (W29).
        return p.bashFailure(cause);
      }
    },
  };

  return [read, write, bash];
}

// ---------------------------------------------------------------------------
// Approval: the call layer's decision, not the tools'

/**
 * The production approval hook of the seed (approval.ts, wired into the
 * call layer's beforeToolCall): given the name of the tool a call names,
 * `{allow: false, reason}` refuses the call (the call layer returns
 * `{content: reason, isError: true}` without executing it) and
 * `{allow: true}` lets it run. bash is refused; read and write run (W34).
 */
export function denyBashByDefault(toolName) {
  return toolName === 'bash' ? { allow: false, reason: BASH_NEEDS_APPROVAL } : { allow: true };
}

/** The always-approve hook the book's tests pass. */
export function allowAll() {
  return { allow: true };
}
