import type { Database } from '../shared/db/client.js';
import type { Logger } from '../shared/observability/logger.js';
import type { MatchingProducer } from '../shared/queue/producer.js';
import type { LivePublisher } from './live-publisher.js';

/** What the worker's use-cases may use; built by main.ts (or a test). Each takes a `Pick` of it. */
export interface WorkerDeps {
  db: Database;
  producer: MatchingProducer;
  logger: Logger;
  /** Tells the API replicas whose progress changed (after commit). */
  publish: LivePublisher;
}
