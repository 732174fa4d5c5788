import type { SenderUserId } from '../../shared/domain/ids.js';
import { createHash } from 'node:crypto';
import type { ChainDefinition } from '../../shared/db/chain-store.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import type { AppDeps } from '../app-env.js';
import { readActiveChains, type ActiveChains } from '../../core/use-cases/quest-chains/read-active-chains.js';
import { answerKey, type CachedAnswer } from './active-answer-cache.js';

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
 * definitions), rendered once by `render` (the route's wire shaper) and
 * stored, so a cache hit costs no rendering either. The tag is a digest of
 * the body itself, so it changes exactly when the answer does.
 */
export async function activeAnswer(
  deps: Pick<AppDeps, 'readDb' | 'chainCache' | 'liveTokens'>,
  input: { platformId: string; platformUserId: SenderUserId; livemode: boolean; nowMs?: number | undefined },
  render: (answer: ActiveChains) => unknown,
): Promise<ActiveAnswer> {
  const { platformId, platformUserId } = input;
  const nowMs = input.nowMs ?? Date.now();
  const answers = deps.chainCache.answers;
  const definitions = await deps.chainCache.get(platformId);
  const key = answerKey(platformId, platformUserId);
  const fingerprint = answers.enabled ? definitionsFingerprint(definitions) : '';
  const cached = answers.enabled ? answers.get(key, fingerprint, nowMs) : undefined;
  if (cached) return cached;

  const ticket = answers.ticket();
  const tokenIssuedAtMs = Math.ceil(nowMs / TOKEN_WINDOW_MS) * TOKEN_WINDOW_MS;
  const answer = await readActiveChains(deps, {
    platformId,
    platformUserId,
    nowUs: dateToMicros(new Date(nowMs)),
    definitions,
    tokenIssuedUs: dateToMicros(new Date(tokenIssuedAtMs)),
    livemode: input.livemode,
  });
  // The key's platform is a live provider or a test twin, so `livemode` is the same for every answer under it.
  const body = Buffer.from(JSON.stringify({ success: true, livemode: input.livemode, data: render(answer) }));
  const etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  if (answer.userId !== null && answers.enabled) {
    const expiresAtMs = Math.min(nowMs + answers.ttlMs, tokenIssuedAtMs, nextWindowEdgeMs(definitions, nowMs));
    const entry: CachedAnswer = { body, etag, definitionsFingerprint: fingerprint, userId: answer.userId, expiresAtMs };
    answers.store(ticket, key, entry);
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
