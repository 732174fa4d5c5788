import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerLiveStream } from './stream.js';

export function registerLiveRoutes(app: OpenAPIHono<AppEnv>) {
  registerLiveStream(app);
}
