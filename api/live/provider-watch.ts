import type { Logger } from '../../shared/observability/logger.js';
import type { StreamRegistry } from './stream-registry.js';

/** Of the given providers, those whose live tokens still count (providersServingLive in core/live/live-streams.ts). */
export type ProvidersServingLive = (providerIds: readonly string[]) => Promise<Set<string>>;

/**
 * Holds live streams to their provider's current status. Every `intervalMs`
 * it asks, in one statement, which providers of the open streams still serve
 * live updates, and ends the streams of the others: a deactivated provider
 * (or one whose last active credential was deactivated) loses its streams
 * within `intervalMs` plus one query. A new stream asks the same question,
 * answered from the last check when it is younger than `intervalMs`, so a
 * flood of opens costs one query per provider per interval.
 */
export class ProviderWatch {
  private readonly known = new Map<string, { serving: boolean; checkedAt: number }>();
  /** Checks under way, so streams opening together before the first answer share its one query. */
  private readonly checking = new Map<string, Promise<boolean>>();
  private readonly timer: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly options: { check: ProvidersServingLive; registry: StreamRegistry; intervalMs: number; logger: Logger },
  ) {
    this.timer = setInterval(() => void this.sweep(), options.intervalMs);
    this.timer.unref();
  }

  /** Whether `providerId`'s tokens count now. */
  async isServing(providerId: string): Promise<boolean> {
    const known = this.known.get(providerId);
    if (known && Date.now() - known.checkedAt < this.options.intervalMs) return known.serving;
    let check = this.checking.get(providerId);
    if (!check) {
      check = this.options
        .check([providerId])
        .then((serving) => {
          this.known.set(providerId, { serving: serving.has(providerId), checkedAt: Date.now() });
          return serving.has(providerId);
        })
        .finally(() => this.checking.delete(providerId));
      this.checking.set(providerId, check);
    }
    return check;
  }

  /** One check of every provider with an open stream; ends the streams of those that no longer serve. */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const now = Date.now();
      for (const [id, entry] of this.known) if (now - entry.checkedAt > this.options.intervalMs * 10) this.known.delete(id);
      const ids = this.options.registry.platformIds();
      if (ids.length === 0) return;
      const serving = await this.options.check(ids);
      for (const id of ids) {
        this.known.set(id, { serving: serving.has(id), checkedAt: Date.now() });
        if (!serving.has(id)) {
          const ended = this.options.registry.endPlatform(id);
          this.options.logger.info({ providerId: id, streams: ended }, 'live streams of an inactive provider ended');
        }
      }
    } catch (error) {
      // Postgres away: keep the streams (they carry nothing but progress pings) and look again next time.
      this.options.logger.warn({ err: error }, 'live provider check failed');
    } finally {
      this.sweeping = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
