import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateCredential } from '../../core/admin/credentials.js';
import { updateProvider } from '../../core/admin/providers.js';
import { hashSecret } from '../../shared/auth/secrets.js';
import { createDatabase } from '../../shared/db/client.js';
import { projectRoot } from '../../shared/db/project-root.js';
import { chainProgress, linkTokens, taskCompletions, users } from '../../shared/db/schema/index.js';
import { senderUserId } from '../../shared/domain/ids.js';
import { createTestChain, createTestUser } from '../../shared/testing/chains.js';
import { createEmptyTestDatabase, type TestDatabase } from '../../shared/testing/database.js';
import { eventually } from '../../shared/testing/eventually.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import { readSse } from '../testing/sse-reader.js';
import { createTestApp, type TestApp } from '../testing/test-app.js';
import { useTestService } from '../testing/test-service.js';
import { ERROR_CODES, type ErrorCode, errorStatus } from './errors.js';

// Every code of the error table (api/http/errors.ts) reached through HTTP,
// with its status and, where one field is at fault, its param; and the
// table in docs/errors.md is the same table.

const { database, api, platform, advertiser } = useTestService('error_codes');
type Answer = Awaited<ReturnType<TestApp['call']>>;

let noRedis: TestApp;
let noTables: TestApp;
let limited: TestApp;
let oneStream: TestApp;
let empty: Awaited<ReturnType<typeof createEmptyTestDatabase>> | undefined;
let emptyConnection: ReturnType<typeof createDatabase> | undefined;
beforeAll(async () => {
  noRedis = await createTestApp(database, { REDIS_URL: 'redis://127.0.0.1:1' });
  // A database without its tables: every statement fails, a fault of the service's own (not a connection outage, which is 503).
  empty = await createEmptyTestDatabase('error_codes_unmigrated');
  emptyConnection = createDatabase({ url: empty.url, poolSize: 1 });
  noTables = await createTestApp({ ...database, ...emptyConnection, url: empty.url } as TestDatabase, {
    LIVE_TOKEN_SECRET: 'x'.repeat(32),
  });
  limited = await createTestApp(database, { RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '1' });
  oneStream = await createTestApp(database, { LIVE_MAX_STREAMS_PER_USER: '1' });
});
afterAll(async () => {
  await Promise.all([noRedis, noTables, limited, oneStream].map((app) => app?.close()));
  await emptyConnection?.close();
  await empty?.drop();
});

let counter = 0;
const fresh = (prefix: string) => `${prefix}-${(counter += 1)}`;
const event = (overrides: Record<string, unknown> = {}) => ({
  user_id: 'u',
  event_type: fresh('t'),
  timestamp: '2026-03-01T10:00:00Z',
  ...overrides,
});
const post = (path: string, body: unknown, headers = platform.headers) => api.call('POST', path, { headers, body });

async function registered() {
  const id = fresh('user');
  await createTestUser(database.db, platform.id, id);
  return id;
}
/** A registered user whose first task of `chain` the matcher completed just now (written as it stores it); answers the platform user id. */
async function completedFirstTask(chain: { id: string; taskIds: string[] }) {
  const platformUserId = await registered();
  const [user] = await database.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.platformUserId, senderUserId(platformUserId)));
  await database.db.insert(taskCompletions).values({
    userId: user!.id,
    taskId: chain.taskIds[0]!,
    chainId: chain.id,
    eventId: randomUUID(),
    completedAt: BigInt(Date.now()) * 1000n,
    sinceJoinedUs: 0n,
  });
  return platformUserId;
}
async function token(platformUserId: string) {
  const answer = await post('/v1/account-links', { platform_user_id: platformUserId, advertiser_id: advertiser.id });
  expect(answer.status, answer.text).toBe(200);
  return answer.json.data.connection_token as string;
}
const complete = (connectionToken: string, advertiserUserId: string) =>
  post(
    '/v1/account-links/complete',
    { connection_token: connectionToken, advertiser_user_id: advertiserUserId },
    advertiser.headers,
  );

/** One way to reach each code, and the param it names (null: none). Typed by the table, so a new code without a scenario does not compile. */
const scenarios: Record<ErrorCode, { param: string | null; reach: () => Promise<Answer> }> = {
  invalid_json: { param: null, reach: () => post('/v1/events', '{"user_id":') },
  // The typo case: user_id sent as userId, so user_id is missing too; the unknown name leads.
  unknown_field: { param: 'userId', reach: () => post('/v1/events', { ...event({ user_id: undefined }), userId: 'typo' }) },
  invalid_field: { param: 'timestamp', reach: () => post('/v1/events', event({ timestamp: '2026-03-01T10:00:00+01:00' })) },
  missing_field: { param: 'user_id', reach: () => post('/v1/events', event({ user_id: undefined })) },
  user_not_registered: {
    param: 'platform_user_id',
    reach: () => post('/v1/account-links', { platform_user_id: 'nobody', advertiser_id: advertiser.id }),
  },
  advertiser_not_active: {
    param: 'advertiser_id',
    reach: async () => post('/v1/account-links', { platform_user_id: await registered(), advertiser_id: platform.id }),
  },
  task_not_found: {
    param: 'task_id',
    reach: async () => post('/v1/rewards/claim', { platform_user_id: await registered(), task_id: randomUUID() }),
  },
  quest_chain_not_found: {
    param: 'quest_chain_id',
    reach: async () => post('/v1/rewards/claim', { platform_user_id: await registered(), quest_chain_id: randomUUID() }),
  },
  link_token_invalid: { param: 'connection_token', reach: () => complete('lt_not-a-token', 'adv-1') },
  link_token_expired: {
    param: 'connection_token',
    reach: async () => {
      const connectionToken = await token(await registered());
      await database.db
        .update(linkTokens)
        .set({ expiresAt: sql`now() - interval '1 minute'` })
        .where(eq(linkTokens.tokenHash, hashSecret(connectionToken)));
      return complete(connectionToken, fresh('adv'));
    },
  },
  webhook_url_refused: { param: 'url', reach: () => post('/v1/webhook-endpoints', { url: 'https://10.0.0.1/hooks' }) },
  webhook_endpoint_limit: {
    param: null,
    reach: async () => {
      const provider = await createTestProvider(database.db, 'advertiser');
      for (let i = 0; i < 10; i += 1)
        expect((await post('/v1/webhook-endpoints', { url: `https://93.184.215.14/${i}` }, provider.headers)).status).toBe(200);
      return post('/v1/webhook-endpoints', { url: 'https://93.184.215.14/10' }, provider.headers);
    },
  },
  link_token_used: {
    param: 'connection_token',
    reach: async () => {
      const connectionToken = await token(await registered());
      expect((await complete(connectionToken, fresh('adv'))).status).toBe(200);
      return complete(connectionToken, fresh('adv'));
    },
  },
  advertiser_user_already_linked: {
    param: 'advertiser_user_id',
    reach: async () => {
      const advertiserUserId = fresh('adv');
      expect((await complete(await token(await registered()), advertiserUserId)).status).toBe(200);
      return complete(await token(await registered()), advertiserUserId);
    },
  },
  user_already_linked: {
    param: null,
    reach: async () => {
      const user = await registered();
      expect((await complete(await token(user), fresh('adv'))).status).toBe(200);
      return complete(await token(user), fresh('adv'));
    },
  },
  reward_on_hold: {
    param: 'task_id',
    reach: async () => {
      // Completed just now: its reward is held for the hour.
      const chain = await createTestChain(database.db, platform.id, advertiser.id, { holdSeconds: 3600 });
      return post('/v1/rewards/claim', { platform_user_id: await completedFirstTask(chain), task_id: chain.taskIds[0] });
    },
  },
  budget_exhausted: {
    param: 'task_id',
    reach: async () => {
      const chain = await createTestChain(database.db, platform.id, advertiser.id, { budget: 0 });
      const platformUserId = await completedFirstTask(chain);
      return post('/v1/rewards/claim', { platform_user_id: platformUserId, task_id: chain.taskIds[0] });
    },
  },
  reward_cap_reached: {
    param: 'task_id',
    reach: async () => {
      const chain = await createTestChain(database.db, platform.id, advertiser.id, { maxClaimsPerReward: 1 });
      expect(
        (await post('/v1/rewards/claim', { platform_user_id: await completedFirstTask(chain), task_id: chain.taskIds[0] }))
          .status,
      ).toBe(200);
      return post('/v1/rewards/claim', { platform_user_id: await completedFirstTask(chain), task_id: chain.taskIds[0] });
    },
  },
  out_of_stock: {
    param: 'quest_chain_id',
    reach: async () => {
      const reward = {
        type: 'mystery_box',
        name: 'Empty box',
        prizes: [{ prize_id: 'gone', name: 'Gone', weight: 1, stock: 0 }],
      };
      const chain = await createTestChain(database.db, platform.id, advertiser.id, { tasks: [{ event: 'empty-box' }], reward });
      const platformUserId = await registered();
      const [user] = await database.db
        .select({ id: users.id })
        .from(users)
        .where(eq(users.platformUserId, senderUserId(platformUserId)));
      await database.db
        .insert(chainProgress)
        .values({ userId: user!.id, chainId: chain.id, completedTasks: 1, totalTasks: 1, completedAt: 1_000_000n });
      return post('/v1/rewards/claim', { platform_user_id: platformUserId, quest_chain_id: chain.id });
    },
  },
  insufficient_points: {
    param: 'amount',
    reach: async () => {
      const answer = await post(`/v1/users/${await registered()}/points/spend`, { amount: 5, idempotency_key: 'k' });
      expect(answer.json.balance).toBe(0);
      return answer;
    },
  },
  idempotency_key_reused: {
    param: 'idempotency_key',
    reach: async () => {
      const chain = await createTestChain(database.db, platform.id, advertiser.id);
      const platformUserId = await completedFirstTask(chain);
      expect((await post('/v1/rewards/claim', { platform_user_id: platformUserId, task_id: chain.taskIds[0] })).status).toBe(200);
      const spend = (amount: number) => post(`/v1/users/${platformUserId}/points/spend`, { amount, idempotency_key: 'k' });
      expect((await spend(5)).status).toBe(200);
      return spend(6);
    },
  },
  not_a_mystery_box: {
    param: 'id',
    reach: async () => {
      const chain = await createTestChain(database.db, platform.id, advertiser.id);
      return api.call('POST', `/admin/v1/mystery-boxes/${chain.id}/rotate-seed`, { headers: api.adminHeaders });
    },
  },
  reward_not_claimable: {
    param: 'task_id',
    reach: async () => {
      const chain = await createTestChain(database.db, platform.id, advertiser.id);
      return post('/v1/rewards/claim', { platform_user_id: await registered(), task_id: chain.taskIds[0] });
    },
  },
  not_found: { param: null, reach: () => api.call('GET', '/v1/no-such-route', { headers: platform.headers }) },
  missing_credentials: { param: null, reach: () => post('/v1/events', event(), { 'content-type': 'application/json' }) },
  invalid_credentials: {
    param: null,
    reach: () => post('/v1/events', event(), { ...platform.headers, 'x-api-secret': 'sk_wrong' }),
  },
  invalid_live_token: { param: 'token', reach: () => api.call('GET', '/v1/live?token=garbage') },
  credential_inactive: {
    param: null,
    reach: async () => {
      const provider = await createTestProvider(database.db, 'platform');
      await updateCredential({ db: database.db }, { key: provider.key, status: 'inactive' });
      return post('/v1/events', event(), provider.headers);
    },
  },
  provider_inactive: {
    param: null,
    reach: async () => {
      const provider = await createTestProvider(database.db, 'platform');
      await updateProvider({ db: database.db }, { providerId: provider.id, status: 'inactive' });
      return post('/v1/events', event(), provider.headers);
    },
  },
  wrong_provider_type: { param: null, reach: () => post('/v1/users/register', { platform_user_id: 'x' }, advertiser.headers) },
  permission_missing: {
    param: null,
    reach: async () => {
      const provider = await createTestProvider(database.db, 'platform', { permissions: ['events:write'] });
      return post('/v1/users/register', { platform_user_id: 'x' }, provider.headers);
    },
  },
  test_mode_only: { param: null, reach: () => post('/v1/test/reset', {}) },
  payload_too_large: { param: null, reach: () => post('/v1/events', event({ metadata: { pad: 'x'.repeat(70 * 1024) } })) },
  unsupported_media_type: {
    param: null,
    reach: () =>
      api.call('POST', '/v1/events', {
        headers: { ...platform.headers, 'content-type': 'text/plain' },
        body: JSON.stringify(event()),
      }),
  },
  rate_limited: {
    param: null,
    reach: async () => {
      const wrong = { ...platform.headers, 'x-api-secret': 'sk_wrong' };
      await limited.call('POST', '/v1/events', { headers: wrong, body: event() });
      return limited.call('POST', '/v1/events', { headers: wrong, body: event() });
    },
  },
  too_many_streams: {
    param: null,
    reach: async () => {
      const token = oneStream.deps.liveTokens.issue({ platformId: platform.id, platformUserId: 'streamer', livemode: true });
      const open = await oneStream.app.request(`/v1/live?token=${token}`);
      expect(open.status).toBe(200);
      const stream = readSse(open.body!);
      await stream.nextEvent('ready');
      try {
        return await oneStream.call('GET', `/v1/live?token=${token}`);
      } finally {
        await stream.cancel();
      }
    },
  },
  // A service failure, not an input: the app's database has no tables.
  internal: { param: null, reach: () => noTables.call('POST', '/v1/events', { headers: platform.headers, body: event() }) },
  unavailable: {
    param: null,
    reach: async () => {
      await eventually(async () => (noRedis.deps.redis.status !== 'ready' ? true : undefined), { what: 'redis down' });
      return noRedis.call('GET', '/readyz');
    },
  },
};

describe('error codes', () => {
  it('every code of the table has a scenario here', () => {
    expect(Object.keys(scenarios).sort()).toEqual([...ERROR_CODES].sort());
  });

  it.each(ERROR_CODES)('%s is reachable, with its status and param', async (code) => {
    const { param, reach } = scenarios[code];
    const answer = await reach();
    expect(answer.status, answer.text).toBe(errorStatus[code]);
    expect(answer.json).toMatchObject({ success: false, code, error: expect.any(String) });
    if (param === null) expect(answer.json).not.toHaveProperty('param');
    else expect(answer.json.param).toBe(param);
  });

  it('docs/errors.md lists exactly the codes of the table, each with its status', () => {
    const text = readFileSync(`${projectRoot()}/docs/errors.md`, 'utf8');
    const rows = [...text.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1], Number(match[2])]);
    expect(rows).toEqual(ERROR_CODES.map((code) => [code, errorStatus[code]]));
  });

  it('the OpenAPI document lists, per error status, the codes of that status', async () => {
    const document = (await api.call('GET', '/openapi.json')).json;
    for (const status of [400, 401, 403, 409]) {
      const schema = document.components.schemas[`Error${status}`];
      expect(schema.properties.code.enum, String(status)).toEqual(ERROR_CODES.filter((code) => errorStatus[code] === status));
    }
  });
});
