import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { mountBehindWildcard } from '../../http/wildcard-mount.js';
import { registerClaimReward } from './claim.js';
import { drawRoute, registerGetDraw } from './draw.js';
import { listRewardsRoute, registerListRewards } from './list.js';

export function rewardsRoutes(app: OpenAPIHono<AppEnv>) {
  registerClaimReward(app);
  // GET /v1/rewards/{platformUserId} beside GET /v1/rewards/draws/{claim_id}:
  // behind GET /v1/rewards/*, after the static claim route (api/http/wildcard-mount.ts).
  mountBehindWildcard(app, {
    method: 'get',
    wildcard: '/v1/rewards/*',
    routes: [drawRoute, listRewardsRoute],
    register: (sub) => {
      registerGetDraw(sub);
      registerListRewards(sub);
    },
  });
}
