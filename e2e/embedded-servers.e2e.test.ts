import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { projectRoot } from '../shared/db/project-root.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { eventually } from '../shared/testing/eventually.js';

// A fresh machine: `npm start` on a machine with nothing on the standard ports and
// neither DATABASE_URL nor REDIS_URL set starts an embedded Postgres and a
// private redis-server (scripts/local-servers.mjs), and the demo's events
// reach 100 %. This machine has its own Postgres and Redis on 5432 and 6379,
// so the test-only TEST_STANDARD_*_PORT settings move the "standard" addresses
// to free ports, and TEST_LOCAL_DATA_DIR the data to a scratch directory.

const run = promisify(execFile);
const ADMIN_TOKEN = 'embedded-servers-admin-token-0123456789';

/**
 * A free port below Linux's ephemeral range (32768 and up): the test files
 * running beside this one listen on port 0, and one of them once took the
 * port chosen for the private Redis before `npm start` probed it, which then
 * took that HTTP server for Redis. Ports handed out by the kernel never fall
 * here.
 */
const chosen = new Set<number>();
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (chosen.has(port)) continue;
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise((resolve) => server.close(resolve));
    chosen.add(port);
    return port;
  }
}

let scratch: string;
let ports: { postgres: number; redis: number; api: number };
const started: ChildProcess[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'qcr-embedded-'));
  // Run as root, the embedded Postgres runs as the postgres user, which must reach its data under here.
  await chmod(scratch, 0o755);
  ports = { postgres: await freePort(), redis: await freePort(), api: await freePort() };
});
afterAll(async () => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  await rm(scratch, { recursive: true, force: true });
});

function npmStart() {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    TEST_STANDARD_POSTGRES_PORT: String(ports.postgres),
    TEST_STANDARD_REDIS_PORT: String(ports.redis),
    TEST_LOCAL_DATA_DIR: scratch,
    PORT: String(ports.api),
    WORKER_HEALTH_PORT: '0',
    ADMIN_TOKEN,
    QUEUE_PREFIX: `embedded-${uniqueSuffix()}`,
    LOG_LEVEL: 'info',
  };
  const child = spawn('npm', ['start'], { cwd: projectRoot(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // 'close', not 'exit': 'exit' can come before the last lines on stdout have been read.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function ready(start: { child: ChildProcess; output: () => string }) {
  await eventually(
    async () => {
      if (start.child.exitCode !== null) throw new Error(`npm start exited (${start.child.exitCode}):\n${start.output()}`);
      const answer = await fetch(`http://127.0.0.1:${ports.api}/readyz`).catch(() => null);
      return answer?.status === 200 || undefined;
    },
    { timeoutMs: 120_000, what: 'npm start to answer /readyz' },
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${start.output()}`);
  });
}

const databaseUrl = () => `postgres://postgres@127.0.0.1:${ports.postgres}/quest_chains`;

async function seedDemo() {
  const cli = join(projectRoot(), 'dist', 'cli', 'main.js');
  const { stdout } = await run(process.execPath, [cli, '--json', 'seed:demo', '--base-url', `http://127.0.0.1:${ports.api}`], {
    cwd: projectRoot(),
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl(), REDIS_URL: `redis://127.0.0.1:${ports.redis}` },
    timeout: 30_000,
  });
  return JSON.parse(stdout) as { curl: string[]; quest_chain_id: string; platform: { reused: boolean } };
}

const paste = async (line: string) => JSON.parse((await run('sh', ['-c', line], { timeout: 20_000 })).stdout);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start with nothing on the standard ports', () => {
  it('starts an embedded Postgres and a private Redis, and the demo reaches 100 %; they stop with it and keep their data', {
    timeout: 300_000,
  }, async () => {
    const first = npmStart();
    await ready(first);
    expect(first.output()).toContain(`postgres: embedded, started on 127.0.0.1:${ports.postgres}`);
    expect(first.output()).toContain(`redis: redis-server started on 127.0.0.1:${ports.redis}`);
    const serverPids = [...first.output().matchAll(/"serverPid":(\d+)/g)].map((match) => Number(match[1]));
    expect(serverPids).toHaveLength(2);

    const seeded = await seedDemo();
    expect(seeded.platform.reused).toBe(false);
    expect((await paste(seeded.curl[0]!)).success).toBe(true);
    for (const line of seeded.curl.slice(1, 4)) expect((await paste(line)).data.status).toBe('received');
    await vi.waitFor(
      async () => {
        const active = await paste(seeded.curl[4]!);
        const entry = active.data.quest_chains.find(
          (c: { quest_chain: { id: string } }) => c.quest_chain.id === seeded.quest_chain_id,
        );
        expect(entry.user_progress).toMatchObject({ progress: 100, completed_tasks: 3, total_tasks: 3 });
      },
      { timeout: 30_000, interval: 250 },
    );

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    for (const pid of serverPids) expect(alive(pid), `server ${pid} still running after npm start stopped`).toBe(false);

    // A second start finds the data of the first: the demo's platform is reused.
    const second = npmStart();
    await ready(second);
    expect((await seedDemo()).platform.reused).toBe(true);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('stops with one message naming what is missing when Redis can be neither reached nor started', async () => {
    const child = spawn(process.execPath, [join(projectRoot(), 'scripts', 'start.mjs')], {
      cwd: projectRoot(),
      // No redis-server on this PATH (node itself is run by its full path); Postgres given, so only Redis is missing.
      env: {
        PATH: '/nonexistent',
        DATABASE_URL: databaseUrl(),
        TEST_STANDARD_REDIS_PORT: String(ports.redis),
        TEST_LOCAL_DATA_DIR: scratch,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    const errors = output.split('\n').filter((line) => line.includes('"level":50'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /Redis is needed: none answers on 127\.0\.0\.1:\d+ .*no redis-server on PATH.*REDIS_URL.*apt-get install redis-server.*docker compose up -d postgres redis/,
    );
  });
});
