import { createRoute } from '@hono/zod-openapi';
import { updateCredential } from '../../../../core/admin/credentials.js';
import { jsonBodyGuard, SINGLE_BODY_LIMIT } from '../../../http/body-guard.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { credentialKeyParams, credentialResponseSchema, toCredentialResponse, updateCredentialSchema } from './schema.js';

const route = createRoute({
  method: 'patch',
  path: '/admin/v1/credentials/{key}',
  operationId: 'updateCredential',
  tags: ['Admin'],
  summary: 'Change status and/or permissions (applies within 5 seconds)',
  middleware: [jsonBodyGuard(SINGLE_BODY_LIMIT)],
  request: {
    params: credentialKeyParams,
    body: { content: { 'application/json': { schema: updateCredentialSchema } }, required: true },
  },
  responses: {
    200: {
      description: 'The credential, without secret.',
      content: { 'application/json': { schema: credentialResponseSchema } },
    },
    ...errorResponses(400, 404, 413, 415, 500),
  },
});

export const updateCredentialRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const { status, permissions } = c.req.valid('json');
    const credential = await updateCredential(c.var.deps, { key: c.req.valid('param').key, status, permissions });
    // This process applies the change at once; other processes within the credential cache's TTL.
    c.var.deps.credentials.invalidate(credential.key);
    return ok(c, toCredentialResponse(credential));
  },
});
