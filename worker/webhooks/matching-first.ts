/**
 * Deliveries give way to a matching backlog (docs/webhooks.md, "For
 * operators"): while jobs wait on the matching queue, a delivery group waits
 * before its claim, so on shared cores the matcher gets the CPU and Postgres
 * first and the deliveries follow once the backlog is gone. For at most
 * `maxYieldMs` in a row: under a backlog that lasts longer, deliveries go on
 * regardless, so no message waits more than that for matching. What a
 * delivery costs is unchanged; only when it is paid moves.
 */
export interface MatchingFirstGate {
  /** Resolves when a delivery may go: no matching backlog, or the yield has lasted `maxYieldMs`. */
  pass(): Promise<void>;
}

export function createMatchingFirstGate(options: {
  /** Jobs waiting on the matching queue (all shards); a failure counts as none. */
  backlog: () => Promise<number>;
  maxYieldMs: number;
  /** How often the backlog is read while yielding; one read serves every waiting delivery. */
  pollMs: number;
  now?: () => number;
}): MatchingFirstGate {
  const now = options.now ?? Date.now;
  let yieldingSince: number | null = null;
  let reading: Promise<number> | null = null;
  let readAt = -Infinity;
  let lastRead = 0;
  let tick: Promise<void> | null = null;

  // One read of the backlog per pollMs, whoever asks.
  const backlog = (): Promise<number> => {
    if (now() - readAt < options.pollMs) return reading ?? Promise.resolve(lastRead);
    readAt = now();
    reading = options
      .backlog()
      .catch(() => 0)
      .then((count) => {
        lastRead = count;
        reading = null;
        return count;
      });
    return reading;
  };

  // Every yielding delivery sleeps on one shared timer, so they all wake in the same turn and
  // share that poll's read; separate timers drift apart on a busy machine and each read again.
  const nextPoll = (): Promise<void> =>
    (tick ??= new Promise<void>((resolve) =>
      setTimeout(() => {
        tick = null;
        resolve();
      }, options.pollMs),
    ));

  return {
    async pass() {
      if (options.maxYieldMs <= 0) return;
      for (;;) {
        if ((await backlog()) === 0) {
          yieldingSince = null;
          return;
        }
        yieldingSince ??= now();
        if (now() - yieldingSince >= options.maxYieldMs) return;
        await nextPoll();
      }
    },
  };
}
