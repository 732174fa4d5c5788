import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerResetTestData } from './reset.js';

export function testModeRoutes(app: OpenAPIHono<AppEnv>) {
  registerResetTestData(app);
}
