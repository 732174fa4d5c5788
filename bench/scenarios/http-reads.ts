import type { Scenario } from '../harness/context.js';
import { BARE_GET } from './baselines.js';
import { failures } from './http-ingest.js';

const HEALTHZ = '/healthz (no I/O)';
const ACTIVE_READ = 'active read (5 chains x 5 tasks, with progress)';
const REVALIDATION = 'active read revalidation (304)';

/** GET figures against the bare framework: /healthz, the active-chains read, and its 304 revalidation. */
export const httpReads: Scenario = {
  name: 'http-reads',
  async run(ctx) {
    const { platform, users } = ctx.world;
    const healthz = await ctx.load({ url: `${ctx.api.url}/healthz` });
    ctx.results.addRatio(
      {
        figure: HEALTHZ,
        value: healthz.requestsPerSecond,
        unit: 'req/s',
        p50Ms: healthz.p50Ms,
        p99Ms: healthz.p99Ms,
        cpuPer1k: healthz.cpuPer1k,
        note: failures(healthz.failures),
      },
      BARE_GET,
      // The target (docs/performance.md): the request path near the framework.
      { atLeast: 0.8 },
    );

    const path = (user: string) => `/v1/quest-chains/active/${user}`;
    const credentials = { 'x-api-key': platform.headers['x-api-key']!, 'x-api-secret': platform.headers['x-api-secret']! };
    let reader = 0;
    const read = await ctx.load({
      url: ctx.api.url,
      headers: credentials,
      requests: [{ setupRequest: (request) => ({ ...request, path: path(users[reader++ % users.length]!) }) }],
    });
    ctx.results.addRatio(
      {
        figure: ACTIVE_READ,
        value: read.requestsPerSecond,
        unit: 'req/s',
        p50Ms: read.p50Ms,
        p99Ms: read.p99Ms,
        cpuPer1k: read.cpuPer1k,
        note: failures(read.failures),
      },
      BARE_GET,
      { atLeast: 0.4 },
    );

    // Each client holds its user's answer and revalidates it; a new tag (the answer changed) is adopted.
    const etags = new Map<string, string>();
    for (const user of users) {
      const answer = await fetch(`${ctx.api.url}${path(user)}`, { headers: credentials });
      await answer.arrayBuffer();
      etags.set(user, answer.headers.get('etag') ?? '');
    }
    let revalidator = 0;
    const revalidation = await ctx.load({
      url: ctx.api.url,
      headers: credentials,
      okStatuses: [304],
      requests: [
        {
          setupRequest: (request, context) => {
            const user = users[revalidator++ % users.length]!;
            (context as { user?: string }).user = user;
            return { ...request, path: path(user), headers: { ...credentials, 'if-none-match': etags.get(user)! } };
          },
          onResponse: (status, _body, context, headers) => {
            const etag = headers?.etag;
            const user = (context as { user?: string }).user;
            if (status === 200 && typeof etag === 'string' && user) etags.set(user, etag);
          },
        },
      ],
    });
    ctx.results.addRatio(
      {
        figure: REVALIDATION,
        value: revalidation.requestsPerSecond,
        unit: 'req/s',
        p50Ms: revalidation.p50Ms,
        p99Ms: revalidation.p99Ms,
        cpuPer1k: revalidation.cpuPer1k,
        note:
          failures(revalidation.failures) ??
          `${Math.round((100 * (revalidation.statuses['304'] ?? 0)) / revalidation.requests)}% answered 304`,
      },
      BARE_GET,
      { atLeast: 0.6 },
    );
  },
};
