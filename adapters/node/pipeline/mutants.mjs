// Deliberate breakages of pi's tool pipeline, for checking that the
// `pipeline` suite catches them. mutants.json lists them as data
// ({id, description, requirements}); this module implements each one as a
// wrapper around what `observePipeline` hands to pi's `runAgentLoop`: the
// tools (context.tools), the config's hooks, the `emit` sink, the scripted
// `streamFn`, and the loop's promise. pi's own code is never copied or
// patched: a mutant only changes what pi is given or what comes out of it.
// The `queue-*` mutants replace pi-coding-agent's `withFileMutationQueue`
// that `observeFileQueue` drives (file-queue.mjs) with a wrapper around the
// loaded function (a throwing operation keeping the lock), or with a
// deliberately broken queue of their own (`brokenQueue`: a key without
// realpath or without its fallback, LIFO waiters), shaped and timed like
// pi's; the file on disk is never touched.
//
//   import { applyMutant } from './mutants.mjs';
//   const broken = applyMutant(await loadPi('0.85'), 'updates-dropped');
//   await observePipeline(broken, scenario);

import fs from 'node:fs';
import path from 'node:path';
import { realpath } from 'node:fs/promises';

/** The mutants as data: `[{id, description, requirements}]`. */
export const MUTANTS = JSON.parse(fs.readFileSync(new URL('./mutants.json', import.meta.url), 'utf8'));

/**
 * The drift mutants as data (drift-mutants.json, the same shape): changes
 * a later pi release could plausibly make, each listing exactly the
 * requirements it breaks (none when no requirement covers it), applied the
 * same way (`applyMutant`, `--mutant <id>`).
 */
export const DRIFTS = JSON.parse(fs.readFileSync(new URL('./drift-mutants.json', import.meta.url), 'utf8'));

const isThenable = (v) => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';

/** `then(value)` after `value` (sync when it is not a promise). */
const after = (value, then) => (isThenable(value) ? value.then(then) : then(value));

/** Calls `fn`, mapping its value and its throw (sync or async) while keeping it sync when it was. */
function guard(fn, self, args, onValue, onError) {
  let r;
  try {
    r = fn.apply(self, args);
  } catch (error) {
    return onError(error);
  }
  return isThenable(r) ? r.then(onValue, onError) : onValue(r);
}

const rethrow = (error) => {
  throw error;
};
const identity = (v) => v;

/** Tools with `key` (a function) replaced by `wrap(original, tool)`. */
function wrapToolFn(key, wrap) {
  return (tools, state) =>
    tools.map((t) => (t && typeof t[key] === 'function' ? { ...t, [key]: wrap(t[key], t, state) } : t));
}

/** A config with hook `which` replaced by `wrap(original)` when configured. */
function wrapHook(config, which, wrap, state) {
  if (typeof config[which] === 'function') config[which] = wrap(config[which], state);
  return config;
}

/** Every toolResult content array an event carries (end result, messages, turn_end, agent_end). */
function resultContents(event) {
  const out = [];
  const fromMessage = (m) => {
    if (m?.role === 'toolResult' && Array.isArray(m.content)) out.push(m.content);
  };
  if (event?.type === 'tool_execution_end' && Array.isArray(event.result?.content)) out.push(event.result.content);
  if (event?.message) fromMessage(event.message);
  if (Array.isArray(event?.toolResults)) event.toolResults.forEach(fromMessage);
  if (Array.isArray(event?.messages)) event.messages.forEach(fromMessage);
  return out;
}

/** An emit that rewrites, in place, the text blocks of result content before passing the event on. */
function rewritingEmit(rewrite) {
  return (emit) => (event) => {
    for (const content of resultContents(event)) {
      for (const block of content) {
        if (block?.type === 'text' && typeof block.text === 'string') {
          const text = rewrite(block.text);
          if (text !== block.text) block.text = text;
        }
      }
    }
    return emit(event);
  };
}

const isResultMessageEvent = (e) =>
  (e?.type === 'message_start' || e?.type === 'message_update' || e?.type === 'message_end') &&
  e.message?.role === 'toolResult';

function withoutTerminate(v) {
  if (v === null || typeof v !== 'object' || !Object.hasOwn(v, 'terminate')) return v;
  const { terminate, ...rest } = v;
  return rest;
}

function terminateTruthy(v) {
  if (v === null || typeof v !== 'object' || !v.terminate || v.terminate === true) return v;
  return { ...v, terminate: true };
}

function copyOf(v) {
  try {
    return structuredClone(v);
  } catch {
    return v;
  }
}

/** A stream whose `push` is rewritten by `map(event)` (the harness pushes on a later microtask). */
function pushRewritten(stream, map) {
  if (!stream || typeof stream.push !== 'function') return stream;
  const push = stream.push;
  stream.push = function pushMutated(event) {
    return push.call(this, map(event));
  };
  return stream;
}

/** pi-coding-agent's key: `realpath(path.resolve(p))`, the resolved path on ENOENT/ENOTDIR. */
async function codingAgentKey(filePath) {
  const resolved = path.resolve(filePath);
  try {
    return await realpath(resolved);
  } catch (error) {
    if (error?.code === 'ENOENT' || error?.code === 'ENOTDIR') return resolved;
    throw error;
  }
}

/**
 * A per-file queue shaped like pi-coding-agent's `withFileMutationQueue`
 * (keys computed one registration at a time, one holder per key, the key
 * dropped when its last operation ends), broken on purpose: `keyOf(path)`
 * makes the key, and with `lifo` the most recent waiter goes next.
 */
export function brokenQueue({ keyOf = codingAgentKey, lifo = false } = {}) {
  const lines = new Map(); // key → waiters (resume functions); present while the key is held
  let registration = Promise.resolve();
  const handOn = (key) => {
    const waiting = lines.get(key);
    const next = lifo ? waiting.pop() : waiting.shift();
    // one job later, as pi's chained promise hands on: the ended
    // operation's caller hears of it before the next one starts
    if (next) queueMicrotask(next);
    else lines.delete(key);
  };
  return async function withFileMutationQueue(filePath, fn) {
    const keyed = registration.then(() => keyOf(filePath));
    registration = keyed.then(
      () => undefined,
      () => undefined,
    );
    const key = await keyed;
    if (lines.has(key)) await new Promise((resume) => lines.get(key).push(resume));
    else lines.set(key, []);
    try {
      return await fn();
    } finally {
      handOn(key);
    }
  };
}

const never = () => new Promise(() => {});

/**
 * Implementations by id. Each may have:
 *   tools(tools, state) → the tools pi gets;  config(config, state) → the config (a copy; may be changed);
 *   emit(emit, state) → the sink pi gets;     streamFn(streamFn, state) → the model pi gets;
 *   outcome(promise, state) → what runAgentLoop returns;
 *   fileQueue(withFileMutationQueue) → the coding-agent queue observeFileQueue drives.
 * `state` is per run: `{ tools }` (the tools pi got) plus whatever a mutant keeps.
 */
const IMPLEMENTATIONS = {
  'unknown-tool-quoted-name': {
    emit: rewritingEmit((t) => t.replace(/^Tool ([^"\s]\S*) not found$/, 'Tool "$1" not found')),
  },

  'duplicate-names-last-wins': {
    tools(tools) {
      const out = [...tools];
      const positions = new Map();
      tools.forEach((t, i) => {
        const list = positions.get(t?.name) ?? [];
        list.push(i);
        positions.set(t?.name, list);
      });
      for (const list of positions.values()) {
        if (list.length < 2) continue;
        const reversed = list.map((i) => tools[i]).reverse();
        list.forEach((i, k) => (out[i] = reversed[k]));
      }
      return out;
    },
  },

  'prepare-called-twice': {
    tools: wrapToolFn('prepareArguments', (prepare) =>
      function prepareTwice(...args) {
        prepare.apply(this, args);
        return prepare.apply(this, args);
      },
    ),
  },

  'hooks-see-prepared-arguments': {
    config(config, state) {
      const wrap = (hook) => (ctx, ...rest) =>
        hook(ctx?.toolCall ? { ...ctx, toolCall: { ...ctx.toolCall, arguments: ctx.args } } : ctx, ...rest);
      wrapHook(config, 'beforeToolCall', wrap, state);
      return wrapHook(config, 'afterToolCall', wrap, state);
    },
  },

  'validation-writes-transcript': {
    emit: (emit, state) => (event) => {
      if (event?.type === 'message_end' && event.message?.role === 'assistant' && Array.isArray(event.message.content)) {
        for (const b of event.message.content) if (b?.type === 'toolCall') state.transcript.set(b.id, b.arguments);
      }
      return emit(event);
    },
    tools: wrapToolFn('execute', (execute, tool, state) =>
      function executeOnTranscript(toolCallId, params, ...rest) {
        const raw = state.transcript.get(toolCallId);
        if (raw && typeof raw === 'object' && params && typeof params === 'object' && raw !== params) {
          for (const k of Object.keys(raw)) if (!Object.hasOwn(params, k)) delete raw[k];
          Object.assign(raw, params);
          return execute.call(this, toolCallId, raw, ...rest);
        }
        return execute.call(this, toolCallId, params, ...rest);
      },
    ),
  },

  'validation-text-without-received': {
    emit: rewritingEmit((t) => t.replace(/^(Validation failed for tool [\s\S]*?)\n\nReceived arguments:\n[\s\S]*$/, '$1')),
  },

  'before-block-still-executes': {
    config: (config, state) =>
      wrapHook(config, 'beforeToolCall', (hook) => (ctx, signal, ...rest) => {
        const runAnyway = async (decision) => {
          const tool = state.tools.find((t) => t?.name === ctx?.toolCall?.name);
          if (typeof tool?.execute === 'function') {
            try {
              await tool.execute(ctx.toolCall.id, ctx.args, signal, () => {});
            } catch {
              // the block's result stands
            }
          }
          return decision;
        };
        return after(hook(ctx, signal, ...rest), (d) => (d && d.block ? runAnyway(d) : d));
      }, state),
  },

  'before-throw-allows-call': {
    config: (config, state) =>
      wrapHook(config, 'beforeToolCall', (hook) => function (...args) {
        return guard(hook, this, args, identity, () => undefined);
      }, state),
  },

  'before-args-copied': {
    config: (config, state) =>
      wrapHook(config, 'beforeToolCall', (hook) => (ctx, ...rest) =>
        hook(ctx && typeof ctx === 'object' ? { ...ctx, args: copyOf(ctx.args) } : ctx, ...rest), state),
  },

  'before-skipped-when-aborted': {
    config: (config, state) =>
      wrapHook(config, 'beforeToolCall', (hook) => (ctx, signal, ...rest) =>
        signal?.aborted ? undefined : hook(ctx, signal, ...rest), state),
  },

  'after-patch-merges-content': {
    config: (config, state) =>
      wrapHook(config, 'afterToolCall', (hook) => function (ctx, ...rest) {
        const merge = (patch) =>
          patch && Array.isArray(patch.content)
            ? { ...patch, content: [...(Array.isArray(ctx?.result?.content) ? ctx.result.content : []), ...patch.content] }
            : patch;
        return guard(hook, this, [ctx, ...rest], merge, rethrow);
      }, state),
  },

  'after-throw-ignored': {
    config: (config, state) =>
      wrapHook(config, 'afterToolCall', (hook) => function (...args) {
        return guard(hook, this, args, identity, () => undefined);
      }, state),
  },

  'sequential-vote-ignored': {
    tools: (tools) =>
      tools.map((t) => {
        if (!t || !Object.hasOwn(t, 'executionMode')) return t;
        const { executionMode, ...rest } = t;
        return rest;
      }),
  },

  'updates-dropped': {
    emit: (emit) => (event) => (event?.type === 'tool_execution_update' ? undefined : emit(event)),
  },

  'end-event-duplicated': {
    emit: (emit) => (event) =>
      event?.type === 'tool_execution_end' ? after(emit(event), () => emit(event)) : emit(event),
  },

  'ends-swapped': {
    emit: (emit) => {
      let held = null;
      return (event) => {
        if (event?.type === 'tool_execution_end' && held === null) {
          held = event;
          return undefined;
        }
        if (held !== null) {
          const h = held;
          held = null;
          if (event?.type === 'tool_execution_end') return after(emit(event), () => emit(h));
          return after(emit(h), () => emit(event));
        }
        return emit(event);
      };
    },
  },

  'results-in-completion-order': {
    emit: (emit) => {
      let ends = [];
      let buffer = [];
      const flush = () => {
        const groups = [];
        for (const e of buffer) {
          const id = e.message.toolCallId;
          let g = groups.find((x) => x.id === id);
          if (!g) groups.push((g = { id, events: [] }));
          g.events.push(e);
        }
        buffer = [];
        const rank = (id) => (ends.includes(id) ? ends.indexOf(id) : Infinity);
        groups.sort((a, b) => rank(a.id) - rank(b.id));
        let chain;
        for (const e of groups.flatMap((g) => g.events)) chain = chain === undefined ? emit(e) : after(chain, () => emit(e));
        return chain;
      };
      return (event) => {
        if (event?.type === 'tool_execution_end') ends.push(event.toolCallId);
        if (isResultMessageEvent(event)) {
          buffer.push(event);
          return undefined;
        }
        const flushed = buffer.length > 0 ? flush() : undefined;
        if (event?.type === 'turn_end') ends = [];
        return after(flushed, () => emit(event));
      };
    },
  },

  'execute-throw-is-success': {
    tools: wrapToolFn('execute', (execute) =>
      function executeNeverFails(...args) {
        const asSuccess = (error) => ({
          content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
          details: {},
        });
        return guard(execute, this, args, identity, asSuccess);
      },
    ),
  },

  'result-undefined-keys-dropped': {
    emit: (emit) => (event) => {
      if (isResultMessageEvent(event)) {
        for (const k of ['details', 'usage']) {
          if (Object.hasOwn(event.message, k) && event.message[k] === undefined) delete event.message[k];
        }
      }
      return emit(event);
    },
  },

  'loop-rejection-resolves': {
    outcome: (run) => run.then(identity, () => []),
  },

  'terminate-vote-ignored': {
    tools: wrapToolFn('execute', (execute) =>
      function executeNoVote(...args) {
        return guard(execute, this, args, withoutTerminate, rethrow);
      },
    ),
    config(config, state) {
      const strip = (hook) => function (...args) {
        return guard(hook, this, args, withoutTerminate, rethrow);
      };
      wrapHook(config, 'beforeToolCall', strip, state);
      return wrapHook(config, 'afterToolCall', strip, state);
    },
  },

  'terminate-truthy': {
    tools: wrapToolFn('execute', (execute) =>
      function executeTruthyVote(...args) {
        return guard(execute, this, args, terminateTruthy, rethrow);
      },
    ),
    config: (config, state) =>
      wrapHook(config, 'afterToolCall', (hook) => function (...args) {
        return guard(hook, this, args, terminateTruthy, rethrow);
      }, state),
  },

  'length-stop-executes': {
    streamFn: (streamFn) => (...args) =>
      pushRewritten(streamFn(...args), (event) => {
        if (event?.type === 'done' && event.message?.stopReason === 'length') {
          event.message.stopReason = 'toolUse';
          return { ...event, reason: 'toolUse' };
        }
        return event;
      }),
  },

  'error-stop-executes': {
    streamFn: (streamFn) => (...args) =>
      pushRewritten(streamFn(...args), (event) => {
        if (event?.type === 'error' && event.error?.stopReason === 'error') {
          event.error.stopReason = 'toolUse';
          return { type: 'done', reason: 'toolUse', message: event.error };
        }
        return event;
      }),
  },

  'abort-text-changed': {
    emit: rewritingEmit((t) => (t === 'Operation aborted' ? 'Operation cancelled' : t)),
  },

  'execute-gets-own-signal': {
    tools: wrapToolFn('execute', (execute) =>
      function executeOwnSignal(toolCallId, params, signal, ...rest) {
        return execute.call(this, toolCallId, params, new AbortController().signal, ...rest);
      },
    ),
  },

  'queue-key-without-realpath': {
    // keyed by path.resolve only: a symlink, a symlinked directory or a
    // removed-and-missing file no longer meet their target's key
    fileQueue: () => brokenQueue({ keyOf: (filePath) => path.resolve(filePath) }),
  },

  'queue-lifo': {
    fileQueue: () => brokenQueue({ lifo: true }),
  },

  'queue-missing-file-rejects': {
    // the key is realpath's answer or nothing: no fallback to the resolved path
    fileQueue: () => brokenQueue({ keyOf: (filePath) => realpath(path.resolve(filePath)) }),
  },

  'queue-reject-keeps-lock': {
    // a throwing operation's error reaches its caller, but pi's queue is
    // never told the operation ended: the key stays held
    fileQueue: (queue) =>
      function withFileMutationQueue(filePath, fn) {
        return new Promise((resolve, reject) => {
          queue(filePath, () => {
            let result;
            try {
              result = fn();
            } catch (error) {
              reject(error);
              return never();
            }
            return Promise.resolve(result).then(
              (value) => {
                resolve(value);
                return value;
              },
              (error) => {
                reject(error);
                return never();
              },
            );
          }).catch(reject);
        });
      },
  },

  'provider-signal-dropped': {
    streamFn: (streamFn) => (model, context, options, ...rest) =>
      streamFn(model, context, options && typeof options === 'object' ? { ...options, signal: undefined } : options, ...rest),
  },
};

/**
 * The drifts of drift-mutants.json by id: what a later release might change
 * without meaning to break pi's pipeline, as wrappers like the mutants'
 * (plus `prompts(prompts, state)` → the prompts pi gets).
 */
const DRIFT_IMPLEMENTATIONS = {
  'leading-system-message': {
    // a system message listing the tools, before the user message: pi emits
    // its events, keeps it in the transcript and sends it to the model
    prompts: (prompts, state) =>
      state.tools.length === 0
        ? prompts
        : [{ role: 'system', toolsAdded: state.tools.map((t) => t?.name), timestamp: Date.now() }, ...prompts],
  },

  'validation-line-bullet': {
    emit: rewritingEmit((t) =>
      t.startsWith('Validation failed for tool ')
        ? t.replace(/^([\s\S]*?)(\n\nReceived arguments:\n[\s\S]*)$/, (_, head, rest) => head.replace(/\n  - /g, '\n  * ') + rest)
        : t,
    ),
  },

  'result-duration-field': {
    // on the message itself (the events, turn_end, agent_end and the
    // resolved messages share it), between isError and timestamp
    emit: (emit) => (event) => {
      const m = event?.type === 'message_start' ? event.message : undefined;
      if (m?.role === 'toolResult' && !Object.hasOwn(m, 'durationMs')) {
        const timestamp = m.timestamp;
        delete m.timestamp;
        m.durationMs = 0;
        m.timestamp = timestamp;
      }
      return emit(event);
    },
  },

  'result-message-update': {
    // emitted synchronously after the message_start: no extra job turn
    emit: (emit) => (event) => {
      if (!isResultMessageEvent(event) || event.type !== 'message_start') return emit(event);
      return after(emit(event), () => emit({ type: 'message_update', message: event.message }));
    },
  },

  'unknown-tool-reworded': {
    emit: rewritingEmit((t) => t.replace(/^Tool ([^"\s]\S*|) not found$/, 'Unknown tool: $1')),
  },

  'model-tools-sorted': {
    streamFn: (streamFn) => (model, context, ...rest) =>
      streamFn(
        model,
        Array.isArray(context?.tools)
          ? { ...context, tools: [...context.tools].sort((x, y) => String(x?.name).localeCompare(String(y?.name))) }
          : context,
        ...rest,
      ),
  },
};

/** The ids this module implements (the test checks they are mutants.json's). */
export const IMPLEMENTED = Object.keys(IMPLEMENTATIONS);

/** The drift ids this module implements (drift-mutants.json's). */
export const DRIFTED = Object.keys(DRIFT_IMPLEMENTATIONS);

/**
 * `pi` (load.mjs `loadPi`) with mutant (or drift) `id` applied: a copy whose
 * `runAgentLoop` hands pi the mutated tools, config, sink and model, and
 * whose `fileQueues.codingAgent` is the mutated queue.
 * `implementation` (tests only) replaces the registered one.
 */
export function applyMutant(pi, id, implementation = IMPLEMENTATIONS[id] ?? DRIFT_IMPLEMENTATIONS[id]) {
  if (!implementation) {
    throw new Error(`unknown mutant ${JSON.stringify(id)} (known: ${[...IMPLEMENTED, ...DRIFTED].join(', ')})`);
  }
  const m = implementation;
  const fileQueues =
    m.fileQueue && typeof pi.fileQueues?.codingAgent === 'function'
      ? { ...pi.fileQueues, codingAgent: m.fileQueue(pi.fileQueues.codingAgent) }
      : pi.fileQueues;
  return {
    ...pi,
    mutant: id,
    fileQueues,
    runAgentLoop(prompts, context, config, emit, signal, streamFn) {
      const state = { transcript: new Map() };
      let ctx = context;
      if (m.tools) ctx = { ...context, tools: m.tools(context?.tools ?? [], state) };
      state.tools = ctx?.tools ?? [];
      const asked = m.prompts ? m.prompts(prompts, state) : prompts;
      const cfg = m.config ? m.config({ ...config }, state) : config;
      const sink = m.emit ? m.emit(emit, state) : emit;
      const model = m.streamFn ? m.streamFn(streamFn, state) : streamFn;
      const run = pi.runAgentLoop(asked, ctx, cfg, sink, signal, model);
      return m.outcome ? m.outcome(Promise.resolve(run), state) : run;
    },
  };
}
