// toolgate's shim for your runtime (written by `toolgate init`): it hands a
// case's tools and model turn to your runtime's own execution path and says
// what the model receives next. A shim never validates, catches or
// serializes anything itself: what the runtime does not do, the suite must
// see not done. The interface, every field: SHIM.md in the kit
// (node_modules/toolgate-node-adapter/runtimes/SHIM.md).

// TOOLGATE: import your runtime's entry points here, e.g.
// import { createAgent } from 'your-runtime';

export const runtime = {
  id: 'my-runtime', // TOOLGATE: a short id of the runtime under test
  package: 'my-runtime', // TOOLGATE: its npm package
  version: '0.0.0', // TOOLGATE: the exact version installed
  path: 'the execution path this shim drives', // TOOLGATE: e.g. "Agent.run with a scripted model"
};

// What your runtime cannot express at all, each with a reason (keys:
// abort, duplicateNames, unknownTool, check, progress, parallel).
export const notApplicable = {};

export async function runTurn({ tools, calls, signal }) {
  // TOOLGATE: begin (replace this block with your runtime's execution path)
  // Register `tools` ({name, description, inputSchema, check, execute}) with
  // the runtime, run one model turn that emits `calls` ({id, name,
  // arguments}), pass `signal` to its cancellation, and return, for each
  // tool result the next model request carries, {callId, isError, delivered}.
  void tools;
  void calls;
  void signal;
  throw new Error('toolgate/shim.mjs: runTurn is not wired to your runtime yet');
  // TOOLGATE: end
}
