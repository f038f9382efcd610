// The pi shim, shared by the folders of each pi version
// (pi-agent-core-0.85, pi-agent-core-1.6): each imports its own installed
// packages and passes them here, so one text drives both versions and a
// difference in what the suite sees is the packages', not the shims'.
//
// Drives pi's own agent loop, `runAgentLoop(prompts, context, config, emit,
// signal, streamFn)`, with a scripted `streamFn` built on pi-ai's own
// `createAssistantMessageEventStream()`: turn 1 answers with every call of
// the case in one assistant message (stopReason "toolUse"), turn 2 ends the
// run with a text message. What the model receives is read from the context
// pi passes to the `streamFn` on turn 2. See each folder's README.md.
//
// The shim validates, catches, serializes and bounds nothing: the JSON
// Schema goes to pi as it is, the executor is the tool's body, its value goes
// into the one text block pi's tool-result type has, untouched. The suite's
// `check` is a TypeBox refinement on the parameters schema, as a pi user adds
// an extra argument check (pi 1.6 validates with pi-schema, which does not
// run refinements: the suite sees that).

import { MODEL, assistantMessage } from './pi-scripted-model.mjs';

/**
 * `{ notApplicable, runTurn }` over one pi version's packages.
 * `contextBase` is what that version's `AgentContext` starts from (0.85 has
 * a `systemPrompt` field, 1.6 none).
 */
export function piShim({ runAgentLoop, createAssistantMessageEventStream, Type, contextBase }) {
  // pi can express every capability: several calls in one assistant message,
  // duplicate names (context.tools is an array; the first match runs), unknown
  // names, an argument check, progress (execute's onUpdate callback) and abort
  // (the loop's signal).
  const notApplicable = {};

  // pi's tool result type is `{ content: (TextContent | ImageContent)[], details }`:
  // the tool body must produce the model-facing content itself, pi has no
  // serializer. The executor's value becomes the `text` of one text block as it
  // is (a string arrives as a user would write it; anything else arrives raw,
  // which is what pi's loop then does with it).
  const asToolResult = (value) => ({ content: [{ type: "text", text: value }], details: undefined });

  // The suite's `check` as a TypeBox refinement on the schema, as a pi user
  // adds an extra argument check. TypeBox asks `check` for a boolean, then
  // (when it lists errors) for the message: the message is the one the same
  // check call produced, so `check` runs exactly as often as TypeBox asks.
  function parametersOf(tool) {
    if (typeof tool.check !== "function") return tool.inputSchema;
    let message = null;
    return Type.Refine(
      tool.inputSchema,
      (args) => (message = tool.check(args)) === null,
      () => message,
    );
  }

  function agentToolOf(tool) {
    return {
      name: tool.name,
      label: tool.name,
      description: tool.description ?? "",
      parameters: parametersOf(tool),
      async execute(toolCallId, params, signal, onUpdate) {
        const value = await tool.execute(params, {
          signal,
          callId: toolCallId,
          progress: typeof onUpdate === "function" ? (v) => onUpdate(asToolResult(v)) : undefined,
        });
        return asToolResult(value);
      },
    };
  }

  /** The scripted model: turn 1 the calls, then a final text. */
  function scriptedStreamFn(calls, seen) {
    let turn = 0;
    return (model, context, options) => {
      const index = turn++;
      seen.push({ index, messages: [...context.messages], aborted: options?.signal?.aborted === true });
      const stream = createAssistantMessageEventStream();
      let message;
      if (index === 0) {
        // The case's model turn, whatever the signal: the abort is the tool phase's.
        message = assistantMessage(
          calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.arguments })),
          "toolUse",
        );
      } else if (options?.signal?.aborted) {
        // What pi-ai's providers answer on an aborted signal.
        message = assistantMessage([], "aborted", "Request was aborted");
      } else {
        message = assistantMessage([{ type: "text", text: "done" }], "stop");
      }
      queueMicrotask(() => {
        if (message.stopReason === "aborted" || message.stopReason === "error") {
          stream.push({ type: "error", reason: message.stopReason, error: message });
        } else {
          stream.push({ type: "done", reason: message.stopReason, message });
        }
      });
      return stream;
    };
  }

  const resultOf = (m) => ({ callId: m.toolCallId ?? null, isError: typeof m.isError === "boolean" ? m.isError : null, delivered: m.content });

  async function runTurn({ tools, calls, signal }) {
    const notes = [];
    const seen = [];
    const context = { ...contextBase, messages: [], tools: tools.map(agentToolOf) };
    const config = {
      model: MODEL,
      convertToLlm: (messages) => messages.filter((m) => ["system", "user", "assistant", "toolResult"].includes(m.role)),
    };
    const emit = (event) => {
      if (event.type === "tool_execution_update") notes.push(`tool_execution_update ${event.toolCallId}`);
      if (event.type === "message_end" && event.message.role === "assistant" && event.message.errorMessage) {
        notes.push(`assistant stopReason=${event.message.stopReason}: ${event.message.errorMessage}`);
      }
    };
    const prompt = { role: "user", content: [{ type: "text", text: "go" }], timestamp: Date.now() };
    const returned = await runAgentLoop([prompt], context, config, emit, signal, scriptedStreamFn(calls, seen));
    notes.push(`model requests: ${seen.length}`);

    const second = seen.find((s) => s.index === 1);
    if (second) {
      // Everything after turn 1's assistant message in the second request.
      const at = second.messages.findLastIndex((m) => m.role === "assistant");
      const results = second.messages.slice(at + 1).filter((m) => m.role === "toolResult").map(resultOf);
      return { results, notes };
    }
    // No second request (the batch voted to terminate): what the loop appended.
    notes.push("no second model request: results read from the messages runAgentLoop returned");
    const results = returned.filter((m) => m.role === "toolResult").map(resultOf);
    return { results, notes };
  }

  return { notApplicable, runTurn };
}
