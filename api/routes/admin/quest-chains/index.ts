import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../app-env.js';
import { requireAdmin } from '../../../auth/admin-auth.js';
import { registerCreateQuestChain } from './create.js';
import { registerGetQuestChain } from './get.js';
import { registerListQuestChains } from './list.js';
import { registerRestockPrize } from './restock.js';
import { registerRotateDrawSeed } from './rotate-seed.js';
import { registerQuestChainStats } from './stats.js';
import { registerUpdateQuestChain } from './update.js';

export function adminQuestChainsRoutes(app: OpenAPIHono<AppEnv>, adminToken: string | undefined) {
  const admin = requireAdmin(adminToken);
  registerCreateQuestChain(app, admin);
  registerListQuestChains(app, admin);
  registerGetQuestChain(app, admin);
  registerUpdateQuestChain(app, admin);
  registerRestockPrize(app, admin);
  registerRotateDrawSeed(app, admin);
  registerQuestChainStats(app, admin);
}
