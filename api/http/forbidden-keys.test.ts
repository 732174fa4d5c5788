import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { events } from '../../shared/db/schema/index.js';
import { useTestService } from '../testing/test-service.js';

// `__proto__`, `constructor` and `prototype` keys cannot be stored as sent (an
// object assignment changes or drops them), so a body holding one anywhere is
// refused with 400 invalid_field naming where, instead of being stored altered.
const { api, platform, database } = useTestService('forbidden_keys');
const event = (metadata: string, n = 0) =>
  `{"user_id":"u","event_type":"login","timestamp":"2026-01-01T00:00:0${n}Z","metadata":${metadata}}`;
const post = (path: string, body: string) => api.call('POST', path, { headers: platform.headers, body });

describe('forbidden keys in a JSON body', () => {
  it.each([
    ['nested __proto__ in metadata', event('{"a":{"__proto__":{"admin":true}}}'), 'metadata.a.__proto__'],
    ['__proto__ at the top of metadata', event('{"__proto__":{"x":1}}'), 'metadata.__proto__'],
    ['constructor inside an array', event('{"list":[1,{"constructor":{"prototype":1}}]}'), 'metadata.list.1.constructor'],
    [
      'prototype at the top level',
      '{"prototype":1,"user_id":"u","event_type":"e","timestamp":"2026-01-01T00:00:00Z"}',
      'prototype',
    ],
    ['an escaped __proto__', event('{"\\u005f_proto__":{"x":1}}'), 'metadata.__proto__'],
  ])('%s -> 400 invalid_field naming %s', async (_label, body, param) => {
    const answer = await post('/v1/events', body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ success: false, code: 'invalid_field', param });
    expect(answer.json.error).toContain(param);
  });

  it('names the event of a batch that holds one', async () => {
    const body = `{"events":[${event('{}', 1)},${event('{"deep":{"__proto__":null}}', 2)}]}`;
    const answer = await post('/v1/events/batch', body);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ code: 'invalid_field', param: 'events.1.metadata.deep.__proto__' });
  });

  it('leaves the words alone as values and inside longer keys, and stores them as sent', async () => {
    const metadata = {
      note: '__proto__ constructor prototype',
      constructors: 1,
      my_prototype: 2,
      nested: { prototypes: ['constructor'] },
    };
    const answer = await post('/v1/events', event(JSON.stringify(metadata), 3));
    expect(answer.status).toBe(200);
    expect(answer.json.data.status).toBe('received');
    const [stored] = await database.db
      .select({ metadata: events.metadata })
      .from(events)
      .where(eq(events.id, answer.json.data.event_id));
    expect(stored?.metadata).toEqual(metadata);
  });
});
