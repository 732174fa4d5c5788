import { once } from 'node:events';
import { ZodError } from 'zod';
import { describeZodError } from '../api/http/errors.js';
import { withTimeout } from '../shared/async/with-timeout.js';
import { type Config, loadConfig } from '../shared/config.js';
import type { Database } from '../shared/db/client.js';
import { isConnectionError, sqlStateOf } from '../shared/db/connection-loss.js';
import { DomainError } from '../shared/errors.js';
import type { ChangeNotices } from '../shared/live/change-notices.js';
import { createChangePublisher } from '../shared/live/change-publisher.js';
import type { RedisClient } from '../shared/queue/connection.js';
import { withDeploymentPartitions } from '../shared/queue/partition-count.js';
import { openDatabase } from '../shared/wiring/databases.js';
import { openQueueProducers, openRedis, type QueueProducers } from '../shared/wiring/queues.js';

/** What every command gets: the database, the config, change notices for the running APIs and an output that knows about --json. */
export interface CliContext {
  db: Database;
  config: Config;
  /** Tells running API processes what a command changed (their caches drop it at once); Redis is opened on first use. */
  changes: ChangeNotices;
  out: Output;
}

export interface Output {
  json: boolean;
  /** The command's result: `data` as one JSON document under --json, else the human lines. */
  result(data: unknown, human: () => string[]): void;
  /** Warnings go to stderr in both modes, so --json stdout stays parseable. */
  warn(message: string): void;
}

function createOutput(json: boolean): Output {
  return {
    json,
    result(data, human) {
      process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human().join('\n')}\n`);
    },
    warn(message) {
      process.stderr.write(`warning: ${message}\n`);
    },
  };
}

/** Input the operator typed, checked by the same schemas the admin routes use; errors name the field. */
export class CliInputError extends Error {}

/** The exit code of a usage error (as commander's and most CLIs'); a failed command exits 1. */
export const USAGE_EXIT_CODE = 2;

/** A failure under --json: one JSON object on stderr, shaped like the API's error envelope. */
export function writeJsonFailure(message: string, code: string) {
  process.stderr.write(`${JSON.stringify({ success: false, error: message, code })}\n`);
}

export function parseInput<T>(schema: { parse(value: unknown): T }, value: unknown, root = 'input'): T {
  try {
    return schema.parse(value);
  } catch (error) {
    if (error instanceof ZodError) throw new CliInputError(describeZodError(error, root));
    throw error;
  }
}

/**
 * Runs one command against the configured database and turns every failure
 * into one line on stderr and exit code 1. The database URL is never printed
 * (it may hold a password); host and database name are enough to act on.
 */
export async function runCommand(json: boolean, command: (context: CliContext) => Promise<void>): Promise<void> {
  const config = loadConfig();
  const database = openDatabase(config, { poolSize: 2, applicationName: 'qcr-cli' });
  const out = createOutput(json);
  let redis: RedisClient | undefined;
  const changes = createChangePublisher({
    // Opened on the first notice; a producer connection takes no command before it is ready.
    redis: async () => {
      redis ??= openRedis(config, 'producer');
      if (redis.status !== 'ready') await withTimeout(once(redis, 'ready'), 3000, 'Redis did not answer within 3 s');
      return redis;
    },
    prefix: config.QUEUE_PREFIX,
    sharded: config.REDIS_CLUSTER,
    onLost: (notice) =>
      out.warn(
        `running APIs were not told of this change (${notice}): Redis did not take the notice; they see it within CHAIN_CACHE_TTL_MS`,
      ),
  });
  try {
    await command({ db: database.db, config, changes, out });
  } catch (error) {
    const message = explain(error, config.DATABASE_URL);
    if (json) writeJsonFailure(message, failureCode(error));
    else process.stderr.write(`error: ${message}\n`);
    process.exitCode = error instanceof CliInputError || error instanceof ZodError ? USAGE_EXIT_CODE : 1;
  } finally {
    redis?.disconnect();
    await database.close();
  }
}

/** The `code` of a --json failure: the domain's own, `invalid_input` for refused input, else where it failed. */
function failureCode(error: unknown): string {
  if (error instanceof DomainError) return error.code;
  if (error instanceof CliInputError || error instanceof ZodError) return 'invalid_input';
  return isConnectionError(error) ? 'unavailable' : 'internal';
}

function explain(error: unknown, databaseUrl: string): string {
  if (error instanceof DomainError || error instanceof CliInputError) return error.message;
  if (error instanceof ZodError) return describeZodError(error);
  const where = describeDatabase(databaseUrl);
  // drizzle wraps driver errors; the Postgres code sits on the error or its cause.
  const code = sqlStateOf(error);
  if (code === '42P01') return `the database ${where} has no service tables: run \`npm run db:migrate\` first`;
  if (code === '3D000') return `the database ${where} does not exist: \`npm run db:migrate\` (or \`npm start\`) creates it`;
  if (code === '28P01' || code === '28000') return `Postgres refused the login for ${where}: check DATABASE_URL`;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'CONNECT_TIMEOUT')
    return `cannot reach Postgres at ${where} (${code}): is it running?`;
  return error instanceof Error ? error.message : String(error);
}

function describeDatabase(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

/**
 * The queues, as the API and the workers address them, for a command that adds
 * a job (a backtest, a replay); closed when `use` ends. No logger: a log line
 * would break --json's stderr, and the command reports its own failure.
 */
export async function withQueues<T>(config: Config, use: (queues: QueueProducers) => Promise<T>): Promise<T> {
  // Matching jobs go to the deployment's partitions, also where MATCHING_PARTITIONS is unset here.
  const queues = openQueueProducers(await withDeploymentPartitions(config, process.env));
  try {
    return await use(queues);
  } finally {
    await queues.close();
  }
}

/** "a,b, c" -> ["a","b","c"]; "" -> [] (no permissions at all). */
export const commaList = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
