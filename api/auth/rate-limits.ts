import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RLWrapperTimeouts } from 'rate-limiter-flexible';
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/observability/logger.js';
import type { RedisClient } from '../../shared/queue/connection.js';
import { CredentialLimiter } from './credential-limiter.js';
import { FailureLimiter } from './failure-limiter.js';
import type { RateLimitPolicy } from './rate-limit-policy.js';

export interface RateLimits {
  /** Failed API-key authentications per client address; null when turned off. */
  authFailures: FailureLimiter | null;
  /** Wrong admin tokens per client address; null when turned off. */
  adminFailures: FailureLimiter | null;
  /** Requests per credential; null when turned off. */
  credentials: CredentialLimiter | null;
  /** Behind how many proxies of ours the API runs (TRUST_PROXY). */
  trustedProxies: number;
  close(): void;
}

const WINDOW_S = 60;
// A Redis that accepts the connection but does not answer must not hold requests: past this, the in-memory count decides.
const REDIS_TIMEOUT_MS = 250;

/**
 * The limits of docs/operations.md ("Rate limits"), counted in Redis so every
 * replica shares them. Each has an in-memory insurance limiter with the same
 * quota: while Redis is down or slow, each process counts on its own, so an
 * outage neither lifts the limits nor fails the requests.
 */
export function createRateLimits(options: { redis: RedisClient; config: Config; logger: Logger }): RateLimits {
  const { redis, config, logger } = options;
  const store = (policy: RateLimitPolicy): RateLimiterAbstract => {
    const insuranceLimiter = new RateLimiterMemory({ points: policy.quota, duration: policy.windowS });
    const shared = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${config.QUEUE_PREFIX}:rate:${policy.name}`,
      points: policy.quota,
      duration: policy.windowS,
      rejectIfRedisNotReady: true,
      insuranceLimiter,
    });
    return new RLWrapperTimeouts({
      limiter: shared,
      timeoutMs: REDIS_TIMEOUT_MS,
      insuranceLimiter,
    }) as unknown as RateLimiterAbstract;
  };
  const policy = (name: string, quota: number): RateLimitPolicy | null => (quota > 0 ? { name, quota, windowS: WINDOW_S } : null);

  const auth = policy('auth-failures', config.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE);
  const admin = policy('admin-failures', config.RATE_LIMIT_ADMIN_FAILURES_PER_MINUTE);
  const credential = policy('credential', config.RATE_LIMIT_CREDENTIAL_PER_MINUTE);
  const credentials = credential && new CredentialLimiter(credential, store(credential), logger);
  return {
    authFailures:
      auth &&
      new FailureLimiter(
        auth,
        store(auth),
        'failed authentications from this address',
        logger,
        config.RATE_LIMIT_BLOCKED_DELAY_MS,
      ),
    adminFailures:
      admin &&
      new FailureLimiter(admin, store(admin), 'wrong admin tokens from this address', logger, config.RATE_LIMIT_BLOCKED_DELAY_MS),
    credentials,
    trustedProxies: config.TRUST_PROXY,
    close: () => credentials?.close(),
  };
}
