import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../app-env.js';
import { requireAdmin } from '../../../auth/admin-auth.js';
import { registerCreateProvider } from './create.js';
import { registerListProviders } from './list.js';
import { registerUpdateProvider } from './update.js';

export function adminProvidersRoutes(app: OpenAPIHono<AppEnv>, adminToken: string | undefined) {
  const admin = requireAdmin(adminToken);
  registerCreateProvider(app, admin);
  registerListProviders(app, admin);
  registerUpdateProvider(app, admin);
}
