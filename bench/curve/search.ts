/** How many processes of each kind a point of the curve runs: `8w2a` is 8 workers beside 2 API processes. */
export interface Deployment {
  workers: number;
  apis: number;
}

/** `8w2a,1w1a` → the deployments in that order. */
export function parseDeployments(text: string): Deployment[] {
  const deployments = text
    .split(',')
    .filter(Boolean)
    .map((item) => {
      const match = /^(\d+)w(\d+)a$/.exec(item.trim());
      const [workers, apis] = [Number(match?.[1]), Number(match?.[2])];
      if (!match || workers < 1 || apis < 1) throw new Error(`--deployments: ${item} is not <workers>w<apis>a (8w2a)`);
      return { workers, apis };
    });
  if (deployments.length === 0) throw new Error('--deployments: none given');
  return deployments;
}

export const deploymentName = (d: Deployment) => `${d.workers}w${d.apis}a`;

/** What a search over one grid of rates found. */
export interface SearchResult<T> {
  steps: T[];
  /** The highest rate that was sustained, if any. */
  best: number | null;
  /** The lowest rate that was not, if any. */
  firstBehind: number | null;
  /** Whether the best is bracketed: the next rate up fell behind (or it is the grid's top), or the grid's lowest fell behind. */
  bracketed: boolean;
}

/**
 * From `start` (the grid's highest rate at or below it), one grid step up
 * while steps are sustained, or down while they are not, until the highest
 * sustained rate is bracketed, `maxSteps` are taken or `canStep` says there is
 * no time for another.
 */
export async function searchSustained<T>(options: {
  grid: readonly number[];
  start: number;
  maxSteps: number;
  canStep: () => boolean;
  measure: (rate: number) => Promise<T>;
  sustained: (step: T) => boolean;
}): Promise<SearchResult<T>> {
  const grid = [...options.grid].sort((a, b) => a - b);
  if (grid.length === 0) throw new Error('searchSustained: an empty grid');
  let index = Math.max(
    0,
    grid.findLastIndex((rate) => rate <= options.start),
  );
  const result: SearchResult<T> = { steps: [], best: null, firstBehind: null, bracketed: false };
  while (result.steps.length < options.maxSteps && options.canStep()) {
    const rate = grid[index]!;
    const step = await options.measure(rate);
    result.steps.push(step);
    if (options.sustained(step)) {
      result.best = Math.max(result.best ?? rate, rate);
      if (index === grid.length - 1 || result.firstBehind !== null) break;
      index += 1;
    } else {
      result.firstBehind = Math.min(result.firstBehind ?? rate, rate);
      if (index === 0 || result.best !== null) break;
      index -= 1;
    }
  }
  const top = grid.at(-1)!;
  result.bracketed =
    (result.best !== null && (result.firstBehind !== null || result.best === top)) || result.firstBehind === grid[0];
  return result;
}

/**
 * Where a deployment's search starts: from the measured deployment with the
 * same API count (else any) closest in workers, its best rate scaled by the
 * square root of the worker ratio (between no gain and a linear one), the
 * grid's `lowest` when that one sustained nothing; `fallback` when none was measured.
 */
export function startingRate(
  deployment: Deployment,
  measured: readonly { deployment: Deployment; best: number | null }[],
  fallback: number,
  lowest: number,
): number {
  const sameApis = measured.filter((m) => m.deployment.apis === deployment.apis);
  const pool = sameApis.length > 0 ? sameApis : measured;
  if (pool.length === 0) return fallback;
  const closest = [...pool].sort(
    (a, b) =>
      Math.abs(Math.log(a.deployment.workers / deployment.workers)) -
      Math.abs(Math.log(b.deployment.workers / deployment.workers)),
  )[0]!;
  if (closest.best === null) return lowest;
  return closest.best * Math.sqrt(deployment.workers / closest.deployment.workers);
}
