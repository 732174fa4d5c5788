import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../shared/db/project-root.js';
import { type ApiClient, type HttpApiClient, httpClient } from '../../shared/testing/api-client.js';
import { childProcessEnv } from '../../shared/testing/service-env.js';

// The one way tests, the chaos suite and the benchmark start processes of the
// service: the built API, worker or `npm start`'s supervisor (or any node
// script, for the benchmark's baselines), on free ports, output appended to a
// log file (never piped through the caller, which would cost it CPU while it
// measures), ready once its /healthz answers.

/** One process as the harness runs it: output in a file, its exit recorded. */
export interface ServiceProcess {
  name: string;
  pid: number;
  logFile: string;
  /** Base URL of its HTTP port (the API, the supervisor's API, or a worker's health port). */
  url: string;
  /** Set once the process has exited, whoever ended it. */
  exit: { code: number | null; signal: NodeJS.Signals | null; at: number } | undefined;
  /** Whether the caller ended it (a kill the test meant), as opposed to a crash. */
  killedOnPurpose: boolean;
  /** Every line it wrote so far (stdout and stderr). */
  lines(): string[];
  /** Its last lines, for failure messages. */
  tail(lines?: number): string;
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL, waited for. */
  kill(): Promise<void>;
  /** `signal` (SIGTERM by default: waking a stopped process first, SIGKILL after 15 s), waited for; answers the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const clients = new Map<string, HttpApiClient>();

/**
 * The client of one API (a process of the harness, or anything serving the
 * API at `url`) that checks every answer against the documents it serves, as
 * a stack's `call` does; one per URL, kept for the test run (its idle sockets
 * hold nothing open).
 */
export function clientOf(service: { url: string }): ApiClient {
  let client = clients.get(service.url);
  if (!client) clients.set(service.url, (client = httpClient(service.url, { checkDocuments: true })));
  return client;
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const ENTRIES = {
  api: join('dist', 'api', 'main.js'),
  // API_PROCESSES API processes on one port (node:cluster), as `npm start` runs them when API_PROCESSES > 1.
  'api-launcher': join('dist', 'api', 'cluster-main.js'),
  worker: join('dist', 'worker', 'main.js'),
  supervisor: join('scripts', 'start.mjs'),
};
export type ServiceKind = keyof typeof ENTRIES;

/**
 * Starts `node dist/<kind>/main.js` (or the API launcher, dist/api/cluster-main.js,
 * or the supervisor, scripts/start.mjs, which runs an API and a worker of its own) with `env` on free ports, and
 * waits until it answers. `nodeArgs` go before the entry (e.g. --cpu-prof).
 */
export async function startService(
  kind: ServiceKind,
  env: Record<string, string>,
  options: { name?: string; outputDir?: string; nodeArgs?: string[]; root?: string | undefined } = {},
): Promise<ServiceProcess> {
  const port = await freePort();
  const portEnv =
    kind === 'worker'
      ? { WORKER_HEALTH_PORT: String(port) }
      : { PORT: String(port), ...(kind === 'supervisor' ? { WORKER_HEALTH_PORT: String(await freePort()) } : {}) };
  return startProcess({
    name: options.name ?? kind,
    args: [...(options.nodeArgs ?? []), ENTRIES[kind]],
    env: { HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env, ...portEnv },
    outputDir: options.outputDir,
    root: options.root,
    readyUrl: `http://127.0.0.1:${port}/healthz`,
    // A worker's /healthz answers before it has taken its share of the partitions; it has started once it says so
    // (the line with its worker id, which tests read as soon as this resolves).
    ...(kind === 'worker' ? { readyLine: '"worker started"' } : {}),
  });
}

/** The worker id a worker process logged when it started. */
export function workerIdOf(worker: ServiceProcess): string {
  const line = worker.lines().find((l) => l.includes('"worker started"'));
  if (!line) throw new Error(`${worker.name} has not logged "worker started"; see ${worker.logFile}`);
  return (JSON.parse(line) as { workerId: string }).workerId;
}

// Every process started here and still running. A test that times out is abandoned by vitest
// without its own cleanup (a `finally` in its body never runs), which left API and worker
// processes polling Redis and Postgres after the run (found orphaned under load); when the
// test process exits, whatever it started goes with it.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts `node <args>` from the project root with `env` (and PATH), and waits until `readyUrl` answers 200
 * and, when `readyLine` is given, a line of its output holds it (30 s at most).
 */
export async function startProcess(options: {
  name: string;
  args: string[];
  env: Record<string, string>;
  outputDir?: string | undefined;
  /** The checkout whose files `args` name (default this one). */
  root?: string | undefined;
  readyUrl: string;
  readyLine?: string;
}): Promise<ServiceProcess> {
  const outputDir = options.outputDir ?? mkdtempSync(join(tmpdir(), 'qcr-process-'));
  const logFile = join(outputDir, `${options.name}.log`);
  const output = openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, options.args, {
    cwd: options.root ?? projectRoot(),
    env: childProcessEnv(options.env),
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  running.add(child);
  child.once('exit', () => running.delete(child));
  const lines = () => {
    try {
      return readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((line) => line.length > 0);
    } catch {
      return [];
    }
  };
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      service.exit = { code, signal, at: Date.now() };
      resolve(code);
    }),
  );
  const service: ServiceProcess = {
    name: options.name,
    pid: child.pid!,
    logFile,
    url: new URL(options.readyUrl).origin,
    exit: undefined,
    killedOnPurpose: false,
    lines,
    tail: (count = 20) => lines().slice(-count).join('\n'),
    signal: (signal) => void child.kill(signal),
    async kill() {
      await service.stop('SIGKILL');
    },
    async stop(signal = 'SIGTERM') {
      service.killedOnPurpose = true;
      if (service.exit) return service.exit.code;
      if (signal !== 'SIGTERM') {
        child.kill(signal);
        return exited;
      }
      // A stopped (SIGSTOP) process cannot act on SIGTERM until it runs again.
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (service.exit)
      throw new Error(
        `${options.name} exited (${service.exit.code ?? service.exit.signal}) while starting; see ${logFile}:\n${service.tail()}`,
      );
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} did not become ready within 30 s; see ${logFile}:\n${service.tail()}`);
    }
    const { readyLine } = options;
    if ((await answers(options.readyUrl)) && (!readyLine || lines().some((line) => line.includes(readyLine)))) return service;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** The processes a process started (a supervisor's children), with their command lines. */
export function childProcesses(pid: number): { pid: number; command: string }[] {
  const children: { pid: number; command: string }[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) {
        children.push({ pid: Number(child), command: readFileSync(`/proc/${child}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() });
      }
    }
  } catch {
    // the process (or a child) is gone
  }
  return children;
}

/** The pid of the supervisor's child running `entry` (`dist/api/main.js`, `dist/worker/main.js`), if one runs. */
export const supervisedChild = (supervisorPid: number, entry: string): number | undefined =>
  childProcesses(supervisorPid).find((child) => child.command.includes(entry))?.pid;
