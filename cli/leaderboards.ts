import type { Command } from 'commander';
import {
  createLeaderboardSchema,
  leaderboardIdParams,
  leaderboardListQuery,
  toAdminLeaderboardResponse,
  toCreateLeaderboardInput,
} from '../api/routes/admin/leaderboards/schema.js';
import { standingsQuery, toStandingsResponse } from '../api/routes/leaderboards/schema.js';
import {
  archiveLeaderboard,
  createLeaderboard,
  getLeaderboard,
  listAllLeaderboards,
  storedLeaderboards,
} from '../core/leaderboards/boards.js';
import { readStandings } from '../core/leaderboards/read-standings.js';
import { everyItem } from '../core/page.js';
import { parseOffsetTimestamp } from '../shared/domain/chain-timestamp.js';
import { senderUserId } from '../shared/domain/ids.js';
import { StandingsCache } from '../shared/leaderboards/standings-cache.js';
import { createLogger } from '../shared/observability/logger.js';
import { CliInputError, parseInput, runCommand, withQueues } from './context.js';

/**
 * `quest-chains leaderboards …` (docs/leaderboards.md): the admin API's
 * leaderboard routes, and a board's standings as its platform reads them.
 */
type BoardView = ReturnType<typeof toAdminLeaderboardResponse>;

const summary = (board: BoardView) =>
  `${board.id}  ${board.status.padEnd(8)}  ${board.metric.padEnd(16)}  ${board.start_date} .. ${board.end_date ?? 'open'}${
    board.recurrence ? `  every ${board.recurrence.every} (${board.recurrence.timezone})` : ''
  }  ${board.mode}  ${board.name}`;

export function registerLeaderboardCommands(program: Command, json: () => boolean) {
  const leaderboards = program.command('leaderboards').description("a platform's leaderboards of its users");

  leaderboards
    .command('create')
    .description('create a leaderboard (the fields of POST /admin/v1/leaderboards)')
    .requiredOption('--platform <id>', 'the platform whose users it ranks')
    .requiredOption('--name <name>', 'its name')
    .requiredOption('--metric <metric>', 'points or chains_completed')
    .requiredOption('--start <date>', 'start_date, ISO 8601 with an offset')
    .option('--end <date>', 'end_date (default: it runs on)')
    .option('--every <unit>', 'repeat every day, week or month')
    .option('--timezone <zone>', 'the IANA time zone of the repeating periods (default UTC)')
    .option('--size <n>', 'ranked entries a finished period keeps (default 1000)')
    .option('--mode <mode>', 'live (default) or test')
    .action(
      (options: {
        platform: string;
        name: string;
        metric: string;
        start: string;
        end?: string;
        every?: string;
        timezone?: string;
        size?: string;
        mode?: string;
      }) =>
        runCommand(json(), async ({ db, out }) => {
          if (options.timezone !== undefined && options.every === undefined)
            throw new CliInputError('--timezone: only with --every (the time zone of the repeating periods)');
          const body = parseInput(createLeaderboardSchema, {
            platform_id: options.platform,
            name: options.name,
            metric: options.metric,
            start_date: options.start,
            ...(options.end !== undefined ? { end_date: options.end } : {}),
            ...(options.every !== undefined
              ? {
                  recurrence: { every: options.every, ...(options.timezone !== undefined ? { timezone: options.timezone } : {}) },
                }
              : {}),
            ...(options.size !== undefined ? { size: Number(options.size) } : {}),
            ...(options.mode !== undefined ? { mode: options.mode } : {}),
          });
          const view = toAdminLeaderboardResponse(await createLeaderboard({ db }, toCreateLeaderboardInput(body)));
          out.result(view, () => [`created ${summary(view)}`]);
        }),
    );

  leaderboards
    .command('list')
    .description('list leaderboards, newest first')
    .option('--platform <id>', "only this platform's boards (both modes)")
    .action((options: { platform?: string }) =>
      runCommand(json(), async ({ db, out }) => {
        const query = parseInput(leaderboardListQuery, { platform_id: options.platform }, 'platform');
        const boards = await everyItem(
          (page) => listAllLeaderboards({ db }, { platformId: query.platform_id, page }),
          (board) => board.id,
        );
        const views = boards.map(toAdminLeaderboardResponse);
        out.result(views, () => (views.length === 0 ? ['no leaderboards'] : views.map(summary)));
      }),
    );

  leaderboards
    .command('show <id>')
    .description("a board's standings as its platform reads them (GET /v1/leaderboards/{id}); reads Redis too")
    .option('--limit <n>', 'entries, 1 to 100 (default 10)')
    .option('--around <platformUserId>', 'the entries around this user, and their rank')
    .option('--period <start>', 'the period starting there (default: the current one)')
    .action((id: string, options: { limit?: string; around?: string; period?: string }) =>
      runCommand(json(), async ({ db, config, out }) => {
        const params = parseInput(leaderboardIdParams, { id });
        const query = parseInput(standingsQuery, {
          limit: options.limit,
          around: options.around,
          period_start: options.period,
        });
        const board = await getLeaderboard({ db }, { id: params.id });
        if (board.status !== 'active') throw new CliInputError(`${board.id}: the leaderboard is archived; it ranks nothing more`);
        const answer = await withQueues(config, (queues) =>
          readStandings(
            {
              db,
              config,
              standings: new StandingsCache(queues.redis, config.QUEUE_PREFIX),
              webhooks: queues.webhooks,
              leaderboards: storedLeaderboards(db),
              // A log line would break --json's stderr; a Redis failure is answered from Postgres anyway.
              logger: createLogger({ level: 'silent', name: 'cli' }),
            },
            {
              platformId: board.platformId,
              boardId: board.id,
              limit: query.limit,
              around: query.around === undefined ? undefined : senderUserId(query.around),
              periodStartUs: query.period_start === undefined ? undefined : parseOffsetTimestamp(query.period_start)!,
            },
          ),
        );
        const view = toStandingsResponse(answer);
        out.result(view, () => [
          `${view.leaderboard.name} (${view.leaderboard.metric})  ${view.period_start} .. ${view.period_end ?? 'open'}${view.final ? '  final' : ''}`,
          ...(view.entries.length === 0
            ? ['no ranked users']
            : view.entries.map((e) => `${String(e.rank).padStart(6)}  ${String(e.score).padStart(10)}  ${e.platform_user_id}`)),
          ...(query.around === undefined
            ? []
            : [view.user ? `${query.around}: rank ${view.user.rank}, score ${view.user.score}` : `${query.around}: not ranked`]),
        ]);
      }),
    );

  leaderboards
    .command('archive <id>')
    .description('archive a board: it ranks nothing more; its final standings stay')
    .action((id: string) =>
      runCommand(json(), async ({ db, config, out }) => {
        const params = parseInput(leaderboardIdParams, { id });
        const board = await withQueues(config, (queues) =>
          archiveLeaderboard(
            {
              db,
              standings: new StandingsCache(queues.redis, config.QUEUE_PREFIX),
              logger: createLogger({ level: 'silent', name: 'cli' }),
            },
            { id: params.id },
          ),
        );
        const view = toAdminLeaderboardResponse(board);
        out.result(view, () => [`archived ${summary(view)}`]);
      }),
    );
}
