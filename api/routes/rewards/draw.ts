import { createRoute } from '@hono/zod-openapi';
import { getDraw } from '../../../core/rewards/get-draw.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { drawParams, drawResponseSchema, toDrawResponse } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/rewards/draws/{claim_id}',
  operationId: 'getDraw',
  tags: ['Rewards'],
  summary: "A mystery box claim's draw, to verify",
  description:
    "Platform credentials (`rewards:read`). The draw's inputs (seed hash, candidates and weights, digest, roll) and its prize; `server_seed` once revealed (the operator rotated the seed, or the chain ended), so anyone can recompute it (docs/verify-draw.mjs). 404 for a claim without a draw or of another platform.",
  request: { params: drawParams },
  responses: {
    200: { description: 'The draw.', content: { 'application/json': { schema: drawResponseSchema } } },
    ...errorResponses(400, 404, 500),
  },
});

export const getDrawRoute = defineRoute({
  access: { operation: 'readDraw' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const draw = await getDraw(deps, { platformId: caller.providerId, claimId: c.req.valid('param').claim_id });
    return ok(c, toDrawResponse(draw));
  },
});
