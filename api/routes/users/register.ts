import { createRoute } from '@hono/zod-openapi';
import { registerUser } from '../../../core/users/register-user.js';
import { senderUserId } from '../../../shared/domain/ids.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../http/body-guard.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { registerUserResponseSchema, registerUserSchema, toRegisteredUserResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/users/register',
  operationId: 'registerUser',
  tags: ['Users'],
  summary: 'Register a platform user (idempotent)',
  description:
    'Platform credentials (`users:register`). Creates the service-side user, or returns the existing one with `already_exists: true` (the stored user is not changed).',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)] as const,
  request: { body: { content: { 'application/json': { schema: registerUserSchema } }, required: true } },
  responses: {
    200: { description: 'The registered user.', content: { 'application/json': { schema: registerUserResponseSchema } } },
    ...errorResponses(400, 413, 415, 500),
  },
});

export const registerUserRoute = defineRoute({
  access: { operation: 'registerUser' },
  route,
  handler: async (c) => {
    const body = c.req.valid('json');
    const { deps, caller } = c.var;
    const user = await registerUser(deps, {
      platformId: caller.providerId,
      platformUserId: senderUserId(body.platform_user_id),
      countryCode: body.country_code,
      userMetadata: body.user_metadata,
    });
    return ok(c, toRegisteredUserResponse(user));
  },
});
