#!/usr/bin/env node
// Compiles dist/ only when it is missing or older than a source, so `npm start`,
// `npm run cli` and `npm run db:migrate` cost nothing when nothing changed
// (`tsc -b` alone takes seconds even then, and recompiles on every call while
// the tree has a type error). A production install (`npm ci --omit=dev`) has
// no TypeScript: it runs dist/ as built. Messages go to stderr, so a command's
// stdout (`--json`) stays clean. Plain JavaScript: it runs before any build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { markBinExecutable } from './bin-executable.mjs';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIRS = ['api', 'core', 'cli', 'worker', 'shared'];
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json'];
// tsc -b writes this on every build; its modification time is "when dist/ was last built".
const BUILD_STAMP = join(projectRoot, 'dist', '.tsbuildinfo');
const BUILT_ENTRY = join(projectRoot, 'dist', 'api', 'main.js');

function newestModification(path) {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return path.endsWith('.ts') || path.endsWith('.json') ? stats.mtimeMs : 0;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.endsWith('.test.ts')) continue;
    newest = Math.max(newest, newestModification(join(path, entry)));
  }
  return newest;
}

/** Whether the sources (when this checkout has them) are newer than the last build. */
export function isStale() {
  const sources = Math.max(
    ...SOURCE_DIRS.map((dir) => newestModification(join(projectRoot, dir))),
    ...CONFIG_FILES.map((file) => newestModification(join(projectRoot, file))),
  );
  if (sources === 0) return false; // an image with dist/ only: nothing to build from
  if (!existsSync(BUILT_ENTRY) || !existsSync(BUILD_STAMP)) return true;
  return sources > statSync(BUILD_STAMP).mtimeMs;
}

/** Builds when stale; throws when there is nothing runnable and nothing to build with. */
export function buildIfStale(say = (message) => process.stderr.write(`${message}\n`)) {
  if (!isStale()) return 'fresh';
  let tsc;
  try {
    const require = createRequire(import.meta.url);
    // @types/node first: TypeScript alone can be in a production install (an optional peer of
    // dependencies), but without the dev dependencies a build would not be the real one.
    require.resolve('@types/node/package.json');
    tsc = require.resolve('typescript/bin/tsc');
  } catch {
    if (existsSync(BUILT_ENTRY)) return 'as-built';
    throw new Error(
      'dist/ is missing and TypeScript is not installed: build with the dev dependencies first (npm ci && npm run build)',
    );
  }
  const started = Date.now();
  say('building dist/ (sources changed since the last build)...');
  const result = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: projectRoot, stdio: ['ignore', 2, 2] });
  if (!existsSync(BUILT_ENTRY)) throw new Error('the build produced no dist/: see the compiler output above');
  markBinExecutable();
  // tsc emits despite type errors (npm test is the type gate); date the stamp so the next call does not rebuild.
  const now = new Date(started);
  if (existsSync(BUILD_STAMP)) utimesSync(BUILD_STAMP, now, now);
  say(
    result.status === 0
      ? `built in ${Date.now() - started} ms`
      : `built with type errors in ${Date.now() - started} ms (npm test reports them)`,
  );
  return 'built';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    buildIfStale();
  } catch (error) {
    process.stderr.write(`error: ${error.message}\n`);
    process.exit(1);
  }
}
