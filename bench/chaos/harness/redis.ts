import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../../harness/processes.js';

export interface ChaosRedis {
  port: number;
  url: string;
  /** A restart that keeps the data: SIGTERM (Redis rewrites nothing, its append-only file is already on disk), then start on the same files. */
  restart(downMs: number): Promise<void>;
  /** An outage that loses everything: SIGKILL, the files removed, an empty server started on the same port. */
  restartEmpty(downMs: number): Promise<void>;
  /** `used_memory` in bytes (INFO memory). */
  usedMemory(): Promise<number>;
  destroy(): Promise<void>;
}

/**
 * The suite's own redis-server (never the shared 6379): append-only file on,
 * fsync every second, so a restart keeps the queue as a production Redis
 * with persistence would, and `restartEmpty` shows what a Redis without it loses.
 */
export async function startChaosRedis(): Promise<ChaosRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let dir = mkdtempSync(join(tmpdir(), 'qcr-chaos-redis-'));
  let child: ChildProcess | undefined;
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: (times) => Math.min(times * 100, 1000) });
  admin.on('error', () => {});

  async function start() {
    const spawned = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--daemonize', 'no'],
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
        const pong = await probe.connect().then(() => probe.ping()).catch(() => null);
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

  await start();
  return {
    port,
    url,
    async restart(downMs) {
      await kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    async restartEmpty(downMs) {
      await kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      dir = mkdtempSync(join(tmpdir(), 'qcr-chaos-redis-'));
      await new Promise((resolve) => setTimeout(resolve, downMs));
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
