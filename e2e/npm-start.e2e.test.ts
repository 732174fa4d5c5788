import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../shared/db/project-root.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { childProcessEnv, serviceEnv } from '../shared/testing/service-env.js';
import { useTestData } from '../shared/testing/test-data.js';

// `npm start` (scripts/start.mjs) as an operator runs it: one command, the API
// and the worker supervised. A signal to npm stops every process it started;
// a crashed child is restarted with a growing delay while the other keeps
// serving (docs/reliability.md, docs/operations.md).

const { database } = useTestData('npm_start', { providers: false });
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Alive = it exists and is not a zombie waiting to be reaped (a container's PID 1 may never reap it). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

interface LogLine {
  pid: number;
  process?: string;
  msg: string;
  childPid?: number;
  port?: number;
  restartInMs?: number;
  signal?: string | null;
}

function npmStart() {
  const child = spawn('npm', ['start'], {
    cwd: projectRoot(),
    env: childProcessEnv({
      HOME: process.env.HOME ?? '/root',
      ...serviceEnv({
        databaseUrl: database.url,
        queuePrefix: `npm-start-${uniqueSuffix()}`,
        env: { PORT: '0', WORKER_HEALTH_PORT: '0', LOG_LEVEL: 'info' },
      }),
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  const lines: LogLine[] = [];
  let text = '';
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    buffered += chunk.toString('utf8');
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    for (const line of complete) if (line.startsWith('{')) lines.push(JSON.parse(line) as LogLine);
  });
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const find = (where: (line: LogLine) => boolean) => lines.filter(where);
  const childPids = (name: string) =>
    find((line) => line.process === 'supervisor' && line.msg === `${name} started`).map((line) => line.childPid!);
  return {
    npm: child,
    exited,
    output: () => text,
    find,
    childPids,
    supervisorPid: () => find((line) => line.process === 'supervisor')[0]?.pid,
    async running() {
      await eventually(
        async () =>
          (find((line) => line.msg === 'api listening').length > 0 &&
            find((line) => line.process === 'worker' && line.msg === 'worker started').length > 0) ||
          undefined,
        {
          timeoutMs: 90_000,
          what: `npm start to bring up the api and the worker:\n${text}`,
        },
      );
      return { supervisor: this.supervisorPid()!, api: childPids('api').at(-1)!, worker: childPids('worker').at(-1)! };
    },
  };
}

async function expectAllGone(pids: number[]) {
  await eventually(async () => (pids.every((pid) => !isAlive(pid)) ? true : undefined), {
    timeoutMs: 30_000,
    what: `processes ${pids.join(', ')} to end`,
  });
}

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the npm process stops the supervisor, the API and the worker: nothing is left',
    async (signal) => {
      const start = npmStart();
      const pids = await start.running();
      start.npm.kill(signal);
      // npm waits for its script, which waits for its children: when npm is gone, so is everything.
      expect(await start.exited).toBe(0);
      for (const pid of Object.values(pids)) expect(isAlive(pid), `pid ${pid} of ${JSON.stringify(pids)}`).toBe(false);
      expect(start.find((line) => line.process === 'api' && line.msg === 'api stopped')).toHaveLength(1);
      expect(start.find((line) => line.process === 'worker' && line.msg === 'worker stopped')).toHaveLength(1);
    },
  );

  it('restarts a crashed worker after a delay that grows, logs it, and the API serves on', async () => {
    const start = npmStart();
    const first = await start.running();
    const apiPort = start.find((line) => line.msg === 'api listening')[0]!.port!;

    process.kill(first.worker, 'SIGKILL');
    await eventually(async () => (start.childPids('worker').length >= 2 ? true : undefined), { what: 'the worker restarted' });
    const second = start.childPids('worker')[1]!;
    process.kill(second, 'SIGKILL');
    await eventually(async () => (start.childPids('worker').length >= 3 ? true : undefined), {
      what: 'the worker restarted again',
    });

    const restarts = start.find((line) => line.process === 'supervisor' && line.msg.startsWith('worker exited'));
    expect(restarts.map((line) => [line.signal, line.restartInMs])).toEqual([
      ['SIGKILL', 1000],
      ['SIGKILL', 2000],
    ]);
    // The API was never touched: same process, still answering.
    expect(start.childPids('api')).toEqual([first.api]);
    expect(isAlive(first.api)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${apiPort}/healthz`)).status).toBe(200);

    start.npm.kill('SIGTERM');
    expect(await start.exited).toBe(0);
    await expectAllGone([first.supervisor, first.api, ...start.childPids('worker')]);
  });

  it('stops its children when npm itself is killed (SIGKILL: no signal to pass on)', async () => {
    const start = npmStart();
    const pids = await start.running();
    start.npm.kill('SIGKILL');
    await expectAllGone(Object.values(pids));
    expect(start.find((line) => line.process === 'supervisor' && line.msg === 'stopping')[0]).toMatchObject({
      reason: 'parent-exited',
    });
  });
});
