import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerClaimReward } from './claim.js';
import { registerListRewards } from './list.js';

export function rewardsRoutes(app: OpenAPIHono<AppEnv>) {
  registerClaimReward(app);
  registerListRewards(app);
}
