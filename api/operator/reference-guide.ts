import { LINK_TOKEN_TTL_MINUTES } from '../../core/account-links/start-account-link.js';
import { LIVE_TOKEN_TTL_MS } from '../../shared/live/token.js';
import { BATCH_BODY_LIMIT, SINGLE_BODY_LIMIT } from '../http/body-guard.js';
import { MAX_BATCH_ITEMS } from '../routes/events/schema.js';

// The guides at the top of the integrator reference (`info.description` of
// /openapi.json, rendered by /docs). Figures come from the constants that
// enforce them, so the text cannot promise a limit the code does not keep.
// Webhooks have no guide section: their tag's description and docs/webhooks.md cover them.

const kib = (bytes: number) => `${bytes / 1024} KiB`;

const conventions = `
Every path is relative to the service's base URL (the \`servers\` entry: the host that serves this page).
Bodies are JSON (\`Content-Type: application/json\`), field names snake_case (except \`liveUpdates\` and
\`baselineTimestamp\`, which the published shape fixes), and every answer is an envelope:
\`{"success": true, "data": …}\` or \`{"success": false, "error": "…", "code": "…"}\`.

**Timestamps.** Requests take ISO 8601 date-times in UTC, ending \`Z\` or \`+00:00\`, with up to 6 fractional
digits (\`2026-01-02T03:04:05Z\`, \`2026-01-02T03:04:05.678901+00:00\`); the same instant written two ways is
the same timestamp. Answers always carry UTC with milliseconds: \`2026-01-02T03:04:05.678Z\`.
Quest-chain dates in the admin API also accept other offsets (\`2026-01-01T00:00:00+01:00\`).
`;

const authentication = `
## Authentication

Every \`/v1\` call except \`GET /v1/live\` carries two headers: \`X-API-Key\` (the credential's public key) and
\`X-API-Secret\` (its secret, shown once when the operator creates the credential). A credential belongs to
one **platform** (publisher) or **advertiser**, and holds permissions:

| permission | operation | held by |
| --- | --- | --- |
| \`users:register\` | \`POST /v1/users/register\` | platform |
| \`events:write\` | \`POST /v1/events\`, \`POST /v1/events/batch\` | platform, advertiser |
| \`quest_chains:read\` | \`GET /v1/quest-chains/active/{platformUserId}\` | platform |
| \`account_links:write\` | start and list links (platform), complete a link (advertiser) | both |
| \`rewards:read\` / \`rewards:claim\` | \`GET /v1/rewards/{platformUserId}\`, \`GET /v1/users/{platformUserId}/points\` / \`POST /v1/rewards/claim\`, \`POST /v1/users/{platformUserId}/points/spend\` | platform |
| \`webhooks:manage\` | \`/v1/webhook-endpoints\` and their messages (signed webhooks) | platform, advertiser |
| \`quest_chains:stats\` | \`GET /v1/quest-chains/{questChainId}/stats\`: the figures of a chain you fund | advertiser |

Checks run in this order: a missing header, unknown key or wrong secret answers **401**; an inactive credential
or provider, an operation not open to your provider type, or a missing permission answers **403**; only then is
the body read (413, 415, 400). A platform sees only the users it registered: another platform's user reads
exactly like an unknown one.

Call from your backend only. The secret never goes into browser or mobile code and never into logs; use
separate credentials for development and production, and ask the operator for a new one (then deactivate
the old) periodically or whenever it may have leaked. The browser gets at most a **live token** (see Live updates).
`;

const errors = `
## Errors and retries

A failure answers with its HTTP status and \`{"success": false, "error": "…", "code": "…", "param": "…"}\`:
\`error\` is for people and may be reworded; \`code\` is stable and is what your code branches on; \`param\`,
when present, names the request field at fault as a dot path (\`timestamp\`, \`events.3.user_id\`). Each
operation's error responses below list the codes it can answer.

| status | meaning | what to do |
| --- | --- | --- |
| 400 | the request is invalid (body, field, unknown field, unknown id) | fix the request; never retry it unchanged |
| 401 | credentials (or the live token) missing or invalid | check both headers; do not retry |
| 403 | credential or provider inactive, wrong provider type, permission missing | use the right credential; do not retry |
| 404 | no such route or resource | fix the path |
| 409 | conflicts with the current state (a reward not yet claimable) | a business answer: read the message |
| 413 / 415 | body too large / not \`application/json\` | fix the request |
| 429 | too many requests (or open live streams) | wait \`Retry-After\` seconds when given, then retry |
| 500, 502, 503, 504 | the service (or a gateway) failed, or is not ready | retry with backoff |

**Retries.** Retry only 429, 500, 502, 503, 504 and network failures (including your own time-out), at most a
few times (e.g. 4 attempts), waiting a random time up to \`min(5 s, 200 ms × 2^attempt)\` ("full jitter"), or
the \`Retry-After\` header when the answer carries one. Repeated 401 or 403 answers are a configuration
problem, not a transient one. Retrying is safe: every write is idempotent (next section).

Every answer carries an \`X-Request-Id\` header (yours, if you sent a sane one); quote it when reporting a problem.
`;

const idempotency = `
## Idempotency and deduplication

There is no \`Idempotency-Key\` header: each write is idempotent by what it is about, and the one that is not
(a spend of points) names itself with an \`idempotency_key\` field.

- **Events** are deduplicated on (your credential's provider, \`user_id\`, \`event_type\`, the instant of
  \`timestamp\`). A repeat answers 200 with the stored event's \`event_id\`, \`received_at\` and
  \`status: "duplicate"\`; nothing is stored twice and nothing counts twice. So resend an event whenever you
  are unsure it arrived, with the same timestamp (the time it happened, not the time you send it).
  In a batch each item is deduplicated (and validated) on its own.
- **Registration** of an existing \`platform_user_id\` answers the stored user with \`already_exists: true\`
  (the stored user is not changed).
- **Reward claims** are granted at most once, even under concurrent calls: a repeat answers 200 with the
  first claim and \`already_claimed: true\`.
- **Point spends** carry your \`idempotency_key\` (an order id, say): the same key again answers the first spend
  with \`already_spent: true\` and takes nothing more; the same key with another amount answers 409
  \`idempotency_key_reused\`.
- **Completing an account link** again answers \`already_linked: true\`. Starting one issues a fresh
  single-use connection token each time (valid ${LINK_TOKEN_TTL_MINUTES} minutes); unused tokens simply expire.

An event answered 200 is stored durably and is reflected in progress shortly after, asynchronously.
`;

const limits = `
## Limits

| what | limit | over it |
| --- | --- | --- |
| request body | ${kib(SINGLE_BODY_LIMIT)}; ${kib(BATCH_BODY_LIMIT)} for \`POST /v1/events/batch\` | 413 |
| events per batch | 1 to ${MAX_BATCH_ITEMS} | 400 |
| \`user_id\`, \`platform_user_id\` | 1 to 255 characters | 400 |
| \`event_type\` / \`currency\` / \`reference\` | 1–100 / ≤ 10 / ≤ 255 characters | 400 |
| \`amount\` | at least 0 | 400 |
| requests per credential | per minute, set by the operator | 429 \`rate_limited\` with \`Retry-After\` |
| failed authentications per client address | per minute, set by the operator | 429 \`rate_limited\` with \`Retry-After\` |
| open live streams | per user, per platform and per server, set by the operator | 429 \`too_many_streams\` |
| page size of a list | \`limit\` 1 to 200, default 50 (a points ledger: 1 to 100, default 20) | 400 |

**Rate limits.** Over a rate limit the service answers **429** with code \`rate_limited\` and a
\`Retry-After\` header (whole seconds): wait that long before the next call. Answers also carry the
\`RateLimit-Policy\` and \`RateLimit\` headers (IETF draft syntax: quota, window, remaining, seconds to reset)
once a credential has used much of its budget, so a client can slow down before it is refused. Repeated
failed authentications from one address block that address for the rest of the window, whatever
credentials it then presents. A live stream refused by the stream caps answers 429 \`too_many_streams\`
without \`Retry-After\` (a place frees up when another stream closes): close a stream you no longer need.
The figures are the operator's settings (\`docs/operations.md\` in the service's repository, "Rate limits"
and "Live stream caps"); treat 429 as back-pressure, not as an error to alert on.

**Lists** are paginated by cursor: \`limit\` (1 to 200, default 50) and \`starting_after\`, the id of the last
item of the previous page (each list names which id). An answer has \`has_more: true\` while items follow.
Items keep a stable order, so walking the pages neither repeats nor skips one.
`;

const versioning = `
## Versioning

The major version is the path prefix: \`/v1\`. Within \`/v1\` changes are additive only: new operations, new
optional request fields, new response fields, new error codes. Write clients that ignore response fields they
do not know and that treat an unknown \`code\` by its HTTP status. Removing or renaming a field, or changing
its meaning, would be a new prefix (\`/v2\`), served beside \`/v1\` while integrators move. \`info.version\` is
the version of this document, not of the API.
`;

const live = `
## Live updates

Browsers can follow a user's progress without polling and without a credential:

1. Your backend reads \`GET /v1/quest-chains/active/{platformUserId}\` and passes
   \`data.liveUpdates.token\` and \`data.liveUpdates.baselineTimestamp\` to the page. The token is signed,
   scoped to that one user, valid ${LIVE_TOKEN_TTL_MS / 3_600_000} hour, and grants nothing but the stream: it is safe in a browser.
2. The page opens \`GET /v1/live?token=…&since=…\` (Server-Sent Events) with \`since\` = the baseline (leave
   it out when the baseline is \`null\`):

   \`\`\`js
   const url = new URL('/v1/live', apiBase);
   url.searchParams.set('token', liveUpdates.token);
   if (liveUpdates.baselineTimestamp) url.searchParams.set('since', liveUpdates.baselineTimestamp);
   const source = new EventSource(url);
   source.addEventListener('progress', () => refreshFromYourBackend());
   \`\`\`

3. The stream sends \`ready\` once subscribed, a \`progress\` event at once if progress changed after
   \`since\`, then one per change, and a comment line at least every 25 seconds. \`progress\` means
   "refetch through your backend"; it carries the changed chain ids, not the progress itself.

\`EventSource\` reconnects by itself and sends the last event's id (\`Last-Event-ID\`), which the service takes
as the new baseline, so nothing is missed during a drop. A missing, invalid or expired token answers 401:
get a fresh one from a new read.

**Cross-origin pages.** \`/v1/live\` answers CORS (preflight included) for the origins the operator lists in
\`LIVE_ALLOWED_ORIGINS\` (default \`*\`: the token alone grants access), so a page on your own origin can
open the stream on the service's origin. No other route answers CORS: the rest of the API is for backends.
`;

const points = `
## Points

Claiming a reward of type \`points\` credits its value to the user's balance, in the claim's transaction; a
refund that marks the claim reversed debits it (the balance may go below zero), and the credit comes back if
the mark clears. \`GET /v1/users/{platformUserId}/points\` answers the balance, what was earned, spent and
reversed, and the ledger newest first, whose amounts add up to the balance (page with \`next_cursor\`).
\`POST /v1/users/{platformUserId}/points/spend\` takes \`{amount, idempotency_key, reason?}\`; a balance below
the amount answers 409 \`insufficient_points\` with the balance in \`balance\`, and concurrent spends never
overdraw. A chain created with \`auto_claim\` has its rewards claimed by the service as they are earned,
with every rule of a claim (reward hold, caps, budget, a mystery box's draw).
`;

const chainStats = `
## Chain stats (advertisers)

An advertiser reads how each chain it funds does with \`GET /v1/quest-chains/{questChainId}/stats\`
(permission \`quest_chains:stats\`): users admitted, started and completed; per task the users who completed it
and the median time from joining to completing it; claims and value claimed per reward; prizes drawn and stock
left; budget spent and left; reversals; points paid out; a daily series of starts, completions and claims over
the chain's life. Counts only, never a user. A chain of another advertiser answers 404; a test credential reads test chains only.
`;

const leaderboards = `
## Leaderboards (platforms)

The operator creates leaderboards of your users; you read them with \`leaderboards:read\`.
\`GET /v1/leaderboards\` lists your active boards; \`GET /v1/leaderboards/{id}\` answers a period's standings:
the top \`limit\` (default 10, at most 100), or with \`around=<platform_user_id>\` the entries around that user and
\`user\`, their rank and score (\`null\` when not ranked). A board's \`metric\` is \`points\` (points credited in the
period by claims of points rewards, less their reversals; spends do not lower it) or \`chains_completed\` (chain
completions in the period). Order: score, then whoever reached it first, then \`platform_user_id\`; ranks 1, 2, 3, …
without ties. A repeating board (daily, weekly, monthly, in its time zone) starts each period from zero; read a past
one with \`period_start\` (its final standings, \`final: true\`). A credit shows within a second. When a period
ends, \`leaderboard.finalized\` brings its top entries to your webhooks. Another platform's board answers 404.
`;

/** The integrator reference's guides, in reading order. */
export const integratorGuide = [
  conventions,
  authentication,
  errors,
  idempotency,
  limits,
  versioning,
  live,
  points,
  leaderboards,
  chainStats,
]
  .map((section) => section.trim())
  .join('\n\n');

/** The admin reference's introduction. */
export const adminGuide = `
The operators' API: providers (platforms and advertisers), their credentials, quest chains and leaderboards.
Integrators' calls are in the integrator reference at \`/docs\` (document \`/openapi.json\`).

## Authentication

Every call carries \`Authorization: Bearer <ADMIN_TOKEN>\`, the token configured on the service. Without
\`ADMIN_TOKEN\` configured the admin API does not exist (404 on every route); with a wrong or missing token,
401. Repeated wrong tokens from one address block it for the rest of the minute: 429 \`rate_limited\` with
\`Retry-After\` (\`RATE_LIMIT_ADMIN_FAILURES_PER_MINUTE\`). Keep the token with operators and their tooling;
the operator CLI (see \`docs/operations.md\`) does the same work directly against the database.

## Errors

The same envelope and codes as the integrator API: \`{"success": false, "error": "…", "code": "…", "param": "…"}\`.
Bodies are strict: a field the operation does not know answers 400 \`unknown_field\` naming it.

## Chain stats

\`GET /admin/v1/quest-chains/{id}/stats\` answers how a chain does: users admitted, started and completed; per task
the users who completed it and the median time from joining; claims and value claimed per reward; prizes drawn and
stock left; budget spent and left; reversals; points paid out; a daily series of starts, completions and claims. Counted over the
stored rows in one snapshot (\`docs/chain-stats.md\`). The page \`/admin/campaigns/{id}\` draws it (a browser
gives the token as Basic password); the advertiser reads its own with \`GET /v1/quest-chains/{questChainId}/stats\`.

## Leaderboards

\`POST /admin/v1/leaderboards\` creates a platform's leaderboard: \`metric\` \`points\` or \`chains_completed\`,
\`start_date\`, an optional \`end_date\`, an optional \`recurrence\` (\`{every: day | week | month, timezone?}\`: each
period starts from zero), \`size\` (ranked entries a finished period keeps, default 1,000, at most 100,000) and
\`mode\`. Get, list (\`?platform_id=\`) and archive (\`POST …/{id}/archive\`) them here; the platform reads the standings
with \`GET /v1/leaderboards/{id}\` (\`docs/leaderboards.md\`).

## Secrets

\`POST /admin/v1/providers/{id}/credentials\` answers the credential's secret once; only its hash is stored.
Hand it to the integrator over a secure channel. Changes to credentials and providers apply to running API
processes within 5 seconds.
`.trim();
