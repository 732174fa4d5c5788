import { join } from 'node:path';
import { freePort, startProcess } from '../../e2e/harness/service.js';
import { projectRoot } from '../../shared/db/project-root.js';
import type { Scenario } from '../harness/context.js';
import { rawInsertLoop } from '../harness/raw-insert.js';
import { createProvider } from '../harness/seed.js';

export const BARE_GET = 'bare Hono GET';
export const BARE_POST = 'bare Hono POST echo';
export const RAW_INSERT = 'raw postgres.js single-row insert';

/** A body shaped like a single event, so the echo parses and writes what ingest would. */
const sampleEvent = (n: number) =>
  JSON.stringify({
    user_id: `u-${n % 200}`,
    event_type: `step-${n % 3}`,
    timestamp: new Date(Date.UTC(2026, 1, 1) + n * 1000).toISOString(),
    amount: 10,
  });

/**
 * The baselines every ratio is taken against, measured in the same run at
 * the same concurrency: the framework's floor (bare Hono, its own process)
 * and the database's ceiling for one event per commit (postgres.js loop).
 */
export const baselines: Scenario = {
  name: 'baselines',
  async run(ctx) {
    const port = await freePort();
    const bare = await startProcess({
      name: 'bare-hono',
      args: ['--import', 'tsx', join(projectRoot(), 'bench', 'baselines', 'bare-hono.ts')],
      env: { PORT: String(port) },
      outputDir: ctx.outputDir,
      readyUrl: `http://127.0.0.1:${port}/`,
    });
    try {
      const get = await ctx.load({ url: `http://127.0.0.1:${port}/` }, bare.pid);
      ctx.results.add({
        figure: BARE_GET,
        value: get.requestsPerSecond,
        unit: 'req/s',
        p50Ms: get.p50Ms,
        p99Ms: get.p99Ms,
        cpuPer1k: get.cpuPer1k,
      });
      let n = 0;
      const post = await ctx.load(
        {
          url: `http://127.0.0.1:${port}/echo`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          requests: [{ setupRequest: (request) => ({ ...request, body: sampleEvent(n++) }) }],
        },
        bare.pid,
      );
      ctx.results.add({
        figure: BARE_POST,
        value: post.requestsPerSecond,
        unit: 'req/s',
        p50Ms: post.p50Ms,
        p99Ms: post.p99Ms,
        cpuPer1k: post.cpuPer1k,
      });
    } finally {
      await bare.stop();
    }

    const raw = await createProvider(ctx, 'platform', 'raw insert baseline');
    const inserts = await rawInsertLoop(ctx.meter, {
      url: ctx.database.url,
      providerId: raw.id,
      connections: ctx.options.connections,
      durationS: ctx.options.durationS,
      warmupS: ctx.options.quick ? 0.5 : Math.max(1, ctx.options.durationS / 5),
      // The API's default DB_POOL_SIZE.
      poolSize: 10,
    });
    ctx.results.add({
      figure: RAW_INSERT,
      value: inserts.requestsPerSecond,
      unit: 'rows/s',
      p50Ms: inserts.p50Ms,
      p99Ms: inserts.p99Ms,
      cpuPer1k: inserts.cpuPer1k,
    });
  },
};
