// toolgate runtime shim: @earendil-works/pi-agent-core 1.6.0, through the
// shim both pi versions share (../pi-shim.mjs), over this folder's packages.

import { runAgentLoop } from "@earendil-works/pi-agent-core";
import { createAssistantMessageEventStream } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { piShim } from "../pi-shim.mjs";

export const runtime = {
  id: "pi-agent-core-1.6",
  package: "@earendil-works/pi-agent-core",
  version: "1.6.0",
  path: "runAgentLoop with a scripted streamFn (pi-ai createAssistantMessageEventStream)",
};

export const { notApplicable, runTurn } = piShim({
  runAgentLoop,
  createAssistantMessageEventStream,
  Type,
  contextBase: {},
});
