import { z } from '@hono/zod-openapi';
import { storableString } from '../../shared/validation/json-value.js';

/** Every timestamp the API answers with: ISO 8601 UTC with milliseconds. */
export const isoMillis = () =>
  z.string().openapi({ example: '2026-01-02T03:04:05.678Z', description: 'ISO 8601 UTC with milliseconds.' });

/** The `{platformUserId}` path segment of the per-user platform routes (the published 1–255 characters). */
export const platformUserIdParams = z.object({
  platformUserId: storableString()
    .min(1)
    .max(255)
    .openapi({ param: { name: 'platformUserId', in: 'path' }, example: 'user-123' }),
});
