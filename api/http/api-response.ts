import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from 'node:http';

/**
 * Node's response for the API's server, carrying the request id into the
 * head of every answer however it is built (through Hono, or written
 * directly: api/http/direct-answer.ts).
 *
 * Why a subclass: the header given to Hono (`c.header`) makes it keep the
 * answer's headers in an undici Headers that the adapter converts back, and
 * `setHeader` before the handler sends `writeHead` down its slower merging
 * path; either is a large share of a cached read's CPU, where adding one key
 * to the object `writeHead` is given costs next to nothing
 * (docs/performance.md, "What each change bought").
 */
export class ApiResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Set by the request context; the head written for this request carries it. */
  requestId: string | undefined;

  override writeHead(
    statusCode: number,
    reason?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    const id = this.requestId;
    if (typeof reason !== 'string') {
      headers = reason;
      reason = undefined;
    }
    if (id !== undefined) {
      if (headers === undefined) headers = { 'X-Request-Id': id };
      // The adapter builds these objects per answer; adding to one changes no other answer.
      else if (!Array.isArray(headers)) headers['X-Request-Id'] = id;
      else this.setHeader('X-Request-Id', id);
    }
    return reason === undefined ? super.writeHead(statusCode, headers) : super.writeHead(statusCode, reason, headers);
  }
}

/** The server options that give the API's server these responses (@hono/node-server's `serverOptions`). */
export const apiServerOptions = { ServerResponse: ApiResponse as unknown as typeof ServerResponse };
