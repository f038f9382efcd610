// fs-tree.mjs: filesystem fixtures as data, shared by the harnesses that run
// tools on a real directory tree (the workspace suite's observe.mjs; its
// format is adapters/node/workspace/FORMAT.md, "tree"):
//
//   makeTree(base, [{path, kind: 'dir'|'file'|'symlink', content?, target?}])
//   snapshotTree(base) → the entries under base, in the observation's form
//
// Paths are relative to `base` and `/`-separated; a symlink's target has
// `$BASE` replaced by base's absolute path when made, and the other way
// round when read. Nothing here follows a symlink: a tree may hold links
// that point outside it, dangle or loop.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What a symlink target (and any string of a scenario) writes for the base's absolute path. */
export const BASE_VARIABLE = '$BASE';
/** A file's content is recorded as text up to this many bytes (and when it is valid UTF-8). */
export const MAX_TEXT_BYTES = 4096;
/** The most bytes one file's content may make (a guard against a runaway `repeat`). */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

const show = (v) => JSON.stringify(v) ?? String(v);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function refuse(message) {
  throw new Error(`tree: ${message}`);
}

/** `text` with every `$BASE` replaced by `base`. */
export function withBase(text, base) {
  return text.split(BASE_VARIABLE).join(base);
}

/** `text` with every occurrence of `base` written `$BASE`. */
export function withoutBase(text, base) {
  return text.split(base).join(BASE_VARIABLE);
}

/**
 * Whether `p` is a tree path: relative, `/`-separated, without `.`, `..` or
 * empty segments, without NUL.
 */
export function isTreePath(p) {
  return typeof p === 'string' && p !== '' && !p.includes('\0') && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

function checkString(s, at) {
  if (typeof s !== 'string') refuse(`${at}: a string, not ${show(s)}`);
  // JSON can carry a lone surrogate; UTF-8 cannot.
  if (!s.isWellFormed()) refuse(`${at}: a string with a lone surrogate cannot be written as UTF-8`);
  return s;
}

/**
 * The bytes of a file's content form: a string (UTF-8), `{repeat, times}`,
 * `{hex}` (raw bytes), or an array of these, concatenated; absent: empty.
 */
export function contentBytes(content, at = 'content') {
  if (content === undefined) return Buffer.alloc(0);
  let bytes;
  if (typeof content === 'string') {
    bytes = Buffer.from(checkString(content, at), 'utf8');
  } else if (Array.isArray(content)) {
    const parts = [];
    let size = 0;
    content.forEach((c, i) => {
      if (Array.isArray(c) || c === undefined) refuse(`${at}[${i}]: a string, {repeat, times} or {hex}, not ${show(c)}`);
      const b = contentBytes(c, `${at}[${i}]`);
      size += b.length;
      if (size > MAX_FILE_BYTES) refuse(`${at}: more than ${MAX_FILE_BYTES} bytes`);
      parts.push(b);
    });
    bytes = Buffer.concat(parts);
  } else if (isObject(content) && Object.hasOwn(content, 'repeat')) {
    const keys = Object.keys(content);
    if (keys.length !== 2 || !Object.hasOwn(content, 'times')) refuse(`${at}: {repeat, times} and nothing else, not ${show(content)}`);
    const piece = Buffer.from(checkString(content.repeat, `${at}.repeat`), 'utf8');
    const { times } = content;
    if (!Number.isSafeInteger(times) || times < 0) refuse(`${at}.times: a non-negative integer, not ${show(times)}`);
    if (piece.length * times > MAX_FILE_BYTES) refuse(`${at}: more than ${MAX_FILE_BYTES} bytes`);
    bytes = Buffer.alloc(piece.length * times);
    for (let i = 0; i < times; i += 1) piece.copy(bytes, i * piece.length);
  } else if (isObject(content) && Object.hasOwn(content, 'hex')) {
    if (Object.keys(content).length !== 1) refuse(`${at}: {hex} and nothing else, not ${show(content)}`);
    if (typeof content.hex !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(content.hex)) {
      refuse(`${at}.hex: an even number of hex digits, not ${show(content.hex)}`);
    }
    bytes = Buffer.from(content.hex, 'hex');
  } else {
    refuse(`${at}: a string, {repeat, times}, {hex} or an array of them, not ${show(content)}`);
  }
  if (bytes.length > MAX_FILE_BYTES) refuse(`${at}: more than ${MAX_FILE_BYTES} bytes`);
  return bytes;
}

/**
 * Checks tree entries before anything touches the disk; throws a clear
 * `tree: …` Error for an unknown kind or field, a path that is not a tree
 * path, a bad content or a symlink without a target string.
 */
export function checkTree(entries) {
  if (!Array.isArray(entries)) refuse(`an array of entries, not ${show(entries)}`);
  entries.forEach((e, i) => {
    const at = `[${i}]`;
    if (!isObject(e)) refuse(`${at}: an entry is {path, kind, …}, not ${show(e)}`);
    if (!isTreePath(e.path)) refuse(`${at}.path: ${show(e.path)} is not a relative path without ., .. or empty segments`);
    const allowed = { dir: ['path', 'kind'], file: ['path', 'kind', 'content'], symlink: ['path', 'kind', 'target'] }[e.kind];
    if (!allowed) refuse(`${at}.kind: ${show(e.kind)} is not dir, file or symlink`);
    for (const k of Object.keys(e)) if (!allowed.includes(k)) refuse(`${at}: a ${e.kind} has no field ${show(k)}`);
    if (e.kind === 'file') contentBytes(e.content, `${at}.content`);
    if (e.kind === 'symlink') {
      if (typeof e.target !== 'string' || e.target === '' || e.target.includes('\0')) refuse(`${at}.target: a non-empty string without NUL`);
    }
  });
  return entries;
}

/**
 * Makes `entries` under `base`, in order: a dir with `mkdir -p`, a file
 * (its parent must exist) with its content's bytes, a symlink to its target
 * with `$BASE` replaced by `base` (a relative target stays relative).
 */
export function makeTree(base, entries) {
  checkTree(entries);
  for (const e of entries) {
    const at = path.join(base, ...e.path.split('/'));
    if (e.kind === 'dir') fs.mkdirSync(at, { recursive: true });
    else if (e.kind === 'file') fs.writeFileSync(at, contentBytes(e.content), { flag: 'wx' });
    else fs.symlinkSync(withBase(e.target, base), at);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A file's bytes as the observation records them: `{content}` or `{size, sha256}`. */
export function fileRecord(bytes) {
  if (bytes.length <= MAX_TEXT_BYTES) {
    try {
      // ignoreBOM: a BOM is content (U+FEFF), not stripped
      return { content: utf8.decode(bytes) };
    } catch {
      // not UTF-8: recorded by size and digest
    }
  }
  return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** Compares two strings by the bytes of their UTF-8 forms. */
export function byUtf8(a, b) {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Every entry under `base`, walked without following symlinks, sorted by
 * the UTF-8 bytes of the paths: `{path, kind: 'dir'}`, `{path, kind:
 * 'file', content}` (valid UTF-8, at most 4096 bytes) or `{path, kind:
 * 'file', size, sha256}`, `{path, kind: 'symlink', target}` (its readlink,
 * with base's absolute path written `$BASE`). Anything else (a FIFO, a
 * socket) throws: the format has no kind for it.
 */
export function snapshotTree(base) {
  const out = [];
  const walk = (dir, prefix) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix === '' ? d.name : `${prefix}/${d.name}`;
      const at = path.join(dir, d.name);
      if (d.isSymbolicLink()) {
        out.push({ path: rel, kind: 'symlink', target: withoutBase(fs.readlinkSync(at), base) });
      } else if (d.isDirectory()) {
        out.push({ path: rel, kind: 'dir' });
        walk(at, rel);
      } else if (d.isFile()) {
        out.push({ path: rel, kind: 'file', ...fileRecord(fs.readFileSync(at)) });
      } else {
        throw new Error(`tree: ${rel} is neither a directory, a file nor a symlink`);
      }
    }
  };
  walk(base, '');
  return out.sort((a, b) => byUtf8(a.path, b.path));
}
