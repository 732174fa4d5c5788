import type { Command } from 'commander';
import { z } from 'zod';
import { pointsPageQuery, pointsUserParams, toPointsResponse } from '../api/routes/points/schema.js';
import { readPoints } from '../core/points/read-points.js';
import { senderUserId } from '../shared/domain/ids.js';
import { MODES, providerIdForMode } from '../shared/domain/test-mode.js';
import { parseInput, runCommand } from './context.js';

type PointsView = ReturnType<typeof toPointsResponse>;

const pointsOptions = z.object({ platform: z.uuid(), mode: z.enum(MODES) });

/** The balance line and the ledger page as aligned columns, newest first. */
function pointsLines(view: PointsView): string[] {
  const rows = view.entries.map((entry) => [
    entry.created_at,
    entry.kind,
    String(entry.amount),
    String(entry.balance_after),
    entry.claim_id ?? entry.spend_id ?? '',
    entry.quest_chain_id ?? '',
  ]);
  const header = ['at', 'kind', 'amount', 'balance', 'claim or spend', 'quest chain'];
  const widths = header.map((_, column) => Math.max(header[column]!.length, ...rows.map((row) => row[column]!.length)));
  const numeric = (column: number) => column === 2 || column === 3;
  const line = (row: string[]) =>
    row
      .map((cell, column) => (numeric(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [
    `balance ${view.balance}  (earned ${view.earned}, spent ${view.spent}, reversed ${view.reversed})`,
    ...(rows.length === 0 ? ['no entries'] : ['', line(header), ...rows.map(line)]),
    ...(view.has_more ? ['', `more: --starting-after ${view.next_cursor}`] : []),
  ];
}

/** `quest-chains points <user>`: a user's points as GET /v1/users/{platformUserId}/points answers their platform (§18). */
export function registerPointsCommand(program: Command, json: () => boolean) {
  program
    .command('points <platform_user_id>')
    .description("a user's points: balance, earned, spent, reversed and the ledger, newest first (as GET /v1/users/{id}/points)")
    .requiredOption('--platform <id>', 'the platform that registered the user')
    .option('--mode <mode>', "live or test: which of the platform's users (default live)", 'live')
    .option('--limit <n>', 'entries per page, 1 to 100 (default 20)')
    .option('--starting-after <entry id>', "the page after this entry (the previous page's next_cursor)")
    .action((platformUserId: string, options: { platform: string; mode: string; limit?: string; startingAfter?: string }) =>
      runCommand(json(), async ({ db, out }) => {
        const { platformUserId: user } = parseInput(pointsUserParams, { platformUserId });
        const { platform, mode } = parseInput(pointsOptions, { platform: options.platform, mode: options.mode });
        const page = parseInput(pointsPageQuery, {
          ...(options.limit === undefined ? {} : { limit: options.limit }),
          ...(options.startingAfter === undefined ? {} : { starting_after: options.startingAfter }),
        });
        const view = toPointsResponse(
          await readPoints(
            { db },
            {
              // A test user belongs to the platform's test twin (docs/test-mode.md).
              platformId: providerIdForMode(platform, mode === 'live'),
              platformUserId: senderUserId(user),
              page: { limit: page.limit, startingAfter: page.starting_after },
            },
          ),
        );
        out.result(view, () => pointsLines(view));
      }),
    );
}
