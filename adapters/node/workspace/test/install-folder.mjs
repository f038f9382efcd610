// Fake install folders for the tests of real-tools.mjs, real-adapter.mjs and
// race.mjs: a temporary folder holding node_modules/@modelcontextprotocol/
// server-filesystem (package.json of version FAKE_VERSION, dist/index.js =
// fixtures/fake-filesystem-server.mjs, dist/behaviour.json) and a link
// node_modules/@modelcontextprotocol/sdk to the pinned SDK. Made under
// `parent` (default: the OS's temporary directory, readable by uid nobody so
// that the sandbox can run it); removed when the test file ends.

import { after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FOLDERS } from '../real-tools.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const FAKE_VERSION = '0.0.1-toolgate-fake';
const PINNED_SDK = path.join(FOLDERS['mcp-server-filesystem'], 'node_modules/@modelcontextprotocol/sdk');
/** Whether the pinned SDK the fake server uses is installed (npm ci in runtimes/mcp-server-filesystem). */
export const fakeServerRuns = fs.existsSync(path.join(PINNED_SDK, 'package.json'));

const made = [];
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, readable by others (the sandbox runs as nobody). */
export function scratch(prefix = 'toolgate-test-') {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  fs.chmodSync(dir, 0o755);
  made.push(dir);
  return dir;
}

/** An install folder (absolute) whose fake server behaves as `behaviour` (fixtures/fake-filesystem-server.mjs). */
export function fakeInstall(behaviour, parent = scratch()) {
  const folder = path.join(parent, 'install');
  const pkg = path.join(folder, 'node_modules/@modelcontextprotocol/server-filesystem');
  fs.mkdirSync(path.join(pkg, 'dist'), { recursive: true });
  fs.writeFileSync(
    path.join(pkg, 'package.json'),
    JSON.stringify({ name: '@modelcontextprotocol/server-filesystem', version: FAKE_VERSION, type: 'module', bin: { 'mcp-server-filesystem': 'dist/index.js' } }),
  );
  fs.copyFileSync(path.join(here, 'fixtures/fake-filesystem-server.mjs'), path.join(pkg, 'dist/index.js'));
  fs.writeFileSync(path.join(pkg, 'dist/behaviour.json'), JSON.stringify(behaviour));
  fs.symlinkSync(PINNED_SDK, path.join(folder, 'node_modules/@modelcontextprotocol/sdk'));
  fs.writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'fake-install', private: true }));
  return folder;
}
