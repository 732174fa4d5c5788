import { z } from '@hono/zod-openapi';
import type { CreateLeaderboardInput } from '../../../../core/leaderboards/boards.js';
import type { Page } from '../../../../core/page.js';
import type { Leaderboard } from '../../../../shared/db/leaderboard-store.js';
import { parseOffsetTimestamp } from '../../../../shared/domain/chain-timestamp.js';
import {
  DEFAULT_LEADERBOARD_SIZE,
  LEADERBOARD_METRICS,
  leaderboardIssues,
  MAX_LEADERBOARD_NAME_LENGTH,
  MAX_LEADERBOARD_SIZE,
  MIN_LEADERBOARD_SIZE,
  RECURRENCE_UNITS,
} from '../../../../shared/domain/leaderboards.js';
import { MODES, shownProviderId } from '../../../../shared/domain/test-mode.js';
import { storableString } from '../../../../shared/validation/json-value.js';
import { successEnvelope } from '../../../http/envelope.js';
import { hasMoreField, pageQueryShape } from '../../../http/pagination.js';
import { EXAMPLE_LEADERBOARD, isoMillis, isoMillisOrNull, leaderboardShape, toLeaderboardResponse } from '../../shared-shapes.js';
import { offsetTimestamp, timezone } from '../quest-chains/create-schema.js';

// The operator's leaderboards (§19): the create body, which the CLI parses too, and the admin answers.

export const createLeaderboardSchema = z
  .strictObject({
    platform_id: z.uuid(),
    name: storableString().trim().min(1).max(MAX_LEADERBOARD_NAME_LENGTH),
    metric: z.enum(LEADERBOARD_METRICS).openapi({
      description:
        '`points`: points credited in the period less their reversals (spends do not lower it); `chains_completed`: chains completed in the period (docs/leaderboards.md).',
    }),
    start_date: offsetTimestamp(),
    end_date: offsetTimestamp().nullish().openapi({ description: 'After start_date; absent or null: the board runs on.' }),
    recurrence: z
      .strictObject({
        every: z.enum(RECURRENCE_UNITS),
        timezone: timezone().optional().openapi({ description: 'IANA time zone of the calendar periods; default UTC.' }),
      })
      .nullish()
      .openapi('LeaderboardRecurrenceInput', {
        description:
          'A repeating board: each calendar day, week (from Monday) or month inside [start_date, end_date) is a period that starts from zero; past periods stay readable with their final standings.',
      }),
    size: z
      .number()
      .int()
      .min(MIN_LEADERBOARD_SIZE)
      .max(MAX_LEADERBOARD_SIZE)
      .optional()
      .openapi({
        description: `Ranked entries a finished period keeps as its final standings; default ${DEFAULT_LEADERBOARD_SIZE}.`,
      }),
    mode: z.enum(MODES).optional().openapi({
      description:
        "Default `live`. A `test` board ranks the platform's test-mode users for its test credentials (docs/test-mode.md).",
    }),
  })
  .superRefine((body, context) => {
    const start = parseOffsetTimestamp(body.start_date);
    const end = body.end_date == null ? null : parseOffsetTimestamp(body.end_date);
    // Each date's own shape is checked above; the rule between them only when both are dates.
    if (start === null || (body.end_date != null && end === null)) return;
    for (const issue of leaderboardIssues({ startDate: start, endDate: end, recurrence: null, size: DEFAULT_LEADERBOARD_SIZE }))
      context.addIssue({ code: 'custom', path: [...issue.path], message: issue.message });
  })
  .openapi('CreateLeaderboard', {
    example: {
      platform_id: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      name: 'Top traders of the week',
      metric: 'points',
      start_date: '2026-01-05T00:00:00+01:00',
      recurrence: { every: 'week', timezone: 'Europe/Berlin' },
      size: 1000,
    },
  });

export type CreateLeaderboardBody = z.infer<typeof createLeaderboardSchema>;

/** A validated create body in the use-case's terms (epoch microseconds, stated defaults). */
export function toCreateLeaderboardInput(body: CreateLeaderboardBody): CreateLeaderboardInput {
  return {
    platformId: body.platform_id,
    mode: body.mode ?? 'live',
    name: body.name,
    metric: body.metric,
    startUs: parseOffsetTimestamp(body.start_date)!,
    endUs: body.end_date == null ? null : parseOffsetTimestamp(body.end_date)!,
    recurrence: body.recurrence ? { every: body.recurrence.every, timezone: body.recurrence.timezone ?? 'UTC' } : null,
    size: body.size ?? DEFAULT_LEADERBOARD_SIZE,
  };
}

export const leaderboardIdParams = z.object({
  id: z.uuid().openapi({ param: { name: 'id', in: 'path' }, example: EXAMPLE_LEADERBOARD.id }),
});

export const leaderboardListQuery = z.object({
  platform_id: z
    .uuid()
    .optional()
    .openapi({
      param: { name: 'platform_id', in: 'query' },
      description: "Only this platform's boards (both modes).",
      example: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
    }),
  ...pageQueryShape(z.uuid(), "the last board's `id`"),
});

export const adminLeaderboardSchema = z
  .object({
    ...leaderboardShape,
    platform_id: z.uuid(),
    mode: z.enum(MODES),
    archived_at: isoMillis().nullable(),
  })
  .openapi('AdminLeaderboard', {
    example: {
      ...EXAMPLE_LEADERBOARD,
      platform_id: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
      mode: 'live',
      archived_at: null,
    },
  });

export const adminLeaderboardResponseSchema = successEnvelope(adminLeaderboardSchema);
export const adminLeaderboardListResponseSchema = successEnvelope(
  z.object({ leaderboards: z.array(adminLeaderboardSchema), has_more: hasMoreField() }),
);

export const toAdminLeaderboardResponse = (board: Leaderboard): z.infer<typeof adminLeaderboardSchema> => ({
  ...toLeaderboardResponse(board),
  // A test board is stored with the twin's id; the operator is shown the platform's own (docs/test-mode.md).
  platform_id: shownProviderId(board.platformId, board.mode),
  mode: board.mode,
  archived_at: isoMillisOrNull(board.archivedUs),
});

export const toAdminLeaderboardListResponse = (page: Page<Leaderboard>) => ({
  leaderboards: page.items.map(toAdminLeaderboardResponse),
  has_more: page.hasMore,
});
