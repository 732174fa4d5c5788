import { z } from '@hono/zod-openapi';
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
