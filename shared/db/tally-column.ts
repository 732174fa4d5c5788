import type { StoredTallies, Tally } from '../domain/tally.js';

/**
 * A tally as `chain_progress.tallies` (jsonb) holds it: the walk's `Tally`
 * with its streak under the key `run`, the name every row was written with,
 * which workers of an earlier release still read and write. Only this module
 * knows that key. It is renamed in place, so a tally keeps the order of its
 * keys (the matcher compares tallies whatever their order, core/matching/plan-batch.ts).
 */
export type TallyJson = Omit<Tally, 'streak'> & { run: number };

/** A walk's tallies by task id, as the column holds them. */
export type TalliesJson = Record<string, TallyJson>;

const withKeyRenamed = <T>(value: object, from: string, to: string): T =>
  Object.fromEntries(Object.entries(value).map(([key, field]) => [key === from ? to : key, field])) as T;

export const tallyFromJson = (tally: TallyJson): Tally => withKeyRenamed(tally, 'run', 'streak');

export const talliesFromJson = (tallies: TalliesJson): StoredTallies =>
  Object.fromEntries(Object.entries(tallies).map(([taskId, tally]) => [taskId, tallyFromJson(tally)]));

export const talliesToJson = (tallies: StoredTallies): TalliesJson =>
  Object.fromEntries(
    Object.entries(tallies).map(([taskId, tally]) => [taskId, withKeyRenamed<TallyJson>(tally, 'streak', 'run')]),
  );
