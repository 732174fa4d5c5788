/** One dispatched Server-Sent Events message. */
export interface SseMessage {
  event: string;
  data: string;
  /** The stream's last event id at dispatch (it persists across messages, as in browsers). */
  id: string | undefined;
}

/**
 * Incremental `text/event-stream` parser following the WHATWG rules that
 * browsers apply (HTML "Server-sent events", interpreting an event stream):
 * CR, LF and CRLF line ends, a chunk may end anywhere (even between CR and
 * LF), `data` lines join with LF, comment lines (the heartbeats) are skipped,
 * and a message without data is not dispatched. Used where no EventSource
 * exists (Node.js without --experimental-eventsource).
 */
export class SseParser {
  /** Reconnection delay the server asked for with a `retry:` line, if any. */
  retryMs: number | undefined;
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private lastEventId: string | undefined;
  private afterCr = false;

  constructor(private readonly dispatch: (message: SseMessage) => void) {}

  push(chunk: string): void {
    // A CR ends its line at once; an LF right after it (even in the next chunk) belongs to it.
    if (this.afterCr && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.afterCr = false;
    this.buffer += chunk;
    let position = 0;
    for (;;) {
      const cr = this.buffer.indexOf('\r', position);
      const lf = this.buffer.indexOf('\n', position);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      let next = end + 1;
      if (this.buffer[end] === '\r') {
        if (end === this.buffer.length - 1) this.afterCr = true;
        else if (this.buffer[end + 1] === '\n') next = end + 2;
      }
      this.line(this.buffer.slice(position, end));
      position = next;
    }
    this.buffer = this.buffer.slice(position);
  }

  private line(line: string) {
    if (line === '') return this.flush();
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  private flush() {
    const data = this.data;
    const event = this.event;
    this.data = [];
    this.event = '';
    if (data.length === 0) return;
    this.dispatch({ event: event || 'message', data: data.join('\n'), id: this.lastEventId });
  }
}
