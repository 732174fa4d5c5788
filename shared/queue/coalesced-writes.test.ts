import type { Duplex } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../testing/eventually.js';
import { coalesceWrites } from './coalesced-writes.js';

// A tick's commands leave in one system call, in the order sent, and their
// replies come back to the right callers; a reconnected client keeps doing so.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const KEY = `qcr-test-coalesced-writes:${process.pid}`;
const clients: Redis[] = [];

afterAll(async () => {
  await clients[0]?.del(KEY);
  for (const client of clients) client.disconnect();
});

async function connected(coalesce: boolean): Promise<Redis> {
  const client = new Redis(REDIS_URL);
  clients.push(client);
  if (coalesce) coalesceWrites(client);
  await client.ping();
  return client;
}

/** How many times the client's current socket hands bytes to the kernel (one write or writev each). */
function countSocketWrites(client: Redis): { count: number } {
  type Handoff = (this: unknown, ...args: unknown[]) => unknown;
  const socket = client.stream as Duplex & { _write: Handoff; _writev: Handoff };
  const counter = { count: 0 };
  for (const method of ['_write', '_writev'] as const) {
    const original = socket[method];
    socket[method] = function counted(this: unknown, ...args: unknown[]) {
      counter.count += 1;
      return original.apply(this, args);
    };
  }
  return counter;
}

/** Fifty INCRs sent in one tick: each caller must get its own reply, 1 to 50 in the order sent. */
async function incrementsInOneTick(client: Redis): Promise<number[]> {
  await client.del(KEY);
  return Promise.all(Array.from({ length: 50 }, () => client.incr(KEY)));
}

const oneToFifty = Array.from({ length: 50 }, (_, i) => i + 1);

describe('coalesced writes', () => {
  it("send a tick's commands in one system call, in order, each reply to its caller", async () => {
    const client = await connected(true);
    await client.del(KEY);
    const writes = countSocketWrites(client);
    expect(await incrementsInOneTick(client)).toEqual(oneToFifty);
    // The DEL of the helper goes alone (its tick), then the fifty together.
    expect(writes.count).toBe(2);
  });

  it('are what makes the difference: an uncoalesced client writes each command alone', async () => {
    const client = await connected(false);
    const writes = countSocketWrites(client);
    expect(await incrementsInOneTick(client)).toEqual(oneToFifty);
    expect(writes.count).toBeGreaterThan(40);
  });

  it('keep coalescing on the socket of a reconnect', async () => {
    const client = await connected(true);
    const first = client.stream;
    client.disconnect(true);
    await eventually(async () => (client.status === 'ready' && client.stream !== first ? true : undefined), {
      what: 'the client reconnected',
      timeoutMs: 5000,
    });
    const writes = countSocketWrites(client);
    expect(await incrementsInOneTick(client)).toEqual(oneToFifty);
    expect(writes.count).toBe(2);
  });
});
