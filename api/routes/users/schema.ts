import { z } from '@hono/zod-openapi';
import type { RegisteredUser } from '../../../core/users/register-user.js';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import { storableObject, storableString } from '../../../shared/validation/json-value.js';
import { successEnvelope } from '../../http/envelope.js';
import { isoMillis } from '../shared-shapes.js';

export const registerUserSchema = z
  .strictObject({
    platform_user_id: storableString().min(1).max(255).openapi({ example: 'user-123' }),
    country_code: z
      .string()
      .length(2)
      .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 code')
      .nullish()
      .openapi({ example: 'DE' }),
    user_metadata: storableObject()
      .nullish()
      .openapi({
        type: 'object',
        additionalProperties: true,
        example: { username: 'ada', avatar_url: 'https://example.com/a.png' },
      }),
  })
  .openapi('RegisterUser', {
    example: {
      platform_user_id: 'user-123',
      country_code: 'DE',
      user_metadata: { username: 'ada', avatar_url: 'https://example.com/ada.png' },
    },
  });

const registeredUserSchema = z
  .object({
    user_id: z.uuid(),
    platform_user_id: z.string(),
    created_at: isoMillis(),
    already_exists: z.boolean(),
  })
  .openapi('RegisteredUser', {
    example: {
      user_id: '6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b',
      platform_user_id: 'user-123',
      created_at: '2026-01-02T03:00:00.000Z',
      already_exists: false,
    },
  });

export const registerUserResponseSchema = successEnvelope(registeredUserSchema);

export const toRegisteredUserResponse = (user: RegisteredUser): z.infer<typeof registerUserResponseSchema>['data'] => ({
  user_id: user.id,
  platform_user_id: user.platformUserId,
  created_at: formatIsoMillis(user.createdUs),
  already_exists: user.alreadyExists,
});
