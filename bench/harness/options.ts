import { DEFAULT_WORLD, parseWorldOptions, type WorldOptions } from '../../e2e/support/world/world-options.js';

/** Command-line options of `npm run bench` (after `--`). */
export interface BenchOptions {
  /** Short runs (1.5 s a figure) and less seeding: the whole run, build included, in under a minute, for a quick look (noisier). */
  quick: boolean;
  /** Seconds each load figure is measured for (after a warm-up of a fifth of it). */
  durationS: number;
  connections: number;
  /** Length of the single-ingest memory soak; 0 skips it. */
  soakMinutes: number;
  /** Names of the scenarios to run (default all). */
  only: string[] | null;
  /** Run the API under `node --cpu-prof`, its profile written to the output directory on exit. */
  profileApi: boolean;
  /** The same for every worker the run starts. */
  profileWorkers: boolean;
  /** The production-like world of the run of record (bench/scenarios/world.ts); `--world users=10000,zipfS=0,...`. */
  world: WorldOptions;
}

// A quick run's world: small enough to seed in seconds, shaped the same.
const QUICK_WORLD: WorldOptions = {
  ...DEFAULT_WORLD,
  users: 5_000,
  sampledUsers: 100,
  stepS: 3,
  pollRate: 300,
  rates: [1_000, 2_000],
  polledRates: [1_000, 2_000],
};

const USAGE = `usage: npm run bench -- [--quick] [--duration <s>] [--connections <n>] [--soak-minutes <m>] [--only <scenario,...>] [--profile-api] [--profile-workers] [--world key=value,...]`;

export function parseOptions(argv: readonly string[]): BenchOptions {
  const quick = argv.includes('--quick');
  const options: BenchOptions = {
    quick,
    durationS: quick ? 1.5 : 10,
    connections: 32,
    soakMinutes: quick ? 0 : 5,
    only: null,
    profileApi: false,
    profileWorkers: false,
    world: quick ? QUICK_WORLD : DEFAULT_WORLD,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    const number = () => {
      const parsed = Number(value);
      if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${flag} needs a number\n${USAGE}`);
      i += 1;
      return parsed;
    };
    if (flag === '--quick') continue;
    else if (flag === '--profile-api') options.profileApi = true;
    else if (flag === '--profile-workers') options.profileWorkers = true;
    else if (flag === '--duration') options.durationS = number();
    else if (flag === '--connections') options.connections = Math.max(1, Math.round(number()));
    else if (flag === '--soak-minutes') options.soakMinutes = number();
    else if (flag === '--world') {
      options.world = parseWorldOptions(value ?? '', options.world);
      i += 1;
    } else if (flag === '--only') {
      options.only = (value ?? '').split(',').filter(Boolean);
      i += 1;
    } else if (flag === '--help' || flag === '-h') throw new Error(USAGE);
    else throw new Error(`unknown option ${flag}\n${USAGE}`);
  }
  return options;
}
