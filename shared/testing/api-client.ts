import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { servedConformance } from './openapi-conformance.js';
import { recordOpenApiMismatch } from './openapi-mismatches.js';

// The one way tests, the e2e suites, chaos and the benchmark call the API:
// `client.call(method, path, { body, headers, query })`, answered with the
// status, the text, the parsed JSON and the headers. The in-process app of a
// test file (`api.call`, api/testing/test-app.ts), a stack of processes
// (`stack.call`, e2e/harness/stack.ts) and a client of its own (`httpClient`)
// all take and give the same shapes.

interface ApiRequest {
  /** Sent as JSON; a string is sent as it is (a body that is not JSON). With a body, `content-type: application/json` unless `headers` say otherwise. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Added to the path as a query string. */
  query?: Record<string, string>;
  /** Over HTTP: no answer within this long fails the call (default the client's; none unless set). */
  timeoutMs?: number;
}

export interface ApiAnswer {
  /** 0 only from a client made with `noAnswer: 'status-0'`, when no answer came (`error` says why). */
  status: number;
  text: string;
  /** The parsed body, read on first use; undefined when it is empty or not JSON. */
  readonly json: any;
  headers: ApiHeaders;
  /** From sending to the last byte of the answer. */
  ms: number;
  error?: string;
}

/** What tests read of an answer's headers (fetch's `Headers` is one), names in any case. */
type ApiHeaders = Pick<Headers, 'get' | 'has'>;

export interface ApiClient {
  call(method: string, path: string, request?: ApiRequest): Promise<ApiAnswer>;
}

/** A client whose sockets stay open between calls: `close` when done. */
export interface HttpApiClient extends ApiClient {
  close(): void;
}

export interface HttpClientOptions {
  /** Sockets kept open per origin (default 64). */
  maxSockets?: number;
  /** The address to send from: a flood from 127.0.0.2 is another client to per-address limits. */
  localAddress?: string;
  /** Default of `ApiRequest.timeoutMs` (none: a call waits as long as the service takes). */
  timeoutMs?: number;
  /**
   * 'status-0': a call that gets no answer (refused, reset, timed out)
   * resolves with status 0 and `error`, for load that records what it could
   * not know; 'reject' (default): it rejects, as fetch does.
   */
  noAnswer?: 'reject' | 'status-0';
  /**
   * Check every answer against the OpenAPI documents the same service serves
   * (shared/testing/openapi-conformance.ts): an undocumented route or status,
   * or a body its schema does not allow, throws naming the operation, and is
   * recorded so that the test fails even if a retry loop swallows the throw.
   * Paths outside the documents (OUTSIDE_THE_DOCUMENTS) are not checked.
   */
  checkDocuments?: boolean;
}

const JSON_CONTENT = 'application/json';
const NO_HEADERS: Record<string, string> = {};

/** `path` with `query` added. */
const withQuery = (path: string, query: Record<string, string> | undefined) =>
  query === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}${new URLSearchParams(query)}`;

const payloadOf = (body: unknown) => (body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const UNPARSED = Symbol('unparsed');

/** An answer whose JSON is parsed on first use: a load generator that reads only the status does not pay for it. */
class Answer implements ApiAnswer {
  #json: unknown = UNPARSED;
  constructor(
    readonly status: number,
    readonly text: string,
    readonly headers: ApiHeaders,
    readonly ms: number,
    readonly error?: string,
  ) {}

  get json(): any {
    if (this.#json === UNPARSED) this.#json = parseJson(this.text);
    return this.#json;
  }
}

/** node:http's header object read as `Headers` are. */
class IncomingHeaders implements ApiHeaders {
  constructor(private readonly incoming: IncomingHttpHeaders) {}
  get(name: string): string | null {
    const value = this.incoming[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
  has(name: string): boolean {
    return this.incoming[name.toLowerCase()] !== undefined;
  }
}

const NONE = new IncomingHeaders({});

/** The app in this process, through its `request` (Hono's app.request): no socket, nothing to close. */
export function inProcessClient(app: { request(path: string, init: RequestInit): Response | Promise<Response> }): ApiClient {
  return {
    async call(method, path, { body, headers = NO_HEADERS, query } = {}) {
      const started = performance.now();
      const payload = payloadOf(body);
      const init: RequestInit =
        payload === undefined
          ? { method, headers }
          : { method, headers: { 'content-type': JSON_CONTENT, ...headers }, body: payload };
      const response = await app.request(withQuery(path, query), init);
      const text = await response.text();
      return new Answer(response.status, text, response.headers, performance.now() - started);
    },
  };
}

/**
 * A running service over HTTP/1.1 on kept-alive sockets (node:http: a load
 * generator shares the cores with the service it measures, and fetch's
 * streams cost several times this per request). `baseUrl` is an origin; a
 * function is read on every call, so a restarted API on a new port, or
 * several APIs in turn, are followed.
 */
export function httpClient(baseUrl: string | (() => string), options: HttpClientOptions = {}): HttpApiClient {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  let origin = '';
  let target = { hostname: '', port: '' };
  const targetOf = (url: string) => {
    if (url !== origin) [origin, target] = [url, new URL(url)];
    return target;
  };

  function send(url: string, method: string, path: string, request: ApiRequest, retried = false): Promise<ApiAnswer> {
    const { hostname, port } = targetOf(url);
    const payload = payloadOf(request.body);
    const headers =
      payload === undefined
        ? (request.headers ?? NO_HEADERS)
        : { 'content-type': JSON_CONTENT, ...request.headers, 'content-length': Buffer.byteLength(payload) };
    const timeoutMs = request.timeoutMs ?? options.timeoutMs;
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const noAnswer = (error: Error) => {
        // A kept-alive socket the server closed as idle just as it was reused: the request never reached it
        // (Node's documented race), so it is sent once more on a fresh socket.
        if (!retried && outgoing.reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET')
          return resolve(send(url, method, path, request, true));
        if (options.noAnswer === 'status-0') resolve(new Answer(0, '', NONE, performance.now() - started, error.message));
        else reject(error);
      };
      const outgoing = httpRequest(
        { agent, hostname, port, method, path: withQuery(path, request.query), headers, localAddress: options.localAddress },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', noAnswer);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve(
              new Answer(response.statusCode ?? 0, text, new IncomingHeaders(response.headers), performance.now() - started),
            );
          });
        },
      );
      if (timeoutMs !== undefined)
        outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      outgoing.on('error', noAnswer);
      outgoing.end(payload);
    });
  }

  const urlOf = typeof baseUrl === 'string' ? () => baseUrl : baseUrl;
  const call: ApiClient['call'] = (method, path, request = {}) => send(urlOf(), method, path, request);
  const checkedCall: ApiClient['call'] = async (method, path, request = {}) => {
    const url = urlOf();
    const got = await send(url, method, path, request);
    if (got.status === 0) return got;
    const mismatch = (await servedConformance(url))({ method, path, status: got.status, body: got.json });
    if (mismatch) {
      recordOpenApiMismatch(mismatch);
      throw new Error(mismatch);
    }
    return got;
  };
  return { call: options.checkDocuments ? checkedCall : call, close: () => agent.destroy() };
}
