export interface ChaosOptions {
  /** Every scenario briefly (the whole run within 5 minutes): for CI. */
  short: boolean;
  /** Names (or unique prefixes, case-insensitive) of the scenarios to run; null: all. */
  only: string[] | null;
  seed: number;
}

const USAGE = 'usage: npm run test:chaos -- [--short] [--only <name prefix>,...] [--seed <n>]';

export function parseChaosOptions(argv: readonly string[]): ChaosOptions {
  const options: ChaosOptions = { short: false, only: null, seed: Date.now() % 2 ** 31 };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i]!;
    if (flag === '--short') options.short = true;
    else if (flag === '--only')
      options.only = (argv[++i] ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase())
        .filter(Boolean);
    else if (flag === '--seed') {
      options.seed = Number(argv[++i]);
      if (!Number.isInteger(options.seed)) throw new Error(`--seed needs an integer\n${USAGE}`);
    } else throw new Error(`unknown option ${flag}\n${USAGE}`);
  }
  return options;
}
