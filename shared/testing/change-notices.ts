import type { ChangeNotices } from '../live/change-notices.js';

export type ToldChange = [kind: keyof ChangeNotices, ...args: string[]];

/**
 * The ChangeNotices of a test that runs use-cases with no cache to drop:
 * each notice is kept in `told`, so the test can check what a use-case said it changed.
 */
export function recordChanges(): { changes: ChangeNotices; told: ToldChange[] } {
  const told: ToldChange[] = [];
  const record =
    (kind: keyof ChangeNotices) =>
    async (...args: string[]) => {
      told.push([kind, ...args]);
    };
  return {
    told,
    changes: {
      chainsChanged: record('chainsChanged'),
      answerChanged: record('answerChanged'),
      answersChanged: record('answersChanged'),
      userRegistered: record('userRegistered'),
    },
  };
}
