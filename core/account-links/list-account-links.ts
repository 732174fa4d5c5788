import { listPlatformUserLinks } from '../../shared/db/link-store.js';
import type { SenderUserId } from '../../shared/domain/ids.js';
import { providerIdForMode } from '../../shared/domain/test-mode.js';
import type { CoreDeps } from '../deps.js';
import { type Page, type PageRequest, pageOrRefuse } from '../page.js';

export interface AccountLinkView {
  linkId: string;
  /** As the caller knows it: the advertiser's own (live) id, whatever the caller's mode. */
  advertiserId: string;
  advertiserUserId: SenderUserId;
  linkedUs: bigint;
}

/**
 * A page of the links of one of the calling platform's users, oldest first. An unknown
 * user, or one of another platform, has no links here (no leak). `livemode`: the
 * caller's; a test platform's links are to test twins, shown by the ids it knows.
 */
export async function listAccountLinks(
  deps: Pick<CoreDeps, 'readDb'>,
  input: { platformId: string; platformUserId: SenderUserId; livemode: boolean; page: PageRequest },
): Promise<Page<AccountLinkView>> {
  // From the read replica when there is one: a link completed a moment ago may be missing for its lag.
  const links = pageOrRefuse(
    await listPlatformUserLinks(deps.readDb, input.platformId, input.platformUserId, input.page),
    input.page,
  );
  return {
    items: links.items.map((link) => ({
      linkId: link.id,
      advertiserId: providerIdForMode(link.advertiserId, input.livemode),
      advertiserUserId: link.advertiserUserId,
      linkedUs: link.linkedAt,
    })),
    hasMore: links.hasMore,
  };
}
