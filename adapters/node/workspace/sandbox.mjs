// The sandbox real file tools run in (real-adapter.mjs). A real tool may
// write where the seed refuses to, anywhere on the machine: pi's write has
// no boundary, and `/toolgate-no-such-top-xyz/a.txt` is a corpus path. So
// the adapter re-runs itself in its own mount namespace (`unshare`), with
// fresh tmpfs on every world-writable directory (PRIVATE_DIRS) and, as root,
// switched to uid/gid 65534 (nobody) by `setpriv`; without root, in a user
// namespace with the repository re-mounted read-only. There the process can
// write only to those private tmpfs, which vanish with it.
//
// Inside, `privateState` / `privateChanges` compare the private directories
// before and after each case: what changed there, beyond the harness's own
// directory, was changed by the tool, outside `$BASE` and its parent.

import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const REPO = path.resolve(here, '../../..');
/** The world-writable directories the sandbox replaces with private tmpfs. */
export const PRIVATE_DIRS = ['/tmp', '/var/tmp', '/run/lock', '/dev/shm'];
/** The environment variable that tells the re-run process it is inside. */
export const INSIDE = 'TOOLGATE_WORKSPACE_SANDBOX';
const NOBODY = 65534;

/** `[command, argv]` that runs `node <script> ...args` inside a fresh sandbox. */
export function sandboxCommand(script, args) {
  const mounts = PRIVATE_DIRS.map((d) => `mount -t tmpfs -o mode=1777,size=1g toolgate-sandbox ${d}`).join(' && ');
  const self = [process.execPath, script, ...args];
  if (process.getuid() === 0) {
    const run = `${mounts} && exec setpriv --reuid=${NOBODY} --regid=${NOBODY} --clear-groups -- "$@"`;
    return ['unshare', ['--mount', '--propagation', 'private', '--', '/bin/sh', '-c', run, 'sandbox', ...self]];
  }
  const q = (s) => `'${s.replaceAll("'", "'\\''")}'`;
  const run = `${mounts} && mount --bind ${q(REPO)} ${q(REPO)} && mount -o remount,bind,ro ${q(REPO)} && exec "$@"`;
  return ['unshare', ['--map-root-user', '--mount', '--propagation', 'private', '--', '/bin/sh', '-c', run, 'sandbox', ...self]];
}

/** Every entry under `dirs` but `except` (links not followed): `Map(path → description)`. */
export function privateState(dirs, except) {
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
      if (p === except) continue;
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
