import type { Config } from '../config.js';
import type { Logger } from '../observability/logger.js';
import { type AutoClaimProducer, createAutoClaimProducer } from '../queue/auto-claim-producer.js';
import { type BacktestProducer, createBacktestProducer } from '../queue/backtest-producer.js';
import { createRedis, type RedisClient, type RedisRole } from '../queue/connection.js';
import { type QueueLayout, queueLayout } from '../queue/partitions.js';
import { createMatchingProducer, type MatchingProducer } from '../queue/producer.js';
import { createWebhookProducer, type WebhookProducer } from '../queue/webhook-producer.js';

// REDIS_CLUSTER: every client an ioredis Cluster, hash-tagged queues, sharded live channels (docs/scaling.md).

/** Where this deployment's queues live (QUEUE_PREFIX, REDIS_CLUSTER, MATCHING_PARTITIONS), as every process addresses them. */
const queueLayoutOf = (config: Config): QueueLayout =>
  queueLayout({ prefix: config.QUEUE_PREFIX, cluster: config.REDIS_CLUSTER, partitions: config.MATCHING_PARTITIONS });

/** A client of REDIS_URL in `role` (one Redis or a cluster); connection errors go to `logger` when given, under `name`. */
export function openRedis(config: Config, role: RedisRole, logger?: Logger, name: string = role): RedisClient {
  return createRedis(config.REDIS_URL, role, { cluster: config.REDIS_CLUSTER, ...(logger ? { logger, name } : {}) });
}

/** The queues a process adds jobs to, on one producer connection. */
export interface QueueProducers {
  layout: QueueLayout;
  /** The producer connection the queues share (rate limits, live notices and probes use it too). */
  redis: RedisClient;
  matching: MatchingProducer;
  webhooks: WebhookProducer;
  backtests: BacktestProducer;
  /** The rewards of auto-claim chains, claimed by the worker (§18.5). */
  autoClaims: AutoClaimProducer;
  /** Closes the queues, then the connection. */
  close(): Promise<void>;
}

export function openQueueProducers(config: Config, logger?: Logger): QueueProducers {
  const layout = queueLayoutOf(config);
  const redis = openRedis(config, 'producer', logger);
  const matching = createMatchingProducer(
    redis,
    layout,
    { windowMs: config.MATCH_FAIR_WINDOW_MS, quietEvents: config.MATCH_FAIR_QUIET_EVENTS },
    logger ? { logger } : {},
  );
  const webhooks = createWebhookProducer(redis, layout.webhookPrefix);
  const backtests = createBacktestProducer(redis, layout.backtestPrefix);
  const autoClaims = createAutoClaimProducer(redis, layout.autoClaimPrefix);
  return {
    layout,
    redis,
    matching,
    webhooks,
    backtests,
    autoClaims,
    async close() {
      await Promise.allSettled([matching.close(), webhooks.close(), backtests.close(), autoClaims.close()]);
      redis.disconnect();
    },
  };
}
