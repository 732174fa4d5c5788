import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerSendEventBatch } from './batch.js';
import { registerReverseEventBatch } from './reverse-batch.js';
import { registerReverseEvent } from './reverse.js';
import { registerSendEvent } from './send.js';

export function eventsRoutes(app: OpenAPIHono<AppEnv>) {
  registerSendEvent(app);
  registerSendEventBatch(app);
  registerReverseEvent(app);
  registerReverseEventBatch(app);
}
