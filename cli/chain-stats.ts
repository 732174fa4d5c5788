import type { Command } from 'commander';
import { chainIdParams } from '../api/routes/admin/quest-chains/schema.js';
import { toStatsResponse } from '../api/routes/quest-chains/stats/schema.js';
import { readChainStats } from '../core/quest-chains/read-chain-stats.js';
import { durationWithUnit } from '../shared/domain/chain-stats-series.js';
import { parseInput, runCommand } from './context.js';

type StatsView = ReturnType<typeof toStatsResponse>;

const number = (value: number | null) => (value === null ? '-' : value.toLocaleString('en-US', { maximumFractionDigits: 2 }));
const duration = (seconds: number | null) => (seconds === null ? '-' : durationWithUnit(seconds, number));

/** Rows as aligned columns: text left, numbers right (a cell is a number when it was given as one). */
function table(header: string[], rows: (string | number | null)[][]): string[] {
  const cells = [
    header,
    ...rows.map((row) => row.map((cell) => (typeof cell === 'number' || cell === null ? number(cell) : cell))),
  ];
  const numeric = header.map((_, column) => rows.every((row) => typeof row[column] === 'number' || row[column] === null));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  return cells.map((row) =>
    row
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** What the campaign page shows (/admin/campaigns/{id}), as tables. */
function statsTables(view: StatsView): string[] {
  const chain = view.quest_chain;
  return [
    `${chain.name} (${chain.id})  ${chain.status}, ${chain.mode}, ${chain.start_date} .. ${chain.end_date}, days in ${chain.timezone}`,
    '',
    ...table(
      ['funnel', 'users'],
      [
        ['admitted', view.users.admitted],
        ['started', view.users.started],
        ...view.tasks.map((task) => [`task ${task.sequence_number}: ${task.name}`, task.completed_users]),
        ['completed', view.users.completed],
      ],
    ),
    '',
    ...table(
      ['task', 'completed', 'median from joining'],
      view.tasks.map((task) => [
        `${task.sequence_number}. ${task.name}`,
        task.completed_users,
        duration(task.median_seconds_to_complete),
      ]),
    ),
    '',
    ...table(
      ['reward', 'claims', 'value claimed'],
      view.rewards.map((reward) => [
        reward.task_id === null ? `${reward.name} (chain)` : reward.name,
        reward.claims,
        reward.value_claimed,
      ]),
    ),
    ...(view.prizes.length === 0
      ? []
      : [
          '',
          ...table(
            ['prize', 'drawn', 'stock left'],
            view.prizes.map((prize) => [prize.name, prize.drawn, prize.stock_left === null ? 'unlimited' : prize.stock_left]),
          ),
        ]),
    '',
    `budget ${view.budget.budget === null ? 'none' : number(view.budget.budget)}, spent ${number(view.budget.spent)}, left ${view.budget.left === null ? '-' : number(view.budget.left)}`,
    `reversals: ${view.reversals.claims} claim(s) worth ${number(view.reversals.value)}, ${view.reversals.users} user(s) with completions undone`,
    `points paid out: ${number(view.points_paid_out)}`,
    '',
    ...table(
      ['date', 'starts', 'completions', 'claims'],
      view.daily.map((day) => [day.date, day.starts, day.completions, day.claims]),
    ),
  ];
}

export function registerChainStatsCommand(chains: Command, json: () => boolean) {
  chains
    .command('stats <id>')
    .description(
      'how a chain does: funnel, tasks, claims, prizes, budget and the daily series (as GET /admin/v1/quest-chains/{id}/stats)',
    )
    .action((id: string) =>
      runCommand(json(), async ({ db, out }) => {
        const params = parseInput(chainIdParams, { id });
        const view = toStatsResponse(await readChainStats({ db, readDb: db }, { chainId: params.id }));
        out.result(view, () => statsTables(view));
      }),
    );
}
