// The layout of recorded files: JSON, indented down to the entries of an
// observation's lists (one trace entry, tool result or message per line), so
// that observation files and case files diff line by line. Parsing gives the
// same value as JSON.stringify would; the layout is deterministic.

/**
 * `value` as JSON text: objects and arrays are broken over lines (2-space
 * indent, `indent` before each nested line) down to `inlineDepth` levels
 * below the value; anything deeper, or whose one-line form is at most
 * `width` characters, stays on one line.
 */
export function layout(value, inlineDepth = 5, depth = 0, indent = '', width = 60) {
  const flat = JSON.stringify(value);
  if (value === null || typeof value !== 'object' || depth >= inlineDepth || flat.length <= width) return flat;
  const inner = `${indent}  `;
  const nested = (v) => layout(v, inlineDepth, depth + 1, inner, width);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => inner + nested(v)).join(',\n')}\n${indent}]`;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return '{}';
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${nested(value[k])}`).join(',\n')}\n${indent}}`;
}

/**
 * A case file (`{suite, group, description, cases}`) as text: 2-space JSON,
 * each case's fields on their own lines, the scenario broken down to its
 * tools' fields, scripts and model blocks, the expectation with one trace
 * entry (tool result, message) per line. Ends with a newline.
 */
export function layoutCaseFile(file) {
  const field = (indent, k, text) => `${indent}${JSON.stringify(k)}: ${text}`;
  const caseText = (c) => {
    const i = '      ';
    const lines = Object.keys(c).map((k) => {
      if (k === 'scenario') return field(i, k, layout(c[k], 5, 0, i, 100));
      if (k === 'expect') return field(i, k, layout(c[k], 2, 0, i, 60));
      return field(i, k, JSON.stringify(c[k]));
    });
    return `    {\n${lines.join(',\n')}\n    }`;
  };
  const top = Object.keys(file).map((k) => {
    if (k !== 'cases') return field('  ', k, JSON.stringify(file[k]));
    if (file.cases.length === 0) return field('  ', k, '[]');
    return field('  ', k, `[\n${file.cases.map(caseText).join(',\n')}\n  ]`);
  });
  return `{\n${top.join(',\n')}\n}\n`;
}
