import { spawn } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivatePostgres, startPrivatePostgres } from '../../e2e/harness/private-postgres.js';
import { eventually } from '../testing/eventually.js';
import { childProcessEnv } from '../testing/service-env.js';
import { createDatabase } from './client.js';
import { isConnectionError, reconnectDelaySeconds } from './connection-loss.js';
import { pingDatabase } from './ping.js';
import { projectRoot } from './project-root.js';

/**
 * postgres.js 3.4.9 throws an uncaught TypeError (`socket.write` on null,
 * connection.js:255) when the server goes away under a transaction, which
 * kills the process on every Postgres restart. It also drops the promise of
 * the array-types query every new connection runs first, so a connection
 * lost during that query is an unhandled rejection that kills the process
 * (porsager/postgres#1192).
 * patches/postgres+3.4.9.patch fixes both; this reproduces them against a
 * private server, with the data layer's own client, and checks the process
 * lives and commits again.
 */
const helper = join(projectRoot(), 'shared', 'db', 'connection-loss.test-helper.ts');

interface Counts {
  committed: number;
  failed: number;
}

function startLoad(databaseUrl: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', helper], {
    cwd: projectRoot(),
    env: childProcessEnv({ DATABASE_URL: databaseUrl }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let latest: Counts = { committed: 0, failed: 0 };
  let stderr = '';
  let exit: { code: number | null; signal: string | null } | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    }),
  );
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    const last = lines.at(-1);
    if (last) latest = JSON.parse(last) as Counts;
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const alive = () => {
    if (exit) throw new Error(`the process died (${JSON.stringify(exit)}):\n${stderr}`);
  };
  return {
    counts: () => (alive(), latest),
    stderr: () => stderr,
    async stop() {
      if (!exit) child.kill('SIGTERM');
      await exited;
      return exit;
    },
  };
}

/**
 * A TCP proxy to `upstream` that resets (RST, so the driver reads ECONNRESET)
 * the first client connection that sends `marker`, and passes everything else.
 */
async function startResettingProxy(upstream: URL, marker: string) {
  let resets = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const toServer = connect(Number(upstream.port), upstream.hostname);
    for (const socket of [client, toServer]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    toServer.pipe(client);
    client.on('data', (chunk: Buffer) => {
      if (resets === 0 && chunk.includes(marker)) {
        resets += 1;
        client.resetAndDestroy();
        toServer.destroy();
        return;
      }
      toServer.write(chunk);
    });
    client.on('close', () => toServer.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the proxy has no port');
  const url = new URL(upstream);
  url.port = String(address.port);
  return {
    url: url.toString(),
    resets: () => resets,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a Postgres restart under a running transaction load', () => {
  let server: PrivatePostgres;
  beforeAll(async () => {
    server = await startPrivatePostgres();
  });
  afterAll(async () => {
    await server?.destroy();
  });

  for (const mode of ['fast', 'immediate'] as const) {
    it(`pg_ctl stop -m ${mode}: the process survives and commits again once the server is back`, async () => {
      const load = startLoad(server.serverUrl);
      try {
        await eventually(async () => load.counts().committed > 100 || undefined, { what: 'transactions before the restart' });
        await server.stop(mode);
        // Transactions fail while the server is away; the defect fired on the first of them.
        await eventually(async () => load.counts().failed > 0 || undefined, { what: 'a failed transaction' });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await server.start();
        const beforeReturn = load.counts().committed;
        await eventually(async () => load.counts().committed > beforeReturn + 100 || undefined, {
          timeoutMs: 30_000,
          what: 'commits after the restart',
        });
      } finally {
        const exit = await load.stop();
        expect(load.stderr()).not.toContain('TypeError');
        expect(exit).toEqual({ code: 0, signal: null });
      }
    });
  }

  it('a connection reset while it fetches the array types: the process survives and commits', async () => {
    // The driver's first statement on a new connection, before any of ours.
    const proxy = await startResettingProxy(new URL(server.serverUrl), 'pg_catalog.pg_type');
    const load = startLoad(proxy.url);
    try {
      await eventually(async () => load.counts().committed > 100 || undefined, { what: 'commits after the reset' });
      expect(proxy.resets()).toBe(1);
    } finally {
      const exit = await load.stop();
      await proxy.close();
      expect(exit, load.stderr()).toEqual({ code: 0, signal: null });
    }
  });

  it('tells a lost server from a refused statement, on the errors the driver really raises', async () => {
    const missing = createDatabase({ url: server.databaseUrl('no_such_database') });
    const present = createDatabase({ url: server.serverUrl });
    try {
      // 3D000: the server answered and refused; retrying will not help, so it is no outage.
      const refused = await pingDatabase(missing.db).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(Error);
      expect(isConnectionError(refused)).toBe(false);
      await pingDatabase(present.db);
      await server.stop('immediate');
      const lost = await pingDatabase(present.db).catch((error: unknown) => error);
      expect(lost).toBeInstanceOf(Error);
      expect(isConnectionError(lost)).toBe(true);
    } finally {
      await server.start();
      await Promise.all([missing.close(), present.close()]);
    }
  });

  it('reconnects at most a second after a failed connect, however many failed before', () => {
    const delays = Array.from({ length: 50 }, (_, failures) => reconnectDelaySeconds(failures));
    expect(Math.max(...delays)).toBeLessThanOrEqual(1);
    expect(delays[0]).toBeGreaterThan(0);
  });
});
