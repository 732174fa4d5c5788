import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps, AppEnv } from './app-env.js';
import { createErrorHandler, notFoundHandler, validationHook } from './http/errors.js';
import { requestContext } from './http/request-context.js';
import { registerAdminCredentialRoutes } from './routes/admin/credentials/index.js';
import { registerAdminProviderRoutes } from './routes/admin/providers/index.js';
import { registerEventRoutes } from './routes/events/index.js';
import { registerHealthRoutes } from './routes/health/index.js';
import { registerUserRoutes } from './routes/users/register.js';

/** Builds the HTTP app from injected dependencies; opens nothing and listens nowhere (main.ts does). */
export function createApp(deps: AppDeps) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use('*', requestContext(deps));
  app.onError(createErrorHandler(deps.logger));
  app.notFound(notFoundHandler);

  registerHealthRoutes(app);
  registerUserRoutes(app);
  registerEventRoutes(app);
  registerAdminProviderRoutes(app, deps.config.ADMIN_TOKEN);
  registerAdminCredentialRoutes(app, deps.config.ADMIN_TOKEN);

  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'ApiSecret', { type: 'apiKey', in: 'header', name: 'X-API-Secret' });
  app.openAPIRegistry.registerComponent('securitySchemes', 'AdminToken', { type: 'http', scheme: 'bearer' });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Quest-Chain Rewards API',
      version: '1.0.0',
      description: 'Register platform users, send events, and read active quest chains with progress.',
    },
  });
  return app;
}

export type App = ReturnType<typeof createApp>;
