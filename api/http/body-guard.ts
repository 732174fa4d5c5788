import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../shared/errors.js';

export const SINGLE_BODY_LIMIT = 64 * 1024;
export const BATCH_BODY_LIMIT = 1024 * 1024;

/**
 * Runs after authentication and before zod validation, giving the published
 * order of checks: size (413), then JSON (400), then object (400). It reads
 * the body once; Hono caches it for the validator that follows. Reading to
 * the end also lets a 413 reach the client instead of a reset connection.
 */
export function jsonBodyGuard(limitBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limitBytes) {
      await drain(c.req.raw);
      throw tooLarge(limitBytes);
    }
    const contentType = c.req.header('content-type') ?? '';
    if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(contentType)) {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json');
    }
    const text = await readLimited(c.req.raw, limitBytes);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppError('bad_request', 'Request body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new AppError('bad_request', 'Request body must be a JSON object');
    }
    // Hand the text we already read to the validator. Hono's cache holds promises at
    // run time although its type says string, hence the cast.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    await next();
  };
}

// Past this much we stop draining an oversized body: a client that large is not waiting politely for our 413.
const DRAIN_CAP_BYTES = 16 * 1024 * 1024;

const tooLarge = (limit: number) => new AppError('payload_too_large', `Request body exceeds ${limit} bytes`);

async function readLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  let exceeded = false;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) exceeded = true; // keep draining so the client can read our answer
    else chunks.push(chunk);
    if (size > DRAIN_CAP_BYTES) break;
  }
  if (exceeded) throw tooLarge(limit);
  return Buffer.concat(chunks).toString('utf8');
}

async function drain(request: Request): Promise<void> {
  if (!request.body) return;
  let size = 0;
  try {
    for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > DRAIN_CAP_BYTES) break;
    }
  } catch {
    // the client went away; nothing to answer
  }
}
