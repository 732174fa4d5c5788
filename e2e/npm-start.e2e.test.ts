import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../shared/db/project-root.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';
import { childProcessEnv, serviceEnv } from '../shared/testing/service-env.js';
import { useTestData } from '../shared/testing/test-data.js';

// `npm start` (scripts/start.mjs) as an operator runs it: one command, the API
// and the worker supervised. A signal to npm stops every process it started;
// a crashed child is restarted with a growing delay while the other keeps
// serving. With API_PROCESSES and WORKER_PROCESSES, more of each: the API
// processes on one port, each restarted alone, and all draining on Ctrl-C
// (docs/reliability.md, docs/operations.md).

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
  index?: number;
  requestId?: string;
}

/** `npm start` with `env` added; `ownGroup` runs it in a process group of its own, as a terminal does (Ctrl-C signals the group). */
function npmStart(env: Record<string, string> = {}, options: { ownGroup?: boolean } = {}) {
  const child = spawn('npm', ['start'], {
    cwd: projectRoot(),
    env: childProcessEnv({
      HOME: process.env.HOME ?? '/root',
      ...serviceEnv({
        databaseUrl: database.url,
        queuePrefix: `npm-start-${uniqueSuffix()}`,
        env: { PORT: '0', WORKER_HEALTH_PORT: '0', LOG_LEVEL: 'info', ...env },
      }),
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownGroup ?? false,
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
  // 'close', not 'exit': 'exit' can come before the last lines on stdout have been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
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

  it('with API_PROCESSES=2 and WORKER_PROCESSES=2 serves on one port; a killed API process is restarted alone while the other answers', async () => {
    const start = npmStart({ API_PROCESSES: '2', WORKER_PROCESSES: '2' }, { ownGroup: true });
    const apiPids = () =>
      start.find((line) => line.process === 'api-launcher' && line.msg === 'api process started').map((line) => line.childPid!);
    await eventually(
      async () =>
        (start.find((line) => line.msg === 'api listening').length >= 2 &&
          start.find((line) => line.process === 'worker' && line.msg === 'worker started').length >= 2) ||
        undefined,
      { timeoutMs: 90_000, what: `two API processes and two workers:\n${start.output()}` },
    );
    const ports = new Set(start.find((line) => line.msg === 'api listening').map((line) => line.port));
    expect(ports.size, 'one port for both').toBe(1);
    const url = `http://127.0.0.1:${[...ports][0]}/healthz`;
    const [victim, other] = apiPids() as [number, number];
    // Both answer: new connections go round-robin, so a few requests reach each (their access lines say which).
    const requestIds = Array.from({ length: 8 }, (_, i) => `round-robin-${i}`);
    for (const requestId of requestIds) expect(await freshGet(url, requestId)).toBe(200);
    const answeredBy = await eventually(
      async () => {
        const pids = new Set(
          start.find((line) => line.msg === 'request' && requestIds.includes(line.requestId ?? '')).map((line) => line.pid),
        );
        return pids.size === 2 ? pids : undefined;
      },
      { what: 'both API processes to answer' },
    );
    expect([...answeredBy].sort()).toEqual([victim, other].sort());

    process.kill(victim, 'SIGKILL');
    // Once the launcher has seen it go (a connection handed over in that instant dies with it), and until it is
    // back a second later, every request is answered, by the other.
    await eventually(
      async () => (start.find((line) => line.msg.startsWith('api process exited')).length > 0 ? true : undefined),
      { what: 'the launcher to see the API process go' },
    );
    const during: number[] = [];
    const until = Date.now() + 800;
    while (Date.now() < until) {
      during.push(await freshGet(url));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(
      during.every((status) => status === 200),
      JSON.stringify(during),
    ).toBe(true);
    await eventually(
      async () => (apiPids().length >= 3 && start.find((line) => line.msg === 'api listening').length >= 3 ? true : undefined),
      { what: 'the killed API process restarted and listening' },
    );
    expect(start.find((line) => line.process === 'api-launcher' && line.msg.startsWith('api process exited'))).toEqual([
      expect.objectContaining({ signal: 'SIGKILL', restartInMs: 1000, index: expect.any(Number) }),
    ]);
    expect(isAlive(other), 'the other API process was left alone').toBe(true);
    expect(start.childPids('api'), 'the launcher itself was never restarted').toHaveLength(1);
    const workerPids = [...start.childPids('worker-1'), ...start.childPids('worker-2')];
    expect(workerPids).toHaveLength(2);

    // Ctrl-C: SIGINT to every process of the group at once, then the supervisor's SIGTERM to its children.
    process.kill(-start.npm.pid!, 'SIGINT');
    await start.exited;
    await expectAllGone([start.supervisorPid()!, ...start.childPids('api'), ...apiPids(), ...workerPids]);
    // Every API process drained, the second signal notwithstanding: each logged its stop.
    expect(start.find((line) => line.process === 'api' && line.msg === 'api stopped')).toHaveLength(2);
    expect(start.find((line) => line.process === 'worker' && line.msg === 'worker stopped')).toHaveLength(2);
  }, 120_000);

  it.each([
    ['API_PROCESSES', '0'],
    ['WORKER_PROCESSES', 'two'],
  ])('refuses %s=%s before starting anything, naming the variable', async (name, value) => {
    const start = npmStart({ [name]: value });
    expect(await start.exited).toBe(1);
    expect(start.output()).toContain(`${name}: must be a whole number of processes from 1 to 256, e.g. ${name}=2`);
    expect(start.find((line) => line.msg.endsWith(' started'))).toEqual([]);
  });
});

/** GET on a connection of its own (no keep-alive), so the cluster hands each request to a process anew. */
function freshGet(url: string, requestId = `npm-start-${Math.random().toString(36).slice(2)}`): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = get(
      url,
      { agent: false, timeout: 3000, headers: { connection: 'close', 'x-request-id': requestId } },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.once('timeout', () => request.destroy(new Error(`no answer from ${url} within 3 s`)));
    request.once('error', reject);
  });
}
