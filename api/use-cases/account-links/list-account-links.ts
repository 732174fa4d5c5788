import { listPlatformUserLinks } from '../../../shared/db/link-store.js';
import type { AppDeps } from '../../app-env.js';

export interface AccountLinkView {
  linkId: string;
  advertiserId: string;
  advertiserUserId: string;
  linkedUs: bigint;
}

/**
 * The links of one of the calling platform's users, oldest first. An unknown
 * user, or one of another platform, has no links here (no leak).
 */
export async function listAccountLinks(
  deps: Pick<AppDeps, 'db'>,
  input: { platformId: string; platformUserId: string },
): Promise<AccountLinkView[]> {
  const links = await listPlatformUserLinks(deps.db, input.platformId, input.platformUserId);
  return links.map((link) => ({
    linkId: link.id,
    advertiserId: link.advertiserId,
    advertiserUserId: link.advertiserUserId,
    linkedUs: link.linkedAt,
  }));
}
