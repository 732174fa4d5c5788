import { createHash } from 'node:crypto';
import { type ActiveChains, readActiveChains } from '../../core/quest-chains/read-active-chains.js';
import type { ChainDefinition } from '../../shared/db/chain-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import { nextTimeEdgeUs } from '../../shared/domain/runs.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import type { AppDeps } from '../app-env.js';
import { noneMatchHits } from '../http/conditional.js';
import { answerKey, type CachedAnswer } from './active-answer-cache.js';

/**
 * Live tokens are issued for the end of the current minute: every answer in
 * that minute carries the same token (valid from one hour to one hour and a
 * minute). A cached answer gets the new minute's token spliced in when it is
 * served after its minute (no database read, no rendering), and the tag
 * leaves the token out, so a revalidation answers 304 across token renewals:
 * the client keeps the token it holds (docs/operations.md, "Conditional reads").
 */
const TOKEN_WINDOW_MS = 60_000;

/** The active answer's body and tag; `body` is null when the caller's `If-None-Match` holds (answer 304). */
export interface ActiveAnswer {
  /** UTF-8 JSON. */
  body: Buffer | null;
  etag: string;
}

// Where the token sits once it is blanked: the first `"token":` of the body (liveUpdates leads the data).
const BLANK_TOKEN = '"token":""';

const fingerprints = new WeakMap<ChainDefinition[], string>();

/** A digest of everything the read shows of a platform's definitions; computed once per loaded list. */
function definitionsFingerprint(definitions: ChainDefinition[]): string {
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
 * definitions), rendered once by `render` (the route's JSON text of the answer
 * inside the one success envelope, with the live token blank) and
 * stored, so a cache hit costs no rendering either. The tag is a digest of
 * the body with its live token left out, so it changes exactly when what the
 * answer says does. With `ifNoneMatch`, a matching tag known to the cache's
 * index answers without a body and without a read, even once the body itself
 * was evicted.
 */
export async function activeAnswer(
  deps: Pick<AppDeps, 'readDb' | 'chainCache' | 'liveTokens'>,
  input: {
    platformId: string;
    platformUserId: SenderUserId;
    livemode: boolean;
    ifNoneMatch?: string | undefined;
    nowMs?: number | undefined;
  },
  render: (answer: ActiveChains) => string,
): Promise<ActiveAnswer> {
  const { platformId, platformUserId, ifNoneMatch } = input;
  const nowMs = input.nowMs ?? Date.now();
  const tokenIssuedAtMs = Math.ceil(nowMs / TOKEN_WINDOW_MS) * TOKEN_WINDOW_MS;
  const answers = deps.chainCache.answers;
  const definitions = await deps.chainCache.get(platformId);
  const key = answerKey(platformId, platformUserId);
  const fingerprint = answers.enabled ? definitionsFingerprint(definitions) : '';
  if (answers.enabled) {
    if (ifNoneMatch !== undefined) {
      const etag = answers.tag(key, fingerprint, nowMs);
      if (etag !== undefined && noneMatchHits(ifNoneMatch, etag)) return { etag, body: null };
    }
    const cached = answers.get(key, fingerprint, nowMs);
    if (cached) {
      if (cached.tokenIssuedAtMs !== tokenIssuedAtMs) {
        answers.renewToken(
          key,
          cached,
          deps.liveTokens.issue({ platformId, platformUserId, livemode: input.livemode }, tokenIssuedAtMs),
          tokenIssuedAtMs,
        );
      }
      return { etag: cached.etag, body: cached.body };
    }
  }

  const ticket = answers.ticket();
  const answer = await readActiveChains(deps, {
    platformId,
    platformUserId,
    nowUs: dateToMicros(new Date(nowMs)),
    definitions,
    tokenIssuedUs: dateToMicros(new Date(tokenIssuedAtMs)),
    livemode: input.livemode,
  });
  // The key's platform is a live provider or a test twin, so the envelope's `livemode` is the same for every answer under it.
  const blank = render({ ...answer, liveToken: '' });
  const tokenIndex = blank.indexOf(BLANK_TOKEN);
  if (tokenIndex < 0) throw new Error('the rendered answer has no liveUpdates.token');
  const before = blank.slice(0, tokenIndex + BLANK_TOKEN.length - 1);
  // As JSON.stringify would write it inside the string (a token is URL-safe text: nothing to escape, in fact).
  const token = JSON.stringify(answer.liveToken).slice(1, -1);
  // Encoded once; the tag digests the body's bytes around the token, which are the blank body's.
  const body = Buffer.from(before + token + blank.slice(before.length));
  const tokenAt = Buffer.byteLength(before);
  const tokenEnd = tokenAt + Buffer.byteLength(token);
  const etag = `"${createHash('sha1').update(body.subarray(0, tokenAt)).update(body.subarray(tokenEnd)).digest('base64url')}"`;
  if (answer.userId !== null && answers.enabled) {
    const expiresAtMs = Math.min(nowMs + answers.ttlMs, nextWindowEdgeMs(definitions, nowMs));
    const entry: CachedAnswer = {
      body,
      etag,
      tokenAt,
      tokenLength: tokenEnd - tokenAt,
      tokenIssuedAtMs,
      definitionsFingerprint: fingerprint,
      userId: answer.userId,
      expiresAtMs,
    };
    answers.store(ticket, key, entry);
  }
  return { etag, body: ifNoneMatch !== undefined && noneMatchHits(ifNoneMatch, etag) ? null : body };
}
/**
 * The next instant a chain of the list opens or closes (the read filters by
 * `start <= now < end`), or its answer changes by time alone: a repeating
 * chain's next run, a streak's next day (nextTimeEdgeUs).
 */
function nextWindowEdgeMs(definitions: ChainDefinition[], nowMs: number): number {
  const nowUs = dateToMicros(new Date(nowMs));
  let next = Number.POSITIVE_INFINITY;
  for (const { rules } of definitions) {
    for (const edgeUs of [rules.startUs, rules.endUs, nextTimeEdgeUs(rules, nowUs) ?? 0n]) {
      // A chain opening at start_date is in the read from that microsecond on: expire the entry just before.
      if (edgeUs > nowUs) next = Math.min(next, Number(edgeUs / 1000n));
    }
  }
  return next;
}
