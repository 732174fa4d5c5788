import { z } from '@hono/zod-openapi';
import type { Page } from '../../../../core/page.js';
import type { Provider } from '../../../../shared/db/provider-store.js';
import { formatIsoMillis } from '../../../../shared/domain/timestamp.js';
import { storableString } from '../../../../shared/validation/json-value.js';
import { successEnvelope } from '../../../http/envelope.js';
import { hasMoreField, pageQuerySchema } from '../../../http/pagination.js';

export const providerSchema = z
  .object({
    id: z.uuid(),
    type: z.enum(['platform', 'advertiser']),
    name: z.string(),
    status: z.enum(['active', 'inactive']),
    created_at: z.string(),
  })
  .openapi('Provider', {
    example: {
      id: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      type: 'platform',
      name: 'Acme Games',
      status: 'active',
      created_at: '2026-01-01T09:00:00.000Z',
    },
  });

export const createProviderSchema = z
  .strictObject({ type: z.enum(['platform', 'advertiser']), name: storableString().trim().min(1).max(200) })
  .openapi('CreateProvider', { example: { type: 'platform', name: 'Acme Games' } });

export const updateProviderSchema = z
  .strictObject({ status: z.enum(['active', 'inactive']) })
  .openapi('UpdateProvider', { example: { status: 'inactive' } });

export const providerIdParams = z.object({
  id: z.uuid().openapi({ param: { name: 'id', in: 'path' }, example: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f' }),
});

export const providerResponseSchema = successEnvelope(providerSchema);
export const providerListResponseSchema = successEnvelope(
  z.object({ providers: z.array(providerSchema), has_more: hasMoreField() }),
);

export const providersPageQuery = pageQuerySchema(z.uuid(), "the last provider's `id`");

export const toProviderListResponse = (page: Page<Provider>) => ({
  providers: page.items.map(toProviderResponse),
  has_more: page.hasMore,
});

export function toProviderResponse(provider: Provider): z.infer<typeof providerSchema> {
  return {
    id: provider.id,
    type: provider.type,
    name: provider.name,
    status: provider.status,
    created_at: formatIsoMillis(provider.createdAt),
  };
}
