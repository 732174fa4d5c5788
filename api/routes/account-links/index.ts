import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../app-env.js';
import { registerCompleteAccountLink } from './complete.js';
import { registerListAccountLinks } from './list.js';
import { registerStartAccountLink } from './start.js';

export function accountLinksRoutes(app: OpenAPIHono<AppEnv>) {
  registerStartAccountLink(app);
  registerCompleteAccountLink(app);
  registerListAccountLinks(app);
}
