import { parseUtcTimestamp } from '../../../shared/domain/timestamp.js';

/** An event as the client sends it (the published body). */
export interface EventBody {
  user_id: string;
  event_type: string;
  timestamp: string;
  amount?: number;
  currency?: string;
}

/**
 * Everything the client knows about one event (one dedup key): the Jepsen
 * history. `ids` collects every event id the API answered for it; `acked`
 * is set by the first 200 that reported it received or duplicate.
 * An event never acknowledged is indeterminate: it may or may not be stored.
 */
export interface SentEvent {
  key: string;
  providerId: string;
  body: EventBody;
  ids: Set<string>;
  /** Client clock (epoch ms) of the first send, and of the first acknowledgement. */
  sentAt: number;
  ackedAt?: number;
  /** Sends that got no 200 (error answer, refused or broken connection, timeout). */
  unacked: number;
  /** Items of a 200 batch answered `rejected`: our events are valid, so any is a failure. */
  rejected: string[];
}

const dedupKey = (providerId: string, body: EventBody) =>
  `${providerId}|${body.user_id}|${body.event_type}|${parseUtcTimestamp(body.timestamp)}`;

/** The history of one scenario: every event sent, by dedup key. */
export class History {
  readonly events = new Map<string, SentEvent>();
  private readonly ackedByProvider = new Map<string, SentEvent[]>();

  add(providerId: string, body: EventBody, now: number): SentEvent {
    const key = dedupKey(providerId, body);
    let event = this.events.get(key);
    if (!event) {
      event = { key, providerId, body, ids: new Set(), sentAt: now, unacked: 0, rejected: [] };
      this.events.set(key, event);
    }
    return event;
  }

  /** Records the first 200 that reported the event stored (later ones only add ids). */
  markAcked(event: SentEvent, at: number): void {
    if (event.ackedAt !== undefined) return;
    event.ackedAt = at;
    const list = this.ackedByProvider.get(event.providerId) ?? [];
    list.push(event);
    this.ackedByProvider.set(event.providerId, list);
  }

  /** An acknowledged event of the provider picked by `fraction` (0..1), to re-send as a client retry would. */
  randomAcked(providerId: string, fraction: number): SentEvent | undefined {
    const list = this.ackedByProvider.get(providerId);
    return list && list.length > 0 ? list[Math.floor(fraction * list.length)] : undefined;
  }

  acked(): SentEvent[] {
    return [...this.events.values()].filter((event) => event.ackedAt !== undefined);
  }

  unacknowledged(): SentEvent[] {
    return [...this.events.values()].filter((event) => event.ackedAt === undefined);
  }
}
