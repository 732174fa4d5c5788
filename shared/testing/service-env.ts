import { TEST_ADMIN_TOKEN } from './admin-token.js';

/**
 * The Redis every test shares unless it starts its own (a private server, a local cluster): TEST_REDIS_URL when
 * set (as TEST_DATABASE_URL names the Postgres; the device bench runs both on other ports), else the standard one.
 */
const LOCAL_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Recovery in seconds rather than tens of seconds (reconciler passes, stalled
 * jobs), so tests that kill workers or take Redis away finish quickly.
 */
const FAST_RECOVERY = { RECONCILE_INTERVAL_MS: '300', RECONCILE_MIN_AGE_MS: '500', JOB_LOCK_MS: '2000' } as const;

/**
 * Matching partitions of a test's processes unless it says otherwise: a few, so that two workers still share
 * them out by lease, without the seconds 64 cost a test on two cores (a worker starts a BullMQ worker per
 * partition it takes, and each ingest call becomes a job per partition). The partition tests, the chaos suite
 * and the bench run the shipped default.
 */
const TEST_PARTITIONS = '4';

/** What a stack of the service's processes is configured with. */
export interface ServiceSettings {
  databaseUrl: string;
  queuePrefix: string;
  /** LOCAL_REDIS_URL unless given; `cluster` sets REDIS_CLUSTER=true. */
  redis?: { url: string; cluster?: boolean };
  /** FAST_RECOVERY's timings (off: the shipped defaults, or what `env` says). */
  fastRecovery?: boolean;
  /** `shipped`: MATCHING_PARTITIONS as deployed (64); by default TEST_PARTITIONS. */
  partitions?: 'test' | 'shipped';
  /** Everything else, last: it overrides the above. */
  env?: Record<string, string>;
}

/** The environment of an API or worker process of a stack: its database, queues, Redis and the test admin token. */
export function serviceEnv(settings: ServiceSettings): Record<string, string> {
  return {
    DATABASE_URL: settings.databaseUrl,
    REDIS_URL: settings.redis?.url ?? LOCAL_REDIS_URL,
    ...(settings.redis?.cluster ? { REDIS_CLUSTER: 'true' } : {}),
    QUEUE_PREFIX: settings.queuePrefix,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    ...(settings.partitions === 'shipped' ? {} : { MATCHING_PARTITIONS: TEST_PARTITIONS }),
    ...(settings.fastRecovery ? FAST_RECOVERY : {}),
    ...settings.env,
  };
}

/**
 * What a child process is started with: `env` and PATH, nothing else of this
 * process's environment, so a developer's exports never change what a test runs.
 */
export function childProcessEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ...env };
}
