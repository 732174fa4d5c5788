import type { StoredTallies, Tally } from '../domain/tally.js';

/**
 * A tally as `chain_progress.tallies` (jsonb) holds it: the walk's `Tally`
 * with its streak under the key `run`, the name every row was written with,
 * which workers of an earlier release still read and write. Only this module
 * knows that key.
 */
export type TallyJson = Omit<Tally, 'streak'> & { run: number };

/** A walk's tallies by task id, as the column holds them. */
export type TalliesJson = Record<string, TallyJson>;

/**
 * A stored tally read into the walk's own shape, whatever order jsonb gives
 * its keys (by length, then bytes: run, count, lastPeriod, totalMicros). One
 * shape for every tally keeps the matcher's code monomorphic: tallies read in
 * jsonb's order were a second hidden class beside the walk's, and each
 * function that met both was deoptimized and compiled again (countEvent,
 * sameTally, diffWalks; docs/performance.md).
 */
export const tallyFromJson = (tally: TallyJson): Tally => ({
  count: tally.count,
  totalMicros: tally.totalMicros,
  streak: tally.run,
  lastPeriod: tally.lastPeriod,
});

export const talliesFromJson = (tallies: TalliesJson): StoredTallies =>
  Object.fromEntries(Object.entries(tallies).map(([taskId, tally]) => [taskId, tallyFromJson(tally)]));

const tallyToJson = (tally: Tally): TallyJson => ({
  count: tally.count,
  totalMicros: tally.totalMicros,
  run: tally.streak,
  lastPeriod: tally.lastPeriod,
});

export const talliesToJson = (tallies: StoredTallies): TalliesJson =>
  Object.fromEntries(Object.entries(tallies).map(([taskId, tally]) => [taskId, tallyToJson(tally)]));
