import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import pino from 'pino';
import { type BacktestResponse, toBacktestResponse } from '../api/routes/admin/backtests/schema.js';
import { type CreateChainBody, createChainSchema, toCreateChainInput } from '../api/routes/admin/quest-chains/create-schema.js';
import { explainParams, toExplanationResponse } from '../api/routes/quest-chains/explain/schema.js';
import { getBacktest, startBacktest } from '../core/backtests/requests.js';
import { getChain } from '../core/quest-chains/chains.js';
import { explainProgress } from '../core/quest-chains/explain-progress.js';
import type { Database } from '../shared/db/client.js';
import { senderUserId } from '../shared/domain/ids.js';
import type { BacktestProducer } from '../shared/queue/backtest-producer.js';
import { type Output, parseInput, runCommand, withQueues } from './context.js';

// `quest-chains chains explain` and `quest-chains chains backtest`: the same
// use-cases as the API's §11 and §12 routes. Explain runs in this process; a
// backtest is queued like the API's and run by a worker, this command
// following its row.

/** After this long with no worker on it, the command says a worker must run. */
const NO_WORKER_HINT_MS = 10_000;
/** How often the progress bar reads the backtest's row. */
const POLL_MS = 200;

function backtestLines(view: BacktestResponse): string[] {
  const result = view.result!;
  const pad = (text: string | number, width: number) => String(text).padStart(width);
  return [
    `backtest ${view.backtest_id}: ${result.users_evaluated} users evaluated`,
    `users started    ${pad(result.users_started, 8)}`,
    `users completed  ${pad(result.users_completed, 8)}`,
    '',
    'task  users completed',
    ...result.tasks.map((task) => `${pad(task.sequence_number, 4)}  ${pad(task.users_completed, 15)}`),
    '',
    `reward cost: task rewards ${result.reward_cost.task_rewards}, chain rewards ${result.reward_cost.chain_rewards}`,
    `sample: ${result.sample.length === 0 ? 'none' : result.sample.map((user) => `${user.platform_user_id} (${user.completed_tasks})`).join(', ')}`,
  ];
}

export function registerChainAnalysisCommands(
  chains: Command,
  json: () => boolean,
  readChainFile: (path: string, label: string) => Promise<unknown>,
) {
  chains
    .command('backtest <file>')
    .description(
      "predict what a draft chain (a POST /admin/v1/quest-chains body, not stored) would give away to the platform's users; a worker runs it (npm start runs one)",
    )
    .action((file: string) =>
      runCommand(json(), async ({ db, config, out }) => {
        const body = parseInput(createChainSchema, await readChainFile(file, file), 'file');
        // Queued like the API's; a worker runs it (npm start runs one).
        await withQueues(config, ({ backtests }) => followBacktest({ db, out, backtests }, body));
      }),
    );

  chains
    .command('explain <chainId> <platformUserId>')
    .description("why each task of a chain is or is not completed for one of its platform's users")
    .action((chainId: string, platformUserId: string) =>
      runCommand(json(), async ({ db, out }) => {
        const params = parseInput(explainParams, { questChainId: chainId, platformUserId });
        // The operator speaks for the chain's own platform.
        const { chain } = await getChain({ db }, { chainId: params.questChainId });
        const view = toExplanationResponse(
          await explainProgress(
            { db },
            { platformId: chain.platformId, chainId: chain.id, platformUserId: senderUserId(params.platformUserId) },
          ),
        );
        out.result(view, () => {
          if (!view.user.exists) return [`user ${platformUserId} is not registered by the chain's platform`];
          return [
            `chain ${view.quest_chain_id}, user ${platformUserId}: ${view.pending_events} event(s) not yet processed`,
            ...view.tasks.flatMap((task) => [
              `task ${task.sequence_number} ${task.user_status}${task.completed_by ? ` by ${task.completed_by.event_id} (${task.completed_by.event_type} at ${task.completed_by.timestamp}, ${task.completed_by.source})` : ''}`,
              ...task.candidates.map(
                (c) =>
                  `  ${c.timestamp}  ${c.event_id}  ${c.source.padEnd(10)}  ${String(c.amount ?? '-').padStart(8)} ${(c.currency ?? '-').padEnd(4)}  ${c.verdict}`,
              ),
            ]),
          ];
        });
      }),
    );
}

/** Starts the backtest on the queue and follows its row until it ends, with a progress bar (stderr) unless --json. */
async function followBacktest(context: { db: Database; out: Output; backtests: BacktestProducer }, body: CreateChainBody) {
  const { db, out } = context;
  // Its failure is reported as the command's; a log line would break --json's stderr.
  const started = await startBacktest(
    { db, logger: pino({ enabled: false }), backtests: context.backtests },
    toCreateChainInput(body),
  );
  // On stderr (cli-progress' default), so stdout holds only the result. Loaded here, not by every command of the CLI.
  const { Presets, SingleBar } = await import('cli-progress');
  const bar = out.json
    ? null
    : new SingleBar({ format: 'backtest |{bar}| {value}/{total} users', hideCursor: true }, Presets.shades_classic);
  bar?.start(started.usersTotal, 0);
  const waitingSince = Date.now();
  let hinted = false;
  let backtest = started;
  while (backtest.status === 'running') {
    await sleep(POLL_MS);
    backtest = await getBacktest({ db }, { backtestId: started.id });
    bar?.setTotal(Math.max(backtest.usersTotal, backtest.usersDone));
    bar?.update(backtest.usersDone);
    if (!hinted && backtest.runnerId === null && Date.now() - waitingSince > NO_WORKER_HINT_MS) {
      hinted = true;
      process.stderr.write(
        `\nbacktest ${backtest.id} is queued and no worker has taken it yet: is a worker running (npm start, or npm run start:worker)?\n`,
      );
    }
  }
  bar?.stop();
  if (backtest.status === 'failed') throw new Error(`backtest ${backtest.id} failed: ${backtest.error ?? 'no reason recorded'}`);
  const view = toBacktestResponse(backtest);
  out.result(view, () => backtestLines(view));
}
