import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { mountBehindWildcard } from '../../http/wildcard-mount.js';
import { registerSendEventBatch } from './batch.js';
import { registerReverseEvent, reverseRoute } from './reverse.js';
import { registerReverseEventBatch } from './reverse-batch.js';
import { registerSendEvent } from './send.js';

export function eventsRoutes(app: OpenAPIHono<AppEnv>) {
  registerSendEvent(app);
  registerSendEventBatch(app);
  registerReverseEventBatch(app);
  // After the static POSTs it sits beside (api/http/wildcard-mount.ts).
  mountBehindWildcard(app, { method: 'post', wildcard: '/v1/events/*', routes: [reverseRoute], register: registerReverseEvent });
}
