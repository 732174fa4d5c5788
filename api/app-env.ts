import type { Redis } from 'ioredis';
import type { Config } from '../shared/config.js';
import type { Database, Sql } from '../shared/db/client.js';
import type { Logger } from '../shared/observability/logger.js';
import type { MatchingProducer } from '../shared/queue/producer.js';
import type { Caller } from './auth/authenticate.js';
import type { CredentialStore } from './auth/credential-store.js';

/** Everything a request handler may use; built by main.ts (or a test) and injected into createApp. */
export interface AppDeps {
  config: Config;
  db: Database;
  sql: Sql;
  redis: Redis;
  producer: MatchingProducer;
  credentials: CredentialStore;
  logger: Logger;
  /** True once SIGTERM arrived: /readyz turns 503 so load balancers stop routing here. */
  isShuttingDown: () => boolean;
  /** Optional hook for metrics; called once per finished request. */
  onRequestFinished?: (sample: { method: string; route: string; status: number; durationMs: number }) => void;
}

export interface AppEnv {
  Variables: {
    deps: AppDeps;
    caller: Caller;
    requestId: string;
  };
}
