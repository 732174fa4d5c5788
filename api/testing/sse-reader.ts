/** One parsed Server-Sent Events frame; `comment` holds the text of a `:` line. */
export interface SseFrame {
  event?: string;
  data?: string;
  id?: string;
  comment?: string;
}

/**
 * Reads an event stream (a fetch or app.request body) frame by frame, for
 * tests. `next` waits for the next frame matching a predicate and fails
 * after a timeout, so a missing event is a failed test, never a hung one.
 */
export function readSse(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const frames: SseFrame[] = [];
  let buffered = '';
  let ended = false;
  let waiter: (() => void) | undefined;

  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        let boundary: number;
        while ((boundary = buffered.indexOf('\n\n')) >= 0) {
          frames.push(parseFrame(buffered.slice(0, boundary)));
          buffered = buffered.slice(boundary + 2);
        }
        waiter?.();
      }
    } catch {
      // cancelled or broken: treated as the end
    } finally {
      ended = true;
      waiter?.();
    }
  })();

  let cursor = 0;
  async function next(predicate: (frame: SseFrame) => boolean = () => true, timeoutMs = 5_000): Promise<SseFrame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (cursor < frames.length) {
        const frame = frames[cursor++]!;
        if (predicate(frame)) return frame;
      }
      if (ended) throw new Error('event stream ended before the expected frame');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; saw ${JSON.stringify(frames)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  return {
    frames,
    next,
    /** Next frame with this event name. */
    nextEvent: (event: string, timeoutMs?: number) => next((frame) => frame.event === event, timeoutMs),
    /** Resolves when the server ended the stream. */
    ended: () => pump,
    get isEnded() {
      return ended;
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}

function parseFrame(text: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    else {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event' || field === 'id') frame[field] = value;
      else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    }
  }
  return frame;
}
