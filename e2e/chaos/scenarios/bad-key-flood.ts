import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../../shared/db/project-root.js';
import { cpuSeconds } from '../../harness/proc-stats.js';
import { newEvent, sendEvents } from '../harness/event-load.js';
import { countStatuses, noCrashes, type Scenario, sleep } from '../harness/scenario.js';
import type { Stack } from '../harness/stack.js';

const RATIO_TARGET = 0.8;

/** Good-credential single-event ingest, `senders` back to back, for `ms`: events acknowledged per second. */
async function goodThroughput(stack: Stack, senders: number, ms: number): Promise<number> {
  const tenant = stack.tenants[0]!;
  const until = Date.now() + ms;
  let acknowledged = 0;
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (Date.now() < until) {
        const answer = await sendEvents(stack.client, stack.history, tenant, [newEvent(stack.random, tenant, { inOrder: true })]);
        if (answer.status === 200) acknowledged += 1;
      }
    }),
  );
  return acknowledged / (ms / 1000);
}

/** Starts harness/flood-process.ts and waits until it floods; `stop()` ends it and returns every answer's status. */
async function startFlood(options: { url: string; connections: number; localAddress: string; knownKey: string }) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join('e2e', 'chaos', 'harness', 'flood-process.ts'), JSON.stringify(options)],
    {
      cwd: projectRoot(),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  while (!output.includes('flooding\n')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('the flood process did not start');
    await sleep(50);
  }
  return {
    pid: child.pid!,
    async stop(): Promise<number[]> {
      child.kill('SIGTERM');
      await exited;
      const counts = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Record<string, number>;
      return Object.entries(counts).flatMap(([status, n]) => Array.from({ length: n }, () => Number(status)));
    },
  };
}

/**
 * Bad keys at full speed from another address (unknown keys, and a known key
 * with wrong secrets: the expensive verification) beside a good credential's
 * ingest: the good throughput must stay >= 0.8x its level without the flood.
 * Measured in alternating windows (without, then with and without once in
 * the short run, three times in the full one), mean with over mean without,
 * so a drift of the machine's load does not pass for the flood.
 * The flood runs in a process of its own: in the suite's process it would
 * slow the good client's event loop, not only the API. It still shares the
 * machine's two cores with the API, Postgres and the good client.
 */
export const badKeyFlood: Scenario = {
  name: 'bad-key flood beside good traffic',
  async run(stack, ctx) {
    const windowMs = ctx.pick(4_000, 8_000);
    const rounds = ctx.pick(1, 3);
    const senders = 16;
    const knownKey = stack.tenants[0]!.headers['x-api-key']!;
    // Warm-up (JIT, pools, caches): the first seconds run at half speed on this machine, and would pass for the flood's doing.
    await goodThroughput(stack, senders, ctx.pick(3_000, 5_000));
    const without = [await goodThroughput(stack, senders, windowMs)];
    const withFlood: number[] = [];
    const statuses: number[] = [];
    let apiCpuS = 0;
    let floodCpuS = 0;
    for (let round = 0; round < rounds; round += 1) {
      const flood = await startFlood({ url: stack.api.url, connections: 64, localAddress: '127.0.0.2', knownKey });
      await sleep(500);
      const [apiBefore, floodBefore] = [cpuSeconds(stack.api.pid), cpuSeconds(flood.pid)];
      withFlood.push(await goodThroughput(stack, senders, windowMs));
      apiCpuS += cpuSeconds(stack.api.pid) - apiBefore;
      floodCpuS += cpuSeconds(flood.pid) - floodBefore;
      statuses.push(...(await flood.stop()));
      without.push(await goodThroughput(stack, senders, windowMs));
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const ratio = mean(without) > 0 ? mean(withFlood) / mean(without) : null;
    const unexpected = statuses.filter((status) => status !== 401 && status !== 429);
    return {
      recoveryMs: null,
      figure: {
        label: 'good ingest throughput with the flood / without',
        value: ratio === null ? null : Math.round(ratio * 100) / 100,
        unit: '×',
        target: { atLeast: RATIO_TARGET },
        reportedOnlyWhenShort: true,
      },
      checks: [
        noCrashes(stack),
        {
          name: 'the flood got only 401 and 429',
          ok: unexpected.length === 0,
          detail: unexpected.length ? countStatuses(unexpected) : undefined,
        },
        { name: 'the flood was limited (429)', ok: statuses.includes(429), detail: countStatuses(statuses) },
      ],
      notes: [
        `good ingest without the flood ${without.map((v) => v.toFixed(0)).join(', ')} events/s, with it ${withFlood.map((v) => v.toFixed(0)).join(', ')} (${(windowMs / 1000).toFixed(0)} s windows, alternating)`,
        `flood ${statuses.length} calls: ${countStatuses(statuses)}; CPU while measured with the flood: API ${apiCpuS.toFixed(1)} s, the flood process ${floodCpuS.toFixed(1)} s, over ${((rounds * windowMs) / 1000).toFixed(0)} s on 2 cores`,
      ],
    };
  },
};
