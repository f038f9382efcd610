// Loads one installed pi version for the pipeline harness: the packages are
// imported by path from a folder holding `node_modules` (the runtime folders
// adapters/node/runtimes/pi-agent-core-0.85 and pi-agent-core-1.6), nothing
// is copied or modified. Returns what `observePipeline` needs of pi.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const here = path.dirname(new URL(import.meta.url).pathname);

/** The runtime folders this repository installs, by short name. */
export const INSTALLS = {
  '0.85': path.resolve(here, '../runtimes/pi-agent-core-0.85'),
  '1.6': path.resolve(here, '../runtimes/pi-agent-core-1.6'),
};

/**
 * `{ version, runAgentLoop, createAssistantMessageEventStream, Type, contextBase }`
 * for the install in `root` (a folder with node_modules, or a key of INSTALLS).
 */
export async function loadPi(root) {
  const folder = INSTALLS[root] ?? path.resolve(root);
  const nm = (p) => path.join(folder, 'node_modules', p);
  const url = (p) => pathToFileURL(nm(p)).href;
  const core = await import(url('@earendil-works/pi-agent-core/dist/index.js'));
  const ai = await import(url('@earendil-works/pi-ai/dist/index.js'));
  const typebox = await import(url('typebox/build/index.mjs'));
  const version = JSON.parse(fs.readFileSync(nm('@earendil-works/pi-agent-core/package.json'), 'utf8')).version;
  const major = Number(version.split('.')[0]);
  return {
    version,
    runAgentLoop: core.runAgentLoop,
    createAssistantMessageEventStream: ai.createAssistantMessageEventStream,
    Type: typebox.Type,
    // 0.85's AgentContext has a systemPrompt field; 1.6 replays it from
    // system messages and has none (as adapters/node/runtimes/pi-shim.mjs).
    contextBase: major >= 1 ? {} : { systemPrompt: '' },
  };
}
