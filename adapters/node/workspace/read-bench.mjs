// The JavaScript tools' read (adapters/node/workspace/toolgate-workspace.mjs)
// on the same files as the Rust bench (benches/src/workspace.rs: the pattern
// repeated, cut at the size), for comparison with `cargo bench -p
// toolgate-benches --bench workspace`: per call the wall time (median, min,
// max over the iterations), the bytes read (/proc/self/io rchar delta, less
// the reading of /proc/self/io itself), the result's length, isError and
// FNV-1a over its UTF-16 code units (little-endian bytes; the Rust bench
// prints the same); the process's peak RSS.
//   node adapters/node/workspace/read-bench.mjs <ascii|mixed> <bytes> <iterations>
//   # the bench's files, one process each (so that each peak RSS is its own):
//   for k in ascii mixed; do for s in 1024:200 1048576:50 67108864:10 1073741824:3; do
//     node adapters/node/workspace/read-bench.mjs $k ${s%:*} ${s#*:}; done; done
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createWorkspaceTools } from './toolgate-workspace.mjs';

const PATTERNS = {
  ascii: Buffer.from('fn main() { let answer = compute(42); println!("{answer}"); } // toolgate\n'),
  mixed: Buffer.concat([Buffer.from('漢字かな交じり文😀 é'), Buffer.from([0xff, 0x0a])]),
};
const [kind, sizeText, iterText = '5'] = process.argv.slice(2);
const pattern = PATTERNS[kind];
const size = Number(sizeText);
const iterations = Number(iterText);

function rchar() {
  const text = fs.readFileSync('/proc/self/io', 'latin1');
  return [Number(/rchar: (\d+)/.exec(text)[1]), text.length];
}

function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    h = Math.imul(h ^ (u & 0xff), 0x01000193) >>> 0;
    h = Math.imul(h ^ (u >>> 8), 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-node-read-')));
const root = path.join(base, 'ws');
fs.mkdirSync(root);
const name = `${kind}-${size}.txt`;
{
  const block = Buffer.alloc((1 << 20) + pattern.length);
  for (let i = 0; i < block.length; i++) block[i] = pattern[i % pattern.length];
  const fd = fs.openSync(path.join(root, name), 'w');
  for (let written = 0; written < size; ) {
    const start = written % pattern.length;
    const n = Math.min(size - written, 1 << 20);
    fs.writeSync(fd, block, start, n);
    written += n;
  }
  fs.closeSync(fd);
}
try {
  const [read] = createWorkspaceTools(root);
  const times = [];
  let last;
  let bytes;
  for (let i = 0; i < iterations; i++) {
    const [before, own] = rchar();
    const t0 = process.hrtime.bigint();
    last = await read.execute({ path: name });
    const t1 = process.hrtime.bigint();
    const [after] = rchar();
    times.push(Number(t1 - t0) / 1e6);
    bytes = after - before - own;
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({
    kind, size, iterations,
    median_ms: +times[times.length >> 1].toFixed(3), min_ms: +times[0].toFixed(3), max_ms: +times.at(-1).toFixed(3),
    bytes_read_per_call: bytes, units: last.content.length, isError: last.isError ?? false,
    fnv1a: fnv1a(last.content), max_rss_mib: +(process.resourceUsage().maxRSS / 1024).toFixed(1),
    content: last.isError ? last.content : undefined,
  }));
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}
