// toolgate runtime shim: the OpenAI Agents SDK core (`@openai/agents-core` 0.20.0).
//
// Execution path: `new Runner().run(agent, input, { signal })`, the SDK's own
// agent loop, with an `Agent` whose `model` is a scripted implementation of
// the SDK's `Model` interface. The first `getResponse` returns one
// `function_call` output item per call of the turn (arguments as JSON text,
// `callId` the case's id); the runner parses, guards and invokes the tools and
// calls the model again; the second `getResponse` records the request's
// `input` (whose `function_call_result` items are what is "delivered") and
// returns a final assistant message, which ends the run. See README.md.
//
// The shim validates, catches, serializes and bounds nothing of the
// runtime's: tool bodies are the adapter's `execute` functions, wired as the
// SDK's `execute`; what the runtime does not do is not done here.

import {
  Agent,
  Runner,
  ToolGuardrailFunctionOutputFactory,
  Usage,
  defineToolInputGuardrail,
  tool,
} from '@openai/agents-core';
import { argumentsText } from '../../boundary/arguments-text.mjs';

export const runtime = {
  id: 'openai-agents-core-0.20',
  package: '@openai/agents-core',
  version: '0.20.0',
  path: 'Runner.run(agent, input, { signal }) with a scripted Model (Agent.model)',
};

export const notApplicable = {
  progress:
    'function tools have no progress channel: execute(input, runContext, details) receives no progress callback and a ' +
    'non-streamed run emits no per-tool progress events',
};



/** The SDK's FunctionTools from the adapter's tools (registration order, names may repeat). */
function toFunctionTools(tools) {
  return tools.map(({ name, description, inputSchema, check, execute }) =>
    tool({
      name,
      description,
      // A plain JSON Schema object. `strict: false`: the default strict mode
      // rewrites the schema for OpenAI structured outputs (closes objects,
      // turns optional properties into required+nullable) and refuses many
      // keywords with a UserError; either way a JSON Schema is never checked
      // against the arguments (the parser is JSON.parse). See README.md.
      parameters: inputSchema,
      strict: false,
      // The runtime's own hook for refusing a call before it runs: a tool
      // input guardrail. It receives the function_call item, arguments as
      // JSON text, as every user guardrail does.
      ...(check === undefined
        ? {}
        : {
            inputGuardrails: [
              defineToolInputGuardrail({
                name: 'check',
                run: async ({ toolCall }) => {
                  const problem = check(JSON.parse(toolCall.arguments));
                  return problem == null
                    ? ToolGuardrailFunctionOutputFactory.allow()
                    : ToolGuardrailFunctionOutputFactory.rejectContent(problem);
                },
              }),
            ],
          }),
      // The SDK calls execute(parsedInput, runContext, details); details
      // carries { toolCall, signal, ... }.
      execute: (input, _runContext, details) =>
        execute(input, { signal: details?.signal, callId: details?.toolCall?.callId, progress: undefined }),
    }),
  );
}

/**
 * The scripted model. Like a real provider (whose fetch rejects on an aborted
 * signal, and like the SDK's own testing ScriptedModel), it refuses to answer
 * when the request's signal is already aborted; it does not otherwise look at
 * the signal.
 */
class ScriptedTurnModel {
  constructor(calls) {
    this.calls = calls;
    this.requests = [];
  }

  async getResponse(request) {
    request.signal?.throwIfAborted();
    this.requests.push(request);
    if (this.requests.length === 1) {
      return {
        usage: new Usage(),
        responseId: 'resp_1',
        output: this.calls.map((call) => ({
          type: 'function_call',
          id: call.id,
          callId: call.id,
          name: call.name,
          status: 'completed',
          arguments: argumentsText(call.arguments),
        })),
      };
    }
    return {
      usage: new Usage(),
      responseId: `resp_${this.requests.length}`,
      output: [
        {
          type: 'message',
          id: `msg_${this.requests.length}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'done' }],
        },
      ],
    };
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse() {
    throw new Error('the toolgate shim drives the non-streamed path only');
  }
}

/** The function_call_result items of the input of the model's second call. */
function deliveredFrom(input) {
  const results = [];
  if (!Array.isArray(input)) return results;
  for (const item of input) {
    if (item?.type !== 'function_call_result') continue;
    results.push({ callId: item.callId ?? null, isError: null, delivered: item });
  }
  return results;
}

export async function runTurn({ tools, calls, signal }) {
  const notes = [];
  let functionTools;
  try {
    functionTools = toFunctionTools(tools);
  } catch (error) {
    // tool() refused the definition (e.g. an empty name, an unusable schema).
    return { results: [], registrationError: { name: error?.name, message: error?.message }, notes };
  }
  for (const functionTool of functionTools) {
    if (!tools.some((t) => t.name === functionTool.name)) {
      notes.push(`registered as '${functionTool.name}': tool() rewrites names to [a-zA-Z0-9_] (toFunctionToolName)`);
    }
  }
  const model = new ScriptedTurnModel(calls);
  const agent = new Agent({ name: 'toolgate', instructions: 'Run the tools.', model, tools: functionTools });
  const runner = new Runner({ tracingDisabled: true });
  const result = await runner.run(agent, 'Run the tools.', { signal });
  if (model.requests.length < 2) {
    notes.push(`the model was called ${model.requests.length} time(s); no tool results were sent back to it`);
    return { results: [], notes };
  }
  if (result.finalOutput !== 'done') notes.push(`the run ended without the scripted final text (finalOutput ${typeof result.finalOutput})`);
  return { results: deliveredFrom(model.requests[1].input), notes };
}
