import { z } from '@hono/zod-openapi';

export const statusSchema = z.object({
  success: z.literal(true),
  data: z.object({ status: z.string().openapi({ description: '`ok` (liveness) or `ready` (readiness).', example: 'ok' }) }),
});

export const toStatusResponse = (status: 'ok' | 'ready'): z.infer<typeof statusSchema>['data'] => ({ status });
