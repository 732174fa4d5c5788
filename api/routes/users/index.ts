import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerRegisterUser } from './register.js';

export function usersRoutes(app: OpenAPIHono<AppEnv>) {
  registerRegisterUser(app);
}
