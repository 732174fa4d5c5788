import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ListeningApp, listen } from '../testing/http-server.js';
import { useTestService } from '../testing/test-service.js';

// §9 body limits over a real socket: 64 KiB for a single body, 1 MiB for a
// batch, counted in bytes; every answer (413 and 401 included) must be
// readable by an ordinary client while it is still sending its body.

const KIB = 1024;
const SINGLE_LIMIT = 64 * KIB;
const BATCH_LIMIT = 1024 * KIB;

const { api, platform } = useTestService('body_limits');
let server: ListeningApp;
let counter = 0;

beforeAll(async () => {
  server = await listen(api.app);
});
afterAll(async () => {
  await server.close();
});

/** One event whose JSON is exactly `bytes` long (padding in metadata). */
function singleBody(bytes: number, pad = 'x'): string {
  counter += 1;
  const prefix = `{"user_id":"size-user","event_type":"size-${counter}","timestamp":"2026-03-01T10:00:00Z","metadata":{"pad":"`;
  const suffix = '"}}';
  const room = bytes - Buffer.byteLength(prefix + suffix);
  const padBytes = Buffer.byteLength(pad);
  if (room < 0 || room % padBytes !== 0) throw new Error(`cannot build a body of ${bytes} bytes`);
  const body = prefix + pad.repeat(room / padBytes) + suffix;
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

/** A batch of `items` events whose JSON is exactly `bytes` long. */
function batchBody(bytes: number, items: number): string {
  counter += 1;
  const item = (i: number, pad: number) =>
    `{"user_id":"batch-size-user","event_type":"b-${counter}-${i}","timestamp":"2026-03-01T10:00:00Z","metadata":{"pad":"${'x'.repeat(pad)}"}}`;
  const wrap = (parts: string[]) => `{"events":[${parts.join(',')}]}`;
  const bare = wrap(Array.from({ length: items }, (_, i) => item(i, 0)));
  const room = bytes - Buffer.byteLength(bare);
  if (room < 0) throw new Error(`cannot build a batch of ${bytes} bytes`);
  const each = Math.floor(room / items);
  const body = wrap(Array.from({ length: items }, (_, i) => item(i, i === items - 1 ? room - each * (items - 1) : each)));
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

/** The body as a stream: sent chunked, without Content-Length, so the server must count. */
function chunked(body: string): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(body);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 16 * KIB));
      offset += 16 * KIB;
    },
  });
}

async function post(path: string, body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = platform.headers) {
  const init: RequestInit & { duplex?: 'half' } = { method: 'POST', headers, body };
  if (typeof body !== 'string') init.duplex = 'half';
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text), text };
}

describe('single body limit (64 KiB)', () => {
  it('accepts a body of exactly 64 KiB', async () => {
    const answer = await post('/v1/events', singleBody(SINGLE_LIMIT));
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.data.status).toBe('received');
  });

  it('answers 413 in the envelope to 64 KiB + 1 byte', async () => {
    const answer = await post('/v1/events', singleBody(SINGLE_LIMIT + 1));
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ success: false, code: 'payload_too_large' });
  });

  it('answers 413 to 64 KiB + 1 byte sent chunked (no Content-Length)', async () => {
    const answer = await post('/v1/events', chunked(singleBody(SINGLE_LIMIT + 1)));
    expect(answer.status).toBe(413);
    expect(answer.json.code).toBe('payload_too_large');
  });

  it('accepts exactly 64 KiB sent chunked', async () => {
    const answer = await post('/v1/events', chunked(singleBody(SINGLE_LIMIT)));
    expect(answer.status, answer.text).toBe(200);
  });

  it('counts bytes, not characters', async () => {
    // 2-byte characters: well under 64 Ki characters, over 64 KiB.
    const answer = await post('/v1/events', singleBody(SINGLE_LIMIT + 130, 'é'));
    expect(answer.status).toBe(413);
  });

  it('applies to registration too', async () => {
    const body = JSON.stringify({ platform_user_id: 'big', user_metadata: { pad: 'x'.repeat(SINGLE_LIMIT) } });
    expect((await post('/v1/users/register', body)).status).toBe(413);
  });

  it('answers a 413 to a body of several MiB readably', async () => {
    const answer = await post('/v1/events', singleBody(4 * BATCH_LIMIT));
    expect(answer.status).toBe(413);
    expect(answer.json.success).toBe(false);
  });
});

describe('batch body limit (1 MiB)', () => {
  it('accepts a batch of exactly 1 MiB and answers every item', async () => {
    const answer = await post('/v1/events/batch', batchBody(BATCH_LIMIT, 400));
    expect(answer.status, answer.text.slice(0, 500)).toBe(200);
    expect(answer.json.data.results).toHaveLength(400);
    expect(answer.json.data.results.every((r: { status: string }) => r.status === 'received')).toBe(true);
  });

  it('answers 413 to 1 MiB + 1 byte, with and without Content-Length', async () => {
    for (const body of [batchBody(BATCH_LIMIT + 1, 400), chunked(batchBody(BATCH_LIMIT + 1, 400))]) {
      const answer = await post('/v1/events/batch', body);
      expect(answer.status).toBe(413);
      expect(answer.json).toMatchObject({ success: false, code: 'payload_too_large' });
    }
  });

  it('a batch item may exceed 64 KiB: only the batch limit applies to a batch', async () => {
    const answer = await post('/v1/events/batch', batchBody(200 * KIB, 1));
    expect(answer.status).toBe(200);
    expect(answer.json.data.results[0].status).toBe('received');
  });
});

describe('auth before size, readable on the wire', () => {
  it('oversize body without credentials -> 401, readable', async () => {
    const answer = await post('/v1/events/batch', batchBody(2 * BATCH_LIMIT, 10), { 'content-type': 'application/json' });
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ success: false, code: 'missing_credentials' });
  });

  it('oversize chunked body with a wrong secret -> 401, readable', async () => {
    const answer = await post('/v1/events', chunked(singleBody(SINGLE_LIMIT * 3)), {
      ...platform.headers,
      'x-api-secret': 'sk_wrong',
    });
    expect(answer.status).toBe(401);
  });

  it('the connection stays usable after a 413', async () => {
    expect((await post('/v1/events', singleBody(SINGLE_LIMIT + 1))).status).toBe(413);
    expect((await post('/v1/events', singleBody(1000))).status).toBe(200);
  });

  it('a body that is not JSON-typed -> 415 in the envelope', async () => {
    const answer = await post('/v1/events', singleBody(1000), { ...platform.headers, 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
    expect(answer.json).toMatchObject({ success: false, code: 'unsupported_media_type' });
  });
});
