import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../../app-env.js';
import { requireAdmin } from '../../../auth/admin-auth.js';
import { registerCreateCredential } from './create.js';
import { registerListCredentials } from './list.js';
import { registerUpdateCredential } from './update.js';

export function adminCredentialsRoutes(app: OpenAPIHono<AppEnv>, adminToken: string | undefined) {
  const admin = requireAdmin(adminToken);
  registerCreateCredential(app, admin);
  registerListCredentials(app, admin);
  registerUpdateCredential(app, admin);
}
