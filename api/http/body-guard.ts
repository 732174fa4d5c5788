import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { forbiddenKeyPath, mayHoldForbiddenKey } from '../../shared/validation/json-value.js';
import { AppError } from './errors.js';

export const SINGLE_BODY_LIMIT = 64 * 1024;
export const BATCH_BODY_LIMIT = 1024 * 1024;

/**
 * Runs after authentication and before zod validation, giving the published
 * order of checks: size (413), then JSON (400), then object (400). It reads
 * the body once; Hono caches it for the validator that follows. Reading to
 * the end also lets a 413 reach the client instead of a reset connection.
 *
 * Under @hono/node-server the body is read straight from Node's request:
 * going through `c.req.raw` would make the adapter build a full undici
 * Request with a web stream around it, which costs more than the whole
 * rest of a small POST (docs/performance.md).
 */
export function jsonBodyGuard(limitBytes: number, options: { optional?: boolean } = {}): MiddlewareHandler {
  return async (c, next) => {
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (Number.isFinite(declared) && declared > limitBytes) {
      await drain(bodyChunks(c));
      throw tooLarge(limitBytes);
    }
    const contentType = c.req.header('content-type') ?? '';
    // A route whose body is optional (every field optional) takes a bare POST without one.
    if (
      options.optional === true &&
      contentType === '' &&
      (declared === 0 || !c.req.header('content-length')) &&
      !c.req.header('transfer-encoding')
    ) {
      await next();
      return;
    }
    if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(contentType)) {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json');
    }
    let text = await readLimited(bodyChunks(c), limitBytes);
    // An optional body may also come empty under a JSON content type: it is the empty object.
    if (options.optional === true && text.trim() === '') text = '{}';
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppError('invalid_json', 'Request body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new AppError('invalid_json', 'Request body must be a JSON object');
    }
    if (mayHoldForbiddenKey(text)) {
      const path = forbiddenKeyPath(parsed);
      if (path)
        throw new AppError(
          'invalid_field',
          `${path}: key not allowed (__proto__, constructor and prototype cannot be stored)`,
          path,
        );
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

/** The request body as it arrives: Node's own stream when served by @hono/node-server and still unread, else the web stream. */
function bodyChunks(c: Context): AsyncIterable<Uint8Array> | null {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && typeof incoming.on === 'function' && !incoming.readableEnded && !incoming.destroyed) return incoming;
  return (c.req.raw.body as unknown as AsyncIterable<Uint8Array> | null) ?? null;
}

async function readLimited(body: AsyncIterable<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  let exceeded = false;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit)
      exceeded = true; // keep draining so the client can read our answer
    else chunks.push(chunk);
    if (size > DRAIN_CAP_BYTES) break;
  }
  if (exceeded) throw tooLarge(limit);
  // Node hands a small body over as one Buffer: decode it without copying.
  return chunks.length === 1 && Buffer.isBuffer(chunks[0]) ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
}

async function drain(body: AsyncIterable<Uint8Array> | null): Promise<void> {
  if (!body) return;
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > DRAIN_CAP_BYTES) break;
    }
  } catch {
    // the client went away; nothing to answer
  }
}
