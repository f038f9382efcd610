// toolgate runtime shim: @modelcontextprotocol/sdk 1.32.2, McpServer + Client
// linked in process by InMemoryTransport.createLinkedPair().
//
// The case's tools are registered on an McpServer through its high-level API
// (registerTool), the server and a Client are connected through a linked pair
// of in-memory transports, and each call of the model's turn is one
// client.callTool(...), all issued at once. What the shim resolves with is the
// CallToolResult each callTool resolves with. See README.md for every choice.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';

export const runtime = {
  id: 'mcp-sdk-memory',
  package: '@modelcontextprotocol/sdk',
  version: '1.32.2',
  path: 'McpServer.registerTool + Client.callTool over InMemoryTransport.createLinkedPair()',
};

// MCP has a cancellation entry (RequestOptions.signal), a progress channel
// (notifications/progress), several requests in flight at once, an error for
// unknown tools and a refinement hook through zod: nothing is left out.
export const notApplicable = {};

/**
 * The JSON Schema of a tool, as a JSON Schema user hands it to this SDK:
 * zod 4's own converter, z.fromJSONSchema, then the tool's extra check as a
 * zod superRefine (a refinement runs only once the schema itself passed).
 */
export function zodSchemaFor(inputSchema, check) {
  const schema = z.fromJSONSchema(inputSchema);
  if (check === undefined) return schema;
  return schema.superRefine((args, ctx) => {
    const message = check(args);
    if (message !== null && message !== undefined) ctx.addIssue({ code: 'custom', message });
  });
}

/**
 * The tool's value as an MCP tool result. An MCP tool must return a
 * CallToolResult itself; the SDK's own README shows a tool returning
 * `{ content: [{ type: 'text', text: JSON.stringify(output) }] }`. A string is
 * given as the text itself. This runs inside the SDK's handler (its try/catch
 * sees what JSON.stringify throws).
 */
export function callToolResultOf(value) {
  return { content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }] };
}

export async function runTurn({ tools, calls, signal }) {
  const notes = [];
  const server = new McpServer({ name: 'toolgate-case', version: '0.0.0' });

  try {
    for (const tool of tools) {
      server.registerTool(
        tool.name,
        { description: tool.description, inputSchema: zodSchemaFor(tool.inputSchema, tool.check) },
        async (args, extra) => {
          const progressToken = extra._meta?.progressToken;
          const progress =
            progressToken === undefined
              ? undefined
              : (value) =>
                  extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: value } });
          // MCP gives the handler extra.requestId, the client's JSON-RPC counter,
          // not the model's call id: callId is undefined (README).
          const value = await tool.execute(args, { signal: extra.signal, callId: undefined, progress });
          return callToolResultOf(value);
        },
      );
    }
  } catch (error) {
    return { results: [], registrationError: { name: error?.name, message: error?.message }, notes };
  }

  const client = new Client({ name: 'toolgate-host', version: '0.0.0' });
  client.onerror = (error) => notes.push(`client onerror: ${error?.message ?? String(error)}`);
  server.server.onerror = (error) => notes.push(`server onerror: ${error?.message ?? String(error)}`);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  await client.connect(clientTransport);

  // One turn: every callTool issued before any is awaited. A rejected
  // callTool rejects the turn (Promise.all), as it would a host that awaits
  // the turn's calls together.
  const pending = calls.map((call) =>
    client.callTool({ name: call.name, arguments: call.arguments }, undefined, {
      signal,
      onprogress: (p) => notes.push(`progress for ${call.id}: ${safeJson(p)}`),
    }),
  );
  // The connection is closed once every call has settled (closing earlier
  // would abort the server's handlers of the calls still running); a call
  // that never answers settles when the client's request timeout (the SDK's
  // default, 60 s) rejects it.
  Promise.allSettled(pending).then(() => {
    client.close().catch(() => {});
    server.close().catch(() => {});
  });
  const answers = await Promise.all(pending);
  return {
    results: answers.map((result, i) => ({
      // MCP results carry no call id: the result is linked to the id of the
      // case's call whose request it answered.
      callId: calls[i].id,
      // isError is optional in MCP and "assumed to be false" when absent.
      isError: result.isError ?? false,
      delivered: result,
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
