import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../../shared/db/schema/index.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { useTestService } from '../../testing/test-service.js';

const { database, api, platform } = useTestService('register');

describe('POST /v1/users/register', () => {
  it('creates a user, then returns the same one with already_exists', async () => {
    const first = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: 'u-1', country_code: 'de' },
    });
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({ platform_user_id: 'u-1', already_exists: false });
    expect(first.json.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const second = await api.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: 'u-1' } });
    expect(second.json.data).toMatchObject({
      user_id: first.json.data.user_id,
      already_exists: true,
      created_at: first.json.data.created_at,
    });
  });

  it('gives one user to 12 concurrent registrations of one id', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        api.call('POST', '/v1/users/register', { headers: platform.headers, body: { platform_user_id: 'race' } }),
      ),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.json.data.user_id)).size).toBe(1);
    expect(answers.filter((a) => a.json.data.already_exists === false)).toHaveLength(1);
    const [row] = await database.db
      .select({ count: count() })
      .from(users)
      .where(eq(users.platformUserId, senderUserId('race')));
    expect(row?.count).toBe(1);
  });

  it('names the offending field', async () => {
    const answer = await api.call('POST', '/v1/users/register', {
      headers: platform.headers,
      body: { platform_user_id: '', country_code: 'DEU' },
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ success: false });
    expect(answer.json.error).toContain('platform_user_id');
  });
});
