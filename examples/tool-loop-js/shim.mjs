// The shim the boundary adapter loads (`toolgate-boundary-adapter --runtime
// <this folder>`): it hands the case's tools and turn to the loop and says
// what the model receives. The interface: SHIM.md in the kit.
import { createLoop } from './loop.mjs';

export const runtime = { id: 'tool-loop-js', package: 'tool-loop-js', version: '0.0.0', path: 'createLoop(tools).runTurn(calls)' };

export const notApplicable = { progress: 'the loop has no progress channel' };

export async function runTurn({ tools, calls, signal }) {
  let loop;
  try {
    loop = createLoop(tools);
  } catch (error) {
    return { results: [], registrationError: { name: error.name, message: error.message }, notes: [] };
  }
  const results = await loop.runTurn(calls, { signal });
  return { results: results.map((r) => ({ callId: r.callId, isError: r.isError, delivered: r.content })), notes: [] };
}
