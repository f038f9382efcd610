// The swapper of race.mjs, a child process of its own so that it runs while
// the raced tool's process waits on its I/O:
//
//   fork('race-swapper.mjs', [sub, target])   // sends 'ready', then swaps
//   child.send('stop')                         // answers {swaps}, exits 0
//
// It toggles the directory `sub` as fast as it can: renamed to
// `<sub>.parked` and replaced by a symlink to `target`, then the link
// removed and the directory renamed back; `sub` is a directory again when
// it stops. A raced write may make a directory `sub` in the instant it is
// missing (mkdir -p); that one is moved aside, `<sub>.made-<n>`, inside the
// root. Batches of 64 toggles between turns of the event loop, so that
// 'stop' is heard.

import fs from 'node:fs';

const [sub, target] = process.argv.slice(2);
if (sub === undefined || target === undefined || typeof process.send !== 'function') {
  process.stderr.write('race-swapper.mjs: forked by race.mjs with <sub> <target>\n');
  process.exit(2);
}
const parked = `${sub}.parked`;
let swaps = 0;
let stop = false;
process.on('message', (m) => {
  if (m === 'stop') stop = true;
});

let madeAside = 0;

/** `step()`, again after moving aside what the raced tool made at `sub` (it may make it again). */
function retried(step) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      step();
      return;
    } catch (error) {
      if (!['EEXIST', 'ENOTEMPTY'].includes(error?.code) || attempt === 100) throw error;
      madeAside += 1;
      fs.renameSync(sub, `${sub}.made-${madeAside}`);
    }
  }
}

function batch() {
  try {
    for (let i = 0; i < 64 && !stop; i += 1) {
      fs.renameSync(sub, parked);
      retried(() => fs.symlinkSync(target, sub));
      fs.unlinkSync(sub);
      retried(() => fs.renameSync(parked, sub));
      swaps += 1;
    }
  } catch (error) {
    // said to race.mjs, which stops the race with it
    process.send({ failed: `after ${swaps} swaps: ${error?.message ?? error}` }, () => process.exit(1));
    return;
  }
  if (stop) process.send({ swaps }, () => process.exit(0));
  else setImmediate(batch);
}

process.send('ready');
batch();
