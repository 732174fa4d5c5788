import { Agent, type ClientRequest, type IncomingMessage, request } from 'node:http';
import { quantile } from '../../../shared/testing/quantile.js';
import { isErrorEnvelope } from '../harness/answers.js';
import { driveEvents } from '../harness/event-load.js';
import { countStatuses, noCrashes, type Scenario, sleep } from '../harness/scenario.js';
import type { Stack } from '../harness/stack.js';
import type { Tenant } from '../harness/world.js';

const P99_TARGET_MS = 100;
const PER_USER = 10;

/** The caps this deployment runs with (lower than the defaults so the flood passes all three on one machine). */
const caps = (short: boolean) => (short ? { platform: 300, process: 500 } : { platform: 1500, process: 2500 });

interface OpenStream {
  status: number;
  body?: string;
  close(): void;
}

/** Opens GET /v1/live and keeps it open when answered 200; other answers are read whole. */
function openStream(agent: Agent, baseUrl: string, token: string): Promise<OpenStream> {
  return new Promise((resolve) => {
    let outgoing: ClientRequest | undefined;
    const timer = setTimeout(() => {
      outgoing?.destroy();
      resolve({ status: 0, close: () => {} });
    }, 15_000);
    outgoing = request(`${baseUrl}/v1/live?token=${encodeURIComponent(token)}`, { agent }, (response: IncomingMessage) => {
      clearTimeout(timer);
      if (response.statusCode === 200) {
        response.resume();
        response.on('error', () => {});
        resolve({ status: 200, close: () => outgoing?.destroy() });
        return;
      }
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), close: () => {} }),
      );
    });
    outgoing.on('error', () => {
      clearTimeout(timer);
      resolve({ status: 0, close: () => {} });
    });
    outgoing.end();
  });
}

async function tokensFor(stack: Stack, tenant: Tenant, users: string[]): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < users.length; i += 16) {
    const answers = await Promise.all(
      users
        .slice(i, i + 16)
        .map((user) =>
          stack.client.call('GET', `/v1/quest-chains/active/${encodeURIComponent(user)}`, { headers: tenant.headers }),
        ),
    );
    for (const answer of answers) {
      if (answer.status !== 200) throw new Error(`active read answered ${answer.status}`);
      tokens.push(answer.json.data.liveUpdates.token);
    }
  }
  return tokens;
}

/**
 * An SSE flood past every cap: two platforms' users each open one stream
 * more than the per-user cap, more than the per-platform cap in all, more
 * than the process cap together. Every refused stream must be a 429 in the
 * envelope, no more streams than the caps may be open, and while they are
 * held the API must keep answering /healthz and ingest with p99 <= 100 ms.
 * Most users are not registered (their streams must not poll Postgres).
 */
export const sseFlood: Scenario = {
  name: 'SSE flood past the caps',
  stack: (short) => ({ platforms: 2, usersPerPlatform: 10, env: floodEnv(short) }),
  async run(stack, ctx) {
    const cap = caps(ctx.short);
    const usersPerPlatform = Math.ceil((cap.platform * 1.4) / (PER_USER + 1));
    const perTenant = await Promise.all(
      stack.tenants.map(async (tenant) => {
        const users = [...tenant.users, ...Array.from({ length: usersPerPlatform - tenant.users.length }, (_, i) => `sse-${i}`)];
        return { tenant, tokens: await tokensFor(stack, tenant, users) };
      }),
    );
    const attempts = perTenant.flatMap(({ tokens }, platform) =>
      tokens.flatMap((token) => Array.from({ length: PER_USER + 1 }, () => ({ platform, token }))),
    );
    stack.random.shuffle(attempts);
    const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
    const streams: (OpenStream & { platform: number; token: string })[] = [];
    const openStarted = Date.now();
    for (let i = 0; i < attempts.length; i += 100) {
      const batch = attempts.slice(i, i + 100);
      const answers = await Promise.all(batch.map(({ token }) => openStream(agent, stack.api.url, token)));
      for (const [j, answer] of answers.entries()) streams.push({ ...answer, ...batch[j]! });
    }
    const openedMs = Date.now() - openStarted;
    const open = streams.filter((stream) => stream.status === 200);
    const perPlatform = stack.tenants.map((_, platform) => open.filter((stream) => stream.platform === platform).length);
    const perUser = new Map<string, number>();
    for (const stream of open) perUser.set(stream.token, (perUser.get(stream.token) ?? 0) + 1);
    const busiestUser = Math.max(0, ...perUser.values());
    const refused = streams.filter((stream) => stream.status !== 200);
    const notEnvelope429 = refused.filter((stream) => stream.status !== 429 || !isErrorEnvelope(stream.body));
    ctx.log(
      `${attempts.length} stream requests: ${countStatuses(streams.map((s) => s.status))} in ${(openedMs / 1000).toFixed(1)} s`,
    );

    // While the streams are held: liveness and ingest latency, measured by steady probes.
    const windowMs = ctx.pick(6_000, 20_000);
    const ingest = driveEvents(stack.client, stack.history, stack.tenants[0]!, stack.random, {
      ratePerSecond: 40,
      batchSize: 1,
      batchShare: 0,
    });
    const health: number[] = [];
    const healthStatuses: number[] = [];
    const until = Date.now() + windowMs;
    while (Date.now() < until) {
      const answer = await stack.client.call('GET', '/healthz', { timeoutMs: 5_000 });
      health.push(answer.ms);
      healthStatuses.push(answer.status);
      await sleep(50);
    }
    await ingest.stop();
    const ingestMs = ingest.samples.map((sample) => (sample.status === 200 ? sample.ms : Number.POSITIVE_INFINITY));
    const healthP99 = quantile(health, 0.99);
    const ingestP99 = quantile(ingestMs, 0.99);

    for (const stream of open) stream.close();
    agent.destroy();
    // Closed streams give their places back: a new one opens again.
    await sleep(1_000);
    const again = await openStream(new Agent({ keepAlive: false }), stack.api.url, perTenant[0]!.tokens.at(-1)!);
    again.close();

    const worst = Math.max(healthP99, ingestP99);
    return {
      recoveryMs: null,
      figure: {
        label: '/healthz and ingest p99 while the flood is held (the larger)',
        value: Number.isFinite(worst) ? Math.round(worst * 10) / 10 : null,
        unit: 'ms',
        target: { atMost: P99_TARGET_MS },
        reportedOnlyWhenShort: true,
      },
      checks: [
        noCrashes(stack),
        {
          name: 'every refused stream answered 429 in the error envelope',
          ok: refused.length > 0 && notEnvelope429.length === 0,
          detail:
            refused.length === 0
              ? 'nothing was refused: no cap applied'
              : notEnvelope429.length
                ? countStatuses(notEnvelope429.map((s) => s.status))
                : undefined,
        },
        {
          name: `open streams within the process cap (${cap.process})`,
          ok: open.length <= cap.process,
          detail: `${open.length} open`,
        },
        {
          name: `open streams within the platform cap (${cap.platform})`,
          ok: perPlatform.every((n) => n <= cap.platform),
          detail: perPlatform.join(' and '),
        },
        {
          name: `open streams within the user cap (${PER_USER})`,
          ok: busiestUser <= PER_USER,
          detail: `at most ${busiestUser} for one user`,
        },
        {
          name: '/healthz answered 200 throughout',
          ok: healthStatuses.every((status) => status === 200),
          detail: countStatuses(healthStatuses),
        },
        { name: 'a stream opens again once the flood is closed', ok: again.status === 200, detail: `answered ${again.status}` },
      ],
      notes: [
        `${attempts.length} stream requests (${PER_USER + 1} per user, caps: ${PER_USER}/user, ${cap.platform}/platform, ${cap.process}/process): ${open.length} open, ${countStatuses(refused.map((s) => s.status))} refused, in ${(openedMs / 1000).toFixed(1)} s`,
        `while held: /healthz p99 ${healthP99.toFixed(1)} ms over ${health.length} calls; ingest p99 ${ingestP99.toFixed(1)} ms over ${ingestMs.length} calls`,
      ],
    };
  },
};

function floodEnv(short: boolean) {
  const cap = caps(short);
  return {
    LIVE_MAX_STREAMS_PER_USER: String(PER_USER),
    LIVE_MAX_STREAMS_PER_PLATFORM: String(cap.platform),
    LIVE_MAX_STREAMS: String(cap.process),
  };
}
