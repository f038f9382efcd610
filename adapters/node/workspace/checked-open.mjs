// checked-open.mjs: the seed's workspace tools (toolgate-workspace.mjs) with
// its check-then-use window (W21) closed for read and narrowed for write: a
// tool safer than the seed, kept to show that the suite grades such a tool
// without failing it (WS-RACE-01 is a SHOULD the seed itself misses, and a
// swapped call that refuses is a note, not a difference), and to give the
// race command (race.mjs) a tool to tell apart from the seed.
//
//   const [read, write, bash] = createCheckedTools('/path/to/ws', interference);
//
// read opens the path the seed's boundary allowed, then judges the file it
// opened: the real path of the open descriptor (`/proc/self/fd/<n>`, Linux)
// must be inside the real root, so no swap after the check can lead it
// elsewhere. write checks the path again after the window, makes the
// directories, opens the file without truncating it, and judges the opened
// file the same way before it truncates and writes; a swap between its
// second check and its open can still make directories, or create an empty
// file it then removes, outside (Node has no openat(2) to do better; the
// race command, race.mjs, shows that window). Both
// answer a file found outside with the seed's `path escapes workspace`.
// Everything else (inputs, messages, truncation, bash) is the seed's.

import { constants } from 'node:fs';
import { mkdir, open, realpath, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  INVALID_READ_INPUT,
  INVALID_WRITE_INPUT,
  PATH_ESCAPES,
  createWorkspaceTools,
  failure,
  isInside,
  stringField,
  truncateRead,
  workspacePath,
} from './toolgate-workspace.mjs';

/** The version of this variant (the adapter's handshake adds it to the seed's). */
export const VARIANT = 'checked-open';

/** The real path of the file open as `handle`. */
const openedPath = (handle) => realpath(`/proc/self/fd/${handle.fd}`);

/**
 * The three tools of the seed over `workspaceRoot`, read and write replaced
 * as the header says; `interference.afterCheck` (the harness) runs in the
 * same place as the seed's, right after the first check.
 */
export function createCheckedTools(workspaceRoot, interference = {}) {
  const [seedRead, seedWrite, bash] = createWorkspaceTools(workspaceRoot, interference);
  const afterCheck = interference.afterCheck ?? (async () => {});

  const read = {
    spec: seedRead.spec,
    async execute(input) {
      try {
        const path = stringField(input, 'path');
        if (path === undefined) return { content: INVALID_READ_INPUT, isError: true };
        const target = await workspacePath(workspaceRoot, path, false);
        await afterCheck();
        const rootReal = await realpath(workspaceRoot);
        const handle = await open(target, 'r');
        try {
          if (!isInside(rootReal, await openedPath(handle))) return { content: PATH_ESCAPES, isError: true };
          return { content: truncateRead(await handle.readFile('utf8')) };
        } finally {
          await handle.close();
        }
      } catch (cause) {
        return failure(cause);
      }
    },
  };

  const write = {
    spec: seedWrite.spec,
    async execute(input) {
      try {
        const path = stringField(input, 'path');
        const content = stringField(input, 'content');
        if (path === undefined || content === undefined) return { content: INVALID_WRITE_INPUT, isError: true };
        await workspacePath(workspaceRoot, path, true);
        await afterCheck();
        // the second check sees what the window changed
        const target = await workspacePath(workspaceRoot, path, true);
        const rootReal = await realpath(workspaceRoot);
        await mkdir(dirname(target), { recursive: true });
        // created here (and so to be removed if it is outside), or opened as it is; never truncated before the judgment
        let created = true;
        let handle;
        try {
          handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
        } catch (error) {
          if (error?.code !== 'EEXIST') throw error;
          created = false;
          handle = await open(target, constants.O_WRONLY);
        }
        try {
          const opened = await openedPath(handle);
          if (!isInside(rootReal, opened)) {
            // by where it really is: `target` may lead elsewhere by now
            if (created) await unlink(opened).catch(() => {});
            return { content: PATH_ESCAPES, isError: true };
          }
          await handle.truncate(0);
          await handle.writeFile(content);
        } finally {
          await handle.close();
        }
        return { content: `wrote ${content.length} characters to ${target}` };
      } catch (cause) {
        return failure(cause);
      }
    },
  };

  return [read, write, bash];
}
