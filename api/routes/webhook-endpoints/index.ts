import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerCreateWebhookEndpoint } from './create.js';
import { registerDeleteWebhookEndpoint } from './delete.js';
import { registerListWebhookEndpoints } from './list.js';
import { registerListWebhookMessages } from './messages.js';
import { registerReplayWebhookMessage } from './replay.js';

export function webhookEndpointsRoutes(app: OpenAPIHono<AppEnv>) {
  registerCreateWebhookEndpoint(app);
  registerListWebhookEndpoints(app);
  registerDeleteWebhookEndpoint(app);
  registerListWebhookMessages(app);
  registerReplayWebhookMessage(app);
}
