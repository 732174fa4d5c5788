import { rowsToRead, toPage } from '../../shared/db/keyset.js';
import {
  type ClaimableChainReward,
  type ClaimableTaskReward,
  findRewardCursors,
  listClaimableChainRewards,
  listClaimableTaskRewards,
  listClaims,
  type RewardClaim,
  type RewardCursor,
} from '../../shared/db/reward-store.js';
import { findUserId } from '../../shared/db/user-store.js';
import type { SenderUserId, ServiceUserId } from '../../shared/domain/ids.js';
import { invalidInput } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';
import { type PageRequest, unknownCursor } from '../page.js';
import { parseRewardCursor } from './reward-cursor.js';

export interface RewardsOverview {
  claimableTasks: ClaimableTaskReward[];
  claimableChains: ClaimableChainReward[];
  claimed: RewardClaim[];
  hasMore: boolean;
}

type Entry =
  | { section: 'task'; value: ClaimableTaskReward }
  | { section: 'chain'; value: ClaimableChainReward }
  | { section: 'claim'; value: RewardClaim };

/**
 * Product rules §7: what a user may still claim and what they claimed, over
 * chains of every status (earned is earned), a page at a time. The list is
 * one sequence (claimable task rewards by completion, claimable chain
 * rewards by chain start, claims oldest first), so one cursor walks it: the
 * page resumes in the section of the `starting_after` entry, after its key,
 * and reads the following sections only while the page has room. An unknown
 * user, or another platform's, has nothing.
 */
export async function listRewards(
  deps: Pick<CoreDeps, 'readDb'>,
  input: { platformId: string; platformUserId: SenderUserId; page: PageRequest },
): Promise<RewardsOverview> {
  // A replica's lag is tolerated: a claim just granted may be missing from the list for that long.
  const db = deps.readDb;
  const { page } = input;
  const userId = await findUserId(db, input.platformId, input.platformUserId);
  const cursor = userId && page.startingAfter !== undefined ? await resumeAfter(db, input.platformId, userId, page) : null;
  if (page.startingAfter !== undefined && !cursor) throw unknownCursor(page);
  if (!userId) return { claimableTasks: [], claimableChains: [], claimed: [], hasMore: false };

  const wanted = rowsToRead(page.limit);
  const entries: Entry[] = [];
  const room = () => wanted - entries.length;
  const from = cursor?.section;
  if (from === undefined || from === 'task') {
    const after = cursor?.section === 'task' ? cursor.key : undefined;
    const rows = await listClaimableTaskRewards(db, userId, { after, limit: room() });
    entries.push(...rows.map((value) => ({ section: 'task' as const, value })));
  }
  if (from !== 'claim' && room() > 0) {
    const after = cursor?.section === 'chain' ? cursor.key : undefined;
    const rows = await listClaimableChainRewards(db, input.platformId, userId, { after, limit: room() });
    entries.push(...rows.map((value) => ({ section: 'chain' as const, value })));
  }
  if (room() > 0) {
    const after = cursor?.section === 'claim' ? cursor.key : undefined;
    const rows = await listClaims(db, userId, { after, limit: room() });
    entries.push(...rows.map((value) => ({ section: 'claim' as const, value })));
  }

  const { items, hasMore } = toPage(entries, page.limit);
  return {
    claimableTasks: items.flatMap((entry) => (entry.section === 'task' ? [entry.value] : [])),
    claimableChains: items.flatMap((entry) => (entry.section === 'chain' ? [entry.value] : [])),
    claimed: items.flatMap((entry) => (entry.section === 'claim' ? [entry.value] : [])),
    hasMore,
  };
}

/** Where the page resumes: the one entry `starting_after` names; null when it names none. */
async function resumeAfter(
  db: CoreDeps['readDb'],
  platformId: string,
  userId: ServiceUserId,
  page: PageRequest,
): Promise<RewardCursor | null> {
  const text = page.startingAfter!;
  const entry = parseRewardCursor(text);
  if (!entry) return null;
  const [cursor, another] = await findRewardCursors(db, platformId, userId, entry);
  if (another) {
    throw invalidInput(
      `starting_after: ${text} names an entry of each run of a repeating quest chain; add @ and the entry's period_start (${text}@<period_start>)`,
      'starting_after',
    );
  }
  return cursor ?? null;
}
