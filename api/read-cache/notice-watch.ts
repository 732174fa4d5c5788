import { randomBytes } from 'node:crypto';
import { probeMessage } from '../../shared/live/channel.js';
import type { Logger } from '../../shared/observability/logger.js';

export interface NoticeWatchOptions {
  channels: readonly string[];
  /** Publishes a probe on a channel (the process's producer connection). */
  publish: (channel: string, message: string) => Promise<unknown>;
  /** How often each channel is probed (NOTICE_PROBE_MS). */
  intervalMs: number;
  /** Serving on: every channel delivers. Off: one may not; whatever was cached must go. */
  onServing: (serving: boolean) => void;
  /** Channels whose probes went unanswered: their subscriptions need doing again. */
  onSilent: (channels: readonly string[]) => void;
  logger: Logger;
  now?: () => number;
}

/** A channel is silent once its last answered probe was sent this many intervals ago. */
const SILENT_AFTER_INTERVALS = 4;

/**
 * Proves that change notices reach this process, instead of trusting
 * connection events: every interval it publishes a probe on each followed
 * channel and hears it come back through the subscription. Cached answers
 * are served only while every channel's last answered probe is recent; one
 * silent channel turns serving off (the owner drops what it cached) and asks
 * for its subscription to be done again, until its probes answer. A notice
 * lost to a broken subscription is so followed by serving off within
 * (SILENT_AFTER_INTERVALS + 1) intervals, however the subscription broke.
 */
export class NoticeWatch {
  private readonly id = randomBytes(6).toString('hex');
  private readonly answeredSentAt = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private serving = false;
  private reportedSilent = false;
  private lastRepairAt = Number.NEGATIVE_INFINITY;
  private firstTickAt: number | undefined;
  private readonly now: () => number;

  constructor(private readonly options: NoticeWatchOptions) {
    this.now = options.now ?? Date.now;
  }

  get isServing(): boolean {
    return this.serving;
  }

  start(): void {
    if (this.timer) return;
    this.tick();
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A probe came back on `channel`; only this process's own count. */
  heard(channel: string, token: string): void {
    const [id, sent] = token.split(':');
    if (id !== this.id) return;
    const sentAt = Number(sent);
    if (sentAt > (this.answeredSentAt.get(channel) ?? 0)) this.answeredSentAt.set(channel, sentAt);
    // Serving comes back with the last channel's answer, not at the next tick.
    if (!this.serving && this.silentAt(this.now()).length === 0) this.tick(false);
  }

  /** A connection of the feed closed: nothing it carried is proved until probes answer again. */
  down(): void {
    this.answeredSentAt.clear();
    this.setServing(false);
  }

  /** Probes every channel (unless `probe` is false), then decides serving from the answers so far. */
  tick(probe = true): void {
    const now = this.now();
    const { channels, publish, intervalMs } = this.options;
    if (probe) for (const channel of channels) void publish(channel, probeMessage(`${this.id}:${now}`)).catch(() => {});
    const silent = this.silentAt(now);
    if (silent.length === 0) {
      if (this.reportedSilent) this.options.logger.info('change notices delivered again: cached answers served');
      this.reportedSilent = false;
      this.setServing(true);
      return;
    }
    this.setServing(false);
    // Logged once per outage; the first round trip after a start is not an outage.
    if (!this.reportedSilent && this.started(now)) {
      this.reportedSilent = true;
      this.options.logger.warn({ channels: silent }, 'change notices not delivered on these channels: answers served uncached');
    }
    if (now - this.lastRepairAt >= SILENT_AFTER_INTERVALS * intervalMs) {
      this.lastRepairAt = now;
      this.options.onSilent(silent);
    }
  }

  private silentAt(now: number): string[] {
    const limit = SILENT_AFTER_INTERVALS * this.options.intervalMs;
    return this.options.channels.filter(
      (channel) => now - (this.answeredSentAt.get(channel) ?? Number.NEGATIVE_INFINITY) > limit,
    );
  }

  private started(now: number): boolean {
    this.firstTickAt ??= now;
    return now - this.firstTickAt > SILENT_AFTER_INTERVALS * this.options.intervalMs;
  }

  private setServing(serving: boolean) {
    if (serving === this.serving) return;
    this.serving = serving;
    this.options.onServing(serving);
  }
}
