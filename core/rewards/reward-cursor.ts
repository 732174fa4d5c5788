import { z } from 'zod';
import { parseOffsetTimestamp } from '../../shared/domain/chain-timestamp.js';

/**
 * The rewards list's `starting_after`: the id of the page's last entry (a
 * claim id, a task id, a chain id), and for an entry of a repeating chain `@`
 * and that entry's `period_start`. A repeating chain's task and chain reward
 * appear once per completed run under the same id, so the id alone cannot
 * say where a page ended (docs/api-flows.md, "Lists").
 */
export interface RewardEntryRef {
  id: string;
  /** The run named after `@`; undefined when the cursor is the id alone. */
  runStartUs: bigint | undefined;
}

// The ids' rule everywhere else in the API (z.uuid()).
const uuid = z.uuid();

export const REWARD_CURSOR_RULE =
  "must be the last entry's id, followed by @ and its period_start for an entry of a repeating chain";

/** The entry a cursor names, or null when the text is no cursor at all. */
export function parseRewardCursor(text: string): RewardEntryRef | null {
  const at = text.indexOf('@');
  const id = at === -1 ? text : text.slice(0, at);
  if (!uuid.safeParse(id).success) return null;
  if (at === -1) return { id, runStartUs: undefined };
  const runStartUs = parseOffsetTimestamp(text.slice(at + 1));
  return runStartUs === null ? null : { id, runStartUs };
}
