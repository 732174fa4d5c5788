import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerLiveness } from './liveness.js';
import { registerReadiness } from './readiness.js';

export function healthRoutes(app: OpenAPIHono<AppEnv>) {
  registerLiveness(app);
  registerReadiness(app);
}
