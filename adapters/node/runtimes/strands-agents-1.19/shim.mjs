// toolgate runtime shim: the Strands Agents SDK for TypeScript
// (`@strands-agents/sdk` 1.19.0).
//
// Execution path: `new Agent({ model, tools, printer: false })` and
// `agent.invoke("Run the tools.", { cancelSignal })`, strands' own agent loop,
// where `model` is a scripted subclass of the SDK's `Model` (its one abstract
// streaming method, `stream(messages, options)`). The first `stream` answers
// every call of the turn as `toolUse` content blocks (arguments as JSON text,
// `toolUseId` the case's id) with stop reason `toolUse`; strands parses them,
// runs the tools through its tool executor and calls the model again; the
// second `stream` records the `messages` it was given (the `toolResult`
// blocks there are what is "delivered") and ends the run with a text. See
// README.md for every choice.
//
// The shim validates, catches, serializes and bounds nothing of the
// runtime's: the JSON Schema is the tool's `inputSchema` as strands takes it,
// `check` a BeforeToolCallEvent hook that cancels the call, the executor the
// tool's callback, its value the callback's value, untouched.

import { Agent, BeforeToolCallEvent, Model, ToolStreamUpdateEvent, configureLogging, tool } from '@strands-agents/sdk';
import { argumentsText } from '../../boundary/arguments-text.mjs';

export const runtime = {
  id: 'strands-agents-1.19',
  package: '@strands-agents/sdk',
  version: '1.19.0',
  path: 'Agent.invoke(prompt, { cancelSignal }) with a scripted Model (stream)',
};

// Strands can express every feature of the suite: an array of tools whose
// registry refuses repeated names, an error result for an unknown name, a
// cancellation signal, a pre-execution hook, streaming tools, parallel calls.
export const notApplicable = {};

// strands logs through one module-level logger (`configureLogging`), by
// default `console.warn` / `console.error`. Each turn's warnings and errors
// are kept as its notes instead.
let turnNotes = [];
const keep = (level) => (...args) => {
  turnNotes.push(`${level}: ${args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ')}`.slice(0, 500));
};
configureLogging({ debug: () => {}, info: () => {}, warn: keep('warn'), error: keep('error') });

/**
 * The scripted model: a subclass of strands' `Model` implementing its
 * abstract `stream`. Like a real provider, whose request rejects on an
 * aborted signal, the second request throws when `options.cancelSignal` is
 * aborted; the first answers the case's turn whatever the signal (the abort
 * is the tool phase's to honour).
 */
class ScriptedTurnModel extends Model {
  constructor(calls) {
    super();
    this.calls = calls;
    this.requests = [];
    this.config = { modelId: 'toolgate-scripted' };
  }

  getConfig() {
    return this.config;
  }

  updateConfig(config) {
    this.config = { ...this.config, ...config };
  }

  async *stream(messages, options) {
    this.requests.push({ messages, options });
    if (this.requests.length === 1) {
      yield { type: 'modelMessageStartEvent', role: 'assistant' };
      for (const call of this.calls) {
        yield { type: 'modelContentBlockStartEvent', start: { type: 'toolUseStart', name: call.name, toolUseId: call.id } };
        yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'toolUseInputDelta', input: argumentsText(call.arguments) } };
        yield { type: 'modelContentBlockStopEvent' };
      }
      yield { type: 'modelMessageStopEvent', stopReason: 'toolUse' };
      return;
    }
    options?.cancelSignal?.throwIfAborted();
    yield { type: 'modelMessageStartEvent', role: 'assistant' };
    yield { type: 'modelContentBlockStartEvent' };
    yield { type: 'modelContentBlockDeltaEvent', delta: { type: 'textDelta', text: 'done' } };
    yield { type: 'modelContentBlockStopEvent' };
    yield { type: 'modelMessageStopEvent', stopReason: 'endTurn' };
  }
}

/**
 * A tool body as a strands callback (`FunctionTool.stream` calls it at
 * function-tool.js:107, inside its try). The body runs at once, as a plain
 * callback would: a synchronous throw leaves the callback for strands'
 * catch (function-tool.js:134), and a value returned synchronously without
 * progress is returned as is (strands' synchronous branch, :129-132).
 * Otherwise (a promise, or progress reported) the callback returns an async
 * generator, strands' streaming form (:109-123) and its only progress
 * channel: it yields each progress value as it is reported (strands wraps
 * it in a ToolStreamEvent) and returns the body's value, or throws the
 * body's own rejection, which strands catches as it would a rejected
 * promise (:124-128, :134).
 */
function toolCallback(execute) {
  return function toolgateTool(input, context) {
    const reported = [];
    let wake = () => {};
    const value = execute(input, {
      signal: context?.cancelSignal,
      callId: context?.toolUse?.toolUseId,
      progress: (item) => {
        reported.push(item);
        wake();
      },
    });
    if (!(value instanceof Promise) && reported.length === 0) return value;
    return (async function* progressThenValue() {
      if (value instanceof Promise) {
        let settled = false;
        const settle = () => {
          settled = true;
        };
        value.then(settle, settle);
        while (!settled) {
          while (reported.length > 0) yield reported.shift();
          const woken = new Promise((resolve) => {
            wake = resolve;
          });
          // rejects with the body's own reason when the body rejects
          await Promise.race([value, woken]);
        }
      }
      while (reported.length > 0) yield reported.shift();
      return value instanceof Promise ? await value : value;
    })();
  };
}

/** strands' FunctionTools (the public `tool()` factory with a JSON Schema). */
function toStrandsTools(tools) {
  const checks = new Map();
  const strandsTools = tools.map(({ name, description, inputSchema, check, execute }) => {
    const made = tool({
      name,
      // strands' registry refuses an empty description (tool-registry.js:125-127);
      // a tool without one is a tool whose description is omitted
      ...(description ? { description } : {}),
      inputSchema,
      callback: toolCallback(execute),
    });
    if (typeof check === 'function') checks.set(made, check);
    return made;
  });
  return { strandsTools, checks };
}

const toolResultsOf = (message) =>
  (message?.content ?? [])
    .filter((block) => block?.type === 'toolResultBlock')
    .map((block) => ({
      callId: typeof block.toolUseId === 'string' ? block.toolUseId : null,
      isError: block.status === 'error' ? true : block.status === 'success' ? false : null,
      delivered: block.toJSON(),
    }));

/** The tool-result message that follows the last assistant message carrying tool uses. */
function resultMessageIn(messages) {
  const at = messages.findLastIndex(
    (m) => m?.role === 'assistant' && m.content?.some((block) => block?.type === 'toolUseBlock'),
  );
  if (at < 0) return undefined;
  return messages.slice(at + 1).find((m) => m?.role === 'user' && m.content?.some((b) => b?.type === 'toolResultBlock'));
}

export async function runTurn({ tools, calls, signal }) {
  const notes = [];
  turnNotes = notes;
  let agent;
  let model;
  let progressEvents = 0;
  try {
    const { strandsTools, checks } = toStrandsTools(tools);
    model = new ScriptedTurnModel(calls);
    agent = new Agent({ name: 'toolgate', model, tools: strandsTools, printer: false });
    // `check`: strands' pre-execution hook. A callback that sets `cancel` to a
    // string keeps the tool from running; strands answers the call with an
    // error result holding that string (executor.js:59-77).
    agent.addHook(BeforeToolCallEvent, (event) => {
      const check = checks.get(event.tool);
      if (check === undefined) return;
      const problem = check(event.toolUse.input);
      if (problem !== null && problem !== undefined) event.cancel = problem;
    });
    // progress reaches strands' stream as ToolStreamUpdateEvents (never the model): counted in the notes
    agent.addHook(ToolStreamUpdateEvent, () => {
      progressEvents += 1;
    });
  } catch (error) {
    // The registry refused the tools (a repeated name, a name outside
    // [a-zA-Z0-9_-]{1,64}): the turn is not run.
    return { results: [], registrationError: { name: error?.name ?? 'Error', message: String(error?.message ?? error) }, notes };
  }

  const result = await agent.invoke('Run the tools.', { cancelSignal: signal });
  notes.push(`model requests: ${model.requests.length}; stopReason: ${result.stopReason}`);
  if (progressEvents > 0) notes.push(`tool progress events: ${progressEvents}`);
  if (model.requests.length >= 2) {
    return { results: toolResultsOf(resultMessageIn(model.requests[1].messages)), notes };
  }
  // No second model request (the run was cancelled): the tool-result message
  // strands appended to the agent's history, which the next request would carry.
  const message = resultMessageIn(agent.messages);
  if (message !== undefined) notes.push('no second model request: results read from agent.messages');
  return { results: toolResultsOf(message), notes };
}
