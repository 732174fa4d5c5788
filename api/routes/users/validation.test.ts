import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../../../shared/db/schema/index.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { useTestService } from '../../testing/test-service.js';

// The published limits of POST /v1/users/register at their bound and just past it.

const { database, api, platform } = useTestService('register_validation');
let counter = 0;

const register = (body: unknown) => api.call('POST', '/v1/users/register', { headers: platform.headers, body });
const fresh = () => `limits-${(counter += 1)}`;

describe('POST /v1/users/register limits', () => {
  it.each([
    ['platform_user_id of 255 characters', { platform_user_id: 'p'.repeat(255) }],
    ['platform_user_id of 1 character', { platform_user_id: 'p' }],
    ['country_code of 2 letters', { country_code: 'DE' }],
    ['country_code null', { country_code: null }],
    ['user_metadata with the published keys', { user_metadata: { username: 'ada', avatar_url: 'https://example.com/a.png' } }],
  ])('accepts %s', async (_label, overrides) => {
    const body = { platform_user_id: fresh(), ...overrides };
    const answer = await register(body);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data).toMatchObject({ platform_user_id: body.platform_user_id, already_exists: false });
  });

  it.each([
    ['platform_user_id of 256 characters', { platform_user_id: 'p'.repeat(256) }, 'platform_user_id'],
    ['platform_user_id empty', { platform_user_id: '' }, 'platform_user_id'],
    ['platform_user_id missing', { platform_user_id: undefined }, 'platform_user_id'],
    ['platform_user_id a number', { platform_user_id: 7 }, 'platform_user_id'],
    ['platform_user_id containing NUL', { platform_user_id: 'a\u0000' }, 'platform_user_id'],
    ['platform_user_id with an unpaired surrogate', { platform_user_id: 'a\ud800' }, 'platform_user_id'],
    ['country_code of 1 character', { country_code: 'D' }, 'country_code'],
    ['country_code of 3 characters', { country_code: 'DEU' }, 'country_code'],
    ['country_code empty', { country_code: '' }, 'country_code'],
    ['country_code digits', { country_code: '12' }, 'country_code'],
    ['user_metadata an array', { user_metadata: ['x'] }, 'user_metadata'],
    ['user_metadata with NUL', { user_metadata: { username: '\u0000' } }, 'user_metadata'],
    ['user_metadata with an unpaired surrogate', { user_metadata: { username: '\udc00' } }, 'user_metadata'],
  ])('rejects %s with 400 naming the field', async (_label, overrides, field) => {
    const answer = await register({ platform_user_id: fresh(), ...overrides });
    expect(answer.status, answer.text).toBe(400);
    const code = Object.values(overrides)[0] === undefined ? 'missing_field' : 'invalid_field';
    expect(answer.json).toMatchObject({ success: false, code });
    expect(answer.json.param).toMatch(new RegExp(`^${field}(\\.|$)`));
    expect(answer.json.error).toContain(field);
  });

  it('stores the country code upper-cased and the metadata as given', async () => {
    const id = fresh();
    expect((await register({ platform_user_id: id, country_code: 'de', user_metadata: { username: 'zoë' } })).status).toBe(200);
    const [row] = await database.db
      .select({ country_code: users.countryCode, user_metadata: users.userMetadata })
      .from(users)
      .where(eq(users.platformUserId, senderUserId(id)));
    expect(row).toEqual({ country_code: 'DE', user_metadata: { username: 'zoë' } });
  });
});
