import { LRUCache } from 'lru-cache';
import { type ChainStamp, loadMatchingChainsByIds, type MatchingChain } from '../../shared/db/chain-store.js';
import type { Executor } from '../../shared/db/client.js';

// Far more chains than a worker's platforms hold; an entry is a few kilobytes.
const CHAINS_KEPT = 10_000;

/** A kept chain and the stamp it was read at (status and updated_at: admitted_users is taken from each batch's stamps). */
interface KeptChain {
  stamp: string;
  chain: MatchingChain;
}

const stampOf = (chain: Pick<ChainStamp, 'status' | 'updatedAt'>) => `${chain.status} ${chain.updatedAt}`;

/**
 * The chains a worker keeps between batches (docs/matching.md, "Chains kept
 * between batches"). Every batch needs the chains of its users' platforms;
 * reading them whole (each chain with its tasks, aggregated by Postgres and
 * parsed here) cost both sides more than most of the batch's statements. A
 * batch reads their stamps instead (loadChainStamps, in the round trip that
 * reads its users) and only a chain whose stamp moved, or that is not kept, is
 * read whole. Bounded by chains held (least recently used go first).
 */
export class ChainCache {
  private readonly chains = new LRUCache<string, KeptChain>({ max: CHAINS_KEPT });

  /**
   * The batch's chains, in the stamps' order: kept ones whose stamp holds,
   * the rest read now (one statement, none when every chain is kept), each
   * with the places taken that its stamp says. A chain gone since its stamp
   * was read is left out, as a read after its deletion would.
   */
  async chainsOf(tx: Executor, stamps: readonly ChainStamp[]): Promise<MatchingChain[]> {
    const stale = stamps.filter((stamp) => this.chains.get(stamp.id)?.stamp !== stampOf(stamp)).map((stamp) => stamp.id);
    for (const chain of await loadMatchingChainsByIds(tx, stale))
      this.chains.set(chain.chain.id, { stamp: stampOf(chain.chain), chain });
    return stamps.flatMap((stamp) => {
      const kept = this.chains.get(stamp.id)?.chain;
      if (kept === undefined) return [];
      if (kept.chain.admittedUsers === stamp.admittedUsers) return [kept];
      // Kept objects are shared by batches in flight: a new one, never a change in place.
      const chain = { ...kept, chain: { ...kept.chain, admittedUsers: stamp.admittedUsers } };
      this.chains.set(stamp.id, { stamp: stampOf(chain.chain), chain });
      return [chain];
    });
  }
}
