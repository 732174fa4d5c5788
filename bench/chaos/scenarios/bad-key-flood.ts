import { newEvent, sendEvents } from '../harness/event-load.js';
import { httpClient, type HttpClient } from '../harness/http.js';
import { noCrashes, sleep, type Scenario } from '../harness/scenario.js';
import type { Stack } from '../harness/stack.js';
import { countStatuses } from './redis-restart.js';

const RATIO_TARGET = 0.8;

/** Good-credential single-event ingest, `senders` back to back, for `ms`: events acknowledged per second. */
async function goodThroughput(stack: Stack, senders: number, ms: number): Promise<number> {
  const tenant = stack.tenants[0]!;
  const until = Date.now() + ms;
  let acknowledged = 0;
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (Date.now() < until) {
        const answer = await sendEvents(stack.client, stack.history, tenant, [newEvent(stack.random, tenant)]);
        if (answer.status === 200) acknowledged += 1;
      }
    }),
  );
  return acknowledged / (ms / 1000);
}

/**
 * Bad keys at full speed from another address (unknown keys, and a known key
 * with wrong secrets: the expensive verification) beside a good credential's
 * ingest: the good throughput must stay >= 0.8x its level without the flood.
 * Measured A-B-A (without, with, without) and compared with the mean of the
 * two A windows, so a drift of the machine's load does not pass for the flood.
 */
export const badKeyFlood: Scenario = {
  name: 'bad-key flood beside good traffic',
  async run(stack, ctx) {
    const windowMs = ctx.pick(4_000, 15_000);
    const senders = 16;
    // Warm-up (JIT, pools, caches): the first seconds run at half speed on this machine, and would pass for the flood's doing.
    await goodThroughput(stack, senders, ctx.pick(3_000, 5_000));
    const before = await goodThroughput(stack, senders, windowMs);

    const attacker: HttpClient = httpClient(() => stack.api.url, { localAddress: '127.0.0.2', maxSockets: 64 });
    const knownKey = stack.tenants[0]!.headers['x-api-key']!;
    const statuses: number[] = [];
    let flooding = true;
    const flood = Promise.all(
      Array.from({ length: 64 }, async (_, lane) => {
        while (flooding) {
          const key = lane % 2 === 0 ? `qk_bogus_${stack.random.int(0, 1e9)}` : knownKey;
          const answer = await attacker.call('POST', '/v1/events', { headers: { 'x-api-key': key, 'x-api-secret': `wrong-${lane}` }, body: { user_id: 'x', event_type: 'x', timestamp: '2026-01-01T00:00:00Z' } });
          statuses.push(answer.status);
        }
      }),
    );
    await sleep(500);
    const during = await goodThroughput(stack, senders, windowMs);
    flooding = false;
    await flood;
    attacker.close();
    const after = await goodThroughput(stack, senders, windowMs);
    const reference = (before + after) / 2;
    const ratio = reference > 0 ? during / reference : null;
    const unexpected = statuses.filter((status) => status !== 401 && status !== 429);
    return {
      recoveryMs: null,
      figure: { label: 'good ingest throughput with the flood / without', value: ratio === null ? null : Math.round(ratio * 100) / 100, unit: '×', target: { atLeast: RATIO_TARGET }, reportedOnlyWhenShort: true },
      checks: [
        noCrashes(stack),
        { name: 'the flood got only 401 and 429', ok: unexpected.length === 0, detail: unexpected.length ? countStatuses(unexpected) : undefined },
        { name: 'the flood was limited (429)', ok: statuses.includes(429), detail: countStatuses(statuses) },
      ],
      notes: [`good ingest ${before.toFixed(0)} / ${during.toFixed(0)} / ${after.toFixed(0)} events/s (before / during / after); flood ${statuses.length} calls: ${countStatuses(statuses)}`],
    };
  },
};
