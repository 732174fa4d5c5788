import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import { registerUser } from '../../../shared/services/users/register.js';
import type { AppEnv } from '../../app-env.js';
import { requireOperation } from '../../auth/authenticate.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses } from '../../http/envelope.js';
import { apiKeySecurity } from '../../http/security.js';
import { registerUserResponseSchema, registerUserSchema } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/users/register',
  tags: ['Users'],
  summary: 'Register a platform user (idempotent)',
  description:
    'Platform credentials (`users:register`). Creates the service-side user, or returns the existing one with `already_exists: true` (the stored user is not changed).',
  security: apiKeySecurity,
  middleware: [requireOperation('registerUser'), jsonBodyGuard(SINGLE_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: registerUserSchema } }, required: true } },
  responses: {
    200: { description: 'The registered user.', content: { 'application/json': { schema: registerUserResponseSchema } } },
    ...errorResponses(400, 401, 403, 413, 415, 500),
  },
});

export function registerUserRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(route, async (c) => {
    const body = c.req.valid('json');
    const { deps, caller } = c.var;
    const user = await registerUser(deps, caller.providerId, {
      platform_user_id: body.platform_user_id,
      country_code: body.country_code ?? null,
      user_metadata: body.user_metadata ?? undefined,
    });
    return c.json(
      {
        success: true as const,
        data: {
          user_id: user.id,
          platform_user_id: user.platformUserId,
          created_at: formatIsoMillis(user.createdAt),
          already_exists: user.alreadyExists,
        },
      },
      200,
    );
  });
}
