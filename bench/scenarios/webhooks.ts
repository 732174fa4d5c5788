import { eq } from 'drizzle-orm';
import { generateWebhookSecret } from '../../core/webhooks/signing.js';
import { webhookEndpoints, webhookMessages } from '../../shared/db/schema/index.js';
import { insertEndpoint } from '../../shared/db/webhook-endpoint-store.js';
import { insertMessages, type WebhookFact } from '../../shared/db/webhook-message-store.js';
import { eventBatches } from '../../shared/queue/contract.js';
import { createTestProvider } from '../../shared/testing/fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../shared/testing/webhook-receiver.js';
import type { BenchContext, Scenario } from '../harness/context.js';
import { type DrainFigure, drain } from '../matching/drain.js';
import { type MatchingTenant, matchingTenant, roundRobin } from '../matching/seed.js';
import { MATCH_DRAIN } from './matching.js';

const WEBHOOK_THROUGHPUT = 'webhook deliveries, 1 worker, receiver answering 200 at once';

/**
 * Webhooks (docs/webhooks.md): how many signed deliveries one worker makes per
 * second to a local receiver that answers 200 at once, and the delay from a
 * completion (its outbox row, written in the matcher's transaction) to its
 * delivery while the matcher works through waves of events. The worker runs
 * with the development flags (the receiver is on 127.0.0.1).
 */
export const webhooks: Scenario = {
  name: 'webhooks',
  async run(ctx) {
    const receiver = await startWebhookReceiver();
    try {
      await throughput(ctx, receiver);
      await delay(ctx, receiver);
      await drainWithEndpoint(ctx, receiver);
    } finally {
      await receiver.stop();
    }
  },
};

/** A worker allowed to deliver to the local receiver (plain HTTP on a private address). */
const startWebhookWorker = (ctx: BenchContext, env: Record<string, string> = {}) =>
  ctx.startWorker({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', ...env });

const firstReceipts = (receiver: WebhookReceiver, ids: ReadonlySet<string>) => {
  const first = new Map<string, number>();
  for (const r of receiver.received) if (ids.has(r.json.id) && !first.has(r.json.id)) first.set(r.json.id, r.atMs);
  return first;
};

async function waitFor(check: () => boolean, what: string) {
  const deadline = Date.now() + 5 * 60_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not done in 5 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A backlog of messages queued before the worker starts, timed from the first delivery to the last. */
async function throughput(ctx: BenchContext, receiver: WebhookReceiver) {
  const count = ctx.options.quick ? 2_000 : 20_000;
  const platform = await createTestProvider(ctx.database.db, 'platform', { name: 'bench webhooks' });
  await insertEndpoint(
    ctx.database.db,
    { providerId: platform.id, url: receiver.url, eventTypes: ['reward.claimed'], secret: generateWebhookSecret() },
    10,
  );
  const ids: string[] = [];
  for (let i = 0; i < count; i += 2000) {
    const facts: WebhookFact[] = Array.from({ length: Math.min(2000, count - i) }, (_, j) => ({
      providerId: platform.id,
      type: 'reward.claimed',
      fact: `reward.claimed/bench-${i + j}`,
      data: {
        claim_id: `bench-${i + j}`,
        kind: 'task',
        reward: { type: 'points', name: '10 points', value: 10, image_urls: null },
        platform_user_id: `user-${j}`,
      },
    }));
    ids.push(...(await insertMessages(ctx.database.db, facts)));
  }
  const queues = ctx.openQueues();
  const producer = queues.webhooks;
  try {
    // As the matcher enqueues them: first attempts, a job per 500 messages.
    for (let i = 0; i < ids.length; i += 2000) await producer.deliverNew(ids.slice(i, i + 2000));
  } finally {
    await queues.close();
  }
  const wanted = new Set(ids);
  const worker = await startWebhookWorker(ctx);
  try {
    const stop = await ctx.meter.start(worker.pid);
    await waitFor(() => firstReceipts(receiver, wanted).size === count, 'webhook backlog');
    const cpu = await stop();
    const times = [...firstReceipts(receiver, wanted).values()].sort((a, b) => a - b);
    const seconds = (times.at(-1)! - times[0]!) / 1000;
    ctx.results.add({
      figure: WEBHOOK_THROUGHPUT,
      value: (count - 1) / seconds,
      unit: 'deliveries/s',
      cpuPer1k: { api: (cpu.api / count) * 1000, postgres: (cpu.postgres / count) * 1000, redis: 0 },
      note: `${count} messages queued first, first to last delivery in ${seconds.toFixed(1)} s (signed, each attempt recorded); CPU column: worker / PG`,
    });
  } finally {
    await worker.stop();
  }
}

/**
 * Waves of events (one per user per wave, each completing a task in 5 chains)
 * matched and announced as they come, a second apart: 100 (quick: 50)
 * messages a second, well within one worker's delivery rate, so the figure is
 * the path's delay, not a backlog's.
 */
async function delay(ctx: BenchContext, receiver: WebhookReceiver) {
  const userCount = ctx.options.quick ? 10 : 20;
  const tenant = await matchingTenant(ctx, 'webhooks', userCount);
  await insertEndpoint(
    ctx.database.db,
    {
      providerId: tenant.platformId,
      url: receiver.url,
      eventTypes: ['task.completed', 'chain.completed'],
      secret: generateWebhookSecret(),
    },
    10,
  );
  const worker = await startWebhookWorker(ctx);
  const queues = ctx.openQueues();
  const producer = queues.matching;
  const before = receiver.received.length;
  try {
    // The worker reads which providers have endpoints once a second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (let wave = 0; wave < 5; wave++) {
      const ids = await tenant.store(roundRobin(tenant.users, 1, wave));
      await producer.enqueue('match-events', eventBatches(ids.map((eventId) => ({ eventId, providerId: tenant.platformId }))));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    // 5 chains: a task.completed per event and chain, and a chain.completed per user and chain at the end.
    const expected = userCount * 5 * 5 + userCount * 5;
    await waitFor(() => new Set(receiver.received.slice(before).map((r) => r.json.id)).size >= expected, 'webhook waves');
    const seen = new Set<string>();
    const delays: number[] = [];
    for (const r of receiver.received.slice(before)) {
      if (seen.has(r.json.id)) continue;
      seen.add(r.json.id);
      delays.push(r.atMs - Date.parse(r.json.created_at));
    }
    delays.sort((a, b) => a - b);
    const p = (q: number) => delays[Math.min(delays.length - 1, Math.floor(q * delays.length))]!;
    ctx.results.addBound(
      {
        figure: 'completion → webhook delivered, p99',
        value: p(0.99),
        unit: 'ms',
        p50Ms: p(0.5),
        p99Ms: p(0.99),
        note: `${delays.length} messages from 5 waves of ${userCount} events 1 s apart (${userCount * 5} messages each), 1 worker matching and delivering`,
      },
      { atMost: 1000 },
    );
  } finally {
    await queues.close();
    await worker.stop();
  }
}

const DRAIN_WITHOUT_ENDPOINT = `${MATCH_DRAIN}, no webhook endpoint (webhooks' own A)`;

/**
 * The matcher's price for webhooks when they are used: the drain of the
 * matching scenario's backlog for a platform with an endpoint (one outbox
 * insert per batch, the worker delivering meanwhile), against the same drain
 * for a tenant without one, measured just before it by a worker started the
 * same way (an A/B within the scenario, so `--only baselines,webhooks` gives
 * the ratio and both halves see the same machine). The drain ends when no
 * event is pending; deliveries still running then do not count in it, but
 * everything they spent during the drain is in its worker and Postgres CPU,
 * and a second row times the same drain until its last message arrives,
 * with all the CPU spent to then (deliveries give way to a matching backlog,
 * WEBHOOK_YIELD_MS: this row shows what that moved, not removed).
 */
async function drainWithEndpoint(ctx: BenchContext, receiver: WebhookReceiver) {
  const perUser = ctx.options.quick ? 50 : 200;
  // Each tenant's events are stored just before its drain: stored earlier, they would grow old
  // enough for the reconciler of the drain before to match them.
  const bare = await matchingTenant(ctx, 'drain-no-webhooks', 200);
  const withEndpoint = async (label: string) => {
    const tenant = await matchingTenant(ctx, label, 200);
    await insertEndpoint(
      ctx.database.db,
      {
        providerId: tenant.platformId,
        url: receiver.url,
        eventTypes: ['task.completed', 'chain.completed'],
        secret: generateWebhookSecret(),
      },
      10,
    );
    return tenant;
  };
  const inline = await withEndpoint('drain-webhooks');
  const apart = await withEndpoint('drain-webhooks-apart');
  const eventsOf = (tenant: MatchingTenant) => tenant.store(roundRobin(tenant.users, perUser));
  const without = await drainOnce(ctx, bare, await eventsOf(bare));
  ctx.results.add({
    figure: DRAIN_WITHOUT_ENDPOINT,
    value: without.eventsPerSecond,
    unit: 'events/s',
    cpuPer1k: { api: without.workerCpuPer1k, postgres: without.postgresCpuPer1k, redis: 0 },
    note: `${without.events} events in ${without.seconds.toFixed(1)} s; CPU column: worker / PG`,
  });
  const rows = (figure: string, measured: DrainWithDeliveries, how: string) => {
    const { drained, delivered } = measured;
    ctx.results.addRatio(
      {
        figure,
        value: drained.eventsPerSecond,
        unit: 'events/s',
        cpuPer1k: { api: drained.workerCpuPer1k, postgres: drained.postgresCpuPer1k, redis: 0 },
        note: `${drained.events} events in ${drained.seconds.toFixed(1)} s, announcing ${delivered.messages} task.completed and chain.completed; ${how}; CPU column: worker(s) / PG`,
      },
      DRAIN_WITHOUT_ENDPOINT,
      { atLeast: 0.8 },
    );
    // The same drain timed until its last message is delivered: what the deliveries cost, wherever they were paid.
    ctx.results.addRatio(
      {
        figure: `${figure}, until every message delivered`,
        value: drained.events / delivered.seconds,
        unit: 'events/s',
        cpuPer1k: { api: delivered.workerCpuPer1k, postgres: delivered.postgresCpuPer1k, redis: 0 },
        note: `last delivery ${delivered.seconds.toFixed(1)} s after the drain began; CPU column: worker(s) / PG to then`,
      },
      DRAIN_WITHOUT_ENDPOINT,
    );
  };
  rows(
    `${MATCH_DRAIN}, platform with a webhook endpoint`,
    await drainOnce(ctx, inline, await eventsOf(inline), receiver),
    'the same worker delivers',
  );
  // Deliveries in a process of their own (WORKER_ROLES, docs/scaling.md): both processes' CPU is the figure's.
  rows(
    `${MATCH_DRAIN}, platform with a webhook endpoint, delivery in its own process`,
    await drainOnce(ctx, apart, await eventsOf(apart), receiver, true),
    'a worker with WORKER_ROLES=matching, another with WORKER_ROLES=webhooks',
  );
}

interface DrainWithDeliveries {
  drained: DrainFigure;
  delivered: { messages: number; seconds: number; workerCpuPer1k: number; postgresCpuPer1k: number };
}

/** One drain by a worker started as the others; with `deliverer`, a second worker delivers and the first only matches, both metered. */
async function drainOnce(ctx: BenchContext, tenant: MatchingTenant, ids: readonly string[]): Promise<DrainFigure>;
async function drainOnce(
  ctx: BenchContext,
  tenant: MatchingTenant,
  ids: readonly string[],
  receiver: WebhookReceiver,
  deliverer?: boolean,
): Promise<DrainWithDeliveries>;
async function drainOnce(
  ctx: BenchContext,
  tenant: MatchingTenant,
  ids: readonly string[],
  receiver?: WebhookReceiver,
  deliverer = false,
): Promise<DrainFigure | DrainWithDeliveries> {
  const workers = [await startWebhookWorker(ctx, deliverer ? { WORKER_ROLES: 'matching' } : {})];
  if (deliverer) workers.push(await startWebhookWorker(ctx, { WORKER_ROLES: 'webhooks' }));
  try {
    // The pause lets the workers settle after their start.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    if (!receiver) return await drain(ctx, tenant, workers, ids);
    const stops = await Promise.all(workers.map((worker) => ctx.meter.start(worker.pid)));
    const started = Date.now();
    const drained = await drain(ctx, tenant, workers, ids);
    // Every message is written by now (no event is pending): wait for each to arrive once.
    const rows = await ctx.database.db
      .select({ id: webhookMessages.id })
      .from(webhookMessages)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookMessages.endpointId))
      .where(eq(webhookEndpoints.providerId, tenant.platformId));
    const wanted = new Set(rows.map((row) => row.id));
    await waitFor(() => firstReceipts(receiver, wanted).size === wanted.size, 'deliveries after the drain');
    const last = Math.max(...firstReceipts(receiver, wanted).values());
    const cpu = await Promise.all(stops.map((stop) => stop()));
    const thousands = ids.length / 1000;
    return {
      drained,
      delivered: {
        messages: wanted.size,
        seconds: (last - started) / 1000,
        workerCpuPer1k: cpu.reduce((sum, use) => sum + use.api, 0) / thousands,
        postgresCpuPer1k: cpu[0]!.postgres / thousands,
      },
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}
