import { z } from '@hono/zod-openapi';
import type { Provider } from '../../../../shared/db/provider-store.js';
import { formatIsoMillis } from '../../../../shared/domain/timestamp.js';
import { storableString } from '../../../../shared/validation/json-value.js';
import { successEnvelope } from '../../../http/envelope.js';

export const providerSchema = z
  .object({
    id: z.uuid(),
    type: z.enum(['platform', 'advertiser']),
    name: z.string(),
    status: z.enum(['active', 'inactive']),
    created_at: z.string(),
  })
  .openapi('Provider');

export const createProviderSchema = z
  .object({ type: z.enum(['platform', 'advertiser']), name: storableString().trim().min(1).max(200) })
  .openapi('CreateProvider');

export const updateProviderSchema = z.object({ status: z.enum(['active', 'inactive']) }).openapi('UpdateProvider');

export const providerIdParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });

export const providerResponseSchema = successEnvelope(providerSchema);
export const providerListResponseSchema = successEnvelope(z.array(providerSchema));

export function toProviderResponse(provider: Provider): z.infer<typeof providerSchema> {
  return { id: provider.id, type: provider.type, name: provider.name, status: provider.status, created_at: formatIsoMillis(provider.createdAt) };
}
