// toolgate runtime shim: toolgate-wall, a small agent-turn executor written
// for this suite, which keeps the whole boundary wall (seed 001: unknown
// tool -> error result; validate before run; a throw becomes an error
// result; the loop survives). It is the suite's positive control: the
// runtime under test is this file itself, and `mutants.json` lists the
// deliberate breaks of it the suite must see. See README.md.
//
// One turn: register the tools (duplicate names refused), then run every
// call of the turn at once. Each call is answered by exactly one
// tool_result part, in call order:
//
//   unknown tool            -> error result, nothing runs
//   oversized arguments     -> error result, before the validator sees them
//   schema or check refuses -> error result, the body never runs
//   aborted before it starts-> error result, the body never runs
//   body returns / resolves -> success result, the output as bounded text
//   body throws / rejects   -> error result with a readable message
//   deadline passes         -> error result "timed out", the body's signal aborts
//   the turn's signal aborts-> error result "aborted" at once (results of
//                              calls already answered are kept)

import Ajv2020Module from 'ajv/dist/2020.js';

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

// The runtime under test is this executor itself (package.json's name and
// version); its one dependency is ajv 8.20.0, the argument validator.
export const runtime = {
  id: 'toolgate-wall',
  package: 'toolgate-runtime-toolgate-wall',
  version: '1.0.0',
  path: 'its own runTurn (tools validated by ajv 8.20.0, draft 2020-12, before they run)',
};

// The executor expresses every feature of the suite.
export const notApplicable = {};

/** The wall's bounds. `runTurn({ ..., limits })` may override any of them. */
export const LIMITS = Object.freeze({
  /** UTF-8 bytes of one tool_result part as JSON text (what the model receives). */
  resultBytes: 65_536,
  /** Nesting levels of the arguments (the root object is level 0). */
  argumentDepth: 64,
  /** Values in the arguments: the root, every property and every item. */
  argumentNodes: 100_000,
  /** UTF-16 code units (string lengths) of the arguments' strings and keys. */
  argumentChars: 1_048_576,
  /** Nesting levels of an output rendered as JSON text. */
  outputDepth: 64,
  /** Objects and arrays of an output rendered as JSON text. */
  outputNodes: 10_000,
  /** How long a tool body may run before its call is answered "timed out". */
  deadlineMs: 1_000,
  /** Progress notes kept per turn, and the length of each. */
  progressNotes: 100,
  noteChars: 512,
});

/** A registration the executor refuses. */
export class RegistrationError extends Error {
  constructor(name, message) {
    super(message);
    this.name = name;
  }
}

// One validator for the process: the first compile on an Ajv instance
// compiles the draft 2020-12 meta-schema (about 100 ms), later ones a few
// ms. Draft 2020-12, no coercion, no defaults, nothing removed: ajv only
// says yes or no, it never changes the arguments the tool receives.
const ajv = new Ajv2020({
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  allErrors: false,
  validateFormats: false,
  addUsedSchema: false,
  logger: false,
});
const VALIDATORS_KEPT = 512;
const validators = new Map();

/** The compiled validator of `schema`, cached by its JSON text. */
function validatorFor(schema) {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    ajv.removeSchema(schema);
    if (validators.size >= VALIDATORS_KEPT) validators.delete(validators.keys().next().value);
    validators.set(key, validate);
  }
  return validate;
}

/**
 * The tool table of one turn: name -> { tool, validate, index }. Throws a
 * RegistrationError for a tool without a string name or an execute
 * function, a schema ajv cannot compile, or a name registered twice.
 */
export function registerTools(tools) {
  const registry = new Map();
  for (const [index, tool] of tools.entries()) {
    if (typeof tool?.name !== 'string' || tool.name === '') {
      throw new RegistrationError('InvalidToolError', `tool ${index} has no name`);
    }
    if (typeof tool.execute !== 'function') {
      throw new RegistrationError('InvalidToolError', `tool ${quote(tool.name)} has no execute function`);
    }
    if (registry.has(tool.name)) {
      throw new RegistrationError(
        'DuplicateToolNameError',
        `two tools are named ${quote(tool.name)} (tools ${registry.get(tool.name).index} and ${index}): the model could not tell which one it calls`,
      );
    }
    let validate;
    try {
      validate = validatorFor(tool.inputSchema ?? {});
    } catch (error) {
      throw new RegistrationError('InvalidToolSchemaError', `the input schema of tool ${quote(tool.name)} does not compile: ${messageOf(error)}`);
    }
    registry.set(tool.name, { tool, validate, index });
  }
  return registry;
}

/**
 * What is wrong with `args` in size or shape before a validator walks them,
 * or null. Iterative, and it stops at the first bound crossed: a 10^5-deep
 * value costs 64 levels, a 10 MB string one comparison.
 */
export function argumentsProblem(args, limits = LIMITS) {
  try {
    let nodes = 1;
    let chars = 0;
    const stack = [[args, 0]];
    while (stack.length > 0) {
      const [value, depth] = stack.pop();
      if (typeof value === 'string') {
        chars += value.length;
        if (chars > limits.argumentChars) return `the arguments hold more than ${limits.argumentChars} characters`;
        continue;
      }
      if (value === null || typeof value !== 'object') continue;
      if (depth >= limits.argumentDepth) return `the arguments are nested deeper than ${limits.argumentDepth} levels`;
      const isArray = Array.isArray(value);
      const keys = isArray ? null : Object.keys(value);
      const count = isArray ? value.length : keys.length;
      if (nodes + count > limits.argumentNodes) return `the arguments hold more than ${limits.argumentNodes} values`;
      for (let i = 0; i < count; i += 1) {
        nodes += 1;
        if (isArray) {
          stack.push([value[i], depth + 1]);
        } else {
          chars += keys[i].length;
          stack.push([value[keys[i]], depth + 1]);
        }
      }
      if (chars > limits.argumentChars) return `the arguments hold more than ${limits.argumentChars} characters`;
    }
    return null;
  } catch (error) {
    return `the arguments could not be read: ${messageOf(error)}`;
  }
}

/** What the tool's schema or its extra check says against `args`, or null. */
function refusal(entry, args) {
  let valid;
  try {
    valid = entry.validate(args);
  } catch (error) {
    return `the arguments could not be validated: ${messageOf(error)}`;
  }
  if (!valid) return schemaErrors(entry.validate.errors);
  if (entry.tool.check === undefined || entry.tool.check === null) return null;
  let message;
  try {
    message = entry.tool.check(args);
  } catch (error) {
    return `the tool's check failed: ${describeThrown(error)}`;
  }
  if (message === null || message === undefined) return null;
  return safeString(message) || 'the tool refused the arguments';
}

function schemaErrors(errors) {
  const described = (errors ?? []).slice(0, 8).map((e) => {
    const where = e.instancePath === '' ? 'the arguments' : `arguments${e.instancePath}`;
    const extra = e.keyword === 'additionalProperties' ? ` (${quote(e.params?.additionalProperty)})` : '';
    const allowed = e.keyword === 'enum' ? `: ${renderJson(e.params?.allowedValues, SMALL).text}` : '';
    return `${where} ${e.message}${extra}${allowed}`;
  });
  return described.length > 0 ? described.join('; ') : 'the arguments do not match the schema';
}

/**
 * Runs one tool body: resolves (never rejects) with what happened to it,
 * whichever comes first of its outcome, its deadline and the turn's abort.
 * A body that loses the race is never waited for; its late outcome is
 * still handled (no unhandled rejection is left behind).
 */
function runBody(entry, args, { callId, signal, stops, limits, onProgress }) {
  return new Promise((resolve) => {
    const controller = new AbortController();
    let done = false;
    let timer;
    const finish = (outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stops.delete(onAbort);
      resolve(outcome);
    };
    const onAbort = () => {
      finish({ kind: 'aborted' });
      controller.abort(signal.reason);
    };
    if (signal?.aborted) return finish({ kind: 'notStarted' });
    stops.add(onAbort);
    if (Number.isFinite(limits.deadlineMs)) {
      timer = setTimeout(() => {
        finish({ kind: 'timedOut' });
        controller.abort(new DOMException(`the tool did not settle within ${limits.deadlineMs} ms`, 'TimeoutError'));
      }, limits.deadlineMs);
    }
    const progress = (value) => {
      if (!done) onProgress(value);
    };
    let returned;
    try {
      returned = entry.tool.execute(args, { signal: controller.signal, callId, progress });
    } catch (error) {
      return finish({ kind: 'threw', error });
    }
    const body = Promise.resolve(returned);
    body.then((value) => finish({ kind: 'value', value }), (error) => finish({ kind: 'threw', error }));
  });
}

/** One call of the turn, answered by exactly one result. Never rejects. */
async function runCall(call, turn) {
  const { registry, signal, stops, limits } = turn;
  const callId = call.id;
  const entry = registry.get(call.name);
  if (entry === undefined) {
    return failure(callId, `unknown tool ${quote(call.name)}; the tools are: ${[...registry.keys()].map(quote).join(', ') || '(none)'}`, limits);
  }
  const args = call.arguments;
  const oversized = argumentsProblem(args, limits);
  if (oversized !== null) return failure(callId, `invalid arguments for ${quote(call.name)}: ${oversized}`, limits);
  const refused = refusal(entry, args);
  if (refused !== null) return failure(callId, `invalid arguments for ${quote(call.name)}: ${refused}`, limits);
  const onProgress = (value) => {
    if (turn.notes.length >= limits.progressNotes) return;
    turn.notes.push(cut(`progress for ${callId}: ${renderJson(value, SMALL).text ?? 'undefined'}`, limits.noteChars));
  };
  const outcome = await runBody(entry, args, { callId, signal, stops, limits, onProgress });
  switch (outcome.kind) {
    case 'value':
      return success(callId, outcome.value, limits);
    case 'threw':
      return failure(callId, `tool error: ${describeThrown(outcome.error)}`, limits);
    case 'timedOut':
      return failure(callId, `timed out: the tool did not settle within ${limits.deadlineMs} ms`, limits);
    case 'aborted':
      return failure(callId, 'aborted: the turn was aborted while the tool ran', limits);
    default:
      return failure(callId, 'aborted: the turn was aborted before the tool started', limits);
  }
}

/**
 * Runs one model turn (SHIM.md): registers `tools`, runs every call of
 * `calls` at once, and resolves with one tool_result part per call, in call
 * order. Never rejects for a failure of a call or of a tool.
 */
export async function runTurn({ tools, calls, signal, limits: overrides }) {
  const limits = { ...LIMITS, ...overrides };
  const notes = [];
  let registry;
  try {
    registry = registerTools(tools);
  } catch (error) {
    if (!(error instanceof RegistrationError)) throw error;
    return { results: [], registrationError: { name: error.name, message: error.message }, notes };
  }
  // One listener on the turn's signal; it stops every call still running.
  const stops = new Set();
  const onAbort = () => {
    for (const stop of [...stops]) stop();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const turn = { registry, signal, stops, limits, notes };
  let results;
  try {
    results = await Promise.all(calls.map((call) => runCall(call, turn)));
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  return { results, registrationError: undefined, notes };
}

// ---------------------------------------------------------------------------
// Results

function success(callId, value, limits) {
  return toolResult(callId, renderOutput(value, limits), false, limits);
}

function failure(callId, message, limits) {
  return toolResult(callId, { text: message, cut: false }, true, limits);
}

/** The tool_result part the model receives, bounded to limits.resultBytes. */
function toolResult(callId, { text, cut: wasCut }, isError, limits) {
  const part = { type: 'tool_result', tool_use_id: callId, content: '', is_error: isError };
  const budget = Math.max(0, limits.resultBytes - jsonBytes(part));
  part.content = fit(text, budget, wasCut);
  return { callId: part.tool_use_id, isError: part.is_error, delivered: part };
}

/** An output as the text the model reads: a string as itself, anything else as JSON text. */
function renderOutput(value, limits) {
  if (typeof value === 'string') return { text: value, cut: false };
  const rendered = renderJson(value, { depth: limits.outputDepth, nodes: limits.outputNodes, chars: limits.resultBytes });
  if (rendered.text === undefined) return { text: '(no output)', cut: false };
  return rendered;
}

const CUT_MARKER = (budget) => `\n[toolgate-wall: cut to fit ${budget} bytes]`;

/** `text` cut so that its JSON string encoding takes at most `budget` UTF-8 bytes. */
function fit(text, budget, alreadyCut) {
  if (!alreadyCut && text.length <= budget && escapedBytes(text) <= budget) return text;
  const marker = CUT_MARKER(budget);
  const keep = Math.max(0, budget - escapedBytes(marker));
  let head = text.length > keep ? text.slice(0, keep) : text;
  let over = escapedBytes(head) - keep;
  while (over > 0) {
    head = head.slice(0, Math.max(0, head.length - Math.ceil(over / 6)));
    over = escapedBytes(head) - keep;
  }
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  return head + marker;
}

function escapedBytes(text) {
  return Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;
}

function jsonBytes(value) {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

function cut(text, chars) {
  return text.length <= chars ? text : `${text.slice(0, chars)}…`;
}

// ---------------------------------------------------------------------------
// A bounded, non-recursive, cycle-safe JSON renderer

const SMALL = Object.freeze({ depth: 8, nodes: 64, chars: 1_024 });
const SKIP = Symbol('skip');

/**
 * `value` as JSON text, the way JSON.stringify writes it (toJSON called,
 * `undefined` properties left out, non-finite numbers as null), and total:
 * a cycle, a BigInt, a function, a symbol, a throwing getter or toJSON
 * becomes a marker string; nesting past `depth`, objects past `nodes` and
 * text past `chars` code units stop the rendering (`cut: true`). Returns
 * `{ text: undefined }` where JSON.stringify would return undefined.
 */
export function renderJson(value, { depth: maxDepth, nodes: maxNodes, chars: maxChars }) {
  const out = [];
  let size = 0;
  let nodes = 0;
  let full = false;
  const ancestors = new Set();
  const stack = [];
  const emit = (text) => {
    out.push(text);
    size += text.length;
    if (size > maxChars) full = true;
  };
  const open = (v, depth) => {
    switch (typeof v) {
      case 'string':
        emit(JSON.stringify(v.length > maxChars - size ? v.slice(0, Math.max(0, maxChars - size) + 1) : v));
        return;
      case 'number':
        emit(Number.isFinite(v) ? String(v) : 'null');
        return;
      case 'boolean':
        emit(v ? 'true' : 'false');
        return;
      default:
        break;
    }
    if (v === null) return emit('null');
    if (ancestors.has(v)) return emit('"[circular]"');
    if (depth >= maxDepth) return emit('"[nested too deep]"');
    nodes += 1;
    if (nodes > maxNodes) {
      emit('"[too many objects]"');
      full = true;
      return;
    }
    let isArray;
    let keys;
    let length;
    try {
      isArray = Array.isArray(v);
      keys = isArray ? null : Object.keys(v);
      length = isArray ? v.length : keys.length;
    } catch (error) {
      return emit(JSON.stringify(`[unreadable: ${messageOf(error)}]`));
    }
    ancestors.add(v);
    stack.push({ v, isArray, keys, length, index: 0, depth, wrote: false });
    emit(isArray ? '[' : '{');
  };

  const root = prepare(value, '');
  if (root === SKIP) return { text: undefined, cut: false };
  open(root, 0);
  while (stack.length > 0 && !full) {
    const frame = stack[stack.length - 1];
    if (frame.index >= frame.length) {
      stack.pop();
      ancestors.delete(frame.v);
      emit(frame.isArray ? ']' : '}');
      continue;
    }
    const i = frame.index;
    frame.index += 1;
    const key = frame.isArray ? String(i) : frame.keys[i];
    let item;
    try {
      item = prepare(frame.v[key], key);
    } catch (error) {
      item = `[unreadable: ${messageOf(error)}]`;
    }
    if (frame.isArray) {
      if (frame.wrote) emit(',');
      if (item === SKIP) item = null;
    } else {
      if (item === SKIP) continue;
      emit(`${frame.wrote ? ',' : ''}${JSON.stringify(key)}:`);
    }
    frame.wrote = true;
    open(item, frame.depth + 1);
  }
  return { text: out.join(''), cut: full };
}

/** What JSON.stringify would serialize for `v` under `key`, markers for the rest. */
function prepare(v, key) {
  if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
    let toJSON;
    try {
      toJSON = v.toJSON;
      if (typeof toJSON === 'function') v = toJSON.call(v, key);
    } catch (error) {
      return `[toJSON failed: ${messageOf(error)}]`;
    }
  }
  switch (typeof v) {
    case 'undefined':
      return SKIP;
    case 'bigint':
      return v.toString();
    case 'function':
      return `[function ${safeString(v.name) || '(anonymous)'}]`;
    case 'symbol':
      return `[symbol ${safeString(v.description)}]`;
    default:
      return v;
  }
}

// ---------------------------------------------------------------------------
// Messages

/** A thrown or rejected value as a message the model can read. Total. */
export function describeThrown(error) {
  try {
    if (error instanceof Error) {
      const name = safeString(error.name) || 'Error';
      const message = safeString(error.message);
      return message === '' ? `${name} (without a message)` : `${name}: ${message}`;
    }
    if (typeof error === 'string') return error === '' ? 'an empty string was thrown' : error;
    if (error === undefined) return 'undefined was thrown';
    return `a non-error value was thrown: ${renderJson(error, SMALL).text ?? String(error)}`;
  } catch {
    return 'an unreadable value was thrown';
  }
}

function messageOf(error) {
  try {
    if (error instanceof Error) return safeString(error.message) || safeString(error.name) || 'Error';
    return safeString(error);
  } catch {
    return 'unreadable';
  }
}

function safeString(value) {
  try {
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : String(value);
  } catch {
    return '';
  }
}

function quote(name) {
  return typeof name === 'string' ? JSON.stringify(name) : safeString(name);
}
