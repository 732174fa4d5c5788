import { createRoute } from '@hono/zod-openapi';
import { resetTestModeData } from '../../../core/test-mode/reset-test-mode-data.js';
import { errorResponses, ok } from '../../http/envelope.js';
import { defineRoute } from '../route-entry.js';
import { resetResponseSchema, toResetResponse } from './schema.js';

const route = createRoute({
  method: 'post',
  path: '/v1/test/reset',
  operationId: 'resetTestModeData',
  tags: ['Test mode'],
  summary: "Delete your test mode's data",
  description:
    'Test credentials only (`pk_test_…`, `events:write`); a live credential answers 403 `test_mode_only` and nothing is touched. Deletes every user, event, completion, link, claim, webhook endpoint (with its messages) and backtest of your test mode, in one transaction; test chains stay, their budgets and caps counted from zero again (prize stock is not restored). Live data is never touched. See docs/test-mode.md.',
  responses: {
    200: { description: 'What was deleted.', content: { 'application/json': { schema: resetResponseSchema } } },
    ...errorResponses(500),
  },
});

export const resetTestModeDataRoute = defineRoute({
  access: { operation: 'resetTestModeData' },
  route,
  handler: async (c) => {
    const { deps, caller } = c.var;
    const deleted = await resetTestModeData(deps, { twinProviderId: caller.providerId });
    return ok(c, toResetResponse(deleted));
  },
});
