// The layout of recorded files: JSON, indented down to the entries of an
// observation's lists (one trace entry, tool result or message per line), so
// that observation files diff line by line. Parsing gives the same value as
// JSON.stringify would; the layout is deterministic.

export function layout(value, inlineDepth = 5, depth = 0, indent = '') {
  const flat = JSON.stringify(value);
  if (value === null || typeof value !== 'object' || depth >= inlineDepth || flat.length <= 60) return flat;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => inner + layout(v, inlineDepth, depth + 1, inner)).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return '{}';
  return `{\n${keys
    .map((k) => `${inner}${JSON.stringify(k)}: ${layout(value[k], inlineDepth, depth + 1, inner)}`)
    .join(',\n')}\n${indent}}`;
}
