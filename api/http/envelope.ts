import { z } from '@hono/zod-openapi';
import { errorStatus, type ErrorCode } from './errors.js';

export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.string().openapi({ description: 'Human-readable message naming what is wrong.' }),
    code: z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]).openapi({ description: 'Machine-readable error code.' }),
  })
  .openapi('Error');

export function successEnvelope<T extends z.ZodTypeAny>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/**
 * A success answer's body. Route schema.ts files shape the resource (`data`);
 * the envelope around it is added here alone, as errors get theirs in errors.ts.
 */
export const ok = <T>(data: T) => ({ success: true as const, data });

const errorDescriptions: Record<number, string> = {
  400: 'Request invalid (body not JSON, not an object, or a field fails validation).',
  401: 'Credentials missing or invalid.',
  403: 'Credential or provider inactive, wrong provider type, or permission missing.',
  404: 'Not found.',
  409: 'Conflicts with existing state.',
  413: 'Body too large.',
  415: 'Content-Type is not application/json.',
  500: 'The service failed; retry with bounded exponential backoff and jitter.',
  503: 'Not ready.',
};

/** OpenAPI `responses` entries for the given error statuses, all in the one error envelope. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: errorDescriptions[status] ?? 'Error.', content: { 'application/json': { schema: errorEnvelopeSchema } } },
    ]),
  );
}
