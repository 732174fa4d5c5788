import { createRoute } from '@hono/zod-openapi';
import { createCredential } from '../../../../core/admin/credentials.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { providerIdParams } from '../providers/schema.js';
import { createCredentialSchema, createdCredentialResponseSchema, toCreatedCredentialResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/admin/v1/providers/{id}/credentials',
  operationId: 'createCredential',
  tags: ['Admin'],
  summary: 'Create a credential; the secret is returned once',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)],
  request: {
    params: providerIdParams,
    body: { content: { 'application/json': { schema: createCredentialSchema } }, required: true },
  },
  responses: {
    200: {
      description: 'The credential with its secret.',
      content: { 'application/json': { schema: createdCredentialResponseSchema } },
    },
    ...errorResponses(400, 404, 413, 415, 500),
  },
});

export const createCredentialRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const body = c.req.valid('json');
    const created = await createCredential(c.var.deps, {
      providerId: c.req.valid('param').id,
      permissions: body.permissions,
      mode: body.mode,
    });
    return ok(c, toCreatedCredentialResponse(created));
  },
});
