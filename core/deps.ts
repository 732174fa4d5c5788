import type { Config } from '../shared/config.js';
import type { ChainDefinition } from '../shared/db/chain-store.js';
import type { Database } from '../shared/db/client.js';
import type { Leaderboard } from '../shared/db/leaderboard-store.js';
import type { StandingsCache } from '../shared/leaderboards/standings-cache.js';
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

/** Leaderboards by id as a process keeps them (the API: a short-lived cache; elsewhere: a plain read). */
export interface LeaderboardSource {
  get(id: string): Promise<Leaderboard | null>;
  /** Drops what this process keeps of the board (it changed). */
  forget(id: string): void;
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
  /** Leaderboards' standings of the periods in progress, in Redis (shared/leaderboards/standings-cache.ts). */
  standings: StandingsCache;
  leaderboards: LeaderboardSource;
  logger: Logger;
}
