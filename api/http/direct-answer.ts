import type { ServerResponse } from 'node:http';
import { X_ALREADY_SENT } from '@hono/node-server/utils/response/constants';
import type { Context } from 'hono';
import type { AppEnv } from '../app-env.js';
import { ApiResponse } from './api-response.js';

/**
 * The hot answers (a cached active read, its 304) written to Node's response
 * directly, as @hono/node-server would write a light response, and the
 * request id every answer carries.
 *
 * Why: headers given to Hono (`c.header`, or more than one in `c.body`) are
 * kept in an undici `Headers`, which the adapter then converts back to an
 * object: building, validating and converting it is the largest share of a
 * cached read's CPU that the bare framework does not pay. A 304 built through
 * Hono is worse: no light path at all (a full undici Response), and
 * the light path's string body would add `Content-Length: 0`, which RFC 9110
 * §8.6 forbids on a 304.
 *
 * In process (tests' `app.request`) there is no Node response: the same
 * answer goes through Hono. Once something else answered (the request time
 * limit), the late answer is dropped the same way.
 */
const outgoingOf = (c: Context): ServerResponse | undefined => (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;

/** What a handler returns after answering itself: the adapter writes nothing for it, and the access line logs its status. One per status. */
const sentMarkers = new Map<number, Response>();
const sentMarker = (status: number) => {
  let marker = sentMarkers.get(status);
  if (!marker) sentMarkers.set(status, (marker = new Response(null, { status, headers: { [X_ALREADY_SENT]: 'true' } })));
  return marker;
};

/**
 * Gives the answer-to-be its request id: on the API's own Node response
 * (api-response.ts) the head carries it whatever builds it; on any other Node
 * response it is set there; in process it goes through Hono, and only a
 * Response the handler built itself can then lack it.
 */
export function tagAnswer(c: Context, requestId: string): 'on the wire' | 'in process' {
  const outgoing = outgoingOf(c);
  if (outgoing === undefined) {
    c.header('X-Request-Id', requestId);
    return 'in process';
  }
  if (outgoing instanceof ApiResponse) outgoing.requestId = requestId;
  else outgoing.setHeader('X-Request-Id', requestId);
  return 'on the wire';
}

/** Answers `status` with `headers` and `body` (none for a 304). */
export function answerDirectly(
  c: Context<AppEnv>,
  status: 200 | 304,
  headers: Record<string, string>,
  body?: Uint8Array,
): Response {
  const outgoing = outgoingOf(c);
  if (outgoing === undefined || outgoing.headersSent) {
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    return body === undefined ? c.body(null, status) : c.body(body as Uint8Array<ArrayBuffer>, status as 200);
  }
  if (body === undefined) {
    outgoing.writeHead(status, headers);
    outgoing.end();
  } else {
    outgoing.writeHead(status, { ...headers, 'Content-Length': String(body.byteLength) });
    outgoing.end(body);
  }
  return sentMarker(status);
}
