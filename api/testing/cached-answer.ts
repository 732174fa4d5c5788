import type { CachedAnswer } from '../read-cache/active-answer-cache.js';

/** A cached GET active answer for `userId` with a body of its own (no live token in it), kept until `expiresAtMs`. */
export const cachedAnswer = (userId: string, body = `{"user":"${userId}"}`, expiresAtMs = 10_000): CachedAnswer => ({
  body: Buffer.from(body),
  etag: `"${userId}:${body.length}"`,
  tokenAt: 0,
  tokenLength: 0,
  tokenIssuedAtMs: 0,
  definitionsFingerprint: 'defs-1',
  userId,
  expiresAtMs,
});
