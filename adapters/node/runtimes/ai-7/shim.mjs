// toolgate runtime shim: the Vercel AI SDK (`ai` 7.0.173).
//
// Execution path: `generateText` (the SDK's own multi-step tool loop) driven
// by the SDK's own mock model, `MockLanguageModelV4` from `ai/test` (the
// LanguageModelV4 specification is the one `ai` 7 speaks natively; the V3
// mock is still shipped but is adapted to V4 on the way in). Step 1 of the
// mock returns every call of the turn as `tool-call` content parts; the SDK
// parses, validates and executes them; step 2 of the mock receives the
// prompt the SDK built, whose `role: "tool"` messages carry the tool-result
// parts: those parts are what is "delivered". Step 2 returns a final text and
// `stopWhen: isStepCount(2)` ends the loop. See README.md for every choice.
//
// The shim validates, catches, serializes and bounds nothing of the
// runtime's: tool bodies are the adapter's `execute` functions, wired as the
// AI SDK's `execute`; what the runtime does not do is not done here.

import { generateText, isStepCount, jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { argumentsText } from '../../boundary/arguments-text.mjs';

export const runtime = {
  id: 'ai-7',
  package: 'ai',
  version: '7.0.173',
  path: 'generateText (stopWhen: isStepCount(2)) with MockLanguageModelV4 from ai/test',
};

export const notApplicable = {
  duplicateNames:
    '`tools` is a plain object keyed by tool name (ToolSet = Record<string, Tool>); two tools with one name cannot be ' +
    'expressed: a second property assignment silently replaces the first in the caller\'s own object before the SDK ever sees it',
  progress:
    'generateText has no progress channel: the only intermediate-output mechanism is an async-iterable `execute` whose ' +
    'yields are "preliminary" results (the last yield becomes the output), and generateText passes no ' +
    'onPreliminaryToolResult to executeTools, so they reach nobody',
};



const ZERO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 0, text: 0, reasoning: undefined },
};

/** Builds the AI SDK ToolSet from the adapter's tools (registration order). */
function toToolSet(tools) {
  const toolSet = {};
  for (const definition of tools) {
    const { name, description, inputSchema, check, execute } = definition;
    // What a user with a JSON Schema writes: `jsonSchema(schema)`. It does NOT
    // validate (provider-utils jsonSchema(): `validate` is undefined unless
    // given). The adapter's `check` goes into jsonSchema's own `validate`
    // hook, the SDK's custom-validation entry (safeValidateTypes).
    const schema =
      check === undefined
        ? jsonSchema(inputSchema)
        : jsonSchema(inputSchema, {
            validate: (value) => {
              const problem = check(value);
              return problem == null ? { success: true, value } : { success: false, error: new Error(problem) };
            },
          });
    const aiTool = tool({
      description,
      inputSchema: schema,
      // The AI SDK calls execute(input, { toolCallId, messages, abortSignal, context, ... }).
      execute: (input, options) =>
        execute(input, { signal: options.abortSignal, callId: options.toolCallId, progress: undefined }),
    });
    // An own data property even for a name like "__proto__" (what an object
    // literal with a computed key or Object.fromEntries gives); the SDK looks
    // tools up with getOwn.
    Object.defineProperty(toolSet, name, { value: aiTool, enumerable: true, writable: true, configurable: true });
  }
  return toolSet;
}

/**
 * The mock model: step 1 emits the turn's calls, step 2 records the prompt it
 * receives and ends the run with a text. Like a real provider (whose fetch
 * rejects on an aborted signal), it refuses to answer when the request's
 * abortSignal is already aborted; it does not otherwise look at the signal.
 */
function scriptedModel(calls, seen) {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      options.abortSignal?.throwIfAborted();
      seen.push(options);
      if (seen.length === 1) {
        return {
          content: calls.map((call) => ({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: argumentsText(call.arguments),
          })),
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage: ZERO_USAGE,
          warnings: [],
        };
      }
      return {
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: ZERO_USAGE,
        warnings: [],
      };
    },
  });
}

/** The tool-result parts of the tool messages in the prompt of the model's second call. */
function deliveredFrom(prompt) {
  const results = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      results.push({
        callId: part.toolCallId ?? null,
        isError: part.output?.type === 'error-text' || part.output?.type === 'error-json',
        delivered: part,
      });
    }
  }
  return results;
}

export async function runTurn({ tools, calls, signal }) {
  const notes = [];
  const seen = [];
  const model = scriptedModel(calls, seen);
  const result = await generateText({
    model,
    tools: toToolSet(tools),
    prompt: 'Run the tools.',
    stopWhen: isStepCount(2),
    abortSignal: signal,
  });
  for (const step of result.steps) {
    for (const warning of step.warnings ?? []) notes.push(`step ${step.stepNumber} warning: ${JSON.stringify(warning)}`);
  }
  if (seen.length < 2) {
    // generateText resolved without calling the model again: nothing was delivered.
    notes.push(`the model was called ${seen.length} time(s); no tool results were sent back to it`);
    return { results: [], notes };
  }
  return { results: deliveredFrom(seen[1].prompt), notes };
}
