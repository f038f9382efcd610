// Module resolution hooks for `adapter.mjs --install <folder>` (registered
// with node:module's `register`): a bare specifier imported by the shims'
// own files (under adapters/node/runtimes/, outside any node_modules) is
// resolved from the install folder instead of the shim's, so that the same
// shim drives another version of its runtime. Everything the runtime's
// packages import resolves from where they are, as always.

let shims;
let install;

export async function initialize(data) {
  shims = data.shims;
  install = data.install;
}

const bare = (specifier) => !/^(\.{0,2}\/|[a-zA-Z][a-zA-Z0-9+.-]*:)/.test(specifier);

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (bare(specifier) && parent?.startsWith(shims) && !parent.includes('/node_modules/')) {
    // resolved as if imported by a file at the install folder's root
    return nextResolve(specifier, { ...context, parentURL: new URL('toolgate-install.mjs', install).href });
  }
  return nextResolve(specifier, context);
}
