import type { Registry } from 'prom-client';

/**
 * Request count and latency histogram per (method, route, status), kept as
 * plain numbers and turned into Prometheus series only when scraped.
 * prom-client's Counter and Histogram validate and hash their labels on every
 * observation, a visible share of a /healthz answer; this costs one Map
 * lookup and a bucket scan. The exposition is the same text
 * prom-client writes: `<name>_bucket{le=…,method=…}`, `_sum`, `_count`, and the counter.
 */
interface Series {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations at or below each bound, not cumulative (summed when scraped). */
  perBucket: number[];
}

interface PromValue {
  value: number;
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  metricName?: string;
}

export class RequestSeries {
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly bounds: readonly number[],
    private readonly names: { counter: string; counterHelp: string; histogram: string; histogramHelp: string },
  ) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: { method, route, status: String(status) }, count: 0, sum: 0, perBucket: this.bounds.map(() => 0) };
      this.series.set(key, entry);
    }
    entry.count += 1;
    entry.sum += seconds;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i += 1) {
      if (seconds <= bounds[i]!) {
        entry.perBucket[i]! += 1;
        break;
      }
    }
  }

  /** Registers the counter and the histogram with `registry` (both read this object when scraped). */
  register(registry: Registry): void {
    const { counter, counterHelp, histogram, histogramHelp } = this.names;
    const all = () => [...this.series.values()];
    registry.registerMetric(
      metric(counter, counterHelp, 'counter', () => all().map((s) => ({ value: s.count, labels: s.labels }))),
    );
    registry.registerMetric(
      metric(histogram, histogramHelp, 'histogram', () =>
        all().flatMap((s): PromValue[] => {
          let cumulative = 0;
          const buckets = this.bounds.map((bound, i): PromValue => {
            cumulative += s.perBucket[i]!;
            return { value: cumulative, labels: { le: bound }, sharedLabels: s.labels, metricName: `${histogram}_bucket` };
          });
          return [
            ...buckets,
            { value: s.count, labels: { le: '+Inf' }, sharedLabels: s.labels, metricName: `${histogram}_bucket` },
            { value: s.sum, labels: s.labels, metricName: `${histogram}_sum` },
            { value: s.count, labels: s.labels, metricName: `${histogram}_count` },
          ];
        }),
      ),
    );
  }
}

/** The shape Registry#metrics() reads from a metric (name, help, type and `get()`). */
function metric(name: string, help: string, type: 'counter' | 'histogram', values: () => PromValue[]) {
  const described = { name, help, type, aggregator: 'sum' as const };
  return { ...described, get: async () => ({ ...described, values: values() }) } as unknown as Parameters<
    Registry['registerMetric']
  >[0];
}
