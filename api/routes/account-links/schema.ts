import { z } from '@hono/zod-openapi';
import type { CompletedLink } from '../../../core/account-links/complete-account-link.js';
import type { AccountLinkView } from '../../../core/account-links/list-account-links.js';
import type { StartedLink } from '../../../core/account-links/start-account-link.js';
import type { Page } from '../../../core/page.js';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import { storableString } from '../../../shared/validation/json-value.js';
import { successEnvelope } from '../../http/envelope.js';
import { hasMoreField, pageQuerySchema } from '../../http/pagination.js';
import { isoMillis } from '../shared-shapes.js';

export const startLinkSchema = z
  .strictObject({
    platform_user_id: storableString().min(1).max(255).openapi({ description: 'Your registered user.', example: 'user-123' }),
    advertiser_id: z.uuid().openapi({ description: 'The advertiser the user connects to (an active advertiser).' }),
  })
  .openapi('StartAccountLink', {
    example: { platform_user_id: 'user-123', advertiser_id: '7a1b2c3d-5e6f-4a8b-9c0d-1e2f3a4b5c6d' },
  });

const startedLinkSchema = z
  .object({
    connection_token: z
      .string()
      .openapi({ description: "Single-use; pass it through the advertiser's OAuth `state`.", example: 'lt_…' }),
    expires_at: isoMillis(),
  })
  .openapi('StartedAccountLink', {
    example: { connection_token: 'lt_ckerwl5HSiiUTzcCBa-TAuqK3VxNJaxZxJP-MwJ4Azs', expires_at: '2026-01-02T03:20:00.000Z' },
  });

export const completeLinkSchema = z
  .strictObject({
    connection_token: storableString().min(1).max(512).openapi({ description: 'The token the platform handed you in `state`.' }),
    advertiser_user_id: storableString()
      .min(1)
      .max(255)
      .openapi({ description: "The user's id in your system (as in your events' user_id)." }),
  })
  .openapi('CompleteAccountLink', {
    example: { connection_token: 'lt_ckerwl5HSiiUTzcCBa-TAuqK3VxNJaxZxJP-MwJ4Azs', advertiser_user_id: 'adv-user-42' },
  });

const completedLinkSchema = z
  .object({
    link_id: z.uuid(),
    advertiser_user_id: z.string(),
    linked_at: isoMillis(),
    already_linked: z
      .boolean()
      .openapi({ description: 'True for a retry, or when the two accounts were already linked to each other.' }),
  })
  .openapi('CompletedAccountLink', {
    example: {
      link_id: 'f5a6b7c8-d9e0-4f1a-8b2c-4d5e6f7a8b9c',
      advertiser_user_id: 'adv-user-42',
      linked_at: '2026-01-02T03:10:00.000Z',
      already_linked: false,
    },
  });

const accountLinkSchema = z
  .object({ link_id: z.uuid(), advertiser_id: z.uuid(), advertiser_user_id: z.string(), linked_at: isoMillis() })
  .openapi('AccountLink', {
    example: {
      link_id: 'f5a6b7c8-d9e0-4f1a-8b2c-4d5e6f7a8b9c',
      advertiser_id: '7a1b2c3d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
      advertiser_user_id: 'adv-user-42',
      linked_at: '2026-01-02T03:10:00.000Z',
    },
  });

export const startLinkResponseSchema = successEnvelope(startedLinkSchema);
export const completeLinkResponseSchema = successEnvelope(completedLinkSchema);
export const listLinksResponseSchema = successEnvelope(z.object({ links: z.array(accountLinkSchema), has_more: hasMoreField() }));

export const linksPageQuery = pageQuerySchema(z.uuid(), "the last link's `link_id`");

export const toStartedLinkResponse = (started: StartedLink): z.infer<typeof startLinkResponseSchema>['data'] => ({
  connection_token: started.connectionToken,
  expires_at: formatIsoMillis(started.expiresUs),
});

export const toCompletedLinkResponse = (link: CompletedLink): z.infer<typeof completeLinkResponseSchema>['data'] => ({
  link_id: link.linkId,
  advertiser_user_id: link.advertiserUserId,
  linked_at: formatIsoMillis(link.linkedUs),
  already_linked: link.alreadyLinked,
});

export const toLinksResponse = (links: Page<AccountLinkView>): z.infer<typeof listLinksResponseSchema>['data'] => ({
  has_more: links.hasMore,
  links: links.items.map((link) => ({
    link_id: link.linkId,
    advertiser_id: link.advertiserId,
    advertiser_user_id: link.advertiserUserId,
    linked_at: formatIsoMillis(link.linkedUs),
  })),
});
