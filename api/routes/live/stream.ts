import { createRoute, z } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { findUserId } from '../../../core/live/live-streams.js';
import { type ServiceUserId, senderUserId } from '../../../shared/domain/ids.js';
import { errorResponses } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { runLiveSession } from '../../live/session.js';
import type { StreamCapReached, StreamCaps } from '../../live/stream-registry.js';
import { defineRoute } from '../route-entry.js';
import { liveQuerySchema, liveStreamDescription, liveStreamExample, parseSince, SINCE_RULE } from './schema.js';

const route = createRoute({
  method: 'get',
  path: '/v1/live',
  operationId: 'streamLiveUpdates',
  tags: ['Live updates'],
  summary: "Stream a user's progress changes (Server-Sent Events)",
  description: liveStreamDescription,
  request: { query: liveQuerySchema },
  responses: {
    200: {
      description: 'An event stream.',
      content: { 'text/event-stream': { schema: z.string().openapi({ example: liveStreamExample }) } },
    },
    ...errorResponses(400, 401, 403, 429, 500, 503),
  },
});

export const streamLiveUpdatesRoute = defineRoute({
  access: 'live-token',
  route,
  handler: async (c) => {
    const { deps } = c.var;
    const query = c.req.valid('query');
    const scope = query.token ? deps.liveTokens.verify(query.token) : null;
    if (!scope) throw new AppError('invalid_live_token', 'token: missing, invalid or expired live token', 'token');
    let since = parseSince(query.since);
    if (since === 'invalid') throw new AppError('invalid_field', SINCE_RULE, 'since');
    // A reconnecting EventSource sends the id of the last event it saw: a newer baseline than the URL's.
    const lastEventId = parseSince(c.req.header('last-event-id'));
    if (typeof lastEventId === 'bigint') since = lastEventId;
    if (deps.liveHub.closed || deps.isShuttingDown()) throw new AppError('unavailable', 'Shutting down');
    // A token counts only while its provider does (a deactivated one's streams are ended by the hub).
    if (deps.liveHub.providers && !(await deps.liveHub.providers.isServing(scope.platformId))) {
      throw new AppError('provider_inactive', 'token: the platform it was issued to is inactive', 'token');
    }
    const ticket = deps.liveHub.admit(scope);
    if (typeof ticket === 'string') throw tooManyStreams(ticket, deps.liveHub.streams.caps);

    let userId: ServiceUserId | null;
    try {
      // Resolved before the stream opens so a database failure is an ordinary 500, not a broken stream.
      userId = await findUserId(deps, { platformId: scope.platformId, platformUserId: senderUserId(scope.platformUserId) });
    } catch (error) {
      ticket.release();
      throw error;
    }
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, (stream) =>
      runLiveSession(stream, { hub: deps.liveHub, db: deps.db, logger: deps.logger, scope, ticket, userId, since }),
    );
  },
});

const capWording: Record<StreamCapReached, (caps: StreamCaps) => string> = {
  user: (caps) => `this user already has ${caps.perUser} open streams (close one first)`,
  platform: (caps) => `this platform already has ${caps.perPlatform} open streams on this server`,
  process: (caps) => `this server already holds ${caps.perProcess} open streams`,
};

// No Retry-After: a place frees up when another stream closes, which no clock predicts; EventSource retries by itself.
const tooManyStreams = (reached: StreamCapReached, caps: StreamCaps) =>
  new AppError('too_many_streams', `Too many live streams: ${capWording[reached](caps)}`);
