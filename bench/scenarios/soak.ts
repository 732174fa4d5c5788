import { rssMb } from '../../e2e/harness/proc-stats.js';
import type { Scenario } from '../harness/context.js';

const SOAK_RSS = 'API RSS after the soak / after its first minute';

/**
 * Single-event ingest at full load for `--soak-minutes` minutes: the API's
 * resident memory after the whole run must stay within 1.5x of what it was
 * after the first minute (growth past warm-up would be a leak).
 */
export const soak: Scenario = {
  name: 'soak',
  async run(ctx) {
    const minutes = ctx.options.soakMinutes;
    if (minutes <= 0) return;
    const { platform, users } = ctx.world;
    let sent = 0;
    const body = () =>
      JSON.stringify({
        user_id: users[sent % users.length],
        event_type: `step-${sent % 3}`,
        timestamp: new Date(Date.UTC(2029, 0, 1) + sent++ * 1000).toISOString(),
      });
    const load = (seconds: number) =>
      ctx.load({
        url: `${ctx.api.url}/v1/events`,
        method: 'POST',
        headers: platform.headers,
        duration: seconds,
        warmupS: 0,
        requests: [{ setupRequest: (r) => ({ ...r, body: body() }) }],
      });
    ctx.log(`soak: ${minutes} min of single-event ingest`);
    const first = await load(60);
    const afterFirstMinute = rssMb(ctx.api.pid);
    const rest = await load(Math.max(1, (minutes - 1) * 60));
    const atEnd = rssMb(ctx.api.pid);
    ctx.results.add({ figure: "API RSS after the soak's first minute", value: afterFirstMinute, unit: 'MiB' });
    ctx.results.addRatio(
      {
        figure: SOAK_RSS,
        value: atEnd,
        unit: 'MiB',
        note: `${minutes} min, ${Math.round(first.requestsPerSecond)} then ${Math.round(rest.requestsPerSecond)} req/s, ${first.failures + rest.failures} failed`,
      },
      "API RSS after the soak's first minute",
      { atMost: 1.5 },
    );
  },
};
