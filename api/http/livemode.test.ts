import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRoute, z } from '@hono/zod-openapi';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCredential } from '../../core/admin/credentials.js';
import { projectRoot } from '../../shared/db/project-root.js';
import { invalidInput } from '../../shared/errors.js';
import { inProcessClient } from '../../shared/testing/api-client.js';
import { createApp } from '../app.js';
import { mountRoutes } from '../routes/mount-routes.js';
import { defineRoute } from '../routes/route-entry.js';
import { useTestService } from '../testing/test-service.js';
import { errorResponses, ok, successEnvelope } from './envelope.js';

// One owner per concern (§15.3): `livemode` is added to every
// envelope by one mechanism (api/http/livemode.ts), so a route written
// tomorrow gets it without mentioning it. The route below is such a route:
// it is registered on the real app (real middleware, authentication, error
// handler) and never names livemode, yet each of its answers must carry it.

const { database, api, platform } = useTestService('livemode_envelope');

const probe = createRoute({
  method: 'post',
  path: '/v1/livemode-probe/{outcome}',
  request: { params: z.object({ outcome: z.enum(['fine', 'refused', 'broken']) }) },
  responses: {
    200: {
      description: 'Probed.',
      content: { 'application/json': { schema: successEnvelope(z.object({ probed: z.literal(true) })) } },
    },
    ...errorResponses(400, 500),
  },
});

function appWithProbe() {
  const app = createApp(api.deps);
  const probeRoute = defineRoute({
    access: { operation: 'registerUser' },
    route: probe,
    handler: (c) => {
      const { outcome } = c.req.valid('param');
      if (outcome === 'refused') throw invalidInput('outcome: refused on purpose', 'outcome', 'invalid_field');
      if (outcome === 'broken') throw new Error('an unexpected failure');
      return ok(c, { probed: true as const });
    },
  });
  mountRoutes(app, [probeRoute], api.deps.config);
  return app;
}

type Headers = Record<string, string>;
const headersOf = (credential: { key: string; secret: string }): Headers => ({
  'x-api-key': credential.key,
  'x-api-secret': credential.secret,
});

let app: ReturnType<typeof appWithProbe>;
let live: Headers;
let test: Headers;
let testWithoutPermission: Headers;
beforeAll(async () => {
  app = appWithProbe();
  live = headersOf(platform);
  test = headersOf(await createCredential({ db: database.db }, { providerId: platform.id, mode: 'test' }));
  testWithoutPermission = headersOf(
    await createCredential({ db: database.db }, { providerId: platform.id, mode: 'test', permissions: [] }),
  );
});

async function call(outcome: string, headers: Headers) {
  const answer = await inProcessClient(app).call('POST', `/v1/livemode-probe/${outcome}`, { headers });
  return { status: answer.status, json: answer.json as Record<string, unknown> };
}

describe('a route that never mentions livemode', () => {
  it('says the mode in its success answer', async () => {
    expect(await call('fine', live)).toEqual({ status: 200, json: { success: true, livemode: true, data: { probed: true } } });
    expect(await call('fine', test)).toEqual({ status: 200, json: { success: true, livemode: false, data: { probed: true } } });
  });

  it('says it in every error after the credential is verified: a refusal, a validation failure, a fault, a 403', async () => {
    for (const [headers, livemode] of [
      [live, true],
      [test, false],
    ] as const) {
      expect(await call('refused', headers)).toMatchObject({
        status: 400,
        json: { success: false, livemode, code: 'invalid_field', param: 'outcome' },
      });
      expect(await call('unknown', headers)).toMatchObject({
        status: 400,
        json: { success: false, livemode, code: 'invalid_field' },
      });
      expect(await call('broken', headers)).toEqual({
        status: 500,
        json: { success: false, livemode, error: 'The operation could not be completed', code: 'internal' },
      });
    }
    expect(await call('fine', testWithoutPermission)).toMatchObject({
      status: 403,
      json: { success: false, livemode: false, code: 'permission_missing' },
    });
  });

  it('cannot say it before the credential is known (401)', async () => {
    const answer = await call('fine', { 'x-api-key': 'pk_test_unknown', 'x-api-secret': 'sk_test_unknown' });
    expect(answer.status).toBe(401);
    expect(answer.json).not.toHaveProperty('livemode');
  });
});

// What makes the above hold for every route: none builds an envelope or maps twin ids itself.
describe('the routes', () => {
  const routesDir = join(projectRoot(), 'api', 'routes');
  const handlers = (readdirSync(routesDir, { recursive: true }) as string[])
    // Wire-shape modules (a group's schema.ts, shared-shapes.ts) render the answer's resources, twin ids included.
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !/(schema|shapes)\.ts$/.test(file))
    .map((file) => join(routesDir, file));

  it('answer through ok() and the error handler, never a body of their own', () => {
    expect(handlers.length).toBeGreaterThan(30);
    const handBuilt = handlers
      .filter((file) => /c\.json\(|c\.body\(JSON|success: true/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(projectRoot(), file));
    expect(handBuilt).toEqual([]);
  });

  it("leave test-twin ids to the use-cases (given the caller's livemode)", () => {
    const mapping = handlers
      .filter((file) => /twinId|shownProviderId|providerIdForMode/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(projectRoot(), file));
    expect(mapping).toEqual([]);
  });
});
