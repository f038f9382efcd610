#!/usr/bin/env node
// Golden data for the pipeline suite's Rust reference of argument
// validation (contract/pipeline/src/validation/): every case below is run
// through the real pi-ai 0.85.0 `validateToolArguments` with the real
// TypeBox 1.3.7, both taken from the pi-agent-core 0.85 runtime's
// node_modules, and the outcome is written to
// contract/pipeline/tests/data/pipeline-validation-0.85.json, which
// contract/pipeline/tests/pipeline_validation.rs replays byte for byte.
//
// Rerun (after `npm ci` in adapters/node/runtimes/pi-agent-core-0.85):
//
//   node adapters/node/pipeline/typebox-golden.mjs
//
// Each entry: {name, typebox, tool, schema, arguments, result}. `schema` is
// the schema as JSON; for TypeBox-built schemas each node also carries its
// `~kind` (and `~optional`), which TypeBox keeps non-enumerable and
// `JSON.stringify` would drop, because pi's `Value.Convert` dispatches on
// it. The script checks, for every TypeBox case, that the same JSON parsed
// back into a plain object (with `~kind` now an ordinary key) gives the
// identical outcome, so the marker carries exactly what the real schema
// carries. `result` is {ok: value, json: JSON.stringify(value)} or
// {error: text}. Values JSON cannot carry (undefined, NaN, Infinity,
// BigInt, -0 as an argument) are left out of the cases.

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, '..', 'runtimes', 'pi-agent-core-0.85', 'node_modules');
const out = join(here, '..', '..', '..', 'contract', 'pipeline', 'tests', 'data', 'pipeline-validation-0.85.json');

const { validateToolArguments } = await import(
  pathToFileURL(join(modules, '@earendil-works', 'pi-ai', 'dist', 'utils', 'validation.js')).href
);
const { Type: T } = await import(pathToFileURL(join(modules, 'typebox', 'build', 'index.mjs')).href);

// ---------------------------------------------------------------------------
// cases: [name, schema, arguments, tool?]; a schema with `~kind` is TypeBox's
// ---------------------------------------------------------------------------

const cases = [];
const add = (name, schema, args, tool = 'probe') => cases.push({ name, schema, args, tool });
/** One property `p` of the given TypeBox schema, required. */
const one = (schema, value, name) => add(name, T.Object({ p: schema }), { p: value });
/** The same as plain JSON Schema. */
const plain = (schema, value, name) =>
  add(name, { type: 'object', properties: { p: schema }, required: ['p'] }, { p: value });

// String (TryString)
for (const [v, n] of [
  ['x', 'string kept'], [5, 'number to string'], [1.5, 'fraction to string'], [true, 'true to string'],
  [false, 'false to string'], [null, 'required null to "null"'], [{ a: 1 }, 'object is not a string'],
  [[1], 'array is not a string'], [1e21, '1e21 to string'], [1e-7, '1e-7 to string'],
  [123456789012345680000, 'large number to string'], [0.1, '0.1 to string'], [-5, 'negative to string'],
]) one(T.String(), v, `typebox string: ${n}`);

// Number (TryNumber)
for (const [v, n] of [
  ['5', '"5"'], [' 7 ', 'padded'], ['', 'empty is 0'], ['  ', 'blank is 0'], ['1e3', 'exponent'],
  ['0x10', 'hex'], ['0b101', 'binary'], ['0o17', 'octal'], ['5.5', 'fraction'], ['true', '"true" is 1'],
  ['FALSE', '"FALSE" is 0'], ['True', '"True" is 1'], ['12n', 'bigint text'], ['-12n', 'negative bigint text'],
  ['99999999999999999n', 'bigint text past safe integers'], ['abc', 'not numeric'], ['Infinity', 'Infinity'],
  ['-Infinity', '-Infinity'], [[5], 'array'], [{}, 'object'], [null, 'required null is 0'], [true, 'true is 1'],
  [false, 'false is 0'], ['1_000', 'separator'], ['.5', 'leading dot'], ['5.', 'trailing dot'], ['+5', 'plus sign'],
  ['-0x10', 'signed hex'], ['\t8\n', 'tab and newline'], ['1e400', 'overflow'], ['1e21', 'to 1e21'],
  ['0.1', '0.1'], [' true', 'padded true'], ['\u00a08', 'no-break space'], ['0n', '0n'],
]) one(T.Number(), v, `typebox number: ${n}`);

// Integer (TryNumber then Math.trunc)
for (const [v, n] of [
  [5.5, '5.5 truncated'], ['5.5', '"5.5" truncated'], [-5.5, '-5.5 truncated'], ['true', '"true" is 1'],
  [true, 'true is 1'], [null, 'required null is 0'], ['abc', 'not numeric'], ['-0.5', 'negative fraction'],
  [1e300, 'huge integer'], ['7', '"7"'], [[1], 'array'],
]) one(T.Integer(), v, `typebox integer: ${n}`);

// Boolean (TryBoolean)
for (const [v, n] of [
  ['true', '"true"'], ['false', '"false"'], ['TRUE', '"TRUE"'], ['False', '"False"'], ['1', '"1"'], ['0', '"0"'],
  [1, '1'], [0, '0'], [2, '2'], ['yes', '"yes"'], [null, 'required null is false'], [-1, '-1'], ['tRuE', '"tRuE"'],
  [' true', 'padded'], [{}, 'object'],
]) one(T.Boolean(), v, `typebox boolean: ${n}`);

// Null (TryNull)
for (const [v, n] of [
  [null, 'null'], ['', '""'], ['0', '"0"'], ['null', '"null"'], ['NULL', '"NULL"'], ['undefined', '"undefined"'],
  [0, '0'], [false, 'false'], [true, 'true'], ['x', '"x"'], [1, '1'], [[], 'array'],
]) one(T.Null(), v, `typebox null: ${n}`);

// Array (TryArray wraps, items converted)
one(T.Array(T.String()), 'x', 'typebox array: string wrapped');
one(T.Array(T.String()), ['a', 1], 'typebox array: items converted');
one(T.Array(T.String()), null, 'typebox array: required null wrapped then "null"');
one(T.Array(T.String()), '["a"]', 'typebox array: JSON text not parsed');
one(T.Array(T.Object({ n: T.Number() })), { n: '4' }, 'typebox array: object wrapped and converted');
one(T.Array(T.String()), [], 'typebox array: empty');
one(T.Array(T.Number()), [true, null, '3', 'x'], 'typebox array: item error path');
one(T.Array(T.Array(T.Integer())), 5.5, 'typebox array: nested wrap');
one(T.Array(T.String(), { minItems: 2 }), ['a'], 'typebox array: minItems');
one(T.Array(T.String(), { maxItems: 1 }), ['p', 'q'], 'typebox array: maxItems');
one(T.Array(T.String(), { minItems: 1 }), 'x', 'typebox array: wrapped meets minItems');
one(T.Array(T.String(), { minItems: 2, maxItems: 3 }), [1, 2, 3, 4], 'typebox array: items converted, too many');

// Object
add('typebox object: nested conversion', T.Object({ o: T.Object({ inner: T.Number() }) }), { o: { inner: '3' } });
add('typebox object: not an object', T.Object({ o: T.Object({ inner: T.Number() }) }), { o: 'x' });
add('typebox object: array is not an object', T.Object({ o: T.Object({}) }), { o: [] });
add('typebox object: root string', T.Object({ a: T.String() }), 'abc');
add('typebox object: root array', T.Object({ a: T.String() }), []);
add('typebox object: root null', T.Object({ a: T.String() }), null);
add('typebox object: root number', T.Object({ a: T.String() }), 5);
add('typebox object: two missing required', T.Object({ a: T.String(), b: T.Number() }), {});
add('typebox object: missing plus wrong type', T.Object({ p: T.String(), q: T.Number() }), { q: 'zz' });
add('typebox object: seed example', T.Object({ path: T.String(), offset: T.Optional(T.Number()) }), { offset: 20 }, 'ok');
add('typebox object: nested missing required', T.Object({ edits: T.Array(T.Object({ oldText: T.String(), newText: T.String() })) }), { edits: [{ oldText: 'a', newText: 'b' }, { oldText: 'c' }] });
add('typebox object: deep path', T.Object({ a: T.Object({ b: T.Object({ c: T.Array(T.Object({ d: T.Number() })) }) }) }), { a: { b: { c: [{ d: 1 }, { d: 'x' }] } } });
add('typebox object: key with slash', T.Object({ 'a/b': T.Number() }), { 'a/b': 'x' });
add('typebox object: key with slash converted', T.Object({ 'a/b': T.Number() }), { 'a/b': '5' });
add('typebox object: key with space and tilde', T.Object({ 'a b': T.Number(), '~t': T.Boolean() }), { 'a b': [], '~t': 'no' });
add('typebox object: leading slash key', T.Object({ '/x': T.Number() }), { '/x': 'y' });
add('typebox object: extra keys kept', T.Object({ a: T.Number() }), { a: '1', zz: '2', b: null });
add('typebox object: integer-like keys', T.Object({ 10: T.Number(), 2: T.String(), b: T.Boolean() }), { b: 'true', 10: '1', 2: 2 });
add('typebox object: more than eight errors', T.Object(Object.fromEntries('abcdefghij'.split('').map(k => [k, T.Number()]))), Object.fromEntries('abcdefghij'.split('').map(k => [k, 'x'])));
add('typebox object: eight errors plus required', T.Object(Object.fromEntries('abcdefghij'.split('').map(k => [k, T.Number()]))), Object.fromEntries('abcdefgh'.split('').map(k => [k, 'x'])));
add('typebox object: received arguments escaped', T.Object({ n: T.Number() }), { n: 'a"b\\c\n\u0001é', z: [{}, [], [1, [2]]] });
add('typebox object: tool name with quote', T.Object({ n: T.Number() }), { n: 'x' }, 'read "x"');
add('typebox object: any', T.Object({ a: T.Any(), b: T.Unknown() }), { a: [1, { b: null }], b: 'x' });
add('typebox object: optional any null kept', T.Object({ a: T.Optional(T.Any()) }), { a: null });

// additionalProperties
add('typebox additional false: extra key', T.Object({ a: T.Optional(T.String()) }, { additionalProperties: false }), { a: 'x', b: 1 });
add('typebox additional false: all required, extra key', T.Object({ a: T.String() }, { additionalProperties: false }), { a: 'x', b: 1 });
add('typebox additional false: nested', T.Object({ o: T.Object({ a: T.String() }, { additionalProperties: false }) }), { o: { a: 'x', z: 1 } });
add('typebox additional false: also wrong type', T.Object({ a: T.Number() }, { additionalProperties: false }), { a: 'x', b: 1 });
add('typebox additional schema: no declared property, pi converts', T.Object({}, { additionalProperties: T.Number() }), { x: '5' });
add('typebox additional schema: no declared property, "true"', T.Object({}, { additionalProperties: T.Number() }), { x: 'true' });
add('typebox additional schema: one declared property, "true"', T.Object({ a: T.String() }, { additionalProperties: T.Number() }), { a: 1, x: 'true' });
add('typebox additional schema: declared key converted by another entry', T.Object({ a: T.Union([T.String(), T.Number()]), b: T.String() }, { additionalProperties: T.Number() }), { a: '5', b: 'x' });
add('typebox additional schema: invalid extra', T.Object({ a: T.String() }, { additionalProperties: T.Number() }), { a: 'x', x: 'y' });
add('typebox additional schema: integer-like extra keys', T.Object({ a: T.String() }, { additionalProperties: T.String() }), { 10: 1, a: 'x', 2: true });
add('typebox additional schema: boolean extra', T.Object({ a: T.String(), b: T.String() }, { additionalProperties: T.Boolean() }), { a: 'x', b: 'y', c: 'TRUE' });
add('typebox additional true', T.Object({ a: T.String() }, { additionalProperties: true }), { a: 5, b: 'x' });

// Union
one(T.Union([T.Number(), T.Boolean()]), 'true', 'typebox union: number first');
one(T.Union([T.Boolean(), T.Number()]), 'true', 'typebox union: boolean first');
one(T.Union([T.String(), T.Null()]), 5, 'typebox union: string or null, number');
one(T.Union([T.String(), T.Null()]), '', 'typebox union: string or null, empty string');
one(T.Union([T.String(), T.Null()]), null, 'typebox union: string or null, required null');
one(T.Union([T.Null(), T.String()]), '', 'typebox union: null or string, empty string');
one(T.Union([T.Number(), T.Null()]), 'abc', 'typebox union: no member converts');
one(T.Union([T.Literal('a'), T.Literal('b')]), 'c', 'typebox union: literal union');
one(T.Union([T.Literal('a'), T.Literal('b')]), 5, 'typebox union: literal union, number');
one(T.Union([T.Literal('a'), T.Literal('b')]), 'A', 'typebox union: literal union, case');
one(T.Union([T.Integer(), T.String()]), 5.5, 'typebox union: integer truncates');
one(T.Union([T.Literal(1), T.Literal(2)]), '2', 'typebox union: number literals');
one(T.Union([T.Object({ kind: T.Literal('a'), x: T.Number() }), T.Object({ kind: T.Literal('b'), y: T.String() })]), { kind: 'b', y: 5 }, 'typebox union: objects, second converts');
one(T.Union([T.Object({ a: T.Number() }), T.String()]), { a: 'x' }, 'typebox union: nested errors');
one(T.Union([T.Array(T.String()), T.Number()]), '7', 'typebox union: array first wraps');
one(T.Union([T.Number(), T.Array(T.String())]), 'x', 'typebox union: number fails, array wraps');
one(T.Union([T.Boolean(), T.Null()]), 0, 'typebox union: boolean before null');
one(T.Union([T.Null(), T.Boolean()]), 0, 'typebox union: null before boolean');
one(T.Union([T.String({ minLength: 3 }), T.Number()]), 'ab', 'typebox union: member constraint');
add('typebox union: optional nullable null kept', T.Object({ u: T.Optional(T.Union([T.String(), T.Null()])) }), { u: null });
add('typebox union: optional null deleted', T.Object({ u: T.Optional(T.Union([T.String(), T.Number()])), v: T.Number() }), { u: null, v: 1 });

// Literal
for (const [lit, v, n] of [
  [5, '5', 'number from string'], [true, 'true', 'true from string'], ['a', 'A', 'no case folding'],
  [5, '5.0', 'number from "5.0"'], ['5', 5, 'string from number'], [false, 0, 'false from 0'], [1, true, 'one from true'],
  ['null', null, '"null" from required null'], [0, null, '0 from required null'], [true, 'yes', 'no match'],
  ['a', 'a', 'equal'], [2, 3, 'other number'],
]) one(T.Literal(lit), v, `typebox literal: ${n}`);
add('typebox literal: optional null deleted', T.Object({ l: T.Optional(T.Literal('a')) }), { l: null });

// Enum
one(T.Enum(['a', 'b']), 'c', 'typebox enum: no match');
one(T.Enum(['1', '2']), 1, 'typebox enum: string from number');
one(T.Enum([1, 2]), '2', 'typebox enum: number from string');
one(T.Enum(['a', 'b']), 'b', 'typebox enum: match');

// Optional nulls
add('typebox optional null: string deleted', T.Object({ a: T.Optional(T.String()), b: T.String() }), { a: null, b: 'x' });
add('typebox optional null: order kept', T.Object({ a: T.String(), b: T.Optional(T.Number()), c: T.String() }), { a: 'x', b: null, c: 'y' });
add('typebox optional null: inside array items', T.Object({ e: T.Array(T.Object({ x: T.Optional(T.Number()), y: T.Number() })) }), { e: [{ x: null, y: '1' }, { x: 2, y: 3 }] });
add('typebox optional null: null item not touched', T.Object({ e: T.Array(T.Optional(T.String())) }), { e: [null, 'a'] });
add('typebox optional null: object deleted', T.Object({ o: T.Optional(T.Object({ a: T.String() })) }), { o: null });
add('typebox required null: object error', T.Object({ o: T.Object({ a: T.String() }) }), { o: null });
add('typebox required null: boolean', T.Object({ b: T.Boolean() }), { b: null });
add('typebox optional null: nullable via plain anyOf kept', T.Object({ n: T.Optional(T.Union([T.Number(), T.Null()])) }), { n: null });

// min/max
one(T.String({ minLength: 3 }), 'ab', 'typebox minLength');
one(T.String({ maxLength: 2 }), 'abc', 'typebox maxLength');
one(T.String({ minLength: 2, maxLength: 1 }), 'ab', 'typebox maxLength before minLength');
one(T.String({ minLength: 2 }), 'e\u0301', 'typebox minLength: combining mark is one grapheme');
one(T.String({ maxLength: 1 }), '\u{1F44D}', 'typebox maxLength: astral is one grapheme');
one(T.String({ maxLength: 1 }), '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}', 'typebox maxLength: ZWJ family is one');
one(T.String({ maxLength: 1 }), '\u{1F1EB}\u{1F1F7}', 'typebox maxLength: flag is one');
one(T.String({ maxLength: 1 }), '\u{1F44D}\u{1F3FD}', 'typebox maxLength: skin tone is two');
one(T.String({ minLength: 3 }), 'a\uFE0Fbc', 'typebox minLength: selector joins');
one(T.String({ maxLength: 0 }), '', 'typebox maxLength 0, empty');
one(T.String({ minLength: 3 }), 12, 'typebox minLength after conversion');
one(T.Number({ minimum: 10 }), 5, 'typebox minimum');
one(T.Number({ maximum: 3 }), 9, 'typebox maximum');
one(T.Number({ exclusiveMinimum: 0 }), 0, 'typebox exclusiveMinimum');
one(T.Number({ exclusiveMaximum: 10 }), 10, 'typebox exclusiveMaximum');
one(T.Number({ minimum: 1.5 }), 1, 'typebox minimum 1.5');
one(T.Number({ minimum: 1e21 }), 1, 'typebox minimum 1e21');
one(T.Number({ minimum: 10 }), '5', 'typebox minimum after conversion');
one(T.Number({ minimum: 0, exclusiveMaximum: 0, maximum: -1, exclusiveMinimum: 5 }), 2, 'typebox number: all four');
one(T.Integer({ minimum: 5 }), '3.7', 'typebox integer minimum after truncation');
one(T.Number({ minimum: 10 }), 'x', 'typebox minimum not checked on a string');
add('typebox four constraints', T.Object({ a: T.Number({ maximum: 3 }), b: T.Number({ exclusiveMinimum: 0 }), c: T.Array(T.String(), { maxItems: 1 }) }), { a: 9, b: 0, c: ['p', 'q'] });

// Root that is not an object schema
add('typebox root string: converted', T.String(), 5);
add('typebox root string: coerced but failing, returned unconverted', T.String({ minLength: 3 }), 5);
add('typebox root number: not numeric', T.Number(), 'abc');
add('typebox root number: converted', T.Number(), '5');
add('typebox root array: strings', T.Array(T.String()), [1, 'a']);
add('typebox root array: integer not truncated', T.Array(T.Integer()), [5.5]);
add('typebox root array: not wrapped', T.Array(T.String()), 'x');
add('typebox root array: objects converted in place', T.Array(T.Object({ n: T.Integer() })), [{ n: 5.5 }]);
add('typebox root union: object converted by pi', T.Union([T.Object({ n: T.Number() })]), { n: '5' });
add('typebox root union: integer not truncated', T.Union([T.Object({ n: T.Integer() })]), { n: 5.5 });

// Plain JSON Schema: pi's coerceWithJsonSchema only
for (const [s, v, n] of [
  [{ type: 'string' }, null, 'string null is ""'], [{ type: 'string' }, 5, 'string from number'],
  [{ type: 'string' }, { a: 1 }, 'string from object'], [{ type: 'number' }, '', 'number ""'],
  [{ type: 'number' }, '   ', 'number blank'], [{ type: 'number' }, 'true', 'number "true"'],
  [{ type: 'number' }, '0x10', 'number hex'], [{ type: 'number' }, ' 7 ', 'number padded'],
  [{ type: 'number' }, true, 'number from true'], [{ type: 'number' }, null, 'number null'],
  [{ type: 'number' }, '12n', 'number bigint text'], [{ type: 'integer' }, '5.5', 'integer "5.5"'],
  [{ type: 'integer' }, 5.5, 'integer 5.5'], [{ type: 'integer' }, '6', 'integer "6"'],
  [{ type: 'integer' }, false, 'integer false'], [{ type: 'boolean' }, 'TRUE', 'boolean "TRUE"'],
  [{ type: 'boolean' }, '1', 'boolean "1"'], [{ type: 'boolean' }, 'true', 'boolean "true"'],
  [{ type: 'boolean' }, 0, 'boolean 0'], [{ type: 'boolean' }, null, 'boolean null'],
  [{ type: 'null' }, '', 'null ""'], [{ type: 'null' }, 0, 'null 0'], [{ type: 'null' }, false, 'null false'],
  [{ type: 'null' }, 'null', 'null "null"'], [{ type: 'array', items: { type: 'string' } }, 'x', 'array not wrapped'],
  [{ type: 'array', items: { type: 'number' } }, ['1', 'x'], 'array items'],
  [{ type: ['string', 'number'] }, true, 'type list, true'], [{ type: ['string', 'number'] }, null, 'type list, null'],
  [{ type: ['string', 'number'] }, [1], 'type list, array'], [{ type: ['number', 'string'] }, '5', 'type list, matches'],
  [{ type: ['integer', 'boolean'] }, 'true', 'type list, second type'],
  [{ type: ['null', 'string'] }, 0, 'type list, null first'],
  [{ anyOf: [{ type: 'number' }, { type: 'boolean' }] }, 'true', 'anyOf number first'],
  [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, 5, 'anyOf string or null'],
  [{ anyOf: [{ type: 'number' }, { type: 'null' }] }, 'x', 'anyOf no member'],
  [{ const: 'a' }, 'A', 'const'], [{ type: 'string', const: 'a' }, 5, 'typed const'],
  [{ enum: ['a', 'b'] }, 'c', 'enum'], [{ enum: [1, 'x', null, true] }, null, 'enum with null'],
  [{ type: 'string', minLength: 2 }, 5, 'minLength after coercion'],
  [{ type: 'number', minimum: 1, maximum: 0 }, '0.5', 'minimum and maximum'],
  [{}, 'anything', 'empty schema'], [{ type: 'string', description: 'd', title: 't', default: 'x' }, 1, 'annotations'],
  [{ type: 'object', properties: { a: { type: 'number' } } }, { a: '1', b: '2' }, 'nested object'],
  [{ type: 'object', properties: { a: { type: 'number' } }, additionalProperties: { type: 'boolean' } }, { a: '1', b: 'true', c: 1 }, 'additionalProperties schema'],
  [{ type: 'object', properties: {}, additionalProperties: false }, { b: 1 }, 'additionalProperties false'],
  [{ type: 'object' }, 'x', 'object from string'],
]) plain(s, v, `plain ${n}`);
add('plain: two missing required', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a', 'b'] }, {});
add('plain: required empty key', { type: 'object', properties: {}, required: [''] }, {});
add('plain: required empty key second', { type: 'object', properties: {}, required: ['x', ''] }, {});
add('plain: duplicate required, unknown validation error', { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a', 'a'], additionalProperties: false }, { a: 'x' });
add('plain: key with dot', { type: 'object', properties: { 'a.b': { type: 'number' } } }, { 'a.b': 'x' });
add('plain: key with regexp characters converted', { type: 'object', properties: { 'a(b)*': { type: 'number' } } }, { 'a(b)*': '5' });
add('plain: optional null deleted', { type: 'object', properties: { a: { type: 'string' } } }, { a: null });
add('plain: optional nullable kept', { type: 'object', properties: { a: { type: ['string', 'null'] } } }, { a: null });
add('plain: optional anyOf nullable kept', { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }, { a: null });
add('plain: no type, properties not coerced', { properties: { a: { type: 'number' } } }, { a: '5' });
add('plain: array items objects', { type: 'object', properties: { e: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } } }, { e: [{ n: '1' }, { n: '1.5' }, {}] });
add('plain: root string coerced', { type: 'string' }, 5);
add('plain: root string null', { type: 'string' }, null);
add('plain: root integer failing coercion', { type: 'integer', minimum: 10 }, '5');
add('plain: root array', { type: 'array', items: { type: 'number' } }, ['1', '2']);
add('plain: root anyOf objects', { anyOf: [{ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, { type: 'object', properties: { b: { type: 'boolean' } }, required: ['b'] }] }, { b: 'true' });
add('plain: nested anyOf path', { type: 'object', properties: { u: { anyOf: [{ type: 'object', properties: { a: { type: 'number' } } }, { type: 'string' }] } } }, { u: { a: 'x' } });
add('plain: integer-like keys', { type: 'object', properties: { b: { type: 'string' }, 1: { type: 'string' } } }, { b: 1, 1: 2 });

// ---------------------------------------------------------------------------

/** The schema as JSON, with the hidden `~` keys TypeBox sets made visible. */
function visible(schema) {
  if (Array.isArray(schema)) return schema.map(visible);
  if (schema === null || typeof schema !== 'object') return schema;
  const out = {};
  for (const key of Object.getOwnPropertyNames(schema)) {
    const d = Object.getOwnPropertyDescriptor(schema, key);
    if (d.enumerable || key.startsWith('~')) out[key] = visible(schema[key]);
  }
  return out;
}

function run(schema, args, tool) {
  try {
    const value = validateToolArguments({ name: tool, parameters: schema }, { name: tool, arguments: structuredClone(args) });
    return { ok: value, json: JSON.stringify(value) };
  } catch (e) {
    return { error: e.message };
  }
}

const names = new Set();
const entries = cases.map(({ name, schema, args, tool }) => {
  if (names.has(name)) throw new Error(`duplicate case name ${name}`);
  names.add(name);
  const typebox = Object.getOwnPropertyNames(schema).includes('~kind');
  const json = visible(schema);
  const result = run(schema, args, tool);
  if (typebox) {
    // the marker check: the same JSON, `~kind` enumerable, same outcome
    const again = run(JSON.parse(JSON.stringify(json)), args, tool);
    if (JSON.stringify(again) !== JSON.stringify(result)) {
      throw new Error(`case ${name}: the JSON with ~kind gives ${JSON.stringify(again)}, the TypeBox schema ${JSON.stringify(result)}`);
    }
  }
  return { name, typebox, tool, schema: json, arguments: args, result };
});

writeFileSync(out, JSON.stringify(entries, null, 1) + '\n');
const failures = entries.filter(e => 'error' in e.result).length;
console.log(`${entries.length} cases (${entries.filter(e => e.typebox).length} TypeBox, ${failures} rejected) -> ${out}`);
