// The sandbox real file tools run in (real-adapter.mjs, race.mjs). A real
// tool may write where the seed refuses to, anywhere on the machine: pi's
// write has no boundary, and `/toolgate-no-such-top-xyz/a.txt` is a corpus
// path. So the adapter re-runs itself in its own mount namespace
// (`unshare`), with fresh tmpfs on every world-writable directory
// (PRIVATE_DIRS) and, as root, switched to uid/gid 65534 (nobody) by
// `setpriv`; without root, in a user namespace. There the process can write
// only to those private tmpfs, which vanish with it.
//
// The folders the process needs (the checkout, the script's folder, an
// install folder given with --install, node's own prefix when it lies in a
// private directory) are bound read-only at their own paths; one that lies
// under a private directory (a checkout in /tmp) is held open before the
// tmpfs hides it and bound back from that descriptor into the fresh tmpfs.
// When that cannot be done, or uid nobody cannot read a folder, the sandbox
// stops before the adapter starts (exit 70) with a message naming the
// folder and the fix.
//
// Inside, `privateState` / `privateChanges` compare the private directories
// before and after each case: what changed there, beyond the harness's own
// directory and the bound folders, was changed by the tool, outside `$BASE`
// and its parent.

import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const REPO = path.resolve(here, '../../..');
/** The world-writable directories the sandbox replaces with private tmpfs. */
export const PRIVATE_DIRS = ['/tmp', '/var/tmp', '/run/lock', '/dev/shm'];
/** The environment variable that tells the re-run process it is inside. */
export const INSIDE = 'TOOLGATE_WORKSPACE_SANDBOX';
/** The exit status of a sandbox that could not be set up. */
export const SANDBOX_FAILED = 70;
const NOBODY = 65534;

const realpath = (p) => {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

/** The private directory `p` lies in (or is), or undefined. */
export function privateDirOf(p) {
  return PRIVATE_DIRS.find((d) => p === d || p.startsWith(`${d}/`));
}

/**
 * The folders the sandboxed process must see (real paths, each once, none
 * inside another): the checkout, `folders` (the script's folder, an install
 * folder), and node's prefix when it lies in a private directory.
 */
export function sandboxFolders(folders = []) {
  const node = path.dirname(path.dirname(realpath(process.execPath)));
  const all = [REPO, ...folders, ...(privateDirOf(node) ? [node] : [])].map(realpath);
  const unique = [...new Set(all)].sort((a, b) => a.length - b.length);
  return unique.filter((f, i) => !unique.slice(0, i).some((outer) => f.startsWith(`${outer}/`)));
}

/**
 * `[command, argv]` that runs `node <script> ...args` inside a fresh
 * sandbox, seeing the folders of `sandboxFolders([dirname(script), ...folders])`.
 * Throws when a folder is a private directory itself (nothing could be
 * bound there) or more than seven lie in private directories.
 */
export function sandboxCommand(script, args, { folders = [] } = {}) {
  const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  const scriptPath = realpath(script);
  const needed = sandboxFolders([path.dirname(scriptPath), ...folders]);
  const hidden = needed.filter((f) => privateDirOf(f) !== undefined);
  for (const f of hidden) {
    if (PRIVATE_DIRS.includes(f)) throw new Error(`the sandbox replaces ${f} with a private tmpfs: the folder ${f} itself cannot be shown inside; use a folder below it`);
  }
  if (hidden.length > 7) throw new Error(`the sandbox can show at most 7 folders under ${PRIVATE_DIRS.join(', ')}, not ${hidden.length}: ${hidden.join(', ')}`);
  const fd = (f) => hidden.indexOf(f) + 3;
  const moveOut = `move it out of ${PRIVATE_DIRS.join(', ')}, or run with --no-sandbox where the runtime allows it`;
  const lines = [
    `fail() { echo "toolgate sandbox: $*" >&2; exit ${SANDBOX_FAILED}; }`,
    // held open before the private tmpfs hides them
    ...hidden.map((f) => `exec ${fd(f)}<${q(f)} || fail ${q(`cannot open ${f}`)}`),
    ...PRIVATE_DIRS.map((d) => `mount -t tmpfs -o mode=1777,size=1g toolgate-sandbox ${d} || fail ${q(`cannot mount a private tmpfs on ${d}`)}`),
    ...hidden.flatMap((f) => [
      `{ mkdir -p ${q(f)} && mount --no-canonicalize --bind /proc/self/fd/${fd(f)} ${q(f)}; } || fail ${q(`cannot show ${f} inside the sandbox, whose ${privateDirOf(f)} is a private tmpfs: ${moveOut}`)}`,
      `exec ${fd(f)}<&-`,
    ]),
    ...needed.map(
      (f) =>
        `${hidden.includes(f) ? '' : `mount --bind ${q(f)} ${q(f)} && `}mount -o remount,bind,ro ${q(f)} || fail ${q(`cannot bind ${f} read-only inside the sandbox`)}`,
    ),
  ];
  const self = [process.execPath, scriptPath, ...args];
  if (process.getuid() === 0) {
    // after the switch to nobody, every folder must still be readable
    const check = [
      `fail() { echo "toolgate sandbox: $*" >&2; exit ${SANDBOX_FAILED}; }`,
      ...needed.map(
        (f) =>
          `{ [ -r ${q(f)} ] && [ -x ${q(f)} ]; } || fail ${q(`${f} cannot be read by uid ${NOBODY} (nobody), as whom the sandbox runs: make it and every folder above it readable and searchable by others (chmod o+rx), or run with --no-sandbox where the runtime allows it`)}`,
      ),
      'exec "$@"',
    ].join('\n');
    const run = [...lines, `exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups -- /bin/sh -c ${q(check)} sandbox "$@"`].join('\n');
    return ['unshare', ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', run, 'sandbox', ...self]];
  }
  const run = [...lines, 'exec "$@"'].join('\n');
  return ['unshare', ['--map-root-user', '--mount', '--propagation', 'private', '--', '/bin/sh', '-c', run, 'sandbox', ...self]];
}

/** Every entry under `dirs` but those of `except` (a path or paths; links not followed): `Map(path → description)`. */
export function privateState(dirs, except = []) {
  const skipped = new Set(Array.isArray(except) ? except : [except]);
  const state = new Map();
  const walk = (dir) => {
    let names;
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(dir, name);
      if (skipped.has(p)) continue;
      let st;
      try {
        st = fs.lstatSync(p);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) state.set(p, `symlink to ${fs.readlinkSync(p)}`);
      else if (st.isDirectory()) {
        state.set(p, 'dir');
        walk(p);
      } else if (st.isFile()) state.set(p, `file of ${st.size} bytes, modified ${st.mtimeMs}`);
      else state.set(p, 'other');
    }
  };
  for (const d of dirs) walk(d);
  return state;
}

/**
 * The differences between two `privateState`s (`made <path>`, `changed
 * <path>`, `removed <path>`); what was made is removed, so that the next
 * case starts from the same state.
 */
export function privateChanges(before, after) {
  const lines = [];
  for (const [p, d] of after) {
    if (!before.has(p)) lines.push(`made ${p}`);
    else if (before.get(p) !== d) lines.push(`changed ${p}`);
  }
  for (const p of before.keys()) if (!after.has(p)) lines.push(`removed ${p}`);
  const made = [...after.keys()].filter((p) => !before.has(p)).sort((a, b) => a.length - b.length);
  for (const p of made) fs.rmSync(p, { recursive: true, force: true });
  return lines.sort();
}
