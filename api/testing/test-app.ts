import { type Config, parseConfig } from '../../shared/config.js';
import { createLogger } from '../../shared/observability/logger.js';
import { TEST_ADMIN_TOKEN } from '../../shared/testing/admin-token.js';
import { inProcessClient } from '../../shared/testing/api-client.js';
import type { TestDatabase } from '../../shared/testing/database.js';
import { uniqueSuffix } from '../../shared/testing/database.js';
import { createApp } from '../app.js';
import { createAppDeps } from '../deps.js';

/**
 * The real app, in process, against a test file's own database and its own
 * queue prefix on the real Redis. It is an ApiClient (shared/testing/api-client.ts):
 * `call(method, path, { body, headers, query })`.
 */
export async function createTestApp(database: TestDatabase, overrides: Partial<Record<keyof Config, string>> = {}) {
  const config = parseConfig({
    DATABASE_URL: database.url,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    QUEUE_PREFIX: `test-${uniqueSuffix()}`,
    // One queue, so a test can look at the jobs an answer enqueued (producer.queue); partitions have their own tests.
    MATCHING_PARTITIONS: '1',
    LOG_LEVEL: 'silent',
    CREDENTIAL_CACHE_TTL_MS: '0',
    // Every in-process request shares one address (no socket): a file's many deliberate 401s would
    // trip the per-address limits. Their own tests turn them on (api/auth/rate-limits.test.ts).
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0',
    RATE_LIMIT_ADMIN_FAILURES_PER_MINUTE: '0',
    // Blocked addresses answered at once in tests (the tarpit has its own test).
    RATE_LIMIT_BLOCKED_DELAY_MS: '0',
    ...overrides,
  });
  const { deps, release } = await createAppDeps({
    config,
    database,
    logger: createLogger({ level: config.LOG_LEVEL, name: 'api-test' }),
    isShuttingDown: () => false,
  });
  const app = createApp(deps);
  const { call } = inProcessClient(app);
  const adminHeaders = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

  return {
    app,
    deps,
    config,
    call,
    adminHeaders,
    async close() {
      // On an unreachable Redis (tests of outages) obliterate would wait for it forever.
      if (deps.redis.status === 'ready') await deps.producer.queue.obliterate({ force: true }).catch(() => {});
      await release();
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;
