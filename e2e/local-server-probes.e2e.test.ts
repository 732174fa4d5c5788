import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../shared/db/project-root.js';
import type { LocalServers } from '../shared/testing/global-setup.js';

// `npm start` and `npm test` use the Postgres and the Redis they find on the
// standard ports (scripts/local-servers.mjs). Something else listening there
// (an HTTP server a test left on the port, another service) was once taken
// for Redis, and the service then failed on every command; the probe now
// asks each server the question only it answers, and a port held by
// something else stops the start with a message naming the variable to set.

type Found = 'absent' | 'speaks' | 'other';
interface Probes extends LocalServers {
  probe(port: number, protocol: 'postgres' | 'redis', timeoutMs?: number): Promise<Found>;
}

let scripts: Probes;
const servers: Server[] = [];

async function listening(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

let httpPort: number;
let silentPort: number;
let closedPort: number;

beforeAll(async () => {
  scripts = (await import(pathToFileURL(join(projectRoot(), 'scripts', 'local-servers.mjs')).href)) as Probes;
  httpPort = await listening(createHttpServer((_request, response) => response.end('hello')));
  // Accepts and never says anything.
  silentPort = await listening(createServer(() => {}));
  const freed = createServer();
  closedPort = await listening(freed);
  await new Promise((resolve) => freed.close(resolve));
});

afterAll(async () => {
  for (const server of servers) server.close();
});

const postgresPort = Number(new URL(process.env.TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432').port || 5432);
const redisPort = Number(new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379').port || 6379);

describe('the standard-port probes of a local start', () => {
  it('know a Postgres and a Redis by their answers, and nothing else', async () => {
    expect(await scripts.probe(postgresPort, 'postgres')).toBe('speaks');
    expect(await scripts.probe(redisPort, 'redis')).toBe('speaks');
    // Each server is not the other.
    expect(await scripts.probe(redisPort, 'postgres', 500)).toBe('other');
    expect(await scripts.probe(postgresPort, 'redis', 500)).toBe('other');
    for (const protocol of ['postgres', 'redis'] as const) {
      expect(await scripts.probe(httpPort, protocol)).toBe('other');
      expect(await scripts.probe(silentPort, protocol, 300)).toBe('other');
      expect(await scripts.probe(closedPort, protocol)).toBe('absent');
    }
  });

  it('stops a start whose standard port holds something that is not the server, naming the port and the variable', async () => {
    const start = (env: NodeJS.ProcessEnv) => scripts.ensureLocalServers({ root: projectRoot(), env, log: () => {} });
    await expect(start({ DATABASE_URL: 'postgres://configured', TEST_STANDARD_REDIS_PORT: String(httpPort) })).rejects.toThrow(
      `something answers on 127.0.0.1:${httpPort}, but not as Redis does (its answer to PING). Set REDIS_URL`,
    );
    await expect(start({ REDIS_URL: 'redis://configured', TEST_STANDARD_POSTGRES_PORT: String(httpPort) })).rejects.toThrow(
      `something answers on 127.0.0.1:${httpPort}, but not as Postgres does (its answer to an SSLRequest). Set DATABASE_URL`,
    );
  });
});
