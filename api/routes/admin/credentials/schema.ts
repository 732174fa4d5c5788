import { z } from '@hono/zod-openapi';
import type { Page } from '../../../../core/page.js';
import type { ProviderCredential } from '../../../../shared/db/credential-store.js';
import { MODES } from '../../../../shared/domain/test-mode.js';
import { storableString } from '../../../../shared/validation/json-value.js';
import { successEnvelope } from '../../../http/envelope.js';
import { hasMoreField, pageQuerySchema } from '../../../http/pagination.js';

/** A credential's or a chain's mode (docs/test-mode.md). */
export const credentialModeSchema = () => z.enum(MODES);

const permissionList = z.array(z.string().max(100)).max(50);

export const credentialSchema = z
  .object({
    key: z.string(),
    provider_id: z.uuid(),
    provider_type: z.enum(['platform', 'advertiser']),
    permissions: z.array(z.string()),
    status: z.enum(['active', 'inactive']),
    mode: credentialModeSchema().openapi({ description: "`test`: opens the provider's test mode only (docs/test-mode.md)." }),
  })
  .openapi('Credential', {
    example: {
      key: 'pk_live_Yx3mJvQ8x2LrT5nW9cYb4Ke7',
      provider_id: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      provider_type: 'platform',
      permissions: ['users:register', 'events:write', 'quest_chains:read'],
      status: 'active',
      mode: 'live',
    },
  });

export const createdCredentialSchema = credentialSchema
  .extend({ secret: z.string().openapi({ description: 'Shown in this answer only; store it now.' }) })
  .openapi('CreatedCredential', {
    example: {
      key: 'pk_test_Yx3mJvQ8x2LrT5nW9cYb4Ke7',
      provider_id: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      provider_type: 'platform',
      permissions: ['users:register', 'events:write', 'quest_chains:read'],
      status: 'active',
      mode: 'test',
      secret: 'sk_test_example-secret-shown-in-this-answer-only',
    },
  });

export const createCredentialSchema = z
  .strictObject({
    permissions: permissionList.optional().openapi({ description: 'Defaults to every permission the provider type may hold.' }),
    mode: credentialModeSchema().optional().openapi({
      description:
        'Default `live`. A `test` credential (keys `pk_test_…`) sees and makes test-mode data only (docs/test-mode.md).',
    }),
  })
  .openapi('CreateCredential', {
    example: { permissions: ['users:register', 'events:write', 'quest_chains:read'], mode: 'test' },
  });

export const updateCredentialSchema = z
  .strictObject({ status: z.enum(['active', 'inactive']).optional(), permissions: permissionList.optional() })
  .openapi('UpdateCredential', { example: { status: 'inactive' } });

// storableString: a NUL in the path (%00) would otherwise reach Postgres and fail as a 500.
export const credentialKeyParams = z.object({
  key: storableString()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'key', in: 'path' }, example: 'pk_Yx3mJvQ8x2LrT5nW9cYb4Ke7' }),
});

export const createdCredentialResponseSchema = successEnvelope(createdCredentialSchema);
export const credentialResponseSchema = successEnvelope(credentialSchema);
export const credentialListResponseSchema = successEnvelope(
  z.object({ credentials: z.array(credentialSchema), has_more: hasMoreField() }),
);

export const credentialsPageQuery = pageQuerySchema(storableString().min(1).max(200), "the last credential's `key`");

export const toCredentialListResponse = (page: Page<ProviderCredential>) => ({
  credentials: page.items.map(toCredentialResponse),
  has_more: page.hasMore,
});

export function toCredentialResponse(credential: ProviderCredential): z.infer<typeof credentialSchema> {
  return {
    key: credential.key,
    provider_id: credential.providerId,
    provider_type: credential.providerType,
    permissions: credential.permissions,
    status: credential.status,
    mode: credential.mode,
  };
}

/** The one answer that carries the secret. */
export function toCreatedCredentialResponse(
  credential: ProviderCredential & { secret: string },
): z.infer<typeof createdCredentialSchema> {
  return { ...toCredentialResponse(credential), secret: credential.secret };
}
