type Buckets = Map<number, number>;

/** The latency bound of a sustained step: answered → matched p99 (the pipeline target, docs/performance.md). */
export const LAG_P99_BOUND_S = 0.25;
/** A step kept up when its backlog grew by at most this much of a second's events. */
export const FLAT_BACKLOG_S = 0.5;

/** The cumulative buckets of the workers' event-to-progress lag histogram, added over every worker's /metrics. */
export async function lagBuckets(metricsUrls: string | readonly string[]): Promise<Buckets> {
  const texts = await Promise.all(
    (typeof metricsUrls === 'string' ? [metricsUrls] : metricsUrls).map(async (url) => (await fetch(url)).text()),
  );
  const buckets: Buckets = new Map();
  for (const text of texts) {
    for (const match of text.matchAll(/^qcr_event_progress_lag_seconds_bucket\{le="([^"]+)"\} (\d+)/gm)) {
      const bound = match[1] === '+Inf' ? Number.POSITIVE_INFINITY : Number(match[1]);
      buckets.set(bound, (buckets.get(bound) ?? 0) + Number(match[2]));
    }
  }
  return buckets;
}

/**
 * The upper bound (seconds) of the histogram bucket holding the given quantile
 * of what was observed between two readings: "p99 <= this bucket", as exact as
 * the buckets are (25-50 ms apart below a quarter second).
 */
export function quantileBound(before: Buckets, after: Buckets, quantile: number): { bound: number; count: number } {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const count = (after.get(Number.POSITIVE_INFINITY) ?? 0) - (before.get(Number.POSITIVE_INFINITY) ?? 0);
  for (const bound of bounds) {
    const within = (after.get(bound) ?? 0) - (before.get(bound) ?? 0);
    if (within >= quantile * count) return { bound, count };
  }
  return { bound: Number.POSITIVE_INFINITY, count };
}
