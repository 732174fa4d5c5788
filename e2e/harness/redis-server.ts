import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './service.js';

export interface PrivateRedis {
  port: number;
  url: string;
  /** Kills the server (SIGKILL: an outage, not a shutdown). */
  stop(): Promise<void>;
  /** Starts the server on the same port again (with its files when `persistent`, else empty). */
  restart(): Promise<void>;
  /** A restart that keeps the data (persistent servers): SIGTERM, `downMs` down, started again on the same files. */
  restartKeeping(downMs: number): Promise<void>;
  /** An outage that loses everything: SIGKILL, the files removed, `downMs` down, an empty server on the same port. */
  restartEmpty(downMs: number): Promise<void>;
  /** `used_memory` in bytes (INFO memory). */
  usedMemory(): Promise<number>;
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
}

/**
 * A redis-server of a test's own (never the shared 6379), so a test can take
 * Redis away and bring it back without touching the Redis everyone else uses.
 * Nothing is persisted, unless `persistent`: then the append-only file is on,
 * fsync every second, so a restart keeps the queue as a production Redis with
 * persistence would (the chaos suite), and `restartEmpty` shows what one
 * without it loses.
 */
export async function startPrivateRedis(options: { persistent?: boolean } = {}): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const persistence = options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'everysec'] : ['--appendonly', 'no'];
  let dir = mkdtempSync(join(tmpdir(), 'qcr-redis-'));
  let child: ChildProcess | undefined;
  const admin = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  admin.on('error', () => {});

  async function start() {
    const spawned = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...persistence, '--daemonize', 'no'],
      { stdio: 'ignore' },
    );
    child = spawned;
    const deadline = Date.now() + 15_000;
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      for (;;) {
        if (spawned.exitCode !== null) throw new Error(`redis-server on ${port} exited (${spawned.exitCode})`);
        // LOADING answers an error until the append-only file is read back: wait for a real PONG.
        const pong = await probe
          .connect()
          .then(() => probe.ping())
          .catch(() => null);
        if (pong === 'PONG') return;
        probe.disconnect();
        if (Date.now() > deadline) throw new Error(`redis-server on ${port} not ready within 15 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      probe.disconnect();
    }
  }

  async function kill(signal: NodeJS.Signals) {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill(signal);
    await exited;
  }
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const emptied = () => {
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(join(tmpdir(), 'qcr-redis-'));
  };

  await start();
  return {
    port,
    url,
    stop: () => kill('SIGKILL'),
    async restart() {
      if (!options.persistent) emptied();
      await start();
    },
    async restartKeeping(downMs) {
      await kill('SIGTERM');
      await pause(downMs);
      await start();
    },
    async restartEmpty(downMs) {
      await kill('SIGKILL');
      emptied();
      await pause(downMs);
      await start();
    },
    async usedMemory() {
      if (admin.status === 'wait') await admin.connect();
      const info = await admin.info('memory');
      return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN);
    },
    async destroy() {
      admin.disconnect();
      await kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
