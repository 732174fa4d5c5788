import { parseConfig, type Config } from '../../shared/config.js';
import { loadLiveTokenSigner } from '../../shared/live/token.js';
import { createLogger } from '../../shared/observability/logger.js';
import { createApiMetrics } from '../../shared/observability/metrics.js';
import { createRedis } from '../../shared/queue/connection.js';
import { createMatchingProducer } from '../../shared/queue/producer.js';
import { ActiveChainCache } from '../../shared/services/quest-chains/active-chain-cache.js';
import type { TestDatabase } from '../../shared/testing/database.js';
import { uniqueSuffix } from '../../shared/testing/database.js';
import { createApp } from '../app.js';
import { CredentialStore } from '../auth/credential-store.js';
import { LiveHub } from '../live/hub.js';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * The real app, in process, against a test file's own database and its own
 * queue prefix on the real Redis. `call` is a fetch-like helper returning the parsed JSON.
 */
export async function createTestApp(database: TestDatabase, overrides: Partial<Record<keyof Config, string>> = {}) {
  const config = parseConfig({
    DATABASE_URL: database.url,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    QUEUE_PREFIX: `test-${uniqueSuffix()}`,
    LOG_LEVEL: 'silent',
    CREDENTIAL_CACHE_TTL_MS: '0',
    ...overrides,
  });
  const redis = createRedis(config.REDIS_URL, 'producer');
  const producer = createMatchingProducer(redis, config.QUEUE_PREFIX);
  const metrics = createApiMetrics({ queue: producer.queue });
  const deps = {
    config,
    db: database.db,
    sql: database.sql,
    redis,
    producer,
    credentials: new CredentialStore(database.db, config.CREDENTIAL_CACHE_TTL_MS),
    liveTokens: await loadLiveTokenSigner(database.db, config.LIVE_TOKEN_SECRET),
    liveHub: new LiveHub({
      redis: createRedis(config.REDIS_URL, 'subscriber'),
      queuePrefix: config.QUEUE_PREFIX,
      logger: createLogger({ level: config.LOG_LEVEL, name: 'api-test' }),
    }),
    chainCache: new ActiveChainCache(database.db, config.CHAIN_CACHE_TTL_MS),
    logger: createLogger({ level: config.LOG_LEVEL, name: 'api-test' }),
    isShuttingDown: () => false,
    metrics,
    onRequestFinished: metrics.observeRequest,
  };
  const app = createApp(deps);

  async function call(method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}) {
    const init: RequestInit = { method, headers: options.headers ?? {} };
    if (options.body !== undefined) {
      init.body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      init.headers = { 'content-type': 'application/json', ...options.headers };
    }
    const response = await app.request(path, init);
    const text = await response.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json, text, headers: response.headers };
  }

  const adminHeaders = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

  return {
    app,
    deps,
    config,
    call,
    adminHeaders,
    async close() {
      await deps.liveHub.close();
      // On an unreachable Redis (tests of outages) obliterate would wait for it forever.
      if (redis.status === 'ready') await producer.queue.obliterate({ force: true }).catch(() => {});
      await producer.close();
      redis.disconnect();
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof createTestApp>>;
