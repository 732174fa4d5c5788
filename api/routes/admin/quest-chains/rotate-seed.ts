import { createRoute } from '@hono/zod-openapi';
import { rotateDrawSeed } from '../../../../core/quest-chains/mystery-box.js';
import { errorResponses, ok } from '../../../http/envelope.js';
import { defineRoute } from '../../route-entry.js';
import { chainIdParams, rotatedSeedResponseSchema, toRotatedSeedResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/admin/v1/mystery-boxes/{id}/rotate-seed',
  operationId: 'rotateDrawSeed',
  tags: ['Admin'],
  summary: "Reveal a mystery box's draw seed and commit to a new one",
  description:
    'Every draw made with the old seed becomes recomputable (GET /v1/rewards/draws/{claim_id} answers its server_seed); later draws use the new seed, whose hash is published at once. 409 not_a_mystery_box for a chain whose reward has no prizes.',
  request: { params: chainIdParams },
  responses: {
    200: {
      description: 'The revealed seed and the new commitment.',
      content: { 'application/json': { schema: rotatedSeedResponseSchema } },
    },
    ...errorResponses(400, 404, 409, 500),
  },
});

export const rotateDrawSeedRoute = defineRoute({
  access: 'admin',
  route,
  handler: async (c) => {
    const { deps } = c.var;
    const { id } = c.req.valid('param');
    const rotated = await rotateDrawSeed(deps, { chainId: id });
    return ok(c, toRotatedSeedResponse(id, rotated));
  },
});
