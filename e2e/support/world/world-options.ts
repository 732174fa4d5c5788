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
  fixedRate: 0,
  hotOnly: 0,
};

/** `--world key=value,key=value` (e.g. `--world users=10000,zipfS=0`). */
export function parseWorldOptions(text: string, base: WorldOptions = DEFAULT_WORLD): WorldOptions {
  const options: WorldOptions = { ...base };
  for (const pair of text.split(',').filter(Boolean)) {
    const [key, raw] = pair.split('=');
    if (key === undefined || !Object.hasOwn(base, key))
      throw new Error(`--world: unknown size ${key} (known: ${Object.keys(base).join(', ')})`);
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--world: ${key} needs a number`);
    options[key as keyof WorldOptions] = value;
  }
  return options;
}
