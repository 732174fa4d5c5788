/** The shape of the production-like world; every size an option, the defaults those of the run of record (docs/performance.md). */
export interface WorldOptions {
  users: number;
  platforms: number;
  advertisers: number;
  chains: number;
  /** Zipf exponent of the producers' choice of user (0: uniform). */
  zipfS: number;
  seed: number;
  /** Share of events sent in batches of `batchSize` (the rest one per request). */
  batchedShare: number;
  batchSize: number;
  /** Share of sends that repeat an event already sent, byte for byte. */
  resendShare: number;
  /** Share of events whose timestamp is up to `lateMaxS` in the past. */
  lateShare: number;
  lateMaxS: number;
  /** Reads per second of GET active, users drawn uniformly, If-None-Match when the poller holds a tag. */
  pollRate: number;
  /** Users whose every event is recorded and whose stored progress is checked against the pure model at the end. */
  sampledUsers: number;
  /** Seconds each rate step lasts. */
  stepS: number;
  /**
   * Seconds of traffic before the first step, not measured (then drained):
   * a deployment just started spends its first minute largely on V8
   * compiling its hot code, in each process (docs/scaling.md, "What three
   * workers pay"), which one that has run for a while has done.
   */
  warmS: number;
  /** The producers' rates (events/s) stepped up alone, until a step falls behind. */
  rates: number[];
  /** The rates stepped up beside the pollers (`pollRate` reads/s). */
  polledRates: number[];
  /** API processes: more than one runs the launcher (api/cluster-main.ts, API_PROCESSES) on one port, as `npm start` does. */
  apis: number;
  /** Worker processes, started with no settings of their own: they share the matching partitions out by lease. */
  workers: number;
  /** Profiling: one step at this rate (with `pollRate` reads) instead of the stepped run; 0 for the run of record. */
  fixedRate: number;
  /** Profiling and A/B of the hot-user figure: 1 runs only the hot user's backlog with its probes (and the model check). */
  hotOnly: number;
}

export const DEFAULT_WORLD: WorldOptions = {
  users: 50_000,
  platforms: 2,
  advertisers: 4,
  chains: 30,
  zipfS: 1.1,
  seed: 29,
  batchedShare: 0.9,
  batchSize: 100,
  resendShare: 0.05,
  lateShare: 0.1,
  lateMaxS: 3600,
  pollRate: 1000,
  sampledUsers: 300,
  stepS: 10,
  warmS: 3,
  rates: [2_000, 4_000, 6_000, 8_000, 10_000, 12_000],
  polledRates: [2_000, 4_000, 6_000, 8_000],
  apis: 1,
  workers: 1,
  fixedRate: 0,
  hotOnly: 0,
};

// Options that count processes: whole numbers, at least one.
const PROCESS_COUNTS: ReadonlySet<keyof WorldOptions> = new Set(['apis', 'workers']);

/**
 * `--world key=value,key=value` (e.g. `--world users=10000,zipfS=0`); a list
 * takes its values separated by colons (`rates=8000:12000:16000`).
 */
export function parseWorldOptions(text: string, base: WorldOptions = DEFAULT_WORLD): WorldOptions {
  const options: WorldOptions = { ...base };
  const values = options as unknown as Record<string, number | number[]>;
  for (const pair of text.split(',').filter(Boolean)) {
    const [key, raw = ''] = pair.split('=');
    if (key === undefined || !Object.hasOwn(base, key))
      throw new Error(`--world: unknown size ${key} (known: ${Object.keys(base).join(', ')})`);
    const list = Array.isArray(values[key]);
    const numbers = (list ? raw.split(':') : [raw]).map((item) => (item.trim() === '' ? Number.NaN : Number(item)));
    if (numbers.some((value) => !Number.isFinite(value) || value < 0 || (list && value === 0)))
      throw new Error(`--world: ${key} needs ${list ? 'rates above 0 separated by colons (8000:12000)' : 'a number'}`);
    const [first = 0] = numbers;
    if (PROCESS_COUNTS.has(key as keyof WorldOptions) && (!Number.isInteger(first) || first < 1))
      throw new Error(`--world: ${key} counts processes: a whole number, at least 1`);
    values[key] = list ? numbers : first;
  }
  return options;
}
