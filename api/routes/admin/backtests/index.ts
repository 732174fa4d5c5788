import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../app-env.js';
import { requireAdmin } from '../../../auth/admin-auth.js';
import { registerGetBacktest } from './get.js';
import { registerStartBacktest } from './start.js';

export function adminBacktestsRoutes(app: OpenAPIHono<AppEnv>, adminToken: string | undefined) {
  const admin = requireAdmin(adminToken);
  registerStartBacktest(app, admin);
  registerGetBacktest(app, admin);
}
