import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../../shared/db/project-root.js';
import { freePort } from '../../harness/processes.js';

/** One built process of the service (api or worker) as the suite runs it: output to a file, exits recorded. */
export interface ServiceProcess {
  name: string;
  pid: number;
  logFile: string;
  /** Base URL of its HTTP port (the API, or the worker's health port). */
  url: string;
  /** Set once the process has exited, whoever ended it. */
  exit: { code: number | null; signal: NodeJS.Signals | null; at: number } | undefined;
  /** Whether the suite itself ended it (a kill the scenario meant), as opposed to a crash. */
  killedOnPurpose: boolean;
  signal(signal: NodeJS.Signals): void;
  /** The fault: SIGKILL, waited for. */
  kill(): Promise<void>;
  /** SIGTERM, SIGKILL after 15 s. */
  stop(): Promise<void>;
  /** Last lines of its output, for failure messages. */
  tail(lines?: number): string;
}

const ENTRIES = { api: join('dist', 'api', 'main.js'), worker: join('dist', 'worker', 'main.js'), supervisor: join('scripts', 'start.mjs') };

/**
 * Starts `node dist/<kind>/main.js` (or `npm start`'s supervisor,
 * scripts/start.mjs, which runs an API and a worker of its own) with `env`,
 * its output appended to `<outputDir>/<name>.log` (never read while the
 * suite measures), and waits until its /healthz (the supervisor's API's)
 * answers 200.
 */
export async function startService(kind: keyof typeof ENTRIES, name: string, env: Record<string, string>, outputDir: string): Promise<ServiceProcess> {
  const port = await freePort();
  const logFile = join(outputDir, `${name}.log`);
  const output = openSync(logFile, 'a');
  const portEnv =
    kind === 'worker' ? { WORKER_HEALTH_PORT: String(port) } : { PORT: String(port), ...(kind === 'supervisor' ? { WORKER_HEALTH_PORT: String(await freePort()) } : {}) };
  const child: ChildProcess = spawn(process.execPath, [ENTRIES[kind]], {
    cwd: projectRoot(),
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', ...env, ...portEnv },
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  const tail = (lines = 20) => {
    try {
      return readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  };
  const service: ServiceProcess = {
    name,
    pid: child.pid!,
    logFile,
    url: `http://127.0.0.1:${port}`,
    exit: undefined,
    killedOnPurpose: false,
    signal: (signal) => void child.kill(signal),
    async kill() {
      service.killedOnPurpose = true;
      if (service.exit) return;
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      service.killedOnPurpose = true;
      if (service.exit) return;
      // A stopped (SIGSTOP) process cannot act on SIGTERM until it runs again.
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
    tail,
  };
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      service.exit = { code, signal, at: Date.now() };
      resolve();
    }),
  );
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (service.exit) throw new Error(`${name} exited (${service.exit.code ?? service.exit.signal}) while starting:\n${tail()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not become ready within 30 s:\n${tail()}`);
    }
    if (await answers(`${service.url}/healthz`)) return service;
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
