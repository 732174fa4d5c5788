import { z } from '@hono/zod-openapi';
import type { Explanation } from '../../../../core/quest-chains/explain-progress.js';
import type { Verdict } from '../../../../shared/domain/explain.js';
import { fromMicros } from '../../../../shared/domain/tally.js';
import { formatIsoMillis } from '../../../../shared/domain/timestamp.js';
import { successEnvelope } from '../../../http/envelope.js';
import { isoMillis, isoMillisOrNull, periodStartQueryParam, platformUserIdParams } from '../../shared-shapes.js';

// Explain (§11): why each task of a chain is or is not completed for a user.

export const explainParams = z.object({
  questChainId: z
    .uuid()
    .openapi({ param: { name: 'questChainId', in: 'path' }, example: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70' }),
  platformUserId: platformUserIdParams.shape.platformUserId,
});

export const explainQuery = z.object({
  period_start: periodStartQueryParam(
    'A repeating chain: the run to explain, as its period_start; absent: the current run. Refused for a chain that does not repeat (docs/quest-language.md).',
  ),
});

const VERDICTS = [
  'outside_chain_window',
  'before_task_window',
  'after_task_window',
  'amount_below_minimum',
  'amount_missing',
  'currency_mismatch',
  'waiting_for_earlier_task',
  'used_by_other_task',
  'after_completion',
  'not_yet_processed',
  'reversed',
  'cap_reached',
  'counted',
  'streak_broken',
  'outside_period',
] as const satisfies readonly Verdict[];

const eventSource = () =>
  z
    .enum(['platform', 'advertiser'])
    .openapi({ description: "Sent by the chain's platform, or by its advertiser about the id linked to the user." });

const explainCandidateSchema = z
  .object({
    event_id: z.uuid(),
    timestamp: isoMillis(),
    source: eventSource(),
    amount: z.number().nullable(),
    currency: z.string().nullable(),
    verdict: z.enum(VERDICTS).openapi({
      description:
        "Why this event did not complete the task (product rules §11). `counted`: it counted toward this task, which needs more (docs/quest-language.md); `streak_broken`: it counted, and the task's streak started again from it after a period without one; `outside_period`: a repeating chain's event of another run than the one explained.",
    }),
    progress: z
      .object({ count: z.number().int(), total: z.number(), streak: z.number().int() })
      .nullable()
      .openapi({ description: "With `counted` and `streak_broken`: the task's running tally with this event; null otherwise." }),
  })
  .openapi('ExplainCandidate');

const explanationSchema = z
  .object({
    quest_chain_id: z.uuid(),
    user: z.object({ exists: z.boolean() }),
    cap_reached: z.boolean().openapi({
      description:
        "The chain's max_completions places are all taken and the user holds none: none of their events counts in it (verdict cap_reached).",
    }),
    pending_events: z
      .number()
      .int()
      .openapi({ description: "The user's stored events (any type) the matcher has not processed yet: they may still count." }),
    period_start: isoMillis()
      .nullable()
      .openapi({ description: 'A repeating chain: the start of the run explained; null for a chain that does not repeat.' }),
    period_end: isoMillis()
      .nullable()
      .openapi({ description: 'A repeating chain: the end of the run explained (exclusive); null otherwise.' }),
    tasks: z.array(
      z
        .object({
          task_id: z.uuid(),
          sequence_number: z.number().int(),
          user_status: z.enum(['completed', 'available', 'locked']),
          completed_by: z
            .object({ event_id: z.uuid(), event_type: z.string(), timestamp: isoMillis(), source: eventSource() })
            .nullable(),
          candidates: z.array(explainCandidateSchema).openapi({
            description: "Up to 10 of the user's events of the task's type, latest first, without the completing one.",
          }),
        })
        .openapi('ExplainTask'),
    ),
  })
  .openapi('QuestChainExplanation', {
    example: {
      quest_chain_id: 'c41f6f0e-8d2a-4f4b-9e1a-2b3c4d5e6f70',
      user: { exists: true },
      cap_reached: false,
      pending_events: 0,
      period_start: null,
      period_end: null,
      tasks: [
        {
          task_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
          sequence_number: 1,
          user_status: 'completed',
          completed_by: {
            event_id: '0d9f8e7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f',
            event_type: 'kyc',
            timestamp: '2026-01-02T03:00:00.000Z',
            source: 'platform',
          },
          candidates: [],
        },
        {
          task_id: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
          sequence_number: 2,
          user_status: 'available',
          completed_by: null,
          candidates: [
            {
              event_id: '5e4d3c2b-1a09-4f8e-8d7c-6b5a4f3e2d1c',
              timestamp: '2026-01-03T10:00:00.000Z',
              source: 'advertiser',
              amount: 20,
              currency: 'EUR',
              verdict: 'amount_below_minimum',
              progress: null,
            },
            {
              event_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
              timestamp: '2026-01-01T12:00:00.000Z',
              source: 'platform',
              amount: 80,
              currency: 'EUR',
              verdict: 'waiting_for_earlier_task',
              progress: null,
            },
          ],
        },
      ],
    },
  });

export const explanationResponseSchema = successEnvelope(explanationSchema);

export function toExplanationResponse(explanation: Explanation) {
  return {
    quest_chain_id: explanation.definition.chain.id,
    user: { exists: explanation.userExists },
    cap_reached: explanation.capReached,
    pending_events: explanation.pendingEvents,
    period_start: isoMillisOrNull(explanation.run?.startUs ?? null),
    period_end: isoMillisOrNull(explanation.run?.endUs ?? null),
    tasks: explanation.tasks.map(({ task, userStatus, completedBy, candidates }) => ({
      task_id: task.id,
      sequence_number: task.sequenceNumber,
      user_status: userStatus,
      completed_by:
        completedBy === null
          ? null
          : {
              event_id: completedBy.event.id,
              event_type: completedBy.event.eventType,
              timestamp: formatIsoMillis(completedBy.event.occurredUs),
              source: completedBy.source,
            },
      candidates: candidates.map(({ event, source, verdict, tally }) => ({
        event_id: event.id,
        timestamp: formatIsoMillis(event.occurredUs),
        source,
        amount: event.amount,
        currency: event.currency,
        verdict,
        progress: tally === undefined ? null : { count: tally.count, total: fromMicros(tally.totalMicros), streak: tally.streak },
      })),
    })),
  };
}
