import { z } from '@hono/zod-openapi';
import type { PointsOverview } from '../../../core/points/read-points.js';
import type { SpentPoints } from '../../../core/points/spend-points.js';
import type { PointEntry } from '../../../shared/db/points-store.js';
import { MAX_POINTS_AMOUNT } from '../../../shared/domain/points.js';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import { storableString } from '../../../shared/validation/json-value.js';
import { successEnvelope } from '../../http/envelope.js';
import { hasMoreField } from '../../http/pagination.js';
import { isoMillis, platformUserIdParams } from '../shared-shapes.js';

// The points routes' shapes (product rules §18, docs/points.md).

/** The user of both routes, `{platformUserId}` as every per-user platform route names it (the CLI checks its argument with it). */
export const pointsUserParams = platformUserIdParams;

/** §18.6: a ledger page is 1 to 100 entries, 20 by default. */
const DEFAULT_POINTS_PAGE = 20;
const MAX_POINTS_PAGE = 100;
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const MAX_SPEND_REASON_LENGTH = 500;

export const pointsPageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_POINTS_PAGE)
    .default(DEFAULT_POINTS_PAGE)
    .openapi({
      param: { name: 'limit', in: 'query' },
      description: `Entries per page, 1 to ${MAX_POINTS_PAGE} (default ${DEFAULT_POINTS_PAGE}).`,
      example: DEFAULT_POINTS_PAGE,
    }),
  starting_after: z
    .uuid()
    .optional()
    .openapi({
      param: { name: 'starting_after', in: 'query' },
      description: "Continue after this entry: the previous page's `next_cursor` (its last entry's id). Omit for the first page.",
    }),
});

const points = (description: string) => z.number().int().openapi({ description });

const pointEntrySchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(['claim', 'spend', 'reversal']).openapi({
      description:
        '`claim`: a points reward claimed (credit); `spend`: a spend (debit); `reversal`: a claim marked reversed (debit of its credit), or its mark cleared (the credit back).',
    }),
    amount: points('Signed: positive credits, negative debits.'),
    balance_after: points('The balance once this entry was written.'),
    claim_id: z.uuid().nullable().openapi({ description: '`claim` and `reversal`: the claim.' }),
    spend_id: z.uuid().nullable().openapi({ description: '`spend`: the spend.' }),
    quest_chain_id: z.uuid().nullable().openapi({ description: "`claim` and `reversal`: the claim's chain." }),
    created_at: isoMillis(),
  })
  .openapi('PointEntry');

const pointsSchema = z
  .object({
    balance: points(
      'earned - spent - reversed: the sum of every entry. Below zero after a reversal; spends are refused until it covers them.',
    ),
    earned: points('What claims of points rewards credited.'),
    spent: points('What spends took.'),
    reversed: points('What reversals hold back now: debits of claims marked reversed, less the credits back of marks cleared.'),
    entries: z.array(pointEntrySchema).openapi({ description: 'Newest first.' }),
    has_more: hasMoreField(),
    next_cursor: z
      .uuid()
      .nullable()
      .openapi({ description: "While `has_more`: the `starting_after` of the next page (this page's last entry); else null." }),
  })
  .openapi('Points', {
    example: {
      balance: 70,
      earned: 100,
      spent: 30,
      reversed: 0,
      entries: [
        {
          id: 'a7b8c9d0-e1f2-4a3b-8c4d-5e6f7a8b9c0d',
          kind: 'spend',
          amount: -30,
          balance_after: 70,
          claim_id: null,
          spend_id: 'b8c9d0e1-f2a3-4b4c-9d5e-6f7a8b9c0d1e',
          quest_chain_id: null,
          created_at: '2026-01-03T10:00:00.000Z',
        },
        {
          id: 'c9d0e1f2-a3b4-4c5d-8e6f-7a8b9c0d1e2f',
          kind: 'claim',
          amount: 100,
          balance_after: 100,
          claim_id: 'e4f5a6b7-c8d9-4e0f-9a1b-3c4d5e6f7a8b',
          spend_id: null,
          quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
          created_at: '2026-01-02T03:05:00.000Z',
        },
      ],
      has_more: false,
      next_cursor: null,
    },
  });

export const pointsResponseSchema = successEnvelope(pointsSchema);

export const spendPointsSchema = z
  .strictObject({
    amount: z
      .number()
      .int()
      .min(1)
      .max(MAX_POINTS_AMOUNT)
      .openapi({ description: 'Whole points to take, more than 0.', example: 30 }),
    idempotency_key: storableString().min(1).max(MAX_IDEMPOTENCY_KEY_LENGTH).openapi({
      description:
        'Names this spend: the same key again answers the first spend (`already_spent: true`); with another amount, 409 `idempotency_key_reused`.',
      example: 'order-8812',
    }),
    reason: storableString()
      .max(MAX_SPEND_REASON_LENGTH)
      .nullish()
      .openapi({ description: 'Free text kept with the spend.', example: 'Shop: sticker pack' }),
  })
  .openapi('SpendPoints', { example: { amount: 30, idempotency_key: 'order-8812', reason: 'Shop: sticker pack' } });

const spendResultSchema = z
  .object({
    spend_id: z.uuid(),
    amount: points('The points taken.'),
    balance: points('The balance this spend left (a repeat of its key answers the same).'),
    already_spent: z
      .boolean()
      .openapi({ description: 'True when this key had been used before: the first spend is answered, nothing more is taken.' }),
  })
  .openapi('PointSpend', {
    example: { spend_id: 'b8c9d0e1-f2a3-4b4c-9d5e-6f7a8b9c0d1e', amount: 30, balance: 70, already_spent: false },
  });

export const spendResponseSchema = successEnvelope(spendResultSchema);

const toEntryResponse = (entry: PointEntry) => ({
  id: entry.id,
  kind: entry.kind,
  amount: Number(entry.amount),
  balance_after: Number(entry.balanceAfter),
  claim_id: entry.claimId,
  spend_id: entry.spendId,
  quest_chain_id: entry.questChainId,
  created_at: formatIsoMillis(entry.createdUs),
});

export const toPointsResponse = (overview: PointsOverview) => ({
  balance: Number(overview.balance),
  earned: Number(overview.earned),
  spent: Number(overview.spent),
  reversed: Number(overview.reversed),
  entries: overview.entries.map(toEntryResponse),
  has_more: overview.hasMore,
  next_cursor: overview.hasMore ? (overview.entries.at(-1)?.id ?? null) : null,
});

export const toSpendResponse = (spend: SpentPoints) => ({
  spend_id: spend.spendId,
  amount: Number(spend.amount),
  balance: Number(spend.balanceAfter),
  already_spent: spend.alreadySpent,
});
