// The shim on a few turns through @mastra/core 0.24.9's own Agent.generate.
// Fast, no network; every test is bounded by a timeout.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runTurn, runtime, notApplicable } from "../shim.mjs";
import { PATH_SCHEMA, liveSignal, plainTool, rejectOnAbort, timeLimit } from "../../test-support.mjs";

const T = timeLimit(15_000);

test("module shape", T, () => {
  assert.equal(runtime.id, "mastra-core");
  assert.equal(runtime.package, "@mastra/core");
  assert.equal(runtime.version, "0.24.9");
  assert.deepEqual(Object.keys(notApplicable), ["duplicateNames"]);
});

test("a successful call: the delivered result is linked to its id, the tool got mastra's id and signal", T, async () => {
  const seen = [];
  const s = liveSignal();
  const out = await runTurn({
    tools: [plainTool("read", (args, ctx) => (seen.push({ args, ctx }), `body of ${args.path}`), { inputSchema: PATH_SCHEMA })],
    calls: [{ id: "call_1", name: "read", arguments: { path: "a.txt" } }],
    signal: s,
  });
  assert.deepEqual(out.results, [{ callId: "call_1", isError: false, delivered: { type: "text", value: "body of a.txt" } }]);
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].args, { path: "a.txt" });
  assert.equal(seen[0].ctx.callId, "call_1");
  assert.equal(seen[0].ctx.signal, s, "mastra passes generate's abortSignal to the tool");
  assert.equal(typeof seen[0].ctx.progress, "function");
  assert.ok(out.notes.includes("model requests: 2; finishReason: stop"));
});

test("an object result reaches the model as a json output", T, async () => {
  const out = await runTurn({
    tools: [plainTool("get", async () => ({ a: 1, b: [true] }))],
    calls: [{ id: "call_1", name: "get", arguments: {} }],
    signal: liveSignal(),
  });
  assert.deepEqual(out.results, [{ callId: "call_1", isError: false, delivered: { type: "json", value: { a: 1, b: [true] } } }]);
});

test("validation is mastra's: an invalid call never reaches the tool and comes back as a non-error json value", T, async () => {
  let ran = 0;
  const out = await runTurn({
    tools: [plainTool("read", () => ran++, { inputSchema: PATH_SCHEMA })],
    calls: [{ id: "call_1", name: "read", arguments: { path: 5 } }],
    signal: liveSignal(),
  });
  assert.equal(ran, 0);
  assert.equal(out.results.length, 1);
  const [r] = out.results;
  assert.equal(r.callId, "call_1");
  assert.equal(r.isError, false);
  assert.equal(r.delivered.type, "json");
  assert.equal(r.delivered.value.error, true);
  assert.match(r.delivered.value.message, /^Tool validation failed for read\. .*\n- path: Expected string, received number\n/);
  assert.ok(out.notes.includes("warn: Tool input validation failed for 'read'"));
});

test("check is a Zod refinement mastra runs: a refused call never reaches the tool", T, async () => {
  let ran = 0;
  const out = await runTurn({
    tools: [plainTool("read", () => ran++, { inputSchema: PATH_SCHEMA, check: (a) => (a.path === "bad" ? "bad path" : null) })],
    calls: [{ id: "call_1", name: "read", arguments: { path: "bad" } }],
    signal: liveSignal(),
  });
  assert.equal(ran, 0);
  assert.match(out.results[0].delivered.value.message, /\n- root: bad path\n/);
});

test("an unknown tool: mastra rejects the whole turn (observed), after running the known sibling", T, async () => {
  let ran = 0;
  await assert.rejects(
    runTurn({
      tools: [plainTool("read", () => (ran++, "x"))],
      calls: [
        { id: "call_1", name: "read", arguments: {} },
        { id: "call_2", name: "ghost", arguments: {} },
      ],
      signal: liveSignal(),
    }),
    (error) => error instanceof Error && /^Tool ghost not found/.test(error.message),
  );
  assert.equal(ran, 1);
});

test("two calls in one turn give two results, in call order, each with its id", T, async () => {
  const out = await runTurn({
    tools: [plainTool("a", async () => "A"), plainTool("b", () => "B")],
    calls: [
      { id: "call_1", name: "a", arguments: {} },
      { id: "call_2", name: "b", arguments: {} },
    ],
    signal: liveSignal(),
  });
  assert.deepEqual(out.results, [
    { callId: "call_1", isError: false, delivered: { type: "text", value: "A" } },
    { callId: "call_2", isError: false, delivered: { type: "text", value: "B" } },
  ]);
});

test("a throwing tool: mastra returns its MastraError as the tool's (non-error) value", T, async () => {
  const out = await runTurn({
    tools: [plainTool("b", () => { throw new Error("B failed"); })],
    calls: [{ id: "call_1", name: "b", arguments: {} }],
    signal: liveSignal(),
  });
  const [r] = out.results;
  assert.equal(r.isError, false);
  assert.equal(r.delivered.type, "json");
  assert.equal(r.delivered.value.message, "B failed");
  assert.equal(r.delivered.value.id, "TOOL_EXECUTION_FAILED");
});

test("the abort signal reaches the runtime: a pending tool sees it, mastra stops before the next model request", T, async () => {
  const controller = new AbortController();
  const out = await runTurn({
    tools: [
      plainTool("wait", (args, { signal }) => {
        setImmediate(() => controller.abort());
        return rejectOnAbort(signal);
      }),
    ],
    calls: [{ id: "call_1", name: "wait", arguments: {} }],
    signal: controller.signal,
  });
  assert.ok(out.notes.includes("model requests: 1; finishReason: undefined"));
  assert.equal(out.results.length, 1);
  assert.equal(out.results[0].callId, "call_1");
  assert.equal(out.results[0].delivered.value.message, "This operation was aborted");
});

test("aborted before the turn: mastra never asks the model, no tool runs", T, async () => {
  const controller = new AbortController();
  controller.abort();
  let ran = 0;
  const out = await runTurn({
    tools: [plainTool("a", () => ran++)],
    calls: [{ id: "call_1", name: "a", arguments: {} }],
    signal: controller.signal,
  });
  assert.equal(ran, 0);
  assert.deepEqual(out.results, []);
  assert.ok(out.notes.includes("model requests: 0; finishReason: undefined"));
});
