// toolgate runtime shim: @mastra/core 0.24.9.
//
// Drives mastra's own agent loop: `new Agent({ model, tools })` and
// `agent.generate(prompt, { abortSignal })`, where the model is a scripted
// AI SDK LanguageModelV2 object (the interface mastra's agent accepts for
// "v2" models). Turn 1 answers with every call of the case in one response
// (finishReason "tool-calls"), turn 2 ends the run with a text. What the model
// receives is the `prompt` mastra passes to the model's `doGenerate` on turn
// 2. See README.md for every choice.
//
// The shim validates, catches, serializes and bounds nothing: the JSON
// Schema becomes a Zod schema through mastra's own JSON-Schema-to-Zod
// converter, `check` a Zod refinement, the executor the tool's body, and its
// value the tool's return value, untouched.

import { Agent } from "@mastra/core/agent";
import { MastraLogger } from "@mastra/core/logger";
import { createTool } from "@mastra/core/tools";
import { resolveSerializedZodOutput } from "@mastra/core/utils";
import { jsonSchemaToZod } from "@mastra/schema-compat/json-to-zod";
import { argumentsText } from "../../boundary/arguments-text.mjs";

export const runtime = {
  id: "mastra-core",
  package: "@mastra/core",
  version: "0.24.9",
  path: "Agent.generate with a scripted LanguageModelV2 (doGenerate)",
};

export const notApplicable = {
  duplicateNames:
    "an Agent's tools are a record keyed by tool name (`tools: { [name]: tool }`): a second tool of the same name replaces the first in the object before mastra sees it",
};

// Mastra's components log through a MastraLogger; the default one prints
// (warnings to stdout via console.info). A logger of our own, set the way
// `new Mastra({ logger })` sets it on an agent, keeps what mastra reports as
// notes of the turn.
class NotesLogger extends MastraLogger {
  constructor(notes) {
    super({ name: "toolgate", level: "warn" });
    this.notes = notes;
  }
  #note(level, message, args) {
    const detail = args?.[0]?.error?.message ?? args?.[0]?.errors ?? undefined;
    let text = `${level}: ${String(message)}`;
    if (typeof detail === "string") text += ` (${detail.slice(0, 300)})`;
    this.notes.push(text.slice(0, 500));
  }
  debug() {}
  info() {}
  warn(message, ...args) {
    this.#note("warn", message, args);
  }
  error(message, ...args) {
    this.#note("error", message, args);
  }
  trackException() {}
}


const USAGE = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** A scripted LanguageModelV2: turn 1 the calls, then a final text. */
function scriptedModel(calls, prompts) {
  const generate = async (options) => {
    const index = prompts.length;
    prompts.push(options.prompt);
    if (index === 0) {
      // The case's model turn, whatever the signal: the abort is the tool phase's.
      return {
        content: calls.map((c) => ({
          type: "tool-call",
          toolCallId: c.id,
          toolName: c.name,
          input: argumentsText(c.arguments),
        })),
        finishReason: "tool-calls",
        usage: USAGE,
        warnings: [],
      };
    }
    // What a provider does on an aborted signal: its request rejects.
    options.abortSignal?.throwIfAborted();
    return { content: [{ type: "text", text: "done" }], finishReason: "stop", usage: USAGE, warnings: [] };
  };
  return {
    specificationVersion: "v2",
    provider: "toolgate",
    modelId: "toolgate-scripted",
    supportedUrls: {},
    doGenerate: generate,
    async doStream() {
      throw new Error("the toolgate scripted model only answers doGenerate (Agent.generate)");
    },
  };
}

// JSON Schema -> Zod with mastra's own converter: the one mastra applies to
// tools whose parameters are JSON Schema (`convertVercelToolParameters`:
// `resolveSerializedZodOutput(jsonSchemaToZod(schema))`).
function zodSchemaOf(tool) {
  const schema = resolveSerializedZodOutput(jsonSchemaToZod(tool.inputSchema));
  if (typeof tool.check !== "function") return schema;
  // The suite's `check` as a Zod refinement, as a mastra user adds one.
  return schema.superRefine((args, ctx) => {
    const message = tool.check(args);
    if (message !== null) ctx.addIssue({ code: "custom", message });
  });
}

function mastraToolOf(tool) {
  return createTool({
    id: tool.name,
    description: tool.description ?? "",
    inputSchema: zodSchemaOf(tool),
    execute: async ({ context, writer }, options) =>
      tool.execute(context, {
        signal: options?.abortSignal,
        callId: options?.toolCallId,
        progress: writer ? (value) => writer.write(value) : undefined,
      }),
  });
}

const isToolResult = (part) => part?.type === "tool-result";
const resultOf = (part) => ({
  callId: part.toolCallId ?? null,
  isError: typeof part.output?.type === "string" ? part.output.type.startsWith("error-") : null,
  delivered: part.output,
});

export async function runTurn({ tools, calls, signal }) {
  const notes = [];
  const prompts = [];
  const record = {};
  try {
    for (const tool of tools) record[tool.name] = mastraToolOf(tool);
  } catch (error) {
    // mastra's JSON-Schema-to-Zod converter refused a schema: the tool set
    // cannot be registered, the turn is not run.
    return { results: [], registrationError: { name: error?.name ?? "Error", message: String(error?.message ?? error) }, notes };
  }
  const agent = new Agent({
    name: "toolgate",
    instructions: "toolgate scripted turn",
    model: scriptedModel(calls, prompts),
    tools: record,
  });
  agent.__setLogger(new NotesLogger(notes));

  const output = await agent.generate("go", { abortSignal: signal });
  notes.push(`model requests: ${prompts.length}; finishReason: ${output.finishReason}`);
  if (output.error) notes.push(`output.error: ${String(output.error?.message ?? output.error).slice(0, 300)}`);

  if (prompts.length >= 2) {
    // The tool messages after turn 1's assistant message, in the second request.
    const prompt = prompts[1];
    const at = prompt.findLastIndex((m) => m.role === "assistant");
    const results = prompt
      .slice(at + 1)
      .filter((m) => m.role === "tool")
      .flatMap((m) => m.content.filter(isToolResult))
      .map(resultOf);
    return { results, notes };
  }
  // No second model request: what mastra put in the response messages.
  notes.push("no second model request: results read from the response messages of agent.generate");
  const results = (output.response?.messages ?? [])
    .filter((m) => m.role === "tool")
    .flatMap((m) => (Array.isArray(m.content) ? m.content.filter(isToolResult) : []))
    .map(resultOf);
  return { results, notes };
}
