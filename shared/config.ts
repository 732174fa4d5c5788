import { z } from 'zod';
import { loadEnvFileIfPresent } from './env-file.js';

/**
 * Environment parsed once per process. Nothing else in the code base reads
 * process.env, so every knob the service has is listed here (and in README).
 */
const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');

/** Postgres session time limits; createDatabase applies them when a caller names none. */
export const databaseTimeoutDefaults = {
  // API statements are single-row reads and writes: one taking 10 s is stuck, not slow.
  apiStatementMs: 10000,
  // A matching batch may replay a long history (recompute); it still must not run unbounded.
  workerStatementMs: 30000,
  lockMs: 10000,
  idleInTransactionMs: 10000,
} as const;

/** A count of processes: a whole number from 1, said plainly when it is not (`npm start` reads these). */
const positiveCount = (name: string) =>
  z
    .string()
    .default('1')
    .refine((value) => /^\s*[1-9]\d*\s*$/.test(value) && Number(value) <= 256, {
      message: `must be a whole number of processes from 1 to 256, e.g. ${name}=2`,
    })
    .transform(Number);

const configSchema = z.object({
  // The service's own database, created by the first migration run when absent (shared/db/migrate.ts).
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/quest_chains'),
  // A read replica for the API's reads that tolerate its lag (docs/scaling.md, "Read replicas"); unset: DATABASE_URL serves them.
  DATABASE_READ_URL: z.string().url().optional(),
  // Whole months of events kept before the current one; older partitions are dropped (docs/operations.md,
  // "Event retention"). Unset: events are kept forever.
  EVENT_RETENTION_MONTHS: z.coerce.number().int().min(1).max(1200).optional(),
  // One URL; with REDIS_CLUSTER=true, one or more comma-separated seed nodes of the cluster.
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .refine(
      (value) => redisUrls(value).length > 0 && redisUrls(value).every(isRedisUrl),
      'must be redis:// or rediss:// URLs, comma-separated',
    ),
  // Every Redis client of both processes becomes an ioredis Cluster, queues get hash-tagged prefixes and live
  // channels use sharded pub/sub (docs/scaling.md, "Redis Cluster"). Off: one Redis.
  REDIS_CLUSTER: booleanFlag.default(false),
  // Matching partitions (docs/scaling.md): a user's work always goes to the partition of a hash of the user, each
  // partition its own hash-tagged queue (so a cluster spreads them over its masters), and the live workers share
  // the partitions out among themselves through leases. Fixed for a deployment: the first process stores it in
  // Redis and a process started with another count refuses to start; a process that leaves it unset takes the
  // stored count (shared/queue/partition-count.ts). 16: fuller jobs than 64 (each job costs an add, a fetch and a
  // finish whatever it carries) while still spreading over 16 workers (docs/scaling.md, "What bounds each size").
  MATCHING_PARTITIONS: z.coerce.number().int().min(1).max(1024).default(16),
  // The name MATCHING_PARTITIONS had before leases: still read when MATCHING_PARTITIONS is unset (parseConfig).
  MATCHING_QUEUE_SHARDS: z.coerce.number().int().min(1).max(1024).optional(),
  // Pins this worker to these partitions, e.g. `0,2`: it consumes exactly them, takes no leases and leaves them
  // to no one (docs/scaling.md, "Pinned workers"). Unset: the worker takes its share of the partitions by lease.
  WORKER_SHARDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be comma-separated partition numbers, e.g. 0,2')
    .transform((value) => [...new Set(value.split(',').map(Number))].sort((a, b) => a - b))
    .optional(),
  // How long a partition's lease outlives its holder's last renewal: a worker that dies or hangs loses its
  // partitions this long after it stopped renewing (it renews every third of it, at most every second).
  PARTITION_LEASE_MS: z.coerce.number().int().min(1000).max(60_000).default(6000),
  // `npm start` (scripts/start.mjs): API processes sharing PORT (node:cluster, api/cluster-main.ts), and workers.
  API_PROCESSES: positiveCount('API_PROCESSES'),
  WORKER_PROCESSES: positiveCount('WORKER_PROCESSES'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  WORKER_HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  // The API's internal Prometheus port; unset: /metrics on PORT behind the admin token (docs/operations.md).
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  LIVE_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  QUEUE_PREFIX: z.string().min(1).default('qcr'),
  // Jobs a worker holds at once: their events are matched together in batches, so this is the batcher's intake.
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(64),
  // Most events one matching transaction covers.
  MATCH_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(1000),
  // Batches one worker runs at once: two let one compute while the other waits on Postgres.
  MATCH_BATCHES_IN_FLIGHT: z.coerce.number().int().min(1).max(16).default(2),
  // How long a small batch may wait for more work: less CPU per event at moderate rates, that much more latency.
  MATCH_BATCH_LINGER_MS: z.coerce.number().int().min(0).max(1000).default(0),
  // Walks a worker keeps between batches (core/matching/walk-cache.ts); 0: every batch loads its users' walks.
  MATCH_WALKS_KEPT: z.coerce.number().int().min(0).max(10_000_000).default(20_000),
  // How long a job stays locked to a worker that stopped answering (crash, SIGKILL, SIGSTOP); another
  // worker takes it over within twice this (the lock expires, then the next stalled check runs).
  JOB_LOCK_MS: z.coerce.number().int().min(1000).default(5000),
  RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).default(5000),
  RECONCILE_MIN_AGE_MS: z.coerce.number().int().min(0).default(10000),
  CREDENTIAL_CACHE_TTL_MS: z.coerce.number().int().min(0).max(5000).default(3000),
  CHAIN_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60000).default(2000),
  // Longest a cached GET active answer (and its tag) is kept: change notices drop answers, this is only the
  // safety net should one be lost (docs/operations.md, "Conditional reads"). 0 turns the answer cache off.
  ANSWER_CACHE_TTL_MS: z.coerce.number().int().min(0).max(86_400_000).default(600_000),
  // How often an API checks that its change-notice subscriptions deliver (a probe round trip per channel); a channel
  // silent for three of these turns the answer cache off until it answers again (docs/operations.md, "Change notices").
  NOTICE_PROBE_MS: z.coerce.number().int().min(50).max(10_000).default(250),
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).default(10000),
  MIGRATE_ON_START: booleanFlag.default(false),
  // Time limits (docs/operations.md, "Time limits"). Set on every pooled Postgres session at connect.
  API_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(databaseTimeoutDefaults.apiStatementMs),
  WORKER_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(databaseTimeoutDefaults.workerStatementMs),
  DB_LOCK_TIMEOUT_MS: z.coerce.number().int().min(0).default(databaseTimeoutDefaults.lockMs),
  DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).default(databaseTimeoutDefaults.idleInTransactionMs),
  // Longest an HTTP request may take before it is answered 503 (the live stream is exempt).
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(15000),
  // A worker that has not renewed its lease for this long is presumed stopped: its sessions are terminated.
  WORKER_LEASE_MS: z.coerce.number().int().min(1000).default(8000),
  // How often a worker renews its lease and checks the others' (well under WORKER_LEASE_MS).
  WORKER_HEARTBEAT_MS: z.coerce.number().int().min(100).default(2000),
  // Fair matching: a provider that enqueued more than MATCH_FAIR_QUIET_EVENTS events in the last
  // MATCH_FAIR_WINDOW_MS goes behind quieter ones (shared/queue/fair-priority.ts).
  MATCH_FAIR_WINDOW_MS: z.coerce.number().int().min(100).default(10000),
  MATCH_FAIR_QUIET_EVENTS: z.coerce.number().int().min(1).default(100),
  // API protection (docs/operations.md, "Rate limits" and "Live stream caps"). 0 turns a rate limit off.
  // Per credential: far above what one credential reaches in `npm run bench` (~40,000 reads/s for ~25 s a minute).
  RATE_LIMIT_CREDENTIAL_PER_MINUTE: z.coerce.number().int().min(0).default(6_000_000),
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(100),
  RATE_LIMIT_ADMIN_FAILURES_PER_MINUTE: z.coerce.number().int().min(0).default(20),
  /** How long a blocked address waits for its 429 (a tarpit against floods); 0 answers at once. */
  RATE_LIMIT_BLOCKED_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
  // Proxies in front of the API that append to X-Forwarded-For; 0 = the socket's address is the client's.
  TRUST_PROXY: z.coerce.number().int().min(0).max(10).default(0),
  LIVE_MAX_STREAMS_PER_USER: z.coerce.number().int().min(1).default(10),
  LIVE_MAX_STREAMS_PER_PLATFORM: z.coerce.number().int().min(1).default(5000),
  LIVE_MAX_STREAMS: z.coerce.number().int().min(1).default(10000),
  // Origins whose pages may open /v1/live (product rules §8): `*` or a comma list.
  LIVE_ALLOWED_ORIGINS: z
    .string()
    .default('*')
    .transform((value) =>
      value.trim() === '*'
        ? ('*' as const)
        : value
            .split(',')
            .map((origin) => origin.trim())
            .filter(Boolean),
    ),
  // Webhooks (docs/webhooks.md). The SSRF guard's development switches: plain http:// targets, and
  // loopback/private/link-local targets. Both stay false in production.
  WEBHOOK_ALLOW_HTTP: booleanFlag.default(false),
  WEBHOOK_ALLOW_PRIVATE: booleanFlag.default(false),
  // Multiplies the retry schedule (5 s first retry … ~8 h in all); tests shrink it, e.g. 0.001.
  WEBHOOK_RETRY_SCALE: z.coerce.number().positive().max(1).default(1),
  // Deliveries one worker makes at once (each waits up to 10 s on its receiver).
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
  // Longest a delivery gives way to a matching backlog (worker/webhooks/matching-first.ts); 0: never.
  WEBHOOK_YIELD_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  // Leaderboards (docs/leaderboards.md): how long after a period ends its standings are made final (stored, announced
  // by leaderboard.finalized), so events sent before the end but matched after it still count. 0: at the end.
  LEADERBOARD_SETTLE_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  // What this worker process does (docs/scaling.md, "Webhook delivery"): `matching` (the matching
  // shards, reconciler, partitions, backtests) and `webhooks` (deliveries and their sweeper).
  // Both by default; `matching` alone leaves deliveries to processes started with `webhooks`.
  WORKER_ROLES: z
    .string()
    .regex(/^(matching|webhooks)(,(matching|webhooks))*$/, 'must be matching, webhooks or matching,webhooks')
    .default('matching,webhooks')
    .transform((value) => new Set(value.split(',') as ('matching' | 'webhooks')[])),
});

/** The nodes of REDIS_URL: one URL, or a cluster's comma-separated seeds. */
export const redisUrls = (value: string): string[] =>
  value
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);

function isRedisUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const checkedSchema = configSchema.superRefine((config, context) => {
  if (!config.REDIS_CLUSTER && redisUrls(config.REDIS_URL).length > 1) {
    context.addIssue({ code: 'custom', path: ['REDIS_URL'], message: 'several URLs need REDIS_CLUSTER=true' });
  }
  if (config.MATCHING_QUEUE_SHARDS !== undefined && config.MATCHING_QUEUE_SHARDS !== config.MATCHING_PARTITIONS) {
    context.addIssue({
      code: 'custom',
      path: ['MATCHING_QUEUE_SHARDS'],
      message: `is the old name of MATCHING_PARTITIONS and says ${config.MATCHING_QUEUE_SHARDS}, MATCHING_PARTITIONS ${config.MATCHING_PARTITIONS}: set MATCHING_PARTITIONS only`,
    });
  }
});

/** Whether the environment sets the partition count (MATCHING_PARTITIONS, or its old name): if not, the deployment's stored one is used. */
export const setsPartitionCount = (env: Record<string, string | undefined>): boolean =>
  Boolean(env.MATCHING_PARTITIONS) || Boolean(env.MATCHING_QUEUE_SHARDS);

/**
 * Refuses WORKER_SHARDS pins to partitions the count does not have. Checked
 * once the count is known: in parseConfig when the environment sets it, else
 * once the deployment's stored count is read (withDeploymentPartitions), so
 * a pin past 15 in a deployment of 64 partitions needs no setting beside it.
 */
export function checkPinnedPartitions(config: Config): Config {
  const outside = (config.WORKER_SHARDS ?? []).filter((partition) => partition >= config.MATCHING_PARTITIONS);
  if (outside.length === 0) return config;
  const many = outside.length > 1;
  throw new ConfigError(
    `Invalid configuration: WORKER_SHARDS: partition${many ? 's' : ''} ${outside.join(',')} ${many ? 'do' : 'does'} not exist: ` +
      `MATCHING_PARTITIONS=${config.MATCHING_PARTITIONS} numbers them 0 to ${config.MATCHING_PARTITIONS - 1}`,
  );
}

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty variable means "unset" so `FOO=` in an .env file falls back to the default.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  // MATCHING_QUEUE_SHARDS, the old name, counts while the new one is unset; both set must agree (checkedSchema).
  if (present.MATCHING_PARTITIONS === undefined && present.MATCHING_QUEUE_SHARDS !== undefined)
    present.MATCHING_PARTITIONS = present.MATCHING_QUEUE_SHARDS;
  const result = checkedSchema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return setsPartitionCount(present) ? checkPinnedPartitions(result.data) : result.data;
}

/** A ConfigError's message on stderr and exit 1 (a process cannot start on it); anything else is thrown on. */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

/** Reads process.env once (after `.env`, when present); exits with a message naming the bad variable. */
export function loadConfig(): Config {
  try {
    loadEnvFileIfPresent();
    return parseConfig(process.env);
  } catch (error) {
    return exitOnConfigError(error);
  }
}
