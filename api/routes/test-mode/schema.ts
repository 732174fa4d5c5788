import { z } from '@hono/zod-openapi';
import { successEnvelope } from '../../http/envelope.js';

export const resetResponseSchema = successEnvelope(
  z
    .object({
      reset: z.literal(true),
      deleted: z
        .record(z.string(), z.number().int())
        .openapi({ description: 'Rows deleted, by kind (users, events, task_completions, reward_claims, webhook_endpoints…).' }),
    })
    .openapi('TestModeReset', {
      example: { reset: true, deleted: { users: 12, events: 240, task_completions: 30, reward_claims: 4, webhook_endpoints: 1 } },
    }),
);

export const toResetResponse = (deleted: Record<string, number>) => ({ reset: true as const, deleted });
