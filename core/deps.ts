import type { Config } from '../shared/config.js';
import type { ChainDefinition } from '../shared/db/chain-store.js';
import type { Database } from '../shared/db/client.js';
import type { ChangeNotices } from '../shared/live/change-notices.js';
import type { LiveTokenSigner } from '../shared/live/token.js';
import type { Logger } from '../shared/observability/logger.js';
import type { BacktestProducer } from '../shared/queue/backtest-producer.js';
import type { RedisClient } from '../shared/queue/connection.js';
import type { MatchingProducer } from '../shared/queue/producer.js';
import type { WebhookProducer } from '../shared/queue/webhook-producer.js';

/** The platform's chain definitions as a process keeps them (the API: a cache; elsewhere: a plain read). */
interface ChainDefinitionSource {
  get(platformId: string): Promise<ChainDefinition[]>;
}

/**
 * Everything a use-case may be given. Each use-case takes a `Pick` of it, so
 * any process (API, worker, CLI, a test) can run it with just those pieces;
 * the API's AppDeps and the worker's WorkerDeps are supersets.
 */
export interface CoreDeps {
  config: Config;
  db: Database;
  /** A read replica's pool (DATABASE_READ_URL) when set, else `db`: only for reads that tolerate lag. */
  readDb: Database;
  redis: RedisClient;
  producer: MatchingProducer;
  /** The webhook delivery queue (claims' messages, replays). */
  webhooks: WebhookProducer;
  /** The backtest queue: the API and the CLI start backtests there; the worker runs them. */
  backtests: BacktestProducer;
  liveTokens: LiveTokenSigner;
  chainCache: ChainDefinitionSource;
  changes: ChangeNotices;
  logger: Logger;
}
