// The shim on a few turns through pi-agent-core 0.85.0's own runAgentLoop.
// Fast, no network; every test is bounded by a timeout.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runTurn, runtime, notApplicable } from "../shim.mjs";
import { PATH_SCHEMA, liveSignal, plainTool, rejectOnAbort, timeLimit } from "../../test-support.mjs";

const T = timeLimit();

test("module shape", T, () => {
  assert.equal(runtime.id, "pi-agent-core-0.85");
  assert.equal(runtime.package, "@earendil-works/pi-agent-core");
  assert.equal(runtime.version, "0.85.0");
  assert.deepEqual(notApplicable, {});
});

test("a successful call: the delivered result is linked to its id, the tool got pi's id and signal", T, async () => {
  const seen = [];
  const s = liveSignal();
  const out = await runTurn({
    tools: [plainTool("read", (args, ctx) => (seen.push({ args, ctx }), `body of ${args.path}`), { inputSchema: PATH_SCHEMA })],
    calls: [{ id: "call_1", name: "read", arguments: { path: "a.txt" } }],
    signal: s,
  });
  assert.deepEqual(out.results, [{ callId: "call_1", isError: false, delivered: [{ type: "text", text: "body of a.txt" }] }]);
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0].args, { path: "a.txt" });
  assert.equal(seen[0].ctx.callId, "call_1");
  assert.equal(seen[0].ctx.signal, s, "pi passes the run's own signal to execute");
  assert.equal(typeof seen[0].ctx.progress, "function");
  assert.ok(out.notes.includes("model requests: 2"));
});

test("validation is pi's: an uncoercible argument never reaches the tool", T, async () => {
  let ran = 0;
  const out = await runTurn({
    tools: [plainTool("read", () => ran++, { inputSchema: PATH_SCHEMA })],
    calls: [{ id: "call_1", name: "read", arguments: { path: { a: 1 } } }],
    signal: liveSignal(),
  });
  assert.equal(ran, 0);
  assert.equal(out.results.length, 1);
  assert.equal(out.results[0].isError, true);
  assert.match(out.results[0].delivered[0].text, /^Validation failed for tool "read":\n {2}- path: must be string/);
});

test("check is a TypeBox refinement pi runs: a refused call never reaches the tool", T, async () => {
  let ran = 0;
  const out = await runTurn({
    tools: [plainTool("read", () => ran++, { inputSchema: PATH_SCHEMA, check: (a) => (a.path === "bad" ? "bad path" : null) })],
    calls: [{ id: "call_1", name: "read", arguments: { path: "bad" } }],
    signal: liveSignal(),
  });
  assert.equal(ran, 0);
  assert.equal(out.results[0].isError, true);
  assert.match(out.results[0].delivered[0].text, /^Validation failed for tool "read":\n {2}- root: bad path\n/);
});

test("an unknown tool: pi's own error result, observed text", T, async () => {
  const out = await runTurn({
    tools: [plainTool("read", () => "x")],
    calls: [{ id: "call_1", name: "ghost", arguments: {} }],
    signal: liveSignal(),
  });
  assert.deepEqual(out.results, [{ callId: "call_1", isError: true, delivered: [{ type: "text", text: "Tool ghost not found" }] }]);
});

test("two calls in one turn give two results, in call order, each with its id", T, async () => {
  const out = await runTurn({
    tools: [plainTool("a", async () => "A"), plainTool("b", () => { throw new Error("B failed"); })],
    calls: [
      { id: "call_1", name: "a", arguments: {} },
      { id: "call_2", name: "b", arguments: {} },
    ],
    signal: liveSignal(),
  });
  assert.deepEqual(out.results, [
    { callId: "call_1", isError: false, delivered: [{ type: "text", text: "A" }] },
    { callId: "call_2", isError: true, delivered: [{ type: "text", text: "B failed" }] },
  ]);
});

test("the abort signal reaches the runtime: a pending tool sees it, the next model request is aborted", T, async () => {
  const controller = new AbortController();
  const out = await runTurn({
    tools: [
      plainTool("wait", (args, { signal }) => {
        queueMicrotask(() => controller.abort());
        return rejectOnAbort(signal);
      }),
    ],
    calls: [{ id: "call_1", name: "wait", arguments: {} }],
    signal: controller.signal,
  });
  assert.deepEqual(out.results, [{ callId: "call_1", isError: true, delivered: [{ type: "text", text: "This operation was aborted" }] }]);
  assert.ok(out.notes.includes("assistant stopReason=aborted: Request was aborted"));
});

test("aborted before the tools run: 0.85 answers the first call only", T, async () => {
  const controller = new AbortController();
  controller.abort();
  let ran = 0;
  const out = await runTurn({
    tools: [plainTool("a", () => ran++)],
    calls: [
      { id: "call_1", name: "a", arguments: {} },
      { id: "call_2", name: "a", arguments: {} },
    ],
    signal: controller.signal,
  });
  assert.equal(ran, 0);
  assert.deepEqual(out.results, [{ callId: "call_1", isError: true, delivered: [{ type: "text", text: "Operation aborted" }] }]);
});
