import { z } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import type { JSONParsed } from 'hono/utils/types';
import { codesForStatus, ERROR_CODES, type ErrorCode } from './errors.js';
import { answerLivemode } from './livemode.js';

const errorEnvelopeShape = (codes: [ErrorCode, ...ErrorCode[]]) => ({
  success: z.literal(false),
  livemode: z
    .boolean()
    .optional()
    .openapi({ description: 'Once the credential is known: false for a test credential, true for a live one.' }),
  error: z.string().openapi({ description: 'Human-readable message naming what is wrong.' }),
  code: z
    .enum(codes)
    .openapi({ description: 'Machine-readable code of the condition (docs/errors.md): branch on it, not on the message.' }),
  param: z.string().optional().openapi({
    description: 'The request field at fault, as a dot path (`events.3.timestamp`), when one field is.',
    example: 'user_id',
  }),
  // Only where the answer can carry `insufficient_points` (docs/points.md).
  ...(codes.includes('insufficient_points')
    ? {
        balance: z
          .number()
          .int()
          .optional()
          .openapi({ description: '`insufficient_points` only: the balance now, in points (below zero after a reversal).' }),
      }
    : {}),
});

const errorEnvelopeSchema = z.object(errorEnvelopeShape(ERROR_CODES)).openapi('Error');

// One schema per status, listing only the codes that status carries, so a client
// generated from the document knows which codes each response can hold.
const statusSchemas = new Map<number, typeof errorEnvelopeSchema>();
function errorSchemaFor(status: number) {
  const codes = codesForStatus(status);
  if (codes.length === 0) return errorEnvelopeSchema;
  let schema = statusSchemas.get(status);
  if (!schema) {
    schema = z.object(errorEnvelopeShape(codes as [ErrorCode, ...ErrorCode[]])).openapi(`Error${status}`);
    statusSchemas.set(status, schema);
  }
  return schema;
}

/** Every answer to an API credential says which mode it came from (docs/test-mode.md); admin and health answers do not. */
const livemodeField = () =>
  z.boolean().optional().openapi({
    description: 'Answers to an API credential: false for a test credential (docs/test-mode.md), true for a live one.',
    example: true,
  });

export function successEnvelope<T extends z.ZodTypeAny>(data: T) {
  return z.object({ success: z.literal(true), livemode: livemodeField(), data });
}

/**
 * A success answer's body. Route schema.ts files shape the resource (`data`);
 * the envelope around it is added here alone, as errors get theirs in
 * errors.ts, with `livemode` when the answer is to an API credential
 * (api/http/livemode.ts). The read cache stores bodies built here too.
 */
function successBody<T>(c: Context, data: T): SuccessBody<T> {
  const livemode = answerLivemode(c);
  return livemode === undefined ? { success: true, data } : { success: true, livemode, data };
}

export type SuccessBody<T> = { success: true; data: T } | { success: true; livemode: boolean; data: T };

/** Every success answer of a route: `return ok(c, to<Thing>Response(value))` (202 where the route says so). */
export function ok<T, S extends 200 | 202 = 200>(
  c: Context,
  data: T,
  status: S = 200 as S,
): Response & TypedResponse<JSONParsed<SuccessBody<T>>, S, 'json'> {
  return c.json(successBody(c, data), status);
}

const errorDescriptions: Record<number, string> = {
  400: 'Request invalid (body not JSON, not an object, or a field fails validation).',
  401: 'Credentials missing or invalid.',
  403: 'Credential or provider inactive, wrong provider type, or permission missing.',
  404: 'Not found.',
  409: 'Conflicts with existing state.',
  413: 'Body too large.',
  415: 'Content-Type is not application/json.',
  429: 'Too many requests; retry after the `Retry-After` seconds.',
  500: 'The service failed; retry with bounded exponential backoff and jitter.',
  503: 'Unavailable for now (Postgres or Redis unreachable, the request limit reached, or shutting down); retry with bounded exponential backoff and jitter.',
};

/** OpenAPI `responses` entries for the given error statuses, all in the one error envelope. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: errorDescriptions[status] ?? 'Error.', content: { 'application/json': { schema: errorSchemaFor(status) } } },
    ]),
  );
}
