import { z } from '@hono/zod-openapi';
import type { ProgressChange } from '../../../shared/db/user-store.js';
import { formatIsoMillis, parseUtcTimestamp } from '../../../shared/domain/timestamp.js';
import type { ProgressMessage } from '../../../shared/live/channel.js';
import type { LiveTokenScope } from '../../../shared/live/token.js';

// Both are checked in the handler, not by the validator, to keep §1's order: the token (401) before `since` (400).
export const liveQuerySchema = z.object({
  token: z.string().optional().openapi({
    description: '`liveUpdates.token` from GET /v1/quest-chains/active/{platformUserId}.',
    example:
      'eyJwIjoiM2YwYzFkMmUtNGI1YS00YzZkLThlN2YtOWEwYjFjMmQzZTRmIiwidSI6InVzZXItMTIzIiwiZXhwIjoxNzY3MzI2NjQ1Njc4fQ.d-tA3mfXcUEWB4Ab-e07Kuu2s_SmoYPGO2LC5trqvZc',
  }),
  since: z.string().optional().openapi({
    description:
      '`liveUpdates.baselineTimestamp` from the same read (ISO 8601 UTC). When progress changed after it, a `progress` event is sent at once. `null` (the baseline of a user without changes) means any recorded change is news.',
    example: '2026-01-02T03:04:05.678Z',
  }),
});

export const SINCE_RULE =
  'since: must be the baselineTimestamp of the read (ISO 8601 UTC, e.g. 2026-01-02T03:04:05.678Z) or null';

/**
 * The client's baseline as epoch microseconds: undefined when none was given,
 * null for the literal `null`, 'invalid' otherwise. A `+00:00` offset whose
 * `+` arrived unencoded (as a space) is read as meant.
 */
export function parseSince(raw: string | undefined): bigint | null | undefined | 'invalid' {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'null') return null;
  return parseUtcTimestamp(raw.replace(/ 00:00$/, '+00:00')) ?? 'invalid';
}

export const liveStreamDescription = [
  'Server-Sent Events for one platform user; needs no API headers, only the token (safe to hand to a browser, valid 1 hour).',
  'Events: `ready` once connected (data `{"user_exists": boolean, "livemode": boolean}`, livemode false for a token issued to a test credential); `progress` with data `{"quest_chain_ids": [...], "changed_at": "..."}` whenever the user\'s progress changes (its `id` is `changed_at`, so a reconnecting EventSource resumes from it via Last-Event-ID); a comment line (`: keep-alive`) at least every 25 seconds.',
  'When the changed chains have counted, summed or streak tasks, `progress` also carries `"progress": [{"quest_chain_id", "task_id", "period_start", "count", "total", "streak"}]`, their tallies as the matcher stored them (docs/quest-language.md).',
  'On `progress`, refetch GET /v1/quest-chains/active/{platformUserId} through your backend.',
].join(' ');

/** What a stream carries: the reference page's example of the 200 answer. */
export const liveStreamExample = [
  'event: ready',
  'data: {"user_exists":true,"livemode":true}',
  '',
  'event: progress',
  'data: {"quest_chain_ids":["c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70"],"changed_at":"2026-01-02T03:06:00.123Z"}',
  'id: 2026-01-02T03:06:00.123Z',
  '',
  ': keep-alive',
  '',
].join('\n');

/** A `progress` event's data (the same shape the worker publishes). */
export const toProgressMessage = (change: ProgressChange): ProgressMessage => ({
  quest_chain_ids: change.chainIds,
  changed_at: formatIsoMillis(change.changedUs),
  ...(change.progress && change.progress.length > 0 ? { progress: change.progress } : {}),
});

/** The `ready` frame: `livemode` is the token's, which is the mode of the credential whose read issued it (docs/test-mode.md). */
export const toReadyMessage = (userExists: boolean, scope: LiveTokenScope) => ({
  user_exists: userExists,
  livemode: scope.livemode,
});
