import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { getDraw } from '../../../core/rewards/get-draw.js';
import { requireOperation } from '../../auth/authenticate.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { apiKeySecurity } from '../../http/security.js';
import type { MountedEnv } from '../../http/wildcard-mount.js';
import { drawParams, drawResponseSchema, toDrawResponse } from './schema.js';

export const drawRoute = createRoute({
  method: 'get',
  path: '/v1/rewards/draws/{claim_id}',
  operationId: 'getDraw',
  tags: ['Rewards'],
  summary: "A mystery box claim's draw, to verify",
  description:
    "Platform credentials (`rewards:read`). The draw's inputs (seed hash, candidates and weights, digest, roll) and its prize; `server_seed` once revealed (the operator rotated the seed, or the chain ended), so anyone can recompute it (docs/verify-draw.mjs). 404 for a claim without a draw or of another platform.",
  security: apiKeySecurity,
  middleware: [requireOperation('readDraw')] as const,
  request: { params: drawParams },
  responses: {
    200: { description: 'The draw.', content: { 'application/json': { schema: drawResponseSchema } } },
    ...errorResponses(400, 401, 403, 404, 500),
  },
});

export function registerGetDraw(app: OpenAPIHono<MountedEnv>) {
  app.openapi(drawRoute, async (c) => {
    const { deps, caller } = c.var;
    const draw = await getDraw(deps, { platformId: caller.providerId, claimId: c.req.valid('param').claim_id });
    return ok(c, toDrawResponse(draw));
  });
}
