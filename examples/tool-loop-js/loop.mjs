// A tool loop of the kind a team writes in an afternoon: register tools,
// run one model turn's calls, give each call a result the model reads. It
// is the runtime `.ci/packaged-gate` gates through the packed npm kit; its
// baseline (expected-failures.txt) says where it falls short of the wall.
export function createLoop(tools) {
  const byName = new Map();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`duplicate tool name ${tool.name}`);
    byName.set(tool.name, tool);
  }
  const runCall = async (call, signal) => {
    const fail = (content) => ({ callId: call.id, isError: true, content: clip(content) });
    const tool = byName.get(call.name);
    if (!tool) return fail(`unknown tool ${call.name}`);
    const refusal = checkArguments(tool.inputSchema, call.arguments) ?? tool.check?.(call.arguments);
    if (refusal) return fail(`invalid arguments: ${refusal}`);
    try {
      const value = await tool.execute(call.arguments, { signal, callId: call.id });
      return { callId: call.id, isError: false, content: clip(JSON.stringify(value) ?? 'null') };
    } catch (error) {
      return fail(`tool failed: ${error?.message ?? String(error)}`);
    }
  };
  return { runTurn: (calls, { signal } = {}) => Promise.all(calls.map((c) => runCall(c, signal))) };
}

// The arguments against the top level of a JSON Schema: an object, its
// required keys, no unknown key when the schema says so, each known key's type.
function checkArguments(schema, args) {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'not an object';
  for (const key of schema.required ?? []) if (!(key in args)) return `missing ${key}`;
  for (const [key, value] of Object.entries(args)) {
    const type = schema.properties?.[key]?.type;
    if (!type) { if (schema.additionalProperties === false) return `unknown key ${key}`; continue; }
    const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    const fits = type === 'integer' ? Number.isInteger(value) : type === actual;
    if (!fits) return `${key} is not ${type}`;
  }
  return null;
}

const clip = (text) => (text.length > 4096 ? `${text.slice(0, 4072)}…[truncated]` : text);
