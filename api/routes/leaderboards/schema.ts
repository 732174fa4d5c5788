import { z } from '@hono/zod-openapi';
import type { StandingsAnswer } from '../../../core/leaderboards/read-standings.js';
import type { Page } from '../../../core/page.js';
import type { Leaderboard } from '../../../shared/db/leaderboard-store.js';
import { DEFAULT_STANDINGS_LIMIT, MAX_STANDINGS_LIMIT } from '../../../shared/domain/leaderboards.js';
import { formatIsoMillis } from '../../../shared/domain/timestamp.js';
import { storableString } from '../../../shared/validation/json-value.js';
import { successEnvelope } from '../../http/envelope.js';
import { hasMoreField, pageQueryShape } from '../../http/pagination.js';
import {
  EXAMPLE_LEADERBOARD,
  isoMillis,
  isoMillisOrNull,
  leaderboardShape,
  periodStartQueryParam,
  toLeaderboardResponse,
} from '../shared-shapes.js';

// A platform's leaderboards (§19): its list, and one board's standings.

const leaderboardSchema = z.object(leaderboardShape).openapi('Leaderboard', { example: EXAMPLE_LEADERBOARD });

export const leaderboardParams = z.object({
  id: z.uuid().openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE_LEADERBOARD.id }),
});

export const leaderboardListQuery = z.object(pageQueryShape(z.uuid(), "the last board's `id`"));

export const standingsQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_STANDINGS_LIMIT)
    .default(DEFAULT_STANDINGS_LIMIT)
    .openapi({
      param: { name: 'limit', in: 'query' },
      description: `Entries to answer, 1 to ${MAX_STANDINGS_LIMIT} (default ${DEFAULT_STANDINGS_LIMIT}).`,
      example: DEFAULT_STANDINGS_LIMIT,
    }),
  around: storableString()
    .min(1)
    .max(255)
    .optional()
    .openapi({
      param: { name: 'around', in: 'query' },
      description:
        "A platform_user_id: the entries around that user's rank (the user in the middle), and `user` their rank and score. Absent: the top entries.",
      example: 'user-123',
    }),
  period_start: periodStartQueryParam(
    'The period to read, as its period_start in an earlier answer (a past period answers its final standings). Absent: the current period.',
  ),
});

const entrySchema = z
  .object({
    rank: z.number().int().openapi({ description: '1, 2, 3, … with no ties and no gaps.' }),
    platform_user_id: z.string(),
    score: z.number(),
  })
  .openapi('LeaderboardEntry');

export const standingsSchema = z
  .object({
    leaderboard: leaderboardSchema,
    period_start: isoMillis(),
    period_end: isoMillis().nullable().openapi({ description: 'Null: the period has no end (a board that runs on).' }),
    final: z.boolean().openapi({
      description: 'True once the period is over and its standings are stored for good (they keep the top `size`).',
    }),
    entries: z.array(entrySchema).openapi({
      description:
        'By score (highest first), then whoever reached that score first, then platform_user_id (by bytes). Users without a positive score are not ranked.',
    }),
    user: z
      .object({ rank: z.number().int(), score: z.number() })
      .nullable()
      .openapi({ description: "The `around` user's standing; null when not asked, or when the user is not ranked." }),
  })
  .openapi('LeaderboardStandings', {
    example: {
      leaderboard: EXAMPLE_LEADERBOARD,
      period_start: '2026-01-04T23:00:00.000Z',
      period_end: '2026-01-11T23:00:00.000Z',
      final: false,
      entries: [
        { rank: 41, platform_user_id: 'user-77', score: 1200 },
        { rank: 42, platform_user_id: 'user-123', score: 1150 },
        { rank: 43, platform_user_id: 'user-9', score: 1150 },
      ],
      user: { rank: 42, score: 1150 },
    },
  });

export const leaderboardListResponseSchema = successEnvelope(
  z.object({ leaderboards: z.array(leaderboardSchema), has_more: hasMoreField() }),
);
export const standingsResponseSchema = successEnvelope(standingsSchema);

export const toLeaderboardListResponse = (page: Page<Leaderboard>) => ({
  leaderboards: page.items.map(toLeaderboardResponse),
  has_more: page.hasMore,
});

export const toStandingsResponse = (answer: StandingsAnswer): z.infer<typeof standingsSchema> => ({
  leaderboard: toLeaderboardResponse(answer.board),
  period_start: formatIsoMillis(answer.period.startUs),
  period_end: isoMillisOrNull(answer.period.endUs),
  final: answer.final,
  entries: answer.entries.map((entry) => ({
    rank: entry.rank,
    platform_user_id: entry.platformUserId,
    score: entry.score,
  })),
  user: answer.user ? { rank: answer.user.rank, score: answer.user.score } : null,
});
