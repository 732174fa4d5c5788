#!/usr/bin/env node
// The package's bin (package.json "bin": dist/cli/main.js) must be executable for
// `npx quest-chains` in a checkout: tsc writes files without the executable bit, and npm
// sets it only when it installs a package, not when this project builds itself.
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const BIN = join(projectRoot, 'dist', 'cli', 'main.js');

export function markBinExecutable() {
  if (existsSync(BIN)) chmodSync(BIN, 0o755);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) markBinExecutable();
