// The pipeline suite's Node harness: one scenario
// (corpus/schema/pipeline-scenario.schema.json) run on a real
// @earendil-works/pi-agent-core through its exported `runAgentLoop`, with a
// scripted fake `streamFn` built on pi-ai's `createAssistantMessageEventStream`
// (as the probes of the pipeline facts do), and what happened
// recorded as an observation (corpus/schema/pipeline-observation.schema.json).
// See FORMAT.md. Every ordering comes from latches and from pi's own awaited
// events; the one timer is the settle window that calls a run "pending".
// Besides tools, hooks and the model, a scenario may configure pi's queued
// messages (config.steering / config.followUp → getSteeringMessages /
// getFollowUpMessages) and 0.85's shouldStopAfterTurn (config.stopAfterTurn),
// each call recorded; triggers may make the event sink reject.
// `observeScenario` runs either kind of pipeline scenario: a file-queue one
// (`{"fileQueue": …}`, file-queue.mjs) or an agent-loop one.

import { typeboxOf } from './typebox.mjs';
import { encode, errorOf, masked, materialize } from './values.mjs';
import { latchSet, runScript } from './scripts.mjs';
import { MODEL, assistantMessage } from '../runtimes/pi-scripted-model.mjs';
import { fileQueueCapabilities, fileQueueNeeds, isFileQueueScenario, observeFileQueue } from './file-queue.mjs';

/** The optional features of pi's loop every install here runs (the pipeline suite's capability names). */
export const LOOP_CAPABILITIES = ['steering', 'followUp', 'stopAfterTurn'];

/** The capabilities `pi` (load.mjs `loadPi`) has: the loop's, then `fileQueue` and `harnessQueue` where it has those queues. */
export function capabilitiesOf(pi) {
  return [...LOOP_CAPABILITIES, ...fileQueueCapabilities(pi?.fileQueues)];
}

/**
 * The capabilities `scenario` needs that `pi` lacks (as the pipeline suite
 * derives them: a file-queue scenario needs `fileQueue`, and `harnessQueue`
 * when it names a `harness:` queue; every install runs the loop's).
 */
export function missingCapabilities(pi, scenario) {
  if (!isFileQueueScenario(scenario)) return [];
  const have = capabilitiesOf(pi);
  return fileQueueNeeds(scenario).filter((c) => !have.includes(c));
}

/**
 * Any pipeline scenario: a file-queue one (`{"fileQueue": …}`) by
 * `observeFileQueue` on `pi.fileQueues`, any other by `observePipeline`.
 */
export function observeScenario(pi, scenario, options = {}) {
  if (isFileQueueScenario(scenario)) return observeFileQueue(pi.fileQueues, scenario);
  return observePipeline(pi, scenario, options);
}

function blockOf(block) {
  if (Object.hasOwn(block, 'text')) return { type: 'text', text: block.text };
  const c = block.toolCall;
  const out = { type: 'toolCall', id: c.id, name: c.name, arguments: materialize(c.arguments) };
  if (Object.hasOwn(c, 'argumentsError')) out.argumentsError = c.argumentsError;
  return out;
}

/** A message as the observation shows it (FORMAT.md, "Messages"). */
export function messageSummary(m) {
  if (m === null || typeof m !== 'object') return encode(m);
  switch (m.role) {
    case 'toolResult':
      return encode(masked(m));
    case 'assistant': {
      const out = { role: 'assistant', stopReason: encode(m.stopReason), content: encode(m.content) };
      if (m.errorMessage !== undefined) out.errorMessage = encode(m.errorMessage);
      return out;
    }
    case 'system': {
      const out = { role: 'system' };
      if (Array.isArray(m.toolsAdded)) out.toolsAdded = m.toolsAdded.map((t) => String(t?.name ?? t));
      return out;
    }
    default:
      return { role: String(m.role) };
  }
}

function eventSummary(e) {
  const out = {};
  for (const k of Object.keys(e)) {
    const v = e[k];
    if (k === 'message') out[k] = messageSummary(v);
    else if ((k === 'messages' || k === 'toolResults') && Array.isArray(v)) out[k] = v.map(messageSummary);
    else if (k === 'durationMs' && typeof v === 'number') out[k] = '<durationMs>';
    else if (k === 'assistantMessageEvent') out[k] = { type: String(v?.type) };
    else out[k] = encode(v);
  }
  return out;
}

/** A script, or `{calls: {id: script}, default?: script}`: the one for call `id`. */
function perCall(spec, id) {
  if (spec && (Object.hasOwn(spec, 'calls') || Object.hasOwn(spec, 'default'))) {
    return (id != null && spec.calls && Object.hasOwn(spec.calls, id) ? spec.calls[id] : spec.default) ?? {};
  }
  return spec ?? {};
}

function roleLabel(m) {
  return m?.role === 'toolResult' ? `toolResult(${m.toolCallId})` : String(m?.role);
}

function matches(on, event, counts, index) {
  if (on === 'beforeRun' || event.type !== on.event) return false;
  if (on.toolCallId !== undefined && event.toolCallId !== on.toolCallId) return false;
  if (on.role !== undefined && event.message?.role !== on.role) return false;
  counts[index] = (counts[index] ?? 0) + 1;
  return counts[index] === (on.nth ?? 1);
}

/** Unhandled rejections and uncaught exceptions while a scenario runs. */
const escaped = { count: 0 };
let listening = false;
function listen() {
  if (listening) return;
  listening = true;
  process.on('unhandledRejection', (reason) => {
    escaped.count += 1;
    process.stderr.write(`toolgate pipeline harness: unhandled rejection: ${reason?.stack ?? reason}\n`);
  });
  process.on('uncaughtException', (error) => {
    escaped.count += 1;
    process.stderr.write(`toolgate pipeline harness: uncaught exception: ${error?.stack ?? error}\n`);
  });
}

function nextMacrotask() {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs `scenario` on `pi` (load.mjs `loadPi`) and resolves with the
 * observation. `settleMs`: how long the run may stay unsettled before it is
 * recorded as pending (a window, not an ordering).
 */
export async function observePipeline(pi, scenario, { settleMs = 1000 } = {}) {
  listen();
  const trace = [];
  let recording = true;
  const record = (entry) => {
    if (recording) trace.push(entry);
  };
  const toolResults = [];

  const useSignal = scenario.signal !== false;
  const controller = new AbortController();
  const runSignal = useSignal ? controller.signal : undefined;
  const abort = () => {
    if (controller.signal.aborted) return;
    record({ kind: 'abort' });
    controller.abort();
  };
  const latches = latchSet((name) => record({ kind: 'release', latch: name }));
  const env = { latches, abort };
  // Runs a trigger's actions; a "reject" action makes the emit that fired
  // it return a promise rejected with the thrown value (an async listener
  // failing), which is what `act` returns.
  const act = (actions) => {
    let failure;
    for (const a of actions) {
      if (Object.hasOwn(a, 'release')) latches.release(a.release);
      else if (Object.hasOwn(a, 'abort')) abort();
      else if (Object.hasOwn(a, 'reject')) failure ??= { error: errorOf(a.reject) };
      else throw new Error(`unknown trigger action ${JSON.stringify(a)}`);
    }
    return failure;
  };
  const signalState = (s) => (s === undefined ? 'none' : s.aborted ? 'aborted' : 'live');

  // Every transcript call's [id, arguments object] (the assistant messages'
  // blocks, in order), to tell whether prepareArguments received the
  // transcript object itself and whose it is. A list, not a map by id: calls
  // may share an id (in one turn or across turns), and each keeps its own
  // object.
  const transcriptArgs = [];

  const hookOf = (which) => {
    const spec = scenario.hooks?.[which];
    if (!spec) return undefined;
    const scriptFor = (id) => perCall(spec, id);
    const body = (hookCtx, signal) => {
      const id = hookCtx?.toolCall?.id;
      const entry = {
        kind: 'invoke',
        of: which,
        toolCallId: encode(id),
        signal: signalState(signal),
        keys: Object.keys(hookCtx ?? {}),
        toolCall: encode(hookCtx?.toolCall),
        args: encode(hookCtx?.args),
      };
      if (which === 'afterToolCall') {
        entry.result = encode(hookCtx?.result);
        entry.isError = encode(hookCtx?.isError);
      }
      if (scenario.hookContext === true) {
        const ms = hookCtx?.context?.messages;
        entry.messages = Array.isArray(ms) ? ms.map(roleLabel) : encode(ms);
      }
      record(entry);
      return runScript(scriptFor(id), env, { args: hookCtx?.args, signal }, { return: { $: 'undefined' } });
    };
    return body;
  };

  const tools = (scenario.tools ?? []).map((spec) => {
    const parameters =
      spec.parametersKind === 'typebox' ? typeboxOf(pi.Type, spec.parameters) : structuredClone(spec.parameters);
    const scriptFor = perCall;
    const tool = {
      name: spec.name,
      label: spec.name,
      description: spec.description ?? `toolgate pipeline tool ${spec.name}`,
      parameters,
      execute: function execute(toolCallId, params, signal, onUpdate) {
        record({
          kind: 'invoke',
          of: 'execute',
          toolCallId: encode(toolCallId),
          signal: signalState(signal),
          argc: arguments.length,
          params: encode(params),
        });
        return runScript(scriptFor(spec.execute, toolCallId), env, { args: params, signal, onUpdate }, {
          return: { content: [{ type: 'text', text: `${spec.name} ok` }], details: {} },
        });
      },
    };
    if (spec.executionMode !== undefined) tool.executionMode = spec.executionMode;
    if (spec.prepareArguments !== undefined) {
      // pi calls prepareArguments(args) with the arguments only: the call is
      // told apart by the transcript object it receives.
      tool.prepareArguments = function prepareArguments(args) {
        let id = null;
        for (const [callId, a] of transcriptArgs) if (a === args) id = callId;
        record({
          kind: 'invoke',
          of: 'prepareArguments',
          toolCallId: id,
          argc: arguments.length,
          args: encode(args),
          argsIsTranscript: id !== null,
        });
        const script = scriptFor(spec.prepareArguments, id);
        return runScript({ ...script, sync: true }, env, { args }, { return: { $: 'args' } });
      };
    }
    return tool;
  });

  // The scripted model: scenario.model in order, then a final text. A call
  // made with an aborted signal answers stopReason "aborted" (what pi-ai's
  // providers do), unless the turn says "ignoreAbort".
  const providerCalls = [];
  let turnIndex = 0;
  const streamFn = (model, context, options) => {
    const index = turnIndex++;
    const aborted = options?.signal?.aborted === true;
    const messages = (context?.messages ?? []).map(roleLabel);
    if (recording) providerCalls.push({ aborted, messages });
    record({ kind: 'provider', index, aborted, messages });
    const stream = pi.createAssistantMessageEventStream();
    const turn = scenario.model?.[index];
    let message;
    if (aborted && !turn?.ignoreAbort) {
      message = assistantMessage([], 'aborted', 'Request was aborted');
    } else if (turn) {
      message = assistantMessage(turn.content.map(blockOf), turn.stopReason ?? 'toolUse', turn.errorMessage);
      for (const b of message.content) if (b.type === 'toolCall') transcriptArgs.push([b.id, b.arguments]);
    } else {
      message = assistantMessage([{ type: 'text', text: 'done' }], 'stop');
    }
    queueMicrotask(() => {
      if (message.stopReason === 'aborted' || message.stopReason === 'error') {
        stream.push({ type: 'error', reason: message.stopReason, error: message });
      } else {
        stream.push({ type: 'done', reason: message.stopReason, message });
      }
    });
    return stream;
  };

  const triggers = scenario.triggers ?? [];
  const counts = [];
  const emit = (event) => {
    record({ kind: 'event', event: eventSummary(event) });
    if (recording && event.type === 'message_end' && event.message?.role === 'toolResult') {
      toolResults.push({ toolCallId: encode(event.message.toolCallId), json: JSON.stringify(masked(event.message)) });
    }
    let failure;
    triggers.forEach((t, i) => {
      if (matches(t.on, event, counts, i)) failure ??= act(t.do);
    });
    if (failure) return Promise.reject(failure.error);
    return undefined;
  };

  // Queued user messages: config.getSteeringMessages / getFollowUpMessages
  // answer the n-th poll with the n-th array of texts (then []), each text a
  // user message; every poll is recorded.
  const queueOf = (polls, of) => {
    if (polls === undefined) return undefined;
    let index = 0;
    return async () => {
      const n = index++;
      record({ kind: 'invoke', of, index: n });
      return (polls[n] ?? []).map((text) => ({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() }));
    };
  };

  const config = {
    model: MODEL,
    convertToLlm: (ms) => ms.filter((m) => ['system', 'user', 'assistant', 'toolResult'].includes(m.role)),
  };
  if (scenario.config?.toolExecution !== undefined) config.toolExecution = scenario.config.toolExecution;
  // config.shouldStopAfterTurn (0.85; 1.6 ignores it): its n-th call
  // answers stopAfterTurn[n] (then false); every call is recorded.
  const stops = scenario.config?.stopAfterTurn;
  if (stops !== undefined) {
    let index = 0;
    config.shouldStopAfterTurn = async () => {
      const n = index++;
      record({ kind: 'invoke', of: 'shouldStopAfterTurn', index: n });
      return stops[n] ?? false;
    };
  }
  const steering = queueOf(scenario.config?.steering, 'getSteeringMessages');
  const followUp = queueOf(scenario.config?.followUp, 'getFollowUpMessages');
  if (steering) config.getSteeringMessages = steering;
  if (followUp) config.getFollowUpMessages = followUp;
  const before = hookOf('beforeToolCall');
  const after = hookOf('afterToolCall');
  if (before) config.beforeToolCall = before;
  if (after) config.afterToolCall = after;

  const context = { ...pi.contextBase, messages: [], tools };
  const prompt = { role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: Date.now() };

  triggers.forEach((t) => {
    if (t.on === 'beforeRun') {
      if (t.do.some((a) => Object.hasOwn(a, 'reject'))) throw new Error('a "reject" action needs an event');
      act(t.do);
    }
  });

  const escapedBefore = escaped.count;
  let window;
  const windowEnds = new Promise((resolve) => {
    window = setTimeout(() => resolve({ pending: true }), settleMs);
  });
  const outcome = await Promise.race([
    Promise.resolve()
      .then(() => pi.runAgentLoop([prompt], context, config, emit, runSignal, streamFn))
      .then(
        (value) => ({ value }),
        (error) => ({ error }),
      ),
    windowEnds,
  ]);
  clearTimeout(window);
  if (outcome.pending) {
    // Abandon the run: stop recording, then let go of whatever waits.
    recording = false;
    controller.abort();
    latches.releaseAll();
  }
  // stray rejections surface within a few turns of the event loop
  await nextMacrotask();
  await nextMacrotask();
  recording = false;

  const observation = { trace, toolResults, providerCalls: providerCalls.length };
  if (outcome.pending) {
    observation.end = { outcome: 'pending' };
  } else if (Object.hasOwn(outcome, 'error')) {
    const e = outcome.error;
    observation.end = {
      outcome: 'rejected',
      name: e instanceof Error ? String(e.name) : typeof e,
      message: e instanceof Error ? String(e.message) : String(e),
    };
  } else {
    observation.end = { outcome: 'resolved' };
    observation.messages = Array.isArray(outcome.value) ? outcome.value.map(messageSummary) : encode(outcome.value);
  }
  observation.uncaught = escaped.count - escapedBefore;
  return observation;
}
