import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { eventually } from './eventually.js';

export interface PrivateRedis {
  port: number;
  url: string;
  /** Kills the server (SIGKILL: an outage, not a shutdown); its data is gone. */
  stop(): Promise<void>;
  /** Starts an empty server on the same port again. */
  restart(): Promise<void>;
}

/** A port nothing listens on right now (the OS picks it, then we release it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * A throwaway redis-server of a test's own, so the test can take Redis away
 * and bring it back empty without touching the Redis everyone else uses.
 * Nothing is persisted (no RDB, no AOF).
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;

  async function start() {
    const spawned = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', tmpdir()],
      { stdio: 'ignore' },
    );
    child = spawned;
    let exited = false;
    spawned.once('exit', () => (exited = true));
    spawned.once('error', () => (exited = true));
    await eventually(async () => (exited ? Promise.reject(new Error('redis-server exited')) : (await ping(port)) || undefined), {
      timeoutMs: 10_000,
      intervalMs: 50,
      what: `redis-server on port ${port}`,
    });
  }

  async function stop() {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  return { port, url: `redis://127.0.0.1:${port}`, stop, restart: start };
}
