// toolgate runtime shim: @langchain/langgraph 1.7.3's prebuilt ToolNode as the
// dispatcher of @langchain/core 1.4.0 tools.
//
// Each tool of the case is made with @langchain/core/tools' tool(fn, {name,
// description, schema}) with the case's JSON Schema as it is; the model's turn
// is one AIMessage carrying every call in tool_calls, handed to
// new ToolNode(tools).invoke({ messages: [aiMessage] }, { signal, writer });
// what the shim resolves with is the ToolMessages ToolNode returns, which are
// what the next model request carries. See README.md for every choice.

import { tool } from '@langchain/core/tools';
import { AIMessage } from '@langchain/core/messages';
import { ToolNode } from '@langchain/langgraph/prebuilt';

export const runtime = {
  id: 'langgraph-toolnode',
  package: '@langchain/langgraph',
  version: '1.7.3',
  core: { package: '@langchain/core', version: '1.4.0' },
  path: 'ToolNode.invoke({ messages: [AIMessage with tool_calls] }) over @langchain/core tool(fn, { schema: JSON Schema })',
};

export const notApplicable = {
  check:
    'a @langchain/core tool given a JSON Schema validates it with @cfworker/json-schema (dist/tools/index.js:116) and has no refinement or validate hook beside it; only a zod schema could carry a refine',
};

export async function runTurn({ tools, calls, signal }) {
  const notes = [];
  const runtimeTools = tools.map((t) =>
    tool(
      (args, config) =>
        t.execute(args, {
          signal: config?.signal,
          callId: config?.toolCall?.id,
          progress: typeof config?.writer === 'function' ? config.writer : undefined,
        }),
      { name: t.name, description: t.description, schema: t.inputSchema },
    ),
  );
  // ToolNode takes the list as given: duplicate names are not refused (it runs
  // the first tool of a name, dist/prebuilt/tool_node.js:192).
  const node = new ToolNode(runtimeTools);
  const aiMessage = new AIMessage({
    content: '',
    tool_calls: calls.map((call) => ({ id: call.id, name: call.name, args: call.arguments, type: 'tool_call' })),
  });
  const output = await node.invoke(
    { messages: [aiMessage] },
    {
      signal,
      // LangGraph's custom stream writer (LangGraphRunnableConfig.writer),
      // the channel a tool reports progress on; ToolNode hands it to each tool
      // as config.writer (dist/prebuilt/tool_node.js:206).
      writer: (chunk) => notes.push(`writer: ${safeJson(chunk)}`),
    },
  );
  const messages = Array.isArray(output) ? output : output.messages;
  return {
    results: messages.map((message) => ({
      callId: message.tool_call_id ?? null,
      isError: message.status === 'error',
      delivered: { content: message.content, tool_call_id: message.tool_call_id, status: message.status },
    })),
    registrationError: undefined,
    notes,
  };
}

function safeJson(value) {
  try {
    return JSON.stringify(value);
  } catch (error) {
    return `(not JSON: ${error?.message})`;
  }
}
