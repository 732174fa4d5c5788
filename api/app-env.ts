import type { Config } from '../shared/config.js';
import type { Database } from '../shared/db/client.js';
import type { LiveTokenSigner } from '../shared/live/token.js';
import type { Logger } from '../shared/observability/logger.js';
import type { ApiMetrics } from '../shared/observability/metrics.js';
import type { RedisClient } from '../shared/queue/connection.js';
import type { MatchingProducer } from '../shared/queue/producer.js';
import type { WebhookProducer } from '../shared/queue/webhook-producer.js';
import type { ActiveChainCache } from './read-cache/active-chain-cache.js';
import type { Caller } from './auth/caller.js';
import type { CredentialCache } from './auth/credential-cache.js';
import type { LiveHub } from './live/hub.js';
import type { RateLimits } from './auth/rate-limits.js';

/** Everything a request handler may use; built by main.ts (or a test) and injected into createApp. */
export interface AppDeps {
  config: Config;
  db: Database;
  /**
   * The pool of DATABASE_READ_URL (a replica) when set, else `db` itself: for
   * reads that tolerate the replica's lag (docs/scaling.md, "Read replicas").
   * Anything that writes, or must read what it just wrote, uses `db`.
   */
  readDb: Database;
  /** The producer connection (an ioredis Cluster when REDIS_CLUSTER=true). */
  redis: RedisClient;
  producer: MatchingProducer;
  /** The webhook delivery queue: messages the API wrote (claims) and replays. */
  webhooks: WebhookProducer;
  credentials: CredentialCache;
  liveTokens: LiveTokenSigner;
  /** Fans the worker's progress messages out to open GET /v1/live streams (one Redis subscriber per process). */
  liveHub: LiveHub;
  chainCache: ActiveChainCache;
  logger: Logger;
  /** True once SIGTERM arrived: /readyz turns 503 so load balancers stop routing here. */
  isShuttingDown: () => boolean;
  /** Prometheus metrics: GET /metrics serves them; request context and event routes feed them. */
  metrics: ApiMetrics;
  /** Per-credential and per-address limits (docs/operations.md, "Rate limits"). */
  rateLimits: RateLimits;
}

export interface AppEnv {
  Variables: {
    deps: AppDeps;
    caller: Caller;
    requestId: string;
  };
}
