// The watcher of the workspace harness: every change outside the root
// while the tools run, transient ones included, which the tree afterwards
// cannot show (a file made and removed within one call: the MCP
// filesystem server's `<root>.<hex>.tmp`, notes in ../runtimes/README.md).
//
//   const watch = watchOutside(base, root);   // after the tree is made
//   ... a read or write call ...
//   await watch.settle(true);                  // its changes are kept
//   ... a bash call ...
//   await watch.settle(false);                 // bash is not confined (WS-BASH-01): dropped
//   const changes = watch.close();             // ['rename $BASE/../ws.1a2b.tmp', ...]
//
// What is watched: `$BASE`'s parent (the base is made alone in it, so any
// other name there is beside the base) and every directory of `$BASE` that
// is not the real root or below it, each with fs.watch (inotify on Linux:
// creations, removals, renames, writes and attribute changes of the
// entries of a directory; reads are not changes). Settling is a latch, not
// a sleep: a marker file is made in the parent and removed, and the
// changes before it are all delivered once its own event arrives (libuv
// reads every watch of the loop from one inotify descriptor, in order).

import fs from 'node:fs';
import path from 'node:path';
import { BASE_VARIABLE } from '../fs-tree.mjs';

/** How long a settle waits for its marker's event before it fails. */
const GUARD_MS = 10_000;

/** The settle markers' names: `<prefix><n>`, one per settle. */
const MARKER = '.toolgate-settle-';

/** The directories of `base` (links not followed) that are outside `realRoot`. */
function outsideDirectories(base, realRoot) {
  const inside = (p) => realRoot !== undefined && (p === realRoot || p.startsWith(`${realRoot}/`));
  const out = [];
  const walk = (dir) => {
    if (inside(dir)) return;
    out.push(dir);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
    }
  };
  walk(base);
  return out;
}

/** Starts watching outside `root` (the tools' root, possibly a link or missing). */
export function watchOutside(base, root) {
  const parent = path.dirname(base);
  let realRoot;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    realRoot = undefined; // no root: everything in the base is outside it
  }
  const written = (p) => (p === base || p.startsWith(`${base}/`) ? BASE_VARIABLE + p.slice(base.length) : `${BASE_VARIABLE}/../${path.relative(parent, p)}`);
  const pending = [];
  const kept = [];
  let settles = 0;
  let latch; // {name, open()} while a settle waits for its marker
  const onEvent = (dir) => (event, name) => {
    const entry = name === null || name === undefined ? undefined : String(name);
    if (dir === parent && entry?.startsWith(MARKER)) {
      if (latch !== undefined && entry === latch.name) latch.open();
      return;
    }
    pending.push(`${event} ${written(entry === undefined ? dir : path.join(dir, entry))}`);
  };
  const watchers = [parent, ...outsideDirectories(base, realRoot)].map((dir) => fs.watch(dir, onEvent(dir)));
  return {
    /**
     * Resolves once every change made so far has been delivered; keeps them
     * (`keep`) or drops them.
     */
    settle(keep) {
      return new Promise((resolve, reject) => {
        settles += 1;
        const name = `${MARKER}${settles}`;
        // a guard, not a measure: inotify delivers the marker's event at
        // once; a watcher that never does is a broken harness
        const guard = setTimeout(() => reject(new Error(`the watcher of ${parent} saw no event for its marker in ${GUARD_MS} ms`)), GUARD_MS);
        latch = {
          name,
          open() {
            clearTimeout(guard);
            latch = undefined;
            const changes = pending.splice(0);
            if (keep) kept.push(...changes);
            resolve();
          },
        };
        // made, then removed: its first event closes the latch; every
        // change made before it was queued before it
        const marker = path.join(parent, name);
        fs.writeFileSync(marker, '');
        fs.rmSync(marker);
      });
    },
    /** Stops watching (again harmless); the kept changes. */
    close() {
      for (const w of watchers) w.close();
      return kept;
    },
  };
}
