import postgres from 'postgres';
import type { CpuMeter } from './cpu-meter.js';
import type { LoadFigure } from './load.js';

/**
 * The database's own ceiling for one-event-per-commit ingest: `connections`
 * loops, each inserting one new row at a time into `events` with the same
 * INSERT … ON CONFLICT … RETURNING as ingest, through postgres.js with the
 * API's pool size. Runs in the benchmark process (its CPU is the `api` column).
 */
export async function rawInsertLoop(
  meter: CpuMeter,
  options: { url: string; providerId: string; connections: number; durationS: number; warmupS: number; poolSize: number },
): Promise<LoadFigure> {
  const sql = postgres(options.url, { max: options.poolSize, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
  let next = 0;
  const insert = async () => {
    const n = next++;
    await sql`
      insert into events (provider_id, user_id, event_type, occurred_at, amount)
      values (${options.providerId}, ${`raw-${n % 1000}`}, ${`step-${n % 3}`}, ${new Date(Date.UTC(2030, 0, 1) + n * 1000).toISOString()}::timestamptz, 10)
      on conflict (provider_id, user_id, event_type, occurred_at) do nothing
      returning id, received_at`;
  };
  const loop = async (seconds: number, latencies: number[] | null) => {
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: options.connections }, async () => {
        while (performance.now() < deadline) {
          const started = performance.now();
          await insert();
          latencies?.push(performance.now() - started);
        }
      }),
    );
  };
  try {
    await loop(options.warmupS, null);
    const latencies: number[] = [];
    const stop = await meter.start(process.pid);
    const started = performance.now();
    await loop(options.durationS, latencies);
    const elapsedS = (performance.now() - started) / 1000;
    const cpu = await stop();
    latencies.sort((a, b) => a - b);
    const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
    const thousands = latencies.length / 1000;
    return {
      requests: latencies.length,
      requestsPerSecond: latencies.length / elapsedS,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      failures: 0,
      statuses: {},
      cpuPer1k: { api: cpu.api / thousands, postgres: cpu.postgres / thousands, redis: cpu.redis / thousands },
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
