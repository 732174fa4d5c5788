import { beforeAll, describe, expect, it } from 'vitest';
import { refreshStandings } from '../../../core/leaderboards/refresh-standings.js';
import { matchBatch } from '../../../core/matching/match-batch.js';
import { iso } from '../../../shared/testing/chains.js';
import { createTestProvider, type TestProvider } from '../../../shared/testing/fixtures.js';
import { chainBody, createChainOverApi } from '../../testing/chains.js';
import { useTestService } from '../../testing/test-service.js';

// Leaderboards over the in-process API (§19): the operator's routes, the
// platform's list and read, bad input, tenancy, and standings kept in step
// with the matcher (driven by hand here; e2e/leaderboards.e2e.test.ts runs the worker).

const { database, api, platform, advertiser } = useTestService('leaderboards');
let other: TestProvider;

const HOUR_MS = 3_600_000;
const now = Date.now();

const createBoard = (body: Record<string, unknown>) =>
  api.call('POST', '/admin/v1/leaderboards', { headers: api.adminHeaders, body });
const boardBody = (overrides: Record<string, unknown> = {}) => ({
  platform_id: platform.id,
  name: 'Most chains',
  metric: 'chains_completed',
  start_date: iso(now - 24 * HOUR_MS),
  ...overrides,
});
const read = (id: string, query: Record<string, string> = {}, caller: TestProvider = platform) =>
  api.call('GET', `/v1/leaderboards/${id}`, { headers: caller.headers, query });

/** Sends events over the API and matches them as the worker would, then refreshes the standings it queued. */
async function sendAndMatch(events: { user: string; type: string; at: number }[]) {
  const ids: string[] = [];
  for (const event of events) {
    const answer = await api.call('POST', '/v1/events', {
      headers: platform.headers,
      body: { user_id: event.user, event_type: event.type, timestamp: iso(event.at) },
    });
    expect(answer.status, answer.text).toBe(200);
    ids.push(answer.json.data.event_id);
  }
  const outcome = await matchBatch({ db: database.db }, { eventIds: ids, evaluateUserIds: [] });
  await refreshStandings(api.deps, { userIds: outcome.standingsQueued });
}

async function register(...users: string[]) {
  for (const user of users)
    expect(
      (await api.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: user } })).status,
    ).toBe(200);
}

beforeAll(async () => {
  other = await createTestProvider(database.db, 'platform');
});

describe('POST /admin/v1/leaderboards', () => {
  it('creates a board with its defaults', async () => {
    const answer = await createBoard(boardBody({ recurrence: { every: 'week' } }));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toMatchObject({
      platform_id: platform.id,
      name: 'Most chains',
      metric: 'chains_completed',
      end_date: null,
      recurrence: { every: 'week', timezone: 'UTC' },
      size: 1000,
      status: 'active',
      mode: 'live',
      archived_at: null,
    });
  });

  it.each([
    [{ metric: 'logins' }, 'metric'],
    [{ end_date: iso(now - 48 * HOUR_MS) }, 'end_date'],
    [{ recurrence: { every: 'day', timezone: 'Mars/Olympus' } }, 'recurrence.timezone'],
    [{ recurrence: { every: 'year' } }, 'recurrence.every'],
    [{ size: 0 }, 'size'],
    [{ size: 100_001 }, 'size'],
    [{ colour: 'red' }, 'colour'],
    [{ start_date: 'yesterday' }, 'start_date'],
  ])('refuses %o with a 400 naming %s', async (change, param) => {
    const answer = await createBoard(boardBody(change));
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json).toMatchObject({ success: false, param });
  });

  it('refuses a platform_id that is not a platform', async () => {
    const answer = await createBoard(boardBody({ platform_id: advertiser.id }));
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ param: 'platform_id' });
  });
});

describe('the operator reads, lists and archives', () => {
  it('gets one, lists them newest first, archives one (then the platform no longer sees it)', async () => {
    const first = (await createBoard(boardBody({ name: 'A' }))).json.data;
    const second = (await createBoard(boardBody({ name: 'B', metric: 'points' }))).json.data;
    const got = await api.call('GET', `/admin/v1/leaderboards/${first.id}`, { headers: api.adminHeaders });
    expect(got.json.data).toEqual(first);
    const listed = await api.call('GET', '/admin/v1/leaderboards', {
      headers: api.adminHeaders,
      query: { platform_id: platform.id, limit: '2' },
    });
    expect(listed.json.data.leaderboards.map((b: { id: string }) => b.id)).toEqual([second.id, first.id]);
    expect(listed.json.data.has_more).toBe(true);

    const archived = await api.call('POST', `/admin/v1/leaderboards/${first.id}/archive`, { headers: api.adminHeaders });
    expect(archived.json.data).toMatchObject({ id: first.id, status: 'archived' });
    expect(archived.json.data.archived_at).toMatch(/Z$/);
    expect((await read(first.id)).status).toBe(404);
    const mine = await api.call('GET', '/v1/leaderboards', { headers: platform.headers });
    expect(mine.status).toBe(200);
    const ids = mine.json.data.leaderboards.map((b: { id: string }) => b.id);
    expect(ids).toContain(second.id);
    expect(ids).not.toContain(first.id);
  });

  it('answers 404 for an unknown board', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await api.call('GET', `/admin/v1/leaderboards/${unknown}`, { headers: api.adminHeaders })).status).toBe(404);
    expect((await api.call('POST', `/admin/v1/leaderboards/${unknown}/archive`, { headers: api.adminHeaders })).status).toBe(404);
  });
});

describe('GET /v1/leaderboards/{id}', () => {
  it('ranks chains completed, kept in step with the matcher, and hides the board from another platform and advertisers', async () => {
    const board = (await createBoard(boardBody())).json.data;
    const chain = await createChainOverApi(api, platform.id, advertiser.id, {
      start: iso(now - 48 * HOUR_MS),
      end: iso(now + 48 * HOUR_MS),
      tasks: [{ event: 'lb-a' }],
    });
    const second = await createChainOverApi(api, platform.id, advertiser.id, {
      start: iso(now - 48 * HOUR_MS),
      end: iso(now + 48 * HOUR_MS),
      tasks: [{ event: 'lb-b' }],
    });
    expect(chain.id).not.toBe(second.id);
    await register('ann', 'bob', 'cyd');
    // Empty before anything happened.
    const empty = await read(board.id);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.json.data).toMatchObject({ entries: [], user: null, final: false, period_end: null });

    await sendAndMatch([
      { user: 'bob', type: 'lb-a', at: now - 3 * HOUR_MS },
      { user: 'ann', type: 'lb-a', at: now - 2 * HOUR_MS },
      { user: 'ann', type: 'lb-b', at: now - HOUR_MS },
      { user: 'cyd', type: 'lb-b', at: now - 3 * HOUR_MS },
      // Before the board's start: not counted.
      { user: 'cyd', type: 'lb-a', at: now - 30 * HOUR_MS },
    ]);
    const top = await read(board.id);
    expect(top.json.data.entries).toEqual([
      { rank: 1, platform_user_id: 'ann', score: 2 },
      // Equal scores: bob and cyd reached theirs at the same instant; then the id decides.
      { rank: 2, platform_user_id: 'bob', score: 1 },
      { rank: 3, platform_user_id: 'cyd', score: 1 },
    ]);
    const around = await read(board.id, { around: 'cyd', limit: '2' });
    expect(around.json.data).toMatchObject({
      entries: [
        { rank: 2, platform_user_id: 'bob' },
        { rank: 3, platform_user_id: 'cyd' },
      ],
      user: { rank: 3, score: 1 },
    });

    expect((await read(board.id, {}, other)).status).toBe(404);
    expect((await read(board.id, {}, advertiser)).status).toBe(403);
    expect((await api.call('GET', '/v1/leaderboards', { headers: advertiser.headers })).status).toBe(403);
    const bad = await read(board.id, { period_start: iso(now) });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ param: 'period_start' });
  });
});

describe('test mode', () => {
  it("a test board ranks the test users' points, and a reset starts it again", async () => {
    const credential = await api.call('POST', `/admin/v1/providers/${platform.id}/credentials`, {
      headers: api.adminHeaders,
      body: { mode: 'test' },
    });
    const test = {
      'content-type': 'application/json',
      'x-api-key': credential.json.data.key,
      'x-api-secret': credential.json.data.secret,
    };
    const chain = await api.call('POST', '/admin/v1/quest-chains', {
      headers: api.adminHeaders,
      body: {
        ...chainBody(platform.id, advertiser.id, {
          start: iso(now - 48 * HOUR_MS),
          end: iso(now + 48 * HOUR_MS),
          tasks: [{ event: 'lb-test' }],
          reward: false,
        }),
        mode: 'test',
      },
    });
    expect(chain.status, chain.text).toBe(200);
    const board = (await createBoard(boardBody({ name: 'Sandbox points', metric: 'points', mode: 'test' }))).json.data;
    expect((await api.call('GET', `/v1/leaderboards/${board.id}`, { headers: test })).json.data.entries).toEqual([]);

    expect((await api.call('POST', '/v1/users/register', { headers: test, body: { platform_user_id: 'tess' } })).status).toBe(
      200,
    );
    const sent = await api.call('POST', '/v1/events', {
      headers: test,
      body: { user_id: 'tess', event_type: 'lb-test', timestamp: iso(now - HOUR_MS) },
    });
    await matchBatch({ db: database.db }, { eventIds: [sent.json.data.event_id], evaluateUserIds: [] });
    const claimed = await api.call('POST', '/v1/rewards/claim', {
      headers: test,
      body: { platform_user_id: 'tess', task_id: chain.json.data.tasks[0].id },
    });
    expect(claimed.status, claimed.text).toBe(200);
    // The claim refreshed the standings after its commit: no rebuild, no worker.
    expect((await api.call('GET', `/v1/leaderboards/${board.id}`, { headers: test })).json.data.entries).toEqual([
      { rank: 1, platform_user_id: 'tess', score: 10 },
    ]);
    // The live credential does not see it.
    expect((await read(board.id)).status).toBe(404);

    const reset = await api.call('POST', '/v1/test/reset', { headers: test });
    expect(reset.status, reset.text).toBe(200);
    expect((await api.call('GET', `/v1/leaderboards/${board.id}`, { headers: test })).json.data.entries).toEqual([]);
  });
});
