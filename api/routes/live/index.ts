import type { OpenAPIHono } from '@hono/zod-openapi';
import { cors } from 'hono/cors';
import type { AppEnv } from '../../app-env.js';
import { registerLiveStream } from './stream.js';

/**
 * Browser pages on the platform's own origin open the stream (product rules
 * §8), so /v1/live answers CORS for LIVE_ALLOWED_ORIGINS: `*` by default,
 * since the token in the URL is the only credential and no cookie is sent.
 * The preflight (OPTIONS) allows Last-Event-ID, which a reconnecting
 * EventSource sends and which is not a CORS-safelisted header.
 */
export function liveRoutes(app: OpenAPIHono<AppEnv>, allowedOrigins: '*' | string[]) {
  app.use(
    '/v1/live',
    cors({
      origin: allowedOrigins,
      allowMethods: ['GET', 'OPTIONS'],
      allowHeaders: ['Last-Event-ID', 'Cache-Control'],
      maxAge: 600,
    }),
  );
  registerLiveStream(app);
}
