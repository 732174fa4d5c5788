import autocannon from 'autocannon';
import type { CpuMeter, CpuUse } from './cpu-meter.js';

export interface LoadFigure {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers other than 2xx/304, and connection errors: a figure with either is not a clean measurement. */
  failures: number;
  /** CPU seconds per 1,000 requests, by process. */
  cpuPer1k: CpuUse;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
}

export interface LoadOptions extends autocannon.Options {
  /** Seconds of load before measuring (JIT, caches, pools); default a fifth of the duration, at least 1 s. */
  warmupS?: number;
  /** Status codes counted as success besides 2xx (304 for revalidation). */
  okStatuses?: number[];
}

/** Runs autocannon against a URL and measures throughput, latency and CPU of the processes involved. */
export async function measureLoad(
  meter: CpuMeter,
  servingPid: number,
  options: LoadOptions & { duration: number },
): Promise<LoadFigure> {
  const { warmupS = Math.max(1, options.duration / 5), okStatuses = [], ...load } = options;
  if (warmupS > 0) await run({ ...load, duration: warmupS });
  const stop = await meter.start(servingPid);
  const result = await run(load);
  const cpu = await stop();
  let unexpected = 0;
  const statuses: Record<string, number> = {};
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    const code = Number(status);
    statuses[status] = stats.count ?? 0;
    if (!(code >= 200 && code < 300) && !okStatuses.includes(code)) unexpected += stats.count ?? 0;
  }
  const thousands = result.requests.total / 1000;
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.total / (result.duration || load.duration!),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: unexpected + result.errors,
    statuses,
    cpuPer1k: { api: cpu.api / thousands, postgres: cpu.postgres / thousands, redis: cpu.redis / thousands },
  };
}

function run(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}
