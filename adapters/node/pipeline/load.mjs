// Loads one installed pi version for the pipeline harness: the packages are
// imported by path from a folder holding `node_modules` (the runtime folders
// adapters/node/runtimes/pi-agent-core-0.85 and pi-agent-core-1.6), nothing
// is copied or modified. Returns what `observePipeline` needs of pi, and the
// file queues `observeFileQueue` drives (file-queue.mjs): pi-coding-agent's
// `withFileMutationQueue` when the folder has pi-coding-agent, and
// pi-agent-core's harness queue with its `NodeExecutionEnv` where the
// install has them (0.85.0; internal files, imported by path).

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const here = path.dirname(new URL(import.meta.url).pathname);

/** The runtime folders this repository installs, by short name. */
export const INSTALLS = {
  '0.85': path.resolve(here, '../runtimes/pi-agent-core-0.85'),
  '1.6': path.resolve(here, '../runtimes/pi-agent-core-1.6'),
};

/** The install folder of `root` (a folder with node_modules, or a key of INSTALLS). */
export function installFolder(root) {
  return INSTALLS[root] ?? path.resolve(root);
}

/**
 * The file queues of the install in `folder`: `{codingAgent?, codingAgentVersion?,
 * harness?, NodeExecutionEnv?}`. `codingAgent` is
 * `@earendil-works/pi-coding-agent/dist/core/tools/file-mutation-queue.js`'s
 * `withFileMutationQueue(path, fn)` (absent without pi-coding-agent);
 * `harness` is `@earendil-works/pi-agent-core/dist/harness/tools/file-mutation-queue.js`'s
 * `withFileMutationQueue(env, path, fn, context)` and `NodeExecutionEnv`
 * comes from `dist/harness/env/nodejs.js`: both or neither (1.6.0 has none).
 */
export async function loadFileQueues(folder) {
  const nm = (p) => path.join(folder, 'node_modules', p);
  const importIfThere = async (p) => (fs.existsSync(nm(p)) ? import(pathToFileURL(nm(p)).href) : undefined);
  const queues = {};
  const ca = await importIfThere('@earendil-works/pi-coding-agent/dist/core/tools/file-mutation-queue.js');
  if (typeof ca?.withFileMutationQueue === 'function') {
    queues.codingAgent = ca.withFileMutationQueue;
    queues.codingAgentVersion = JSON.parse(fs.readFileSync(nm('@earendil-works/pi-coding-agent/package.json'), 'utf8')).version;
  }
  const harness = await importIfThere('@earendil-works/pi-agent-core/dist/harness/tools/file-mutation-queue.js');
  const env = await importIfThere('@earendil-works/pi-agent-core/dist/harness/env/nodejs.js');
  if (typeof harness?.withFileMutationQueue === 'function' && typeof env?.NodeExecutionEnv === 'function') {
    queues.harness = harness.withFileMutationQueue;
    queues.NodeExecutionEnv = env.NodeExecutionEnv;
  }
  return queues;
}

/**
 * `{ version, runAgentLoop, createAssistantMessageEventStream, Type, contextBase, fileQueues }`
 * for the install in `root` (a folder with node_modules, or a key of INSTALLS).
 */
export async function loadPi(root) {
  const folder = installFolder(root);
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
    fileQueues: await loadFileQueues(folder),
  };
}
