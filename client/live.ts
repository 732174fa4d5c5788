import { type SseMessage, SseParser } from './sse.js';

/** `liveUpdates` of GET /v1/quest-chains/active/{platformUserId}: safe to hand to a browser. */
export interface LiveUpdatesToken {
  token: string;
  /** Server time of the user's latest progress change; sent as `since` so a change made after the read is reported at once. */
  baselineTimestamp: string | null;
}

/** Data of a `progress` event: refetch the active chains when it arrives. */
export interface LiveProgress {
  quest_chain_ids: string[];
  changed_at: string;
}

/** Data of the `ready` event sent on every (re)connect. */
export interface LiveReady {
  user_exists: boolean;
  /** False when the token was issued to a test credential (docs/test-mode.md). */
  livemode: boolean;
}

/** The stream stopped for good: the token is refused (expired after an hour, or invalid). Fetch a new token and open again. */
export class LiveStreamError extends Error {
  override readonly name = 'LiveStreamError';
  constructor(
    message: string,
    /** HTTP status when known (the fetch transport sees it, a browser's EventSource does not). */
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/** The part of the standard EventSource the helper uses; a browser's, Node's experimental one, or a polyfill's. */
export interface EventSourceLike {
  readonly readyState: number;
  onerror: ((event: unknown) => void) | null;
  addEventListener(type: string, listener: (event: { data?: unknown; lastEventId?: string }) => void): void;
  close(): void;
}
export type EventSourceConstructor = new (url: string) => EventSourceLike;

export interface LiveUpdatesOptions {
  onProgress: (progress: LiveProgress) => void;
  onReady?: (ready: LiveReady) => void;
  /** Called once when the helper gives up; connection drops before that are retried silently. */
  onError?: (error: LiveStreamError) => void;
  /** Aborting closes the stream. */
  signal?: AbortSignal;
  /** Default: the global EventSource when there is one (browsers), otherwise a fetch-based reader (Node.js). `false` forces fetch. */
  EventSource?: EventSourceConstructor | false;
  /** For the fetch transport; default global fetch. */
  fetch?: typeof fetch;
  /** Wait before reconnecting (a server `retry:` line overrides it). Default 3000 ms, as browsers use. */
  reconnectDelayMs?: number;
  /** Fetch transport: reconnect when nothing, not even a heartbeat (every 25 s at most), arrived for this long. Default 60000 ms. */
  idleTimeoutMs?: number;
}

export interface LiveUpdates {
  close(): void;
  readonly transport: 'eventsource' | 'fetch';
}

const EVENTSOURCE_CLOSED = 2;
// A browser cannot see why an EventSource was refused (expired token, or 503 during a
// deploy), so refusals are retried a few times before the helper reports them.
const MAX_REFUSALS = 3;
// Statuses that no reconnect can fix: the token or the query is wrong.
const FATAL_STATUSES = new Set([400, 401, 403, 404]);

/** The stream's address: `since` carries the baseline so nothing between the read and the connect is missed. */
export function liveUpdatesUrl(baseUrl: string, live: LiveUpdatesToken, since = live.baselineTimestamp): string {
  const query = new URLSearchParams({ token: live.token });
  if (since) query.set('since', since);
  return `${baseUrl.replace(/\/+$/, '')}/v1/live?${query}`;
}

/**
 * Opens GET /v1/live for one user and keeps it open: reconnects resume from
 * the last `progress` seen (its id, sent back as Last-Event-ID, or as `since`
 * when a new connection is opened), else from `baselineTimestamp`. A change
 * may be reported twice across a reconnect, never lost; refetch on each.
 */
export function openLiveUpdates(baseUrl: string, live: LiveUpdatesToken, options: LiveUpdatesOptions): LiveUpdates {
  const globalSource = (globalThis as { EventSource?: EventSourceConstructor }).EventSource;
  const Source = options.EventSource === undefined ? globalSource : options.EventSource || undefined;
  const stop = new AbortController();
  const close = () => stop.abort();
  options.signal?.addEventListener('abort', close, { once: true });
  if (options.signal?.aborted) close();
  const context: StreamContext = {
    baseUrl,
    live,
    options,
    stop: stop.signal,
    reconnectDelayMs: options.reconnectDelayMs ?? 3000,
  };
  if (Source) {
    viaEventSource(Source, context);
    return { close, transport: 'eventsource' };
  }
  void viaFetch(context);
  return { close, transport: 'fetch' };
}

interface StreamContext {
  baseUrl: string;
  live: LiveUpdatesToken;
  options: LiveUpdatesOptions;
  stop: AbortSignal;
  reconnectDelayMs: number;
}

/** Hands a message to the caller; a frame that is not the JSON the service sends is skipped. */
function deliver(options: LiveUpdatesOptions, event: string, data: unknown): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(data));
  } catch {
    return false;
  }
  if (event === 'ready') options.onReady?.(parsed as LiveReady);
  if (event === 'progress') options.onProgress(parsed as LiveProgress);
  return true;
}

function viaEventSource(Source: EventSourceConstructor, context: StreamContext) {
  const { options, stop } = context;
  let lastId: string | undefined;
  let refusals = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let source: EventSourceLike | undefined;
  stop.addEventListener('abort', () => {
    clearTimeout(timer);
    source?.close();
  });
  const connect = () => {
    if (stop.aborted) return;
    const current = new Source(liveUpdatesUrl(context.baseUrl, context.live, lastId ?? context.live.baselineTimestamp));
    source = current;
    current.addEventListener('ready', (event) => {
      refusals = 0;
      deliver(options, 'ready', event.data);
    });
    current.addEventListener('progress', (event) => {
      if (deliver(options, 'progress', event.data) && event.lastEventId) lastId = event.lastEventId;
    });
    // While CONNECTING the EventSource reconnects by itself (sending Last-Event-ID); CLOSED means refused.
    current.onerror = () => {
      if (current.readyState !== EVENTSOURCE_CLOSED || stop.aborted) return;
      current.close();
      refusals += 1;
      if (refusals >= MAX_REFUSALS) {
        options.onError?.(
          new LiveStreamError(`live stream refused ${refusals} times: the token is probably expired or invalid`, undefined),
        );
        return;
      }
      timer = setTimeout(connect, context.reconnectDelayMs);
    };
  };
  connect();
}

async function viaFetch(context: StreamContext): Promise<void> {
  const { options, stop } = context;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
  let lastId: string | undefined;
  let delayMs = context.reconnectDelayMs;
  while (!stop.aborted) {
    const attempt = new AbortController();
    const abortAttempt = () => attempt.abort();
    stop.addEventListener('abort', abortAttempt);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const watch = () => {
      clearTimeout(idle);
      idle = setTimeout(abortAttempt, idleTimeoutMs);
    };
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastId) headers['last-event-id'] = lastId;
      watch();
      const response = await fetchImpl(liveUpdatesUrl(context.baseUrl, context.live), { headers, signal: attempt.signal });
      if (FATAL_STATUSES.has(response.status)) {
        await response.body?.cancel();
        if (!stop.aborted)
          options.onError?.(
            new LiveStreamError(`live stream refused with ${response.status}: the token is expired or invalid`, response.status),
          );
        return;
      }
      if (response.ok && response.body) {
        const parser = new SseParser((message: SseMessage) => {
          if (deliver(options, message.event, message.data) && message.event === 'progress' && message.id) lastId = message.id;
        });
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          watch();
          parser.push(value);
        }
        delayMs = parser.retryMs ?? delayMs;
      } else {
        await response.body?.cancel();
      }
    } catch {
      // Network failure, idle timeout or close(): the loop condition tells them apart.
    } finally {
      clearTimeout(idle);
      stop.removeEventListener('abort', abortAttempt);
    }
    if (!stop.aborted) await pause(delayMs, stop);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
