// Deliberate breakages of toolgate-workspace.mjs, for checking that the
// `workspace` suite catches them. mutants.json lists them as data ({id,
// description, requirements}: the WS-* ids the gate must name); this module
// implements each one without copying the implementation: by replacing one
// named part of it (toolgate-workspace.mjs PARTS: the type check, the
// containment test, the existence probe of a path to create, which errors
// walk up, the realpath of the checked path, read's truncation, bash's
// failure result), by wrapping the tools it builds, or by replacing the
// approval hook the harness consults.
//
//   import { implementationOf } from './mutants.mjs';
//   const { createTools, policies } = implementationOf('prefix-boundary');
//   await observeWorkspace(createTools, scenario, { policies });

import fs from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  MAX_READ_CHARS,
  READ_HEAD_CHARS,
  READ_TAIL_CHARS,
  allowAll,
  asObject,
  createWorkspaceTools,
  failure,
  stringField,
} from './toolgate-workspace.mjs';

/** The mutants as data: `[{id, description, requirements}]`. */
export const MUTANTS = JSON.parse(fs.readFileSync(new URL('./mutants.json', import.meta.url), 'utf8'));

/** Each tool with its `execute` replaced by `wrap(execute, tool)`. */
const wrapExecute = (wrap) => (tools) => tools.map((tool) => ({ ...tool, execute: wrap(tool.execute.bind(tool), tool) }));

/** read's truncation measured in UTF-8 bytes (head and tail decoded from byte slices). */
function truncateBytes(content) {
  const bytes = Buffer.from(content, 'utf8');
  if (bytes.length <= MAX_READ_CHARS) return content;
  const head = bytes.subarray(0, READ_HEAD_CHARS).toString('utf8');
  const tail = bytes.subarray(bytes.length - READ_TAIL_CHARS).toString('utf8');
  return `${head}\n[truncated ${bytes.length - MAX_READ_CHARS} characters]\n${tail}`;
}

/**
 * Implementations by id. Each may have:
 *   parts     replacements of toolgate-workspace.mjs PARTS;
 *   tools     (tools) → the tools the harness gets;
 *   policies  replacements of the approval hooks ({allowAll, denyBashByDefault}).
 */
const IMPLEMENTATIONS = {
  'lexical-boundary': {
    parts: { canonical: async (checked) => checked },
  },

  'prefix-boundary': {
    parts: { isInside: (root, path) => path.startsWith(root) },
  },

  'ancestor-on-any-error': {
    // the first catch of workspacePath only: nearestExistingAncestor keeps
    // its ENOENT filter, as the seed's excerpt shows it
    parts: { walksUpOn: () => true },
  },

  'dangling-followed': {
    parts: { probe: stat },
  },

  'truncate-bytes': {
    parts: { truncateRead: truncateBytes },
  },

  'no-marker': {
    parts: {
      truncateRead: (content) =>
        content.length <= MAX_READ_CHARS ? content : `${content.slice(0, READ_HEAD_CHARS)}${content.slice(-READ_TAIL_CHARS)}`,
    },
  },

  'empty-string-refused': {
    parts: {
      stringField(input, field) {
        const value = stringField(input, field);
        return value === '' ? undefined : value;
      },
    },
  },

  'extra-fields-refused': {
    // answered as the tool answers an input of the wrong shape
    tools: wrapExecute((execute, tool) => (input, signal) => {
      const declared = tool.spec.inputSchema.properties;
      const object = asObject(input);
      if (object && Object.keys(object).some((k) => !Object.hasOwn(declared, k))) return execute(null, signal);
      return execute(input, signal);
    }),
  },

  'stdout-kept-on-failure': {
    parts: {
      bashFailure: (cause) => ({ content: `${failure(cause).content}${typeof cause?.stdout === 'string' ? cause.stdout : ''}`, isError: true }),
    },
  },

  'bash-approved-by-default': {
    policies: { denyBashByDefault: allowAll },
  },

  'throws-instead-of-result': {
    tools: wrapExecute((execute) => async (input, signal) => {
      const result = await execute(input, signal);
      if (result?.isError === true) throw new Error(result.content);
      return result;
    }),
  },
};

/** The ids this module implements (the test checks they are mutants.json's). */
export const IMPLEMENTED = Object.keys(IMPLEMENTATIONS);

/**
 * What the harness runs for mutant `id` (undefined: the faithful
 * implementation): `{createTools(root, interference), policies}`, for
 * `observeWorkspace(createTools, scenario, {policies})`.
 * `implementation` (tests only) replaces the registered one.
 */
export function implementationOf(id, implementation = id === undefined ? {} : IMPLEMENTATIONS[id]) {
  if (!implementation) throw new Error(`unknown mutant ${JSON.stringify(id)} (known: ${IMPLEMENTED.join(', ')})`);
  const { parts = {}, tools = (t) => t, policies = {} } = implementation;
  return {
    mutant: id,
    createTools: (root, interference) => tools(createWorkspaceTools(root, interference, parts)),
    policies,
  };
}
