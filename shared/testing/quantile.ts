/**
 * The q-quantile (0..1) of unsorted samples, by nearest rank. With no
 * samples it answers `empty`: NaN by default, so a figure of nothing fails
 * every bound it is held to; the world's reports pass 0 (they print a step
 * without reads as 0 ms).
 */
export function quantile(samples: readonly number[], q: number, empty = Number.NaN): number {
  if (samples.length === 0) return empty;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
