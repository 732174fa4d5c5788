import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerExplainProgress } from './explain.js';
import { registerReadActiveChains } from './read-active.js';

export function questChainsRoutes(app: OpenAPIHono<AppEnv>) {
  registerReadActiveChains(app);
  registerExplainProgress(app);
}
