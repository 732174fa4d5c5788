export interface ChaosOptions {
  /** Every scenario briefly (the whole run within 5 minutes): for CI. */
  short: boolean;
  /** Names (or unique prefixes, case-insensitive) of the scenarios to run; null: all. */
  only: string[] | null;
  seed: number;
  /** On a local 6-node Redis Cluster (REDIS_CLUSTER=true, four matching shards): only the scenarios that support it. */
  cluster: boolean;
  /** The world scenario's events per second; null: its default for the run's length. */
  rate: number | null;
  /** The world scenario's sizes over its defaults, as the benchmark's `--world` (`users=5000,pollRate=100`). */
  world: string;
}

const USAGE =
  'usage: npm run test:chaos -- [--short] [--only <name prefix>,...] [--seed <n>] [--cluster] [--rate <events/s>] [--world key=value,...]';

export function parseChaosOptions(argv: readonly string[]): ChaosOptions {
  const options: ChaosOptions = { short: false, only: null, seed: Date.now() % 2 ** 31, cluster: false, rate: null, world: '' };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    if (flag === '--short') options.short = true;
    else if (flag === '--cluster') options.cluster = true;
    else if (flag === '--only')
      options.only = (argv[++i] ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter(Boolean);
    else if (flag === '--seed') {
      options.seed = Number(argv[++i]);
      if (!Number.isInteger(options.seed)) throw new Error(`--seed needs an integer\n${USAGE}`);
    } else if (flag === '--rate') {
      options.rate = Number(argv[++i]);
      if (!(options.rate > 0)) throw new Error(`--rate needs a positive number of events per second\n${USAGE}`);
    } else if (flag === '--world') options.world = argv[++i] ?? '';
    else throw new Error(`unknown option ${flag}\n${USAGE}`);
  }
  return options;
}
