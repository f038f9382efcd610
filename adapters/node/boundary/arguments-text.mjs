// The model's tool-call arguments as JSON text, for runtimes whose model
// interface carries them as text (the AI SDK's `tool-call.input`, OpenAI's
// `function_call.arguments`, mastra's LanguageModelV2): shared by their
// shims (adapters/node/runtimes/*), so each writes the same text.

/**
 * The model's tool-call arguments as JSON text, the way providers hand them
 * to the SDK (LanguageModelV4ToolCall.input is a string). `JSON.stringify` is
 * used; only where it cannot run (V8 throws RangeError past a few thousand
 * nesting levels) an equivalent iterative encoder produces the same text, so
 * a 10^5-deep argument reaches the runtime instead of failing in the shim.
 */
export function argumentsText(value) {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyIteratively(value);
  }
}

function stringifyIteratively(root) {
  const out = [];
  // Work items: a value to encode, or a literal piece of text.
  const stack = [{ value: root }];
  while (stack.length > 0) {
    const item = stack.pop();
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const value = item.value;
    if (value === null || typeof value !== 'object') {
      out.push(JSON.stringify(value) ?? 'null');
      continue;
    }
    const pieces = [];
    if (Array.isArray(value)) {
      pieces.push({ text: '[' });
      for (let i = 0; i < value.length; i++) {
        if (i > 0) pieces.push({ text: ',' });
        pieces.push({ value: value[i] === undefined ? null : value[i] });
      }
      pieces.push({ text: ']' });
    } else {
      pieces.push({ text: '{' });
      let first = true;
      for (const key of Object.keys(value)) {
        if (value[key] === undefined) continue;
        if (!first) pieces.push({ text: ',' });
        first = false;
        pieces.push({ text: `${JSON.stringify(key)}:` });
        pieces.push({ value: value[key] });
      }
      pieces.push({ text: '}' });
    }
    for (let i = pieces.length - 1; i >= 0; i--) stack.push(pieces[i]);
  }
  return out.join('');
}
