// examples/boundary-shim.mjs: how to put a runtime whose tool API differs
// from the contract's behind adapter.mjs, for the `boundary` suite.
//
//   node adapters/node/adapter.mjs --module adapters/node/examples/boundary-shim.mjs
//   node adapters/node/test/corpus.mjs --module adapters/node/examples/boundary-shim.mjs --suite boundary
//
// The first half stands for your runtime (you would import it instead); the
// second half is the shim: the four exports the adapter needs, mapping the
// scenario's definitions into the runtime's tools and the runtime's results
// into result messages. Only four facts of a result are graded in the
// boundary suite: error or success (or a rejection, or pending), the
// toolCallId, how many times each function ran, and unhandled rejections.

// --- a stand-in runtime: tools are {name, check, run}, results {callId, status, text}

class MiniRuntime {
  #tools = new Map();

  addTool(tool) {
    this.#tools.set(tool.name, tool);
  }

  async call({ callId, tool: name, input }, signal) {
    signal.throwIfAborted();
    const tool = this.#tools.get(name);
    if (tool === undefined) return { callId, status: 'error', text: `no tool ${name}` };
    let checked;
    try {
      checked = tool.check(input);
    } catch (error) {
      return { callId, status: 'error', text: `invalid input: ${error?.message ?? error}` };
    }
    if (!checked.valid) return { callId, status: 'error', text: checked.reason };
    try {
      const output = await new Promise((resolve, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        Promise.resolve(tool.run(checked.input, signal, callId)).then(resolve, reject);
      });
      return { callId, status: 'ok', text: JSON.stringify(output) ?? 'undefined' };
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      return { callId, status: 'error', text: String(error?.message ?? error) };
    }
  }
}

// --- the shim

/** What this module can be graded on: the boundary suite only. */
export const toolgate = { suites: ['boundary'] };

// The adapter recognises contract errors and genuine non-recoverable errors
// by these classes; a runtime without them can export plain ones.
export class ToolContractError extends Error {
  constructor(code, message = code) {
    super(message);
    this.code = code;
  }
}
export class NonRecoverableToolError extends Error {}

export class ToolRegistry {
  runtime = new MiniRuntime();
  #names = [];

  constructor(...batch) {
    if (batch.length > 0) this.registerMany(batch[0]);
  }

  /** Scenario definitions are {name, description, validate, execute}. */
  registerMany(batch) {
    for (const definition of batch) {
      const { name, validate, execute } = definition;
      this.runtime.addTool({
        name,
        check: (input) => {
          const decision = validate(input);
          return decision.ok ? { valid: true, input: decision.value } : { valid: false, reason: decision.error };
        },
        run: (input, signal, callId) => execute(input, { signal, toolCallId: callId }),
      });
      this.#names.push(name);
    }
  }

  get names() {
    return [...this.#names];
  }
}

/** A call is {type, id, name, arguments}; the result message has six fields. */
export async function executeToolCall(registry, call, signal) {
  const { id, name } = call;
  const answer = await registry.runtime.call({ callId: id, tool: name, input: call.arguments }, signal);
  return Object.freeze({
    id: `tool-result-${answer.callId}`,
    role: 'toolResult',
    toolCallId: answer.callId,
    toolName: name,
    content: answer.text,
    isError: answer.status !== 'ok',
  });
}
