import type { SenderUserId } from '../../../shared/domain/ids.js';
import { listPlatformUserLinks } from '../../../shared/db/link-store.js';
import type { CoreDeps } from '../../deps.js';
import { pageOrRefuse, type Page, type PageRequest } from '../page.js';

export interface AccountLinkView {
  linkId: string;
  advertiserId: string;
  advertiserUserId: SenderUserId;
  linkedUs: bigint;
}

/**
 * A page of the links of one of the calling platform's users, oldest first. An unknown
 * user, or one of another platform, has no links here (no leak).
 */
export async function listAccountLinks(
  deps: Pick<CoreDeps, 'readDb'>,
  input: { platformId: string; platformUserId: SenderUserId; page: PageRequest },
): Promise<Page<AccountLinkView>> {
  // From the read replica when there is one: a link completed a moment ago may be missing for its lag.
  const links = pageOrRefuse(await listPlatformUserLinks(deps.readDb, input.platformId, input.platformUserId, input.page), input.page);
  return {
    items: links.items.map((link) => ({
      linkId: link.id,
      advertiserId: link.advertiserId,
      advertiserUserId: link.advertiserUserId,
      linkedUs: link.linkedAt,
    })),
    hasMore: links.hasMore,
  };
}
