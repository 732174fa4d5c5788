import type { CoreDeps } from '../core/deps.js';
import type { ApiMetrics } from '../shared/observability/metrics.js';
import type { Caller } from './auth/caller.js';
import type { CredentialCache } from './auth/credential-cache.js';
import type { RateLimits } from './auth/rate-limits.js';
import type { LiveHub } from './live/hub.js';
import type { ActiveChainCache } from './read-cache/active-chain-cache.js';

/**
 * Everything a request handler may use; built by main.ts (or a test) and
 * injected into createApp. The use-cases' deps (core/deps.ts) plus what only
 * HTTP needs.
 */
export interface AppDeps extends CoreDeps {
  /** The platform's definitions, cached in-process (also holds the answer cache). */
  chainCache: ActiveChainCache;
  credentials: CredentialCache;
  /** Fans the worker's progress messages out to open GET /v1/live streams (one Redis subscriber per process). */
  liveHub: LiveHub;
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
    /** Set by `requireOperation` once the credential's secret is verified; handlers run only once it is also authorized. */
    caller: Caller;
    requestId: string;
  };
}
