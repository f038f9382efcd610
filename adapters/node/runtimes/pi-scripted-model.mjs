// The scripted model both pi drivers hand to pi's agent loop: the runtime
// shim (pi-shim.mjs, the boundary suite) and the pipeline harness
// (adapters/node/pipeline/observe.mjs). A model object as pi-ai's `Model`
// type has it (nothing reads it but the scripted streamFn), zero usage, and
// the assistant messages a provider would build, so that both drivers show
// pi the same model and a difference between them is never the model's.

/** Zero usage, as a provider reports it. */
export const USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** The model object passed in pi's loop config. */
export const MODEL = {
  id: 'toolgate-scripted',
  name: 'toolgate scripted model',
  api: 'toolgate-scripted',
  provider: 'toolgate',
  baseUrl: '',
  reasoning: false,
  input: ['text'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 1_000_000,
  maxTokens: 100_000,
};

/** An assistant message of the scripted model (`errorMessage` only when given). */
export function assistantMessage(content, stopReason, errorMessage) {
  return {
    role: 'assistant',
    content,
    api: MODEL.api,
    provider: MODEL.provider,
    model: MODEL.id,
    usage: USAGE,
    stopReason,
    ...(errorMessage === undefined ? {} : { errorMessage }),
    timestamp: Date.now(),
  };
}
