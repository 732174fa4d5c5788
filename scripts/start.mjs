#!/usr/bin/env node
// `npm start`: the one-command local start. Builds dist/ if a source changed
// (scripts/build-if-stale.mjs), checks the settings (dist/shared/config.js),
// applies migrations (creating the database on a first start), then runs the
// API and the worker from dist/ and supervises them. API_PROCESSES > 1 runs
// the API launcher (dist/api/cluster-main.js: that many API processes on one
// port, each restarted alone); WORKER_PROCESSES > 1 runs that many workers,
// worker-1 … worker-N, on WORKER_HEALTH_PORT, +1, … (each its own when 0):
//  - a child that exits on its own is logged and restarted after a backoff
//    (1 s, doubling to 30 s; reset once it has stayed up 30 s), so one
//    process's crash never takes the other down; after 10 short-lived runs in
//    a row (none lasting 30 s) the next exit makes it give up, stop the other
//    and exit 1;
//  - SIGTERM, SIGINT or SIGHUP stops every child (SIGTERM, their graceful
//    shutdown) and waits for them, SIGKILLing what is left after the grace
//    period; a second signal a second or more later SIGKILLs at once (Ctrl-C
//    reaches every process of the terminal's group and npm passes it on too:
//    those come together and are one). So does the death of the process that
//    started it (it is reparented). Nothing is left behind.
// Before the migration it decides the Postgres and the Redis (scripts/local-servers.mjs):
// DATABASE_URL / REDIS_URL as given, else the ones on the standard ports, else
// an embedded Postgres and a private redis-server it starts, and stops last.
// Production dependencies suffice (no tsc, no concurrently, no tsx): only
// node: built-ins. Its own log lines are JSON like the children's.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfStale, projectRoot } from './build-if-stale.mjs';
import { ensureLocalServers, LocalServerMissing } from './local-servers.mjs';

/** The processes to supervise: the API (or its launcher) and the workers, each with what its environment adds. */
function childrenOf(config) {
  const api =
    config.API_PROCESSES === 1
      ? { name: 'api', entry: join('dist', 'api', 'main.js'), env: {} }
      : { name: 'api', entry: join('dist', 'api', 'cluster-main.js'), env: {} };
  const workers = Array.from({ length: config.WORKER_PROCESSES }, (_, i) => ({
    name: config.WORKER_PROCESSES === 1 ? 'worker' : `worker-${i + 1}`,
    entry: join('dist', 'worker', 'main.js'),
    // Each its own health port: the next ones up from WORKER_HEALTH_PORT (0: each picks a free one).
    env: config.WORKER_HEALTH_PORT === 0 ? {} : { WORKER_HEALTH_PORT: String(config.WORKER_HEALTH_PORT + i) },
  }));
  return [api, ...workers];
}
const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
// A run this long counts as healthy: the next crash starts the backoff over.
const HEALTHY_RUN_MS = 30_000;
const MAX_SHORT_RUNS = 10;
// The children's own shutdown deadline is SHUTDOWN_TIMEOUT_MS (10 s by default); leave them that and a margin.
const STOP_GRACE_MS = 15_000;
// Signals closer together than this are one signal delivered twice.
const REPEATED_SIGNAL_MS = 1000;

const LEVELS = { info: 30, warn: 40, error: 50 };
function log(level, msg, fields = {}) {
  const line = {
    level: LEVELS[level],
    time: new Date().toISOString(),
    pid: process.pid,
    process: 'supervisor',
    name: 'supervisor',
    ...fields,
    msg,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Runs a child to completion (the migration): resolves with its exit code. */
function runOnce(entry, running) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry], { cwd: projectRoot, stdio: 'inherit' });
    running.add(child);
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

const running = new Set();
let serversReady; // the local servers (a promise: a signal may come while they start), stopped after every child has exited
const supervised = new Map(); // name -> { child, startedAt, delayMs, shortRuns, timer }
let stopping = false;
let stoppingAt = 0;

function startChild(spec) {
  const state = supervised.get(spec.name) ?? { delayMs: FIRST_RESTART_DELAY_MS, shortRuns: 0 };
  supervised.set(spec.name, state);
  const child = spawn(process.execPath, [spec.entry], {
    cwd: projectRoot,
    stdio: 'inherit',
    env: { ...process.env, ...spec.env },
  });
  state.child = child;
  state.startedAt = Date.now();
  running.add(child);
  log('info', `${spec.name} started`, { child: spec.name, childPid: child.pid });
  child.once('exit', (code, signal) => {
    running.delete(child);
    state.child = undefined;
    if (stopping) return;
    const ranMs = Date.now() - state.startedAt;
    if (ranMs >= HEALTHY_RUN_MS) {
      state.delayMs = FIRST_RESTART_DELAY_MS;
      state.shortRuns = 0;
    }
    state.shortRuns += 1;
    if (state.shortRuns > MAX_SHORT_RUNS) {
      log('error', `${spec.name} keeps exiting; giving up`, { child: spec.name, code, signal, runs: state.shortRuns });
      void stop('crash-loop', 1);
      return;
    }
    const delayMs = state.delayMs;
    state.delayMs = Math.min(state.delayMs * 2, MAX_RESTART_DELAY_MS);
    log('warn', `${spec.name} exited; restarting in ${delayMs} ms`, {
      child: spec.name,
      code,
      signal,
      ranMs,
      restartInMs: delayMs,
      restarts: state.shortRuns,
    });
    state.timer = setTimeout(() => {
      state.timer = undefined;
      if (!stopping) startChild(spec);
    }, delayMs);
  });
}

async function stop(reason, exitCode = 0) {
  if (stopping) {
    // A second signal: the operator is not waiting for graceful shutdowns. Not the copy npm passes on of the
    // Ctrl-C the terminal sent us already, which arrives with it.
    if (Date.now() - stoppingAt >= REPEATED_SIGNAL_MS) for (const child of running) child.kill('SIGKILL');
    return;
  }
  stopping = true;
  stoppingAt = Date.now();
  log('info', 'stopping', { reason, children: running.size });
  for (const state of supervised.values()) if (state.timer) clearTimeout(state.timer);
  const exits = [...running].map(
    (child) =>
      new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve))),
  );
  for (const child of running) child.kill('SIGTERM');
  const deadline = setTimeout(() => {
    log('warn', 'children still running after the grace period: killing them', { children: running.size });
    for (const child of running) child.kill('SIGKILL');
  }, STOP_GRACE_MS);
  await Promise.all(exits);
  clearTimeout(deadline);
  await serversReady?.then(
    (servers) => servers.stop(),
    () => undefined,
  );
  log('info', 'stopped', { reason });
  process.exit(exitCode);
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => void stop(signal));
// Whoever started us is gone (npm killed, or a shell between npm and us that died of the signal
// without passing it on): we are reparented, and must not leave the children serving.
const parentAtStart = process.ppid;
setInterval(() => process.ppid !== parentAtStart && void stop('parent-exited'), 500).unref();

try {
  const build = buildIfStale();
  if (build === 'as-built') log('info', 'TypeScript is not installed (production install): running dist/ as built');
} catch (error) {
  log('error', error.message);
  process.exit(1);
}
// The children read .env themselves; read it here too so a DATABASE_URL or REDIS_URL in it counts as set.
if (existsSync(join(projectRoot, '.env')) && typeof process.loadEnvFile === 'function')
  process.loadEnvFile(join(projectRoot, '.env'));
// Every setting checked once, before anything starts: a bad one stops here with the children's own message.
let config;
try {
  const { parseConfig } = await import(pathToFileURL(join(projectRoot, 'dist', 'shared', 'config.js')).href);
  config = parseConfig(process.env);
} catch (error) {
  log('error', error instanceof Error ? error.message : String(error));
  process.exit(1);
}
let servers;
try {
  serversReady = ensureLocalServers({ root: projectRoot, log });
  servers = await serversReady;
} catch (error) {
  if (!(error instanceof LocalServerMissing)) throw error;
  log('error', error.message);
  process.exit(1);
}
// The children inherit these (spawn passes process.env on).
if (servers.urls.database) process.env.DATABASE_URL = servers.urls.database;
if (servers.urls.redis) process.env.REDIS_URL = servers.urls.redis;
if (stopping) await new Promise(() => {}); // a signal arrived meanwhile: stop() stops the servers and exits
const migrated = await runOnce(join('dist', 'shared', 'db', 'migrate-main.js'), running);
if (stopping) await new Promise(() => {}); // a signal arrived during the migration: stop() exits
if (migrated !== 0) {
  log('error', 'migration failed: not starting the api and the worker', { code: migrated });
  await servers.stop();
  process.exit(1);
}
for (const spec of childrenOf(config)) startChild(spec);
