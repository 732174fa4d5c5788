import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { mountBehindWildcard } from '../../http/wildcard-mount.js';
import { registerReadActiveChains } from './active/read-active.js';
import { explainRoute, registerExplainProgress } from './explain/explain.js';
import { registerQuestChainStats, statsRoute } from './stats/stats.js';

export function questChainsRoutes(app: OpenAPIHono<AppEnv>) {
  registerReadActiveChains(app);
  mountExplain(app);
}

// Behind GET /v1/quest-chains/*, registered after the active read (api/http/wildcard-mount.ts).
function mountExplain(app: OpenAPIHono<AppEnv>) {
  mountBehindWildcard(app, {
    method: 'get',
    wildcard: '/v1/quest-chains/*',
    routes: [explainRoute, statsRoute],
    register: (sub) => {
      registerExplainProgress(sub);
      registerQuestChainStats(sub);
    },
  });
}
