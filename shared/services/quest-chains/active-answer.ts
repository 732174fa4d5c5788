import { createHash } from 'node:crypto';
import { dateToMicros } from '../../domain/timestamp.js';
import { answerKey, type CachedAnswer } from './active-answer-cache.js';
import { loadActiveChains, type ActiveReadDeps } from './active-read.js';
import type { ChainDefinition } from './definitions.js';

/**
 * Live tokens are issued for the end of the current minute: every answer in
 * that minute carries the same token (valid from one hour to one hour and a
 * minute), so the answer, and its entity tag, stay the same until something
 * in them really changes. A revalidation at most a minute later keeps a token
 * with at least an hour left.
 */
export const TOKEN_WINDOW_MS = 60_000;

export interface ActiveAnswer {
  /** UTF-8 JSON. */
  body: Buffer;
  etag: string;
}

const fingerprints = new WeakMap<ChainDefinition[], string>();

/** A digest of everything the read shows of a platform's definitions; computed once per loaded list. */
export function definitionsFingerprint(definitions: ChainDefinition[]): string {
  let fingerprint = fingerprints.get(definitions);
  if (fingerprint === undefined) {
    // `rules` is derived from the rows; timestamps are bigints, written as decimal text.
    const shown = definitions.map(({ chain, tasks, reward }) => [chain, tasks, reward]);
    const json = JSON.stringify(shown, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    fingerprint = createHash('sha1').update(json).digest('base64url');
    fingerprints.set(definitions, fingerprint);
  }
  return fingerprint;
}

/**
 * The JSON body of GET active and its entity tag: from the answer cache when
 * nothing in it can have changed, otherwise read (one statement with warm
 * definitions) and stored. The tag is a digest of the body itself, so it
 * changes exactly when the answer does.
 */
export async function activeAnswer(
  deps: ActiveReadDeps,
  platformId: string,
  platformUserId: string,
  nowMs = Date.now(),
): Promise<ActiveAnswer> {
  const answers = deps.chainCache.answers;
  const definitions = await deps.chainCache.get(platformId);
  const key = answerKey(platformId, platformUserId);
  const fingerprint = answers.enabled ? definitionsFingerprint(definitions) : '';
  const cached = answers.enabled ? answers.get(key, fingerprint, nowMs) : undefined;
  if (cached) return cached;

  const ticket = answers.ticket();
  const tokenIssuedAtMs = Math.ceil(nowMs / TOKEN_WINDOW_MS) * TOKEN_WINDOW_MS;
  const { userId, view } = await loadActiveChains(deps, platformId, platformUserId, { now: new Date(nowMs), definitions, tokenIssuedAtMs });
  const body = Buffer.from(JSON.stringify({ success: true, data: view }));
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  if (userId !== null && answers.enabled) {
    const expiresAtMs = Math.min(nowMs + answers.ttlMs, tokenIssuedAtMs, nextWindowEdgeMs(definitions, nowMs));
    const answer: CachedAnswer = { body, etag, definitionsFingerprint: fingerprint, userId, expiresAtMs };
    answers.store(ticket, key, answer);
  }
  return { body, etag };
}

/** The next instant a chain of the list opens or closes (the read filters by `start <= now < end`). */
function nextWindowEdgeMs(definitions: ChainDefinition[], nowMs: number): number {
  const nowUs = dateToMicros(new Date(nowMs));
  let next = Number.POSITIVE_INFINITY;
  for (const { rules } of definitions) {
    for (const edgeUs of [rules.startUs, rules.endUs]) {
      // A chain opening at start_date is in the read from that microsecond on: expire the entry just before.
      if (edgeUs > nowUs) next = Math.min(next, Number(edgeUs / 1000n));
    }
  }
  return next;
}
