import { appendTo, groupBy } from '../../shared/collections.js';
import { insertAutoClaims, type QueuedAutoClaim } from '../../shared/db/auto-claim-store.js';
import { loadChainStamps, type MatchingChain } from '../../shared/db/chain-store.js';
import { deletePending, type StoredEvent, takePendingEvents } from '../../shared/db/event-store.js';
import {
  deleteCompletions,
  loadClaimHolds,
  markClaimsReversed,
  type StoredWalk,
  saveChainProgress,
  saveCompletions,
  stampUsers,
  writerWalksVersion,
} from '../../shared/db/progress-store.js';
import { findClaimsByIds } from '../../shared/db/reward-store.js';
import { withTransaction } from '../../shared/db/transaction.js';
import { lockPendingEventUsers, type ProgressChange } from '../../shared/db/user-store.js';
import { providersListening } from '../../shared/db/webhook-endpoint-store.js';
import { insertMessages } from '../../shared/db/webhook-message-store.js';
import type { ServiceUserId } from '../../shared/domain/ids.js';
import { ONLY_RUN } from '../../shared/domain/recurrence.js';
import { sourceKey, usersBySource } from '../../shared/domain/sources.js';
import { type TallyNotice, tallyNotices } from '../../shared/domain/tally.js';
import { formatIsoMillis } from '../../shared/domain/timestamp.js';
import type { CoreDeps } from '../deps.js';
import { queueRefresh } from '../leaderboards/refresh-standings.js';
import { settleClaimMarks } from '../points/ledger.js';
import { earnedAutoClaims } from '../rewards/earned-auto-claims.js';
import { batchFacts } from '../webhooks/batch-facts.js';
import { reversalFact } from '../webhooks/claim-fact.js';
import { admitNewUsers } from './admit-users.js';
import { ChainCache } from './chain-cache.js';
import { loadCountingHistory } from './counting-history.js';
import { advanceWalks, type BatchView, type BatchWrites, diffWalks, historyNeeds, recomputeWalks } from './plan-batch.js';
import { keepBatchWalks, loadBatchWalks, type WalkCache } from './walk-cache.js';

/** A user whose progress changed, with the chains that changed and the stamp stored for it (what live streams are told). */
export interface UserProgressChange extends ProgressChange {
  userId: ServiceUserId;
}

const providersOf = (chains: readonly MatchingChain[]) =>
  new Set(chains.flatMap((c) => [c.chain.platformId, c.chain.advertiserId]));

/** §19: the users whose leaderboard scores the writes may move: completions changed in a run complete now or before, and claims reversed or restored. */
const standingsMovedBy = (writes: BatchWrites): ServiceUserId[] => [
  ...new Set([...writes.standings.map((standing) => standing.userId), ...writes.scoresMoved]),
];

/** Runs a step when the caller's turn comes (the worker's turnstile orders its batches); the step's result is passed through. */
export type InTurn = <T>(step: () => Promise<T>) => Promise<T>;

export interface BatchOutcome {
  /** Events this batch matched (their pending rows are gone), with when each was received. */
  matched: { id: string; receivedUs: bigint }[];
  /** Users whose re-evaluation ran. */
  evaluated: string[];
  changes: UserProgressChange[];
  /** How many (user, chain) walks needed the full recompute (late events, re-evaluations). */
  recomputed: number;
  /** Late events added to open counted, summed or streak tasks' tallies instead (docs/matching.md, "Late events absorbed"). */
  absorbed: number;
  /** Webhook messages this batch wrote to the outbox, to enqueue after the commit. */
  webhookMessageIds: string[];
  /** Rewards of auto-claim chains this batch earned and stored (§18.5), to enqueue after the commit. */
  autoClaims: QueuedAutoClaim[];
  /** Users whose leaderboard standings this batch may have moved, queued for a refresh after the commit (core/leaderboards/). */
  standingsQueued: ServiceUserId[];
  /** Users whose walks came from the worker's cache (walk-cache.ts), and users whose walks were read from Postgres. */
  walksReused: number;
  walksLoaded: number;
}

/**
 * Matches many events and user re-evaluations in one transaction with a fixed
 * number of set-based statements: claim the pending events, resolve their
 * users (§4), lock those users in id order, load users, chains and walks,
 * advance each walk in memory (recomputing from history only where an event
 * is late), admit new users to chains with max_completions, then write completions, stamps, summaries and pending rows once
 * each, and mark the claims whose completion a reversal undid
 * (docs/reversals.md) with their points (§18.3), and store the rewards earned
 * in auto-claim chains (§18.5). A crash before commit leaves everything pending for a
 * retry; events already matched are skipped, so redelivery cannot count
 * anything twice.
 */
export async function matchBatch(
  deps: Pick<CoreDeps, 'db'> & {
    /** Runs the claim-and-lock step in this process's batch order (turnstile.ts); without it the step runs at once. */
    inTurn?: InTurn;
    /** The worker's walks kept between batches; without it every batch loads its users' walks. */
    walkCache?: WalkCache;
    /** The worker's chains kept between batches; without it every batch reads its chains whole. */
    chainCache?: ChainCache;
  },
  input: { eventIds: readonly string[]; evaluateUserIds: readonly ServiceUserId[] },
): Promise<BatchOutcome> {
  const inTurn: InTurn = deps.inTurn ?? ((step) => step());
  const { walkCache } = deps;
  // What to keep once the transaction has committed (never before: a rollback keeps what is stored).
  let keepWalks: (() => void) | undefined;
  const outcome = await withTransaction(deps.db, async (tx) => {
    // Batches of one process take their locks in the order they claimed their
    // events (`inTurn`), so events delivered earlier are walked first; the
    // other order would make the later batch's events late, and recomputed.
    // The claim and the lock go in one round trip: the server runs them in
    // turn, and the lock resolves the events' users itself.
    const [events, userIds] = await inTurn(() =>
      Promise.all([takePendingEvents(tx, input.eventIds), lockPendingEventUsers(tx, input.eventIds, input.evaluateUserIds)]),
    );
    // The users, their walks (a user id with no row has no walk either) and
    // their platforms' chain stamps in one round trip; walks and chains kept
    // from earlier batches are not read again.
    const [batchWalks, chainStamps] = await Promise.all([
      loadBatchWalks(tx, userIds, input.evaluateUserIds, walkCache),
      loadChainStamps(tx, userIds),
    ]);
    const { users } = batchWalks;
    const claimedIds = events.map((e) => e.id);
    const chains = await (deps.chainCache ?? new ChainCache()).chainsOf(tx, chainStamps);

    const walks = new Map<string, StoredWalk>();
    for (const userWalks of batchWalks.walksByUser.values()) for (const [key, walk] of userWalks) walks.set(key, walk);
    const view: BatchView = {
      users: new Map(users.map((u) => [u.id, u])),
      chainsByPlatform: groupBy(chains, (c) => c.chain.platformId),
      walks,
      processedOnly: batchWalks.processedOnly,
    };
    // §4 reversed on the loaded users (the lookup above only found candidates).
    const usersOfSource = usersBySource(users);
    const eventsByUser = new Map<ServiceUserId, StoredEvent[]>();
    for (const event of events) {
      for (const userId of usersOfSource.get(sourceKey(event)) ?? []) appendTo(eventsByUser, userId, event);
    }
    const requested = new Set(input.evaluateUserIds);
    const evaluateIds = new Set(users.filter((u) => requested.has(u.id)).map((u) => u.id));
    const { advanced, recompute, absorbed } = advanceWalks(view, eventsByUser, evaluateIds);
    const recomputedKeys = new Set<string>();
    if (recompute.length > 0) {
      const holds = await loadClaimHolds(tx, [...new Set(recompute.map((walk) => walk.userId))]);
      // A redo reads only its window of the history; the rare one that needs more goes round again, whole.
      for (let walks = recompute; walks.length > 0; ) {
        const history = await loadCountingHistory(tx, historyNeeds(view, walks), { claimedIds });
        const { states, unbounded } = recomputeWalks(view, walks, history, holds);
        for (const [key, state] of states) {
          advanced.set(key, state);
          recomputedKeys.add(key);
        }
        walks = unbounded;
      }
    }

    const chainsById = new Map(chains.map((c) => [c.chain.id, c]));
    await admitNewUsers(tx, view, advanced, chainsById);
    const writes = diffWalks(view, advanced, chainsById);
    // Statements that do not wait on each other's answers go together: the
    // connection pipelines them, so the batch pays one round trip for each
    // group, not each statement (on shared cores a round trip to another
    // process costs more than most of these statements). The server runs them
    // in the order sent; only the chain summaries depend on that, reading the
    // stamps stampUsers wrote just before (so the common batch, with no claim
    // to re-mark and nobody listening, writes in one round trip).
    //
    // Who listens for webhooks is read here, after every event the facts come
    // from (a recompute's history included): an event sent after an endpoint's
    // creation is then announced to it (READ COMMITTED). Offering every fact to
    // the outbox insert instead would make Postgres build and discard every
    // batch's facts when nobody listens, the common case.
    const [stamps, , , , recipients, writerVersion, , marks, autoClaims, standingsQueued] = await Promise.all([
      stampUsers(tx, [...writes.changedChains.keys()]),
      saveCompletions(tx, writes.completions),
      deleteCompletions(tx, writes.undone),
      deletePending(tx, claimedIds),
      providersListening(tx, [...providersOf(chains)]),
      walkCache && writes.progress.length > 0 ? writerWalksVersion(tx) : null,
      saveChainProgress(tx, writes.progress),
      markClaimsReversed(tx, writes.standings),
      // The rewards of auto-claim chains earned here are stored with the progress that earned them (§18.5).
      insertAutoClaims(tx, earnedAutoClaims(view, writes, chainsById)),
      // Leaderboards (§19): a chain completed, moved or undone (chains_completed), a points claim reversed or standing again (points).
      queueRefresh(tx, standingsMovedBy(writes)),
    ]);
    if (walkCache) keepWalks = () => keepBatchWalks(walkCache, batchWalks, writes, advanced, recomputedKeys, writerVersion ?? 0n);
    for (const row of writes.progress) if (row.takesStamp) row.changedUs = stamps.get(row.userId) ?? null;
    // A claim marked reversed debits the points it credited, one whose mark cleared credits them back (§18.3).
    const [reversedClaims] = await Promise.all([findClaimsByIds(tx, marks.reversed), settleClaimMarks(tx, marks)]);
    // The outbox, in the transaction of the facts it announces; no statement when nobody listens.
    const webhookMessageIds = await insertMessages(tx, [
      ...batchFacts(view, writes, chainsById, recipients),
      ...reversedClaims.map((claim) => reversalFact(view.users.get(claim.userId)!, claim)),
    ]);
    // What live streams are told of counted, summed and streak tasks (docs/quest-language.md); nothing for other chains.
    const talliesByUser = new Map<ServiceUserId, TallyNotice[]>();
    for (const row of writes.progress) {
      if (row.tallies === null) continue;
      for (const notice of tallyNotices(
        row.chainId,
        row.runStartUs === ONLY_RUN ? null : formatIsoMillis(row.runStartUs),
        row.tallies,
      ))
        appendTo(talliesByUser, row.userId, notice);
    }

    return {
      matched: events.map((e) => ({ id: e.id, receivedUs: e.receivedUs })),
      evaluated: [...evaluateIds],
      changes: [...writes.changedChains].map(([userId, chainIds]) => {
        const progress = talliesByUser.get(userId)?.filter((notice) => chainIds.includes(notice.quest_chain_id));
        return { userId, chainIds, changedUs: stamps.get(userId)!, ...(progress?.length ? { progress } : {}) };
      }),
      recomputed: recompute.length,
      absorbed,
      webhookMessageIds,
      autoClaims,
      standingsQueued,
      walksReused: batchWalks.reused,
      walksLoaded: batchWalks.loaded,
    };
  });
  keepWalks?.();
  return outcome;
}
