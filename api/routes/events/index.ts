import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerSendEventBatch } from './batch.js';
import { registerSendEvent } from './send.js';

export function eventsRoutes(app: OpenAPIHono<AppEnv>) {
  registerSendEvent(app);
  registerSendEventBatch(app);
}
