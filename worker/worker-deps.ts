import type { CoreDeps } from '../core/deps.js';
import type { LivePublisher } from './live-publisher.js';

/** What the worker's jobs may use; built by main.ts (or a test). Each takes a `Pick` of it. */
export type WorkerDeps = Pick<CoreDeps, 'db' | 'producer' | 'logger' | 'standings'> & {
  /** Tells the API replicas whose progress changed (after commit). */
  publish: LivePublisher;
};
